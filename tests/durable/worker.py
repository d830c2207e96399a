"""A worker process for the durable-run tests: defines the agent, launches DBOS, and runs or recovers runs.

    python worker.py DATABASE_URL FOLDER start RUN_ID     # start a run here, exit when it ends
    python worker.py DATABASE_URL FOLDER serve RUN_ID     # recover and serve, exit when the run ends
    python worker.py DATABASE_URL FOLDER serve -          # serve until FOLDER/stop exists

Two agents are defined: `kill-test` (the recovery scenario) and `queue-test` (six background
calls in one turn, each noting which worker ran it).

Side effects are counted in files of FOLDER: `effects.log` (a line per finished tool call),
`starts.log` (a line per started one), `models.log` (a line per model call). `TOOLWIRE_HOLD`
makes the first attempt of one unit hang, after writing a marker file, so a test can kill the
process there: `model` (turn 1, after two text deltas), `tool` (the `slow_lookup` call).
The model is scripted by turn, so every process gives the same conversation the same answers.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolwire import create_tool
from toolwire.deltas import Delta, StepFinished, TextPiece
from toolwire.durable import DurableAgent
from toolwire.runtime import ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, call
from toolwire.tools import Tool

AGENT = "kill-test"
PROMPT = "Check the records, then clean up."
TURNS: list[list[Delta]] = [
    [
        TextPiece("t", "Let me check."),
        call("c1", "slow_lookup", '{"key": "a"}'),
        call("c2", "fast_lookup", '{"key": "b"}'),
        call("c3", "delete_file", '{"path": "old.txt"}'),
        StepFinished("tool-calls"),
    ],
    [TextPiece("t", "All "), TextPiece("t", "done"), TextPiece("t", ": 42 found."), StepFinished("stop")],
]
KEY = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def _note(folder: Path, name: str, line: str) -> None:
    with (folder / name).open("a", encoding="utf-8") as log:
        log.write(line + "\n")


def _hold_once(folder: Path, what: str) -> bool:
    """True the first time this process family reaches the hold point of `what` (it writes the marker)."""
    if os.environ.get("TOOLWIRE_HOLD") != what:
        return False
    marker = folder / f"held-{what}"
    if marker.exists():
        return False
    marker.touch()
    return True


class _HoldingStream:
    """Deltas of one response; on the first attempt it hangs before delta `hold_at` (the test kills it there)."""

    def __init__(self, deltas: Sequence[Delta], hold: bool, hold_at: int) -> None:
        self._deltas = list(deltas)
        self._hold = hold
        self._hold_at = hold_at

    def __iter__(self) -> Iterator[Delta]:
        for index, delta in enumerate(self._deltas):
            if self._hold and index == self._hold_at:
                time.sleep(3600)
            yield delta

    async def __aiter__(self) -> AsyncIterator[Delta]:
        for index, delta in enumerate(self._deltas):
            if self._hold and index == self._hold_at:
                await asyncio.sleep(3600)
            yield delta

    def close(self) -> None:
        """What SDK streams offer."""


class _TurnModel(ScriptedAdapter):
    """The scripted model by turn, counting its calls and holding where `TOOLWIRE_HOLD` says."""

    def __init__(self, folder: Path) -> None:
        super().__init__(TURNS, by_turn=True)
        self._folder = folder

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
        _note(self._folder, "models.log", f"turn {turn}")
        hold = turn == 1 and _hold_once(self._folder, "model")
        return _HoldingStream(TURNS[turn], hold, hold_at=2)


def tools(folder: Path) -> list[Tool]:
    """The three tools, each noting its effect once it finished."""

    def slow_lookup(value: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        _note(folder, "starts.log", f"slow_lookup {context.tool_call_id}")
        if _hold_once(folder, "tool"):
            time.sleep(3600)
        _note(folder, "effects.log", f"slow_lookup {context.tool_call_id}")
        return {"key": value["key"], "found": 42}

    def fast_lookup(value: dict[str, Any], context: ToolContext) -> str:
        _note(folder, "effects.log", f"fast_lookup {context.tool_call_id}")
        return "quick"

    def delete_file(value: dict[str, Any], context: ToolContext) -> str:
        _note(folder, "effects.log", f"delete_file {context.tool_call_id}")
        return f"deleted {value['path']}"

    return [
        create_tool(id="slow_lookup", description="Look up slowly.", input_schema=KEY, execute=slow_lookup),
        create_tool(id="fast_lookup", description="Look up quickly.", input_schema=KEY, execute=fast_lookup),
        create_tool(
            id="delete_file",
            description="Delete a file.",
            input_schema=PATH,
            execute=delete_file,
            require_approval=True,
        ),
    ]


def define(folder: Path) -> DurableAgent:
    """The agent every process defines under the same name."""
    return DurableAgent(AGENT, api=_TurnModel(folder), client=SCRIPTED_CLIENT, model="m", tools=tools(folder))


QUEUE_AGENT = "queue-test"
QUEUE_CALLS = [f"q{n}" for n in range(1, 7)]


def define_queue(folder: Path) -> DurableAgent:
    """Six background calls in one turn on a queue each worker takes one task at a time from."""

    def work(value: dict[str, Any], context: ToolContext) -> str:
        _note(folder, "effects.log", f"{context.tool_call_id} {os.environ.get('TOOLWIRE_EXECUTOR', 'local')}")
        time.sleep(0.5)
        return f"done {value['key']}"

    tool = create_tool(id="work", description="Work.", input_schema=KEY, execute=work, background=True)
    turns: list[list[Delta]] = [
        [*(call(c, "work", f'{{"key": "{c}"}}') for c in QUEUE_CALLS), StepFinished("tool-calls")],
        *([TextPiece("t", "Noted."), StepFinished("stop")] for _ in range(len(QUEUE_CALLS) + 1)),
    ]
    return DurableAgent(
        QUEUE_AGENT,
        api=ScriptedAdapter(turns, by_turn=True),
        client=SCRIPTED_CLIENT,
        model="m",
        tools=[tool],
        max_background_tasks=4,
        background_worker_concurrency=1,
        poll_interval=0.5,
    )


def main(argv: list[str]) -> int:
    from dbos import DBOS

    from toolwire.durable import dbos_config

    database_url, folder_name, command, run_id = argv
    folder = Path(folder_name)
    agent = define(folder)
    define_queue(folder)
    executor = os.environ.get("TOOLWIRE_EXECUTOR", "local")
    DBOS(config=dbos_config("toolwire-tests", database_url, log_level="WARNING", executor_id=executor))
    DBOS.launch()
    (folder / f"launched-{os.getpid()}").touch()
    try:
        if command == "start":
            agent.start(PROMPT, run_id=run_id).final_state()
        elif run_id != "-":
            agent.attach(run_id).final_state()
        else:
            while not (folder / "stop").exists():
                time.sleep(0.05)
    finally:
        DBOS.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
