"""The agent's units of work as DBOS steps: one model call, one unit of a tool's own code.

A step's outcome is recorded before the workflow goes on, so a run that replays after a restart
gets the recorded outcome and runs nothing twice. Outcomes are JSON: a tool's raw output is kept
in its JSON form (transforms and transcripts see that form on the first run and on a replay
alike), the run state a call set is kept with it, and the exception behind an error result stays
behind, except a refused resume (the toolbox keeps the call suspended on it).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

from dbos import DBOS

from toolwire.events import (
    Event,
)
from toolwire.results import ToolResult
from toolwire.runtime import ResumeRefused, Suspension, Toolbox
from toolwire.runtime.display import jsonable
from toolwire.runtime.execute import Outcome
from toolwire.runtime.toolbox import UnitKind
from toolwire.tools import Tool


class DurableToolbox(Toolbox):
    """A toolbox whose units of work are DBOS steps and whose approval ids a replay gives again."""

    _run_id = ""
    _secret = b""
    _issued = 0

    def bind(self, run_id: str, secret: str) -> None:
        """Tie approval ids to this run: unguessable without the run's secret, the same on a replay."""
        self._run_id, self._secret, self._issued = run_id, secret.encode(), 0

    def new_approval_id(self) -> str:  # type: ignore[override]  # an instance's ids depend on its run
        """The next approval id of the run: HMAC of the run's secret (from the workflow input) and a counter."""
        self._issued += 1
        digest = hmac.new(self._secret, f"{self._run_id}:{self._issued}".encode(), hashlib.sha256).digest()
        return "approval_" + base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()

    async def unit(
        self, kind: UnitKind, tool: Tool, tool_call_id: str, work: Callable[[], Awaitable[Outcome]]
    ) -> Outcome:
        """Run the unit as a DBOS step; its outcome (and the run state it set) is what a replay gets."""
        run = self.run_state

        async def step() -> dict[str, Any]:
            before = run.values if run is not None else None
            data = outcome_to_json(await work())
            if run is not None and run.values != before:
                data["runState"] = run.values
            return data

        data = await DBOS.run_step_async({"name": f"toolwire.{kind}"}, step)
        if run is not None and "runState" in data:
            run.set(data["runState"])
        return outcome_from_json(data)


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """The JSON a step records for an outcome."""
    if isinstance(outcome, Suspension):
        return {"suspension": outcome.to_dict()}
    data: dict[str, Any] = {"result": outcome.to_dict(), "raw": jsonable(outcome.raw)}
    if isinstance(outcome.error, ResumeRefused):
        data["refused"] = str(outcome.error)
    return data


def outcome_from_json(data: Mapping[str, Any]) -> Outcome:
    """The outcome a step recorded."""
    if "suspension" in data:
        return Suspension.from_dict(data["suspension"])
    result = ToolResult.from_dict(data["result"])
    refused = data.get("refused")
    return ToolResult(
        tool_call_id=result.tool_call_id,
        tool_name=result.tool_name,
        output=result.output,
        raw=data.get("raw"),
        provider_metadata=result.provider_metadata,
        error=ResumeRefused(refused) if refused is not None else None,
    )


async def in_thread(events: Callable[[], Iterator[Event]]) -> AsyncIterator[Event]:
    """Iterate a sync model call in a worker thread, handing each event to this loop as it comes."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def produce() -> None:
        try:
            for event in events():
                loop.call_soon_threadsafe(queue.put_nowait, ("event", event))
        except BaseException as exc:  # handed to the loop, raised there
            loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))
        else:
            loop.call_soon_threadsafe(queue.put_nowait, ("end", None))

    producer = asyncio.ensure_future(asyncio.to_thread(produce))
    try:
        while True:
            kind, value = await queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        await producer
