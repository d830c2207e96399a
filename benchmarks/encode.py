"""Tool-definition encoding: uncached (first request for a tool) and cached (every later one); run by hand.

    python benchmarks/encode.py [--repeat N]

The tool is a realistic 30-field input (nested models, enums, Optionals, lists, a union, `$defs`),
encoded for every adapter with strict unset and strict asked for. "uncached" clears the tool's
wire cache before each call, so it includes the strict transforms and the provider rules;
"cached" is the per-tool cached path every later request takes. A last line times null repair
of a strict emission (every optional property sent as null), which runs per tool call.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolwire import create_tool, get_adapter


class Priority(StrEnum):
    low = "low"
    medium = "medium"
    high = "high"


class Contact(BaseModel):
    name: str = Field(description="Full name")
    email: str | None = None
    phone: str | None = None


class Address(BaseModel):
    street: str
    city: str
    postal_code: str | None = None
    country: str = "FR"


class Attachment(BaseModel):
    filename: str
    url: str = Field(description="Where the file is")
    size_bytes: int | None = Field(default=None, ge=0)


class CreateTicket(BaseModel):
    """Create a support ticket (30 fields, nested models, enums, Optionals, $defs)."""

    title: str = Field(description="Short summary", max_length=200)
    description: str = Field(description="Full description, markdown allowed")
    priority: Priority = Priority.medium
    tags: list[str] = Field(default_factory=list)
    reporter: Contact
    assignee: Contact | None = None
    watchers: list[Contact] = Field(default_factory=list)
    attachments: list[Attachment] = Field(default_factory=list)
    due_date: date | None = None
    estimate_hours: float | None = Field(default=None, ge=0)
    story_points: int | None = Field(default=None, ge=0, le=100)
    component: Literal["api", "ui", "db", "infra", "docs"] = "api"
    severity: int | str = 3
    is_public: bool = True
    is_blocking: bool = False
    parent_id: int | None = None
    related_ids: list[int] = Field(default_factory=list)
    environment: str | None = None
    version: str | None = Field(default=None, pattern=r"^\d+\.\d+\.\d+$")
    os: Literal["linux", "macos", "windows"] | None = None
    browser: str | None = None
    reproducible: bool | None = None
    steps: list[str] = Field(default_factory=list)
    expected: str | None = None
    actual: str | None = None
    billing_address: Address | None = None
    customer_id: str | None = None
    sla_hours: int = 48
    language: str = "en"
    notify: bool = True


_ADAPTERS = [
    ("openai-chat", {}),
    ("openai-responses", {}),
    ("anthropic", {}),
    ("gemini", {}),
    ("gemini", {"schema_format": "openapi"}),
]


def _per_call(run: Callable[[], Any], repeat: int) -> float:
    """Median µs per call over `repeat` batches of at least 0.2 s."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            run()
        if time.perf_counter() - start > 0.2:
            break
        calls *= 2
    timings = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(calls):
            run()
        timings.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    tool = create_tool(id="create_ticket", description="Create a support ticket.", input_schema=CreateTicket)
    print(f"{'adapter':<28} {'strict':<7} {'uncached µs':>12} {'cached µs':>10}")
    for api, settings in _ADAPTERS:
        adapter = get_adapter(api, **settings)
        label = api + (f" ({settings['schema_format']})" if settings else "")
        for strict in (None, True):

            def uncached(adapter: Any = adapter, strict: bool | None = strict) -> None:
                tool._wire_cache.clear()
                adapter.encode_tools([tool], strict=strict)

            def cached(adapter: Any = adapter, strict: bool | None = strict) -> None:
                adapter.encode_tools([tool], strict=strict)

            cold, warm = _per_call(uncached, repeat), _per_call(cached, repeat)
            print(f"{label:<28} {strict!s:<7} {cold:>12.1f} {warm:>10.1f}")
    schema = tool.input_schema
    sent = dict.fromkeys(CreateTicket.model_fields) | {
        "title": "t",
        "description": "d",
        "reporter": {"name": "a", "email": None, "phone": None},
        "watchers": [{"name": "b", "email": None, "phone": None}],
    }
    print(f"null repair of a strict emission: {_per_call(lambda: schema.drop_disallowed_nulls(sent), repeat):.1f} µs")


if __name__ == "__main__":
    main()
