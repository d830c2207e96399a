"""Code mode: sandbox cold start and the round trip of one `external_*` call (run by hand).

    /work/venv/bin/python benchmarks/codemode.py [--runs 15] [--calls 2000]

Cold start is one whole trivial run through `execute_tool` (spawn the confined child, confine,
`ready`, `start`, result, kill, clean up), measured with and without a pre-warmed child.
The round trip is the extra time per call of a program making N sequential calls to an echo
tool, over the same program making none. Targets: under 100 ms and under 0.5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

from toolwire import create_tool
from toolwire.codemode import Limits, LocalSandbox, create_code_mode
from toolwire.runtime import execute_tool


async def _timed(tool: Any, code: str) -> float:
    call = {"toolCallId": "bench", "toolName": tool.id, "input": {"code": code}}
    start = time.perf_counter()
    result = await execute_tool(tool, call)
    elapsed = time.perf_counter() - start
    if not result.raw.success:
        raise SystemExit(f"benchmark program failed: {result.raw.error}")
    return elapsed


async def cold_start(sandbox: LocalSandbox, runs: int) -> list[float]:
    tool = create_code_mode({}, sandbox=sandbox).tool
    await _timed(tool, "1")
    samples = []
    for _ in range(runs):
        samples.append(await _timed(tool, "1"))
        await asyncio.sleep(0.5)  # let a pre-warmed child get ready, as between two model turns
    return samples


async def round_trip(sandbox: LocalSandbox, calls: int, runs: int) -> list[float]:
    echo = create_tool(id="echo", description="Echo.", execute=lambda value: value)
    tool = create_code_mode({"echo": echo}, sandbox=sandbox, limits=Limits(max_calls=calls)).tool
    loop = f"for i in range({calls}):\n    await external_echo({{'i': i}})\ni"
    empty = f"for i in range({calls}):\n    pass\ni"
    samples = []
    for _ in range(runs):
        with_calls = await _timed(tool, loop)
        without = await _timed(tool, empty)
        samples.append((with_calls - without) / calls)
    return samples


def _report(name: str, samples: list[float], unit: float, label: str) -> None:
    values = sorted(s * unit for s in samples)
    print(
        f"{name:<32} median {statistics.median(values):8.3f} {label}   "
        f"min {values[0]:8.3f}   p90 {values[int(len(values) * 0.9) - 1]:8.3f}   (n={len(values)})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}; isolation: {', '.join(LocalSandbox().isolation().layers)}")
    _report("cold start", await cold_start(LocalSandbox(), args.runs), 1000, "ms")
    warm = LocalSandbox(prewarm=True)
    _report("cold start (prewarm=True)", await cold_start(warm, args.runs), 1000, "ms")
    await warm.aclose()
    _report("external_* round trip", await round_trip(LocalSandbox(), args.calls, max(3, args.runs // 3)), 1000, "ms")


if __name__ == "__main__":
    asyncio.run(main())
