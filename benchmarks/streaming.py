"""Streaming benchmark: one tool call with 100 KB and 1 MB of JSON arguments in 4-20 byte deltas.

Run by hand (`python benchmarks/streaming.py [--langchain]`); the `bench` extra installs the
peers. Prints, per size: toolwire from raw Anthropic SSE bytes (partial off / on with the value
read at every delta), from pre-built SDK event objects, the anthropic SDK's own decoding of
the same bytes, pydantic-ai's parts manager and (with --langchain) LangChain's chunk merging.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from collections.abc import Callable
from typing import Any

from toolwire import get_adapter
from toolwire.events import ToolInputDelta


def make_arguments(size: int, seed: int = 7) -> str:
    """A realistic argument object of about `size` bytes: records, a unicode string, escapes."""
    rng = random.Random(seed)
    records = []
    text = []
    while sum(len(t) for t in text) < size * 0.35:
        text.append(rng.choice(["é", "日本語", "😀", "\n", "\t", '"', "\\", "word ", "tool calls "]))
    while len(json.dumps(records)) < size * 0.5:
        records.append(
            {
                "id": len(records),
                "score": rng.random() * 100,
                "ok": rng.random() > 0.5,
                "none": None,
                "tags": [rng.choice("abcdef") * rng.randint(1, 5) for _ in range(3)],
                "nested": {"depth": {"more": {"x": rng.randint(0, 10**6)}}},
                "description": "lorem ipsum " * rng.randint(4, 30),
            }
        )
    value = {"records": records, "content": "".join(text), "notes": "escaped \u00e9\u65e5\U0001f600 " * (size // 400)}
    return json.dumps(value, ensure_ascii=False)


def split(text: str, seed: int = 11) -> list[str]:
    """Cut text into 4-20 character deltas."""
    rng = random.Random(seed)
    pieces, position = [], 0
    while position < len(text):
        step = rng.randint(4, 20)
        pieces.append(text[position : position + step])
        position += step
    return pieces


def anthropic_sse(deltas: list[str]) -> bytes:
    """The Anthropic SSE stream carrying one tool call with these argument deltas."""
    frames = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_bench",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-6",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_bench", "name": "write", "input": {}},
            },
        ),
    ]
    frames += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}},
        )
        for d in deltas
    ]
    frames += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in frames).encode()


def timed(function: Callable[[], Any], repeat: int = 3) -> float:
    """Best of `repeat` runs in seconds (GC on, collected before each run; the minimum is the least noisy)."""
    samples = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return min(samples)


def toolwire_raw(body: bytes, partial: bool) -> Callable[[], Any]:
    adapter = get_adapter("anthropic")

    def run() -> None:
        for event in adapter.normalize(body, partial=partial):
            if partial and isinstance(event, ToolInputDelta):
                event.partial_input  # noqa: B018 - reading it is the point

    return run


def sdk_events(body: bytes) -> list[Any]:
    """The anthropic SDK's own event objects for the body (built once)."""
    import anthropic
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic.Anthropic(api_key="x", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    return list(client.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=[], stream=True))


def sdk_decode(body: bytes) -> Callable[[], Any]:
    return lambda: sdk_events(body)


def toolwire_objects(events: list[Any]) -> Callable[[], Any]:
    adapter = get_adapter("anthropic")
    return lambda: sum(1 for _ in adapter.normalize(events))


def pydantic_ai(deltas: list[str]) -> Callable[[], Any] | None:
    try:
        from pydantic_ai._parts_manager import ModelResponsePartsManager
        from pydantic_ai.models import ModelRequestParameters
    except ImportError:
        return None

    def run() -> None:
        manager = ModelResponsePartsManager(ModelRequestParameters())
        for delta in deltas:
            manager.handle_tool_call_delta(vendor_part_id=0, tool_name="write", args=delta, tool_call_id="t")
        manager.get_parts()[0].args_as_dict()  # type: ignore[union-attr]

    return run


def langchain(deltas: list[str]) -> Callable[[], Any] | None:
    try:
        from langchain_core.messages import AIMessageChunk
    except ImportError:
        return None
    chunks = [
        AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": d, "id": None, "index": 0}]) for d in deltas
    ]

    def run() -> None:
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk

    return run


def _cases(body: bytes, deltas: list[str], *, with_langchain: bool) -> dict[str, Callable[[], Any]]:
    """Builders, so each case gets a heap without the others' leftovers: 78k live SDK objects make
    every full GC pass of a later case slower, which would show up as false superlinearity."""
    cases: dict[str, Callable[[], Any]] = {
        "toolwire raw SSE, partial=False": lambda: toolwire_raw(body, False),
        "toolwire raw SSE, partial=True (read every delta)": lambda: toolwire_raw(body, True),
        "toolwire from SDK event objects": lambda: toolwire_objects(sdk_events(body)),
        "anthropic SDK: decode SSE into its events": lambda: sdk_decode(body),
        "pydantic-ai parts manager (no partial values)": lambda: pydantic_ai(deltas),
    }
    if with_langchain:  # quadratic: minutes at 100 KB, hours at 1 MB
        cases["langchain AIMessageChunk + loop"] = lambda: langchain(deltas)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--langchain", action="store_true", help="include LangChain (quadratic: minutes at 100 KB)")
    parser.add_argument("--sizes", default="100000,1000000")
    args = parser.parse_args()
    rows: dict[str, dict[int, float]] = {}
    counts: dict[int, int] = {}
    sizes = [int(s) for s in args.sizes.split(",")]
    for size in sizes:
        deltas = split(make_arguments(size))
        counts[size] = len(deltas)
        body = anthropic_sse(deltas)
        cases = _cases(body, deltas, with_langchain=args.langchain and size <= 100_000)
        for name, build in cases.items():
            function = build()
            if function is not None:
                rows.setdefault(name, {})[size] = timed(function, repeat=5 if size <= 100_000 else 3)
            del function
            gc.collect()
    print(f"{'case':52} " + " ".join(f"{s // 1000:>7} KB  us/delta" for s in sizes) + "   1MB/100KB")
    for name, values in rows.items():
        cells = []
        for size in sizes:
            seconds = values.get(size)
            cells.append(f"{seconds * 1000:>8.1f} ms {seconds * 1e6 / counts[size]:>6.2f}" if seconds else " " * 19)
        ratio = (
            values[sizes[-1]] / values[sizes[0]] if len(sizes) > 1 and sizes[-1] in values and sizes[0] in values else 0
        )
        print(f"{name:52} " + " ".join(cells) + (f"   {ratio:5.1f}x" if ratio else ""))
    print("deltas:", counts)


if __name__ == "__main__":
    main()
