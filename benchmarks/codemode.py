"""Code mode: sandbox cold start, one `external_*` round trip, and hostile floods (run by hand).

    /work/venv/bin/python benchmarks/codemode.py [--runs 15] [--calls 2000] [--flood 60000]

Cold start is one whole trivial run through `execute_tool` (spawn the confined child, confine,
`ready`, `start`, result, kill, clean up), measured with and without a pre-warmed child.
The round trip is the extra time per call of a program making N sequential calls to an echo
tool, over the same program making none. Targets: under 100 ms and under 0.5 ms.

The floods are issue 13's attack: a program writes `--flood` forged requests (calls to a tool
it may not call, or catalog lookups) straight to its pipe and never reads a reply, with a 3 s
timeout. Reported: how long the run took to return and the longest the host event loop went
without running a 50 ms heartbeat. The blocked-loop case is a tool that blocks the event loop
for 10 s with a 1 s timeout: when the runner died, measured from the run's start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
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


_FORGED = {
    "calls": '{"jsonrpc":"2.0","id":%d,"method":"call","params":{"tool":"admin","input":{}}}\n',
    "lookups": '{"jsonrpc":"2.0","id":%d,"method":"search","params":{"query":"x"}}\n',
}


async def flood(kind: str, frames: int) -> tuple[float, float, str]:
    """Seconds until the run returned, the longest heartbeat gap, and the error the run ended with."""
    echo = create_tool(id="echo", description="Echo.", execute=lambda value: value)
    code_mode = create_code_mode({"echo": echo}, sandbox=LocalSandbox(), timeout=3.0)
    code = (
        "import json, os, sys, time\nfd = json.loads(sys.argv[1])['io'][1]\n"
        f"for i in range({frames}):\n    os.write(fd, ({_FORGED[kind]!r} % (i + 1000)).encode())\ntime.sleep(60)"
    )
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.05)
            now = time.perf_counter()
            gaps.append(now - last - 0.05)
            last = now

    beating = asyncio.ensure_future(heartbeat())
    start = time.perf_counter()
    result = await code_mode.run(code)
    elapsed = time.perf_counter() - start
    beating.cancel()
    return elapsed, max(gaps, default=0.0), f"{result.error.name if result.error else 'none'}"


async def blocked_loop() -> float:
    """Seconds from the run's start until the runner was dead, while a tool blocks the loop for 10 s."""
    died: list[float] = []
    start = time.perf_counter()

    async def hog(value: dict[str, Any]) -> str:
        while time.perf_counter() - start < 10:
            try:
                state = Path(f"/proc/{value['pid']}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                state = "X"
            if state in ("Z", "X") and not died:
                died.append(time.perf_counter() - start)
            time.sleep(0.005)
        return "late"

    tool = create_tool(id="hog", description="Blocks the loop.", execute=hog)
    code_mode = create_code_mode({"hog": tool}, sandbox=LocalSandbox(), timeout=1.0)
    await code_mode.run("import os, time\nawait external_hog({'pid': os.getpid()})\ntime.sleep(60)")
    return died[0] if died else float("nan")


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
    parser.add_argument("--flood", type=int, default=60_000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}; isolation: {', '.join(LocalSandbox().isolation().layers)}")
    _report("cold start", await cold_start(LocalSandbox(), args.runs), 1000, "ms")
    warm = LocalSandbox(prewarm=True)
    _report("cold start (prewarm=True)", await cold_start(warm, args.runs), 1000, "ms")
    await warm.aclose()
    _report("external_* round trip", await round_trip(LocalSandbox(), args.calls, max(3, args.runs // 3)), 1000, "ms")
    for kind in _FORGED:
        elapsed, stall, error = await flood(kind, args.flood)
        print(f"flood of {args.flood} forged {kind:<8} returned after {elapsed:6.2f} s, "
              f"longest loop stall {stall * 1000:7.1f} ms ({error})")  # fmt: skip
    print(f"tool blocking the loop 10 s, timeout 1 s: runner dead {await blocked_loop():.2f} s after the start")


if __name__ == "__main__":
    asyncio.run(main())
