"""Durable runs: what DBOS adds per agent step, on SQLite and on Postgres (run by hand).

    python benchmarks/durable.py [--steps 20] [--runs 5] [--postgres postgresql://...]

One step is one model call (a scripted response: a few text deltas and one tool call, so ~10
stream events) and one tool call (returns at once). The same conversation runs through a plain
`Agent` (in-process, nothing recorded) and through a `DurableAgent` on each database; the
overhead per step is `(durable - plain) / steps`. Also reported: the stream entries and the DBOS
operations (steps, stream writes, recv, ...) each step records. The Postgres URL defaults to
`TOOLWIRE_TEST_POSTGRES_URL` (`.ci/postgres.sh start` prints one); without it only SQLite runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from dbos import DBOS

from toolwire import Agent, create_tool
from toolwire.deltas import Delta, StepFinished, TextPiece
from toolwire.durable import DurableAgent, dbos_config
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call


def _script(steps: int) -> list[list[Delta]]:
    turns: list[list[Delta]] = []
    for index in range(steps):
        pieces = [TextPiece("t", word) for word in ("Looking ", "that ", "up ", "now", ".")]
        turns.append([*pieces, call(f"c{index}", "noop", '{"n": 1}'), StepFinished("tool-calls")])
    turns.append(answer("Done."))
    return turns


def _options(steps: int) -> dict[str, Any]:
    noop = create_tool(id="noop", description="Nothing.", execute=lambda value: "ok")
    return {
        "api": ScriptedAdapter(_script(steps), by_turn=True),
        "client": SCRIPTED_CLIENT,
        "model": "m",
        "tools": [noop],
        "max_steps": steps + 1,
    }


def plain(steps: int, runs: int) -> float:
    samples = []
    for _ in range(runs):
        agent = Agent(**_options(steps))
        start = time.perf_counter()
        agent.run("Go")
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def durable(database_url: str, steps: int, runs: int) -> tuple[float, float, float]:
    """Median seconds per run, stream entries and recorded operations per step."""
    DBOS(config=dbos_config("toolwire-bench", database_url, log_level="WARNING"))
    DBOS.launch()
    agent = DurableAgent(f"bench-{uuid.uuid4().hex[:8]}", **_options(steps))
    try:
        agent.start("warm up").final_state()
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            run = agent.start("Go")
            run.final_state()
            samples.append(time.perf_counter() - start)
        entries = len(list(run.events(until="end")))
        operations = len(DBOS.list_workflow_steps(run.run_id))
        return statistics.median(samples), entries / (steps + 1), operations / (steps + 1)
    finally:
        agent.forget()
        DBOS.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgres", default=os.environ.get("TOOLWIRE_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    baseline = plain(args.steps, args.runs)
    per_step = baseline / (args.steps + 1)
    print(f"{args.steps} tool steps + 1 answer, median of {args.runs} runs")
    print(f"plain Agent        {per_step * 1e3:8.2f} ms/step")
    databases = [("SQLite", f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite'}")]
    if args.postgres:
        databases.append(("Postgres", args.postgres.rsplit("/", 1)[0] + f"/toolwire_bench_{uuid.uuid4().hex[:8]}"))
    for label, url in databases:
        seconds, entries, operations = durable(url, args.steps, args.runs)
        step = seconds / (args.steps + 1)
        print(
            f"durable, {label:<9}{step * 1e3:8.2f} ms/step  overhead {(step - per_step) * 1e3:7.2f} ms/step"
            f"  ({step / per_step:5.1f}x)  {entries:.1f} stream entries and {operations:.1f} DBOS operations per step"
        )


if __name__ == "__main__":
    main()
