"""What the Agent loop costs per step, with no SDK and no network; run by hand.

    python benchmarks/agent_loop.py [--steps N] [--repeat N]

Each run is one prompt answered in `--steps` tool steps (one call to a no-op tool each) and a
final text step, on `toolwire.testing.scripted.ScriptedAdapter` (the model's deltas are canned, so
what is timed is toolwire: normalizing the deltas, the step loop, running the call, the history).
Rows: `agent.run` with a sync and with an async tool, `agent.arun` likewise, and the floor — the
same responses through `adapter.normalize` alone (what any loop pays), and one round trip of a
no-op function through an executor thread (what running a sync tool off the event loop pays).
"loop µs/step" is the step time above those floors. Wall time is what a caller waits; CPU time
(every thread of the process) is steadier on a shared machine. Each figure is the best of
`--repeat` batches (the least disturbed by other processes). A last table counts, per step, what
the loop costs in kind: event-loop iterations, tasks created, and hand-overs between threads.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolwire import Agent, create_tool
from toolwire.deltas import Delta, StepFinished
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, ScriptedStream, answer, call


class _Unrecorded(ScriptedAdapter):
    """The scripted adapter without its request log (a JSON copy of the history per call is test aid)."""

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        entry = self.script.pop(0)
        return entry if isinstance(entry, ScriptedStream) else ScriptedStream(entry)


def _script(steps: int) -> list[Sequence[Delta]]:
    calls: list[Sequence[Delta]] = [[call(f"c{i}", "noop", "{}"), StepFinished("tool-calls")] for i in range(steps)]
    return [*calls, answer("done")]


def _sync_tool(args: Any) -> None:
    return None


async def _async_tool(args: Any) -> None:
    return None


def _agent(steps: int, execute: Callable[..., Any]) -> Agent:
    tool = create_tool(id="noop", description="Does nothing.", execute=execute)
    return Agent(api=_Unrecorded(_script(steps)), client=SCRIPTED_CLIENT, model="m", tools=[tool], max_steps=steps + 1)


Timing = tuple[float, float]
"""Wall and CPU seconds."""


def _per_step(run: Callable[[], Timing], steps: int, repeat: int) -> Timing:
    """Best wall and CPU µs per step over `repeat` batches of runs (each run times itself)."""
    runs = max(1, 1000 // steps)
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()
        timings = [run() for _ in range(runs)]
        walls.append(sum(t[0] for t in timings) / (runs * (steps + 1)) * 1e6)
        cpus.append(sum(t[1] for t in timings) / (runs * (steps + 1)) * 1e6)
    return min(walls), min(cpus)


class _Counts:
    iterations = 0
    tasks = 0
    hops = 0


class _CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts its iterations, the tasks made on it, and work handed to or from threads."""

    def _run_once(self) -> None:
        _Counts.iterations += 1
        super()._run_once()  # type: ignore[misc]  # the loop's own step, private but stable since 3.4

    def create_task(self, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        _Counts.tasks += 1
        return super().create_task(coro, **kwargs)

    def run_in_executor(self, executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        _Counts.hops += 1
        return super().run_in_executor(executor, func, *args)

    def call_soon_threadsafe(self, callback: Callable[..., Any], *args: Any, context: Any = None) -> Any:
        _Counts.hops += 1
        return super().call_soon_threadsafe(callback, *args, context=context)


class _CountingPolicy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return _CountingLoop()


def _kinds(run: Callable[[], Timing], steps: int) -> tuple[float, float, float]:
    """Event-loop iterations, tasks and thread hand-overs per tool step, over a few runs."""
    before = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(_CountingPolicy())
    run()  # warm: a first run may start the hooks' loop thread and executor threads
    _Counts.iterations = _Counts.tasks = _Counts.hops = 0
    try:
        for _ in range(10):
            run()
    finally:
        asyncio.set_event_loop_policy(before)
    per = 10 * steps
    return _Counts.iterations / per, _Counts.tasks / per, _Counts.hops / per


class _Clock:
    def __enter__(self) -> _Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def _sync_run(steps: int, execute: Callable[..., Any]) -> Timing:
    agent = _agent(steps, execute)
    with _Clock() as clock:
        result = agent.run("go")
    assert (result.steps, result.text) == (steps + 1, "done"), result
    return clock.wall, clock.cpu


def _async_run(steps: int, execute: Callable[..., Any]) -> Timing:
    async def timed() -> Timing:
        agent = _agent(steps, execute)
        with _Clock() as clock:
            result = await agent.arun("go")
        assert (result.steps, result.text) == (steps + 1, "done"), result
        return clock.wall, clock.cpu

    return asyncio.run(timed())


def _normalize_floor(steps: int) -> Timing:
    """The same responses normalized with no loop around them."""
    tool = create_tool(id="noop", description="Does nothing.", execute=_sync_tool)
    adapter = _Unrecorded(_script(steps))
    tools = {"noop": tool}
    with _Clock() as clock:
        for _ in range(steps + 1):
            for _event in adapter.normalize(adapter.invoke(None, {}, stream=True), tools=tools):
                pass
    return clock.wall, clock.cpu


def _thread_floor(steps: int) -> Timing:
    """One executor round trip per tool step: what a sync tool costs off the event loop, loop or not."""

    async def hops() -> Timing:
        loop = asyncio.get_running_loop()
        with _Clock() as clock:
            for _ in range(steps):
                await loop.run_in_executor(None, _sync_tool, None)
        return clock.wall, clock.cpu

    return asyncio.run(hops())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    steps, repeat = options.steps, options.repeat
    rows = [
        ("run, sync tool", lambda: _sync_run(steps, _sync_tool), True),
        ("run, async tool", lambda: _sync_run(steps, _async_tool), False),
        ("arun, sync tool", lambda: _async_run(steps, _sync_tool), True),
        ("arun, async tool", lambda: _async_run(steps, _async_tool), False),
    ]
    kinds = [(label, _kinds(run, steps)) for label, run, _hops in rows]  # first: the hooks' loop is counted too
    normalize = _per_step(lambda: _normalize_floor(steps), steps, repeat)
    thread = _per_step(lambda: _thread_floor(steps), steps, repeat)
    print(f"{steps} tool steps + 1 answer per run; best of {repeat} batches; µs per step")
    print(f"{'':<22} {'wall':>8} {'loop wall':>10} {'cpu':>8} {'loop cpu':>9}")
    print(f"{'floor: normalize':<22} {normalize[0]:>8.1f} {'':>10} {normalize[1]:>8.1f}")
    print(f"{'floor: thread hop':<22} {thread[0]:>8.1f} {'':>10} {thread[1]:>8.1f}")
    for label, run, hops in rows:
        wall, cpu = _per_step(run, steps, repeat)
        floor_wall = normalize[0] + (thread[0] if hops else 0.0)
        floor_cpu = normalize[1] + (thread[1] if hops else 0.0)
        print(f"{label:<22} {wall:>8.1f} {wall - floor_wall:>10.1f} {cpu:>8.1f} {cpu - floor_cpu:>9.1f}")
    print("\nper tool step, on every event loop (a sync tool's executor round trip is 2 hand-overs)")
    print(f"{'':<22} {'iterations':>10} {'tasks':>6} {'thread hand-overs':>18}")
    for label, (iterations, tasks, handovers) in kinds:
        print(f"{label:<22} {iterations:>10.1f} {tasks:>6.1f} {handovers:>18.1f}")


if __name__ == "__main__":
    main()
