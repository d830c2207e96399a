"""The run's event stream in DBOS: written once, read from any offset, by any process.

Each entry of the DBOS stream `toolwire.events` of a run is one event's JSON form, at an offset
DBOS assigns in order; a client that saw offsets up to `n` reads on from `n + 1` and gets nothing
twice. Events the workflow writes itself are checkpointed by DBOS: a restarted run replays them
without writing them again. Events of a model call are written from inside its step as they
stream (so they reach readers live); a step cut short by a crash runs again, and the retry skips
the entries the first attempt already wrote when it produces the same ones (a deterministic
model), or else writes a `step-retried` entry naming the offsets the unfinished attempt left.

Two entries exist only here: `run-paused` (the run waits for answers: approvals, resume data,
outputs from elsewhere) and `step-retried`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dbos import DBOS
from dbos import error as dbos_errors

from toolwire.events import Event, from_dict

STREAM_KEY = "toolwire.events"
"""The DBOS stream of a run's events."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunPaused:
    """The run waits for answers (durable-only): approval ids, suspended call ids, calls awaiting an output."""

    type: ClassVar[str] = "run-paused"
    approvals: list[str] = field(default_factory=list)
    suspended: list[str] = field(default_factory=list)
    awaiting_outputs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "type": self.type,
            "approvals": list(self.approvals),
            "suspended": list(self.suspended),
            "awaitingOutputs": list(self.awaiting_outputs),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class StepRetried:
    """Entries `[void_from, void_to)` came from an attempt of a model call that did not finish (durable-only).

    The process running it stopped; the call ran again and its events follow this entry.
    """

    type: ClassVar[str] = "step-retried"
    void_from: int
    void_to: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"type": self.type, "voidFrom": self.void_from, "voidTo": self.void_to}


StreamEvent = Event | RunPaused | StepRetried


def read_entry(data: Mapping[str, Any]) -> StreamEvent:
    """An entry of the stream as an event.

    Raises:
        ValueError: an entry no version of toolwire writes.
    """
    kind = data.get("type")
    if kind == RunPaused.type:
        return RunPaused(
            approvals=list(data.get("approvals", [])),
            suspended=list(data.get("suspended", [])),
            awaiting_outputs=list(data.get("awaitingOutputs", [])),
        )
    if kind == StepRetried.type:
        return StepRetried(void_from=int(data["voidFrom"]), void_to=int(data["voidTo"]))
    return from_dict(data)


class RunStream:
    """The workflow's writer: counts entries so every offset is known without asking the database."""

    def __init__(self) -> None:
        self.offset = 0
        """Entries written so far (the offset of the next one); rebuilt identically when a run replays."""

    async def write(self, event: StreamEvent) -> None:
        """Write one entry from the workflow (checkpointed: a replay does not write it again)."""
        await DBOS.write_stream_async(STREAM_KEY, event.to_dict())
        self.offset += 1


class StepWriter:
    """Writes a model call's entries from inside its step, skipping what an unfinished attempt already wrote."""

    def __init__(self, run_id: str, start: int) -> None:
        self._run_id = run_id
        self._start = start
        self._earlier: list[Any] = []
        self._matched = 0
        self._diverged = False
        self._written = 0

    async def open(self) -> None:
        """Read what an earlier attempt of this step wrote (nothing, on a first attempt)."""
        try:
            async for value in DBOS.read_stream_async(self._run_id, STREAM_KEY, offset=self._start, timeout_seconds=0):
                self._earlier.append(value)
        except dbos_errors.DBOSStreamTimeoutError:
            pass  # the end of what is written so far

    async def write(self, event: StreamEvent) -> None:
        """Write one entry, unless the earlier attempt wrote the same one at the same place."""
        data = event.to_dict()
        if not self._diverged and self._matched < len(self._earlier):
            if self._earlier[self._matched] == data:
                self._matched += 1
                return
            await self._void(self._start + self._matched)
        await self._put(data)

    async def close(self) -> None:
        """Void what the earlier attempt wrote beyond this one's entries."""
        if not self._diverged and self._matched < len(self._earlier):
            await self._void(self._start + self._matched)

    @property
    def end(self) -> int:
        """The offset after this step's last entry."""
        return self._start + len(self._earlier) + self._written

    async def _void(self, first: int) -> None:
        self._diverged = True
        await self._put(StepRetried(void_from=first, void_to=self._start + len(self._earlier)).to_dict())

    async def _put(self, data: dict[str, Any]) -> None:
        await DBOS.write_stream_async(STREAM_KEY, data)
        self._written += 1
