"""Encoding 50 tools for every api: the first call (translation) and repeats (the per-tool cache).

Run by hand (`python benchmarks/encode_cache.py [--tools 50] [--runs 7]`). The tools are a
realistic mix: pydantic models (flat and nested with `$defs`, enums, optionals, patterns) and
JSON Schema dicts, a fifth of them with input examples. Each figure is the median of `runs`
batches of at least 0.2 s; the "floor" row is a fresh shallow copy of each cached entry, what
a cache that hands out new top-level objects cannot go below.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import warnings
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal

import pydantic

from toolwire import CompatibilityWarning, Tool, create_tool, get_adapter

APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")


class Priority(StrEnum):
    LOW = "low"
    HIGH = "high"


class Address(pydantic.BaseModel):
    street: str
    city: str
    postcode: str = pydantic.Field(pattern=r"^[0-9]{5}$")


class Contact(pydantic.BaseModel):
    name: str
    email: str | None = None
    address: Address | None = None


class CreateTicket(pydantic.BaseModel):
    """A ticket with nested models, enums, optionals and literals (about 30 fields with its $defs)."""

    title: str = pydantic.Field(description="One line.")
    body: str
    priority: Priority = Priority.LOW
    kind: Literal["bug", "feature", "question"]
    reporter: Contact
    watchers: list[Contact] = []
    labels: list[str] = []
    estimate_hours: float | None = None
    due: str | None = pydantic.Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    parent_id: int | None = None


class SearchFiles(pydantic.BaseModel):
    query: str
    path: str = "."
    glob: str | None = None
    case_sensitive: bool = False
    max_results: int = pydantic.Field(default=50, ge=1, le=500)
    include_hidden: bool = False
    regex: bool = False
    context_lines: int = 0
    sort: Literal["path", "mtime", "size"] = "path"
    exclude: list[str] = []


def _dict_schema(index: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": f"Record {index}."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "fields": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
            "filter": {
                "type": "object",
                "properties": {"status": {"type": "string"}, "since": {"type": "string", "format": "date"}},
                "additionalProperties": False,
            },
        },
        "required": ["id"],
    }


def make_tools(count: int) -> list[Tool]:
    """`count` distinct tools: a third nested models, a third flat models, a third dict schemas."""
    tools = []
    for index in range(count):
        schema: Any = (CreateTicket, SearchFiles, _dict_schema(index))[index % 3]
        examples = [{"input": {"id": "r1", "limit": 5}}] if index % 3 == 2 and index % 5 == 0 else None
        tools.append(
            create_tool(
                id=f"tool_{index}",
                description=f"Tool number {index}: does one useful thing with its input.",
                input_schema=schema,
                input_examples=examples,
            )
        )
    return tools


def per_call(function: Callable[[], Any], runs: int) -> float:
    """Median seconds per call over `runs` batches of at least 0.2 s each."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            function()
        if time.perf_counter() - start >= 0.2:
            break
        number *= 2
    samples = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            function()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def first_call(api: str, count: int, runs: int) -> float:
    """Median seconds of one uncached `encode_tools` (fresh tools each time; building them not timed)."""
    adapter = get_adapter(api)
    samples = []
    for _ in range(runs):
        tools = make_tools(count)
        gc.collect()
        start = time.perf_counter()
        adapter.encode_tools(tools)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("ignore", CompatibilityWarning)  # still issued (and paid for) on every call
    tools = make_tools(args.tools)
    print(f"{args.tools} tools; median of {args.runs} batches; times per encode_tools call")
    print(f"{'api':<18} {'first call':>12} {'repeat':>10} {'per tool':>10} {'floor':>10} {'first/repeat':>13}")
    for api in APIS:
        adapter = get_adapter(api)
        encoded = adapter.encode_tools(tools)
        entries = _entries(encoded)
        first = first_call(api, args.tools, args.runs)
        repeat = per_call(lambda adapter=adapter: adapter.encode_tools(tools), args.runs)
        floor = per_call(lambda entries=entries: [dict(entry) for entry in entries], args.runs)
        print(
            f"{api:<18} {first * 1e3:9.2f} ms {repeat * 1e6:7.1f} µs {repeat / args.tools * 1e6:7.2f} µs"
            f" {floor * 1e6:7.1f} µs {first / repeat:12.0f}x"
        )


def _entries(fragment: dict[str, Any]) -> list[dict[str, Any]]:
    tools = fragment["tools"]
    return list(tools[0]["functionDeclarations"]) if "functionDeclarations" in tools[0] else list(tools)


if __name__ == "__main__":
    main()
