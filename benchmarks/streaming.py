"""Streaming benchmark: one tool call of 1 MB of JSON arguments in 4-20 byte deltas, on every API.

Run by hand: `python benchmarks/streaming.py` (`--help` for options). For each API
(anthropic, openai-chat, openai-responses, gemini) and each source form (whole bytes, 1 KB
and 64 KB chunks, the official SDK's event objects, an async iterator of 64 KB chunks) it
prints toolwire's time per argument delta, next to:

- the floor: a bare loop that splits the SSE lines and `json.loads` each data line;
- `partial=True` with the partial input read at every delta;
- the peak memory (tracemalloc) while normalizing the whole bytes, as a multiple of the
  argument bytes, and the same minus the parsed input the caller is handed;
- the Vercel AI SDK (node, `benchmarks/node`: `npm ci` there first) decoding the same bytes
  through each provider's `doStream`;
- the growth of the time per delta from 100 KB to 1 MB (1.0 is linear).

The machine may be shared: cases run interleaved, round after round, and each figure is the
median over the rounds, so ratios come from the same run. The node figures are taken once per
round between the Python cases. Pass `--peers` for the anthropic SDK's own decoding and
pydantic-ai's parts manager on the same stream.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import _streams

from toolwire import get_adapter

NODE_DIR = Path(__file__).parent / "node"
FORMS = ("whole bytes", "1 KB chunks", "64 KB chunks", "SDK objects", "async 64 KB chunks")


def floor(raw: bytes) -> Callable[[], Any]:
    """The practical floor: split the SSE lines, `json.loads` every data line."""

    def run() -> None:
        loads = json.loads
        for line in raw.split(b"\n"):
            if line.startswith(b"data: ") and line[6:7] != b"[":
                loads(line[6:])

    return run


def chunks_of(raw: bytes, size: int) -> list[bytes]:
    return [raw[start : start + size] for start in range(0, len(raw), size)]


def drain(api: str, source: Any, partial: bool = False) -> Callable[[], Any]:
    adapter = get_adapter(api)

    def run() -> None:
        for event in adapter.normalize(source, partial=partial):
            if partial and event.type == "tool-input-delta":
                event.partial_input  # noqa: B018 - reading it is the point

    return run


def drain_async(api: str, chunks: list[bytes]) -> Callable[[], Any]:
    adapter = get_adapter(api)

    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def consume() -> None:
        async for _ in adapter.anormalize(source()):
            pass

    return lambda: asyncio.run(consume())


def cases(api: str, raw: bytes) -> dict[str, Callable[[], Any]]:
    """Every timed case of one API, built once (the SDK objects are built by the SDK, untimed)."""
    return {
        "floor": floor(raw),
        "whole bytes": drain(api, raw),
        "1 KB chunks": drain(api, chunks_of(raw, 1024)),
        "64 KB chunks": drain(api, chunks_of(raw, 65536)),
        "SDK objects": drain(api, _streams.sdk_objects(api, raw)),
        "async 64 KB chunks": drain_async(api, chunks_of(raw, 65536)),
        "partial=True": drain(api, raw, partial=True),
    }


def timed(function: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def peak_memory(api: str, raw: bytes, arguments: str) -> tuple[float, float]:
    """Peak bytes allocated while normalizing `raw`, and the size of the parsed input it hands out."""
    adapter = get_adapter(api)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in adapter.normalize(raw):
        pass
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    value = json.loads(arguments)
    value_size = tracemalloc.get_traced_memory()[0] - base
    del value
    tracemalloc.stop()
    return peak, value_size


def vercel(bodies: dict[str, bytes], runs: int) -> dict[str, list[float]]:
    """Seconds per run of the Vercel AI SDK on each body ({} when node or its packages are missing)."""
    if shutil.which("node") is None or not (NODE_DIR / "node_modules").exists():
        return {}
    with tempfile.TemporaryDirectory() as folder:
        for api, raw in bodies.items():
            Path(folder, f"{api}.sse").write_bytes(raw)
        result = subprocess.run(
            ["node", "--expose-gc", str(NODE_DIR / "vercel.mjs"), folder, str(runs)],
            capture_output=True,
            text=True,
            check=True,
        )
    data = json.loads(result.stdout)
    return {api: data[api] for api in bodies if api in data}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apis", default=",".join(_streams.APIS))
    parser.add_argument("--size", type=int, default=1_000_000, help="argument bytes of the call (default 1 MB)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-node", action="store_true", help="skip the Vercel AI SDK")
    parser.add_argument("--no-scaling", action="store_true", help="skip the 100 KB run (linearity column)")
    parser.add_argument("--peers", action="store_true", help="also the anthropic SDK and pydantic-ai")
    args = parser.parse_args()
    apis = args.apis.split(",")
    arguments = _streams.make_arguments(args.size)
    small_arguments = _streams.make_arguments(args.size // 10)
    bodies: dict[str, bytes] = {}
    deltas: dict[str, int] = {}
    small: dict[str, tuple[bytes, int]] = {}
    for api in apis:
        bodies[api], deltas[api] = _streams.body(api, arguments)
        small[api] = _streams.body(api, small_arguments)
    samples: dict[tuple[str, str], list[float]] = {}
    node: dict[str, list[float]] = {}
    print(f"load before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    for round_number in range(args.rounds):
        for api in apis:
            built = cases(api, bodies[api])
            if not args.no_scaling:
                built |= {f"{name} @small": run for name, run in cases(api, small[api][0]).items()}
            for name, run in built.items():
                samples.setdefault((api, name), []).append(timed(run))
            del built
            gc.collect()
        if not args.no_node and round_number < 3:
            for api, seconds in vercel(bodies, 1).items():
                node.setdefault(api, []).extend(seconds)
        print(f"round {round_number + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    memory = {api: peak_memory(api, bodies[api], arguments) for api in apis}
    print_table(apis, samples, node, memory, deltas, {api: small[api][1] for api in apis}, len(arguments.encode()))
    if args.peers:
        peers(bodies.get("anthropic") or _streams.body("anthropic", arguments)[0], deltas.get("anthropic", 0))


def print_table(
    apis: list[str],
    samples: dict[tuple[str, str], list[float]],
    node: dict[str, list[float]],
    memory: dict[str, tuple[float, float]],
    deltas: dict[str, int],
    small_deltas: dict[str, int],
    argument_bytes: int,
) -> None:
    """The Markdown table of the README: µs per argument delta, medians over the rounds."""

    def per_delta(api: str, name: str, count: int) -> float | None:
        values = samples.get((api, name))
        return statistics.median(values) * 1e6 / count if values else None

    print(f"\nOne call of {argument_bytes / 1e6:.2f} MB of arguments; µs per argument delta (median of rounds).\n")
    print("| api | source | toolwire | × floor | floor | partial=True | Vercel AI SDK | memory peak | 1 MB / 100 KB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for api in apis:
        count = deltas[api]
        base = per_delta(api, "floor", count)
        for form in FORMS:
            value = per_delta(api, form, count)
            small = per_delta(api, f"{form} @small", small_deltas[api])
            growth = f"{value / small:.2f}" if value and small else ""
            ratio = f"{value / base:.2f}x" if value and base and form != "SDK objects" else ""
            cells = [api if form == FORMS[0] else "", form, f"{value:.2f}" if value else "", ratio]
            if form == FORMS[0]:
                partial = per_delta(api, "partial=True", count)
                peak, value_size = memory[api]
                seconds = node.get(api)
                cells += [
                    f"{base:.2f}" if base else "",
                    f"{partial:.2f} ({partial / value:.2f}x)" if partial and value else "",
                    f"{statistics.median(seconds) * 1e6 / count:.2f}" if seconds else "",
                    f"{peak / argument_bytes:.1f}x ({(peak - value_size) / argument_bytes:.1f}x)",
                ]
            else:
                cells += ["", "", "", ""]
            cells.append(growth)
            print("| " + " | ".join(cells) + " |")
    print(
        "\nmemory peak: tracemalloc peak while normalizing the whole bytes, as a multiple of the argument bytes; "
        "in brackets, without the parsed input handed to the caller."
    )


def peers(raw: bytes, count: int) -> None:
    """The anthropic SDK decoding the same bytes into its events, and pydantic-ai's parts manager."""
    import anthropic
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    client = anthropic.Anthropic(api_key="x", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    runs: dict[str, Callable[[], Any]] = {
        "anthropic SDK: decode the SSE into its events": lambda: list(
            client.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=[], stream=True)
        )
    }
    try:
        from pydantic_ai._parts_manager import ModelResponsePartsManager
        from pydantic_ai.models import ModelRequestParameters
    except ImportError:
        pass
    else:
        pieces = _streams.split(_streams.make_arguments(1_000_000))

        def parts_manager() -> None:
            manager = ModelResponsePartsManager(ModelRequestParameters())
            for piece in pieces:
                manager.handle_tool_call_delta(vendor_part_id=0, tool_name="write", args=piece, tool_call_id="t")
            manager.get_parts()[0].args_as_dict()  # type: ignore[union-attr]

        runs["pydantic-ai parts manager (argument strings only, no partial values)"] = parts_manager
    print("\n| peer (anthropic, same stream) | µs per delta |\n| --- | ---: |")
    for name, run in runs.items():
        print(f"| {name} | {min(timed(run) for _ in range(3)) * 1e6 / count:.2f} |")


if __name__ == "__main__":
    main()
