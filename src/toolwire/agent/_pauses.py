"""Pause and resume bookkeeping: which calls of the turn wait, for what, and what continues them.

A call waits for an approval answer, for resume data (or a card press), or — when its tool has
no `execute` — for an output (or an error) supplied from elsewhere (a front end). Results reach the turn
through the toolbox's records, whoever produced them: a card pressed through `agent.toolbox`
resumes the call in the run, and the target runs once. An abort answers every unfinished call,
so the conversation can go on with a new prompt.
"""

from __future__ import annotations

import contextlib
from typing import Any

from toolwire.events import Event
from toolwire.exceptions import ArgumentError, ResumeError
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import (
    AbortSignal,
    ApprovalRequest,
    BackgroundStarted,
    Finished,
    Record,
    ResumeRefused,
    Suspension,
    Toolbox,
    display_event,
)
from toolwire.runtime.suspension import suspended_tool

from ._state import Conversation, Turn, aborted_result
from ._transcript import Transcript


class Pauses:
    """The turn's waiting calls and their continuation."""

    def __init__(self, conversation: Conversation, toolbox: Toolbox, transcript: Transcript, outbox: list[Event]):
        self._conversation = conversation
        self._toolbox = toolbox
        self._transcript = transcript
        self._outbox = outbox

    # -- results, from every path --------------------------------------------------------------------

    def on_record(self, record: Record) -> None:
        """The toolbox noted a step of a call: keep the turn's results and transcript up to date."""
        turn = self._conversation.turn
        if turn is None or not turn.owns(record.tool_call_id):
            return
        if isinstance(record, Finished | BackgroundStarted):
            if record.tool_call_id in turn.results:
                return
            turn.results[record.tool_call_id] = record.result
            turn.awaiting_output.discard(record.tool_call_id)
        self._transcript.note(record, turn)

    def collect(self, result: ToolResult) -> None:
        """A result the loop made itself (an input the model got wrong, an aborted call)."""
        self.on_record(Finished(result))

    # -- what continues a paused call ----------------------------------------------------------------

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Keep resume data for a suspended call; the next run applies it.

        Raises:
            ResumeError: the call is not suspended, or its tool is not one of the agent's.
        """
        suspension = self._toolbox.suspended.get(tool_call_id)
        if suspension is None:
            waiting = ", ".join(repr(c) for c in self._toolbox.suspended) or "none"
            raise ResumeError(tool_call_id, f"no suspended tool call {tool_call_id!r} (suspended: {waiting})")
        suspended_tool(self._toolbox.tools, tool_call_id, suspension.tool_name, "agent")
        self._conversation.resume_data[tool_call_id] = resume_data

    def supply_output(self, tool_call_id: str, output: Any) -> None:
        """Keep the output of a call run elsewhere; the next run checks it and continues.

        Raises:
            ResumeError: the call does not wait for an output (unknown, already answered, or its tool has `execute`).
        """
        self._check_awaits_output(tool_call_id)
        self._conversation.supplied_errors.pop(tool_call_id, None)
        self._conversation.supplied_outputs[tool_call_id] = output

    def supply_error(self, tool_call_id: str, error_text: str) -> None:
        """Keep the error a call run elsewhere ended with; the next run gives it to the model.

        Raises:
            ArgumentError: `error_text` is not a string.
            ResumeError: the call does not wait for an output.
        """
        if not isinstance(error_text, str):
            raise ArgumentError("error_text", "a string (the error the model reads)", error_text)
        self._check_awaits_output(tool_call_id)
        self._conversation.supplied_outputs.pop(tool_call_id, None)
        self._conversation.supplied_errors[tool_call_id] = error_text

    def _check_awaits_output(self, tool_call_id: str) -> None:
        turn = self._conversation.turn
        waiting = sorted(turn.awaiting_output) if turn is not None else []
        if turn is None or tool_call_id not in turn.awaiting_output or tool_call_id in turn.results:
            raise ResumeError(
                tool_call_id,
                f"tool call {tool_call_id!r} does not wait for an output (waiting: {', '.join(waiting) or 'none'})",
            )

    # -- settling the turn ---------------------------------------------------------------------------

    async def settle(self, signal: AbortSignal) -> bool:
        """Run what the turn can run now; True when every call has a result (the turn is then closed)."""
        turn = self._conversation.turn
        if turn is None:
            return True
        messages = self._conversation.messages
        for tool_call_id, data in _take(self._conversation.resume_data):
            if tool_call_id in self._toolbox.suspended and not signal.aborted:  # aborted: `abort` answers it
                with contextlib.suppress(ResumeRefused):  # noted as a tool-resume-error; the call still waits
                    await self._toolbox.resume(tool_call_id, data, messages=messages, abort=signal)
        for tool_call_id, output in _take(self._conversation.supplied_outputs):
            call = next((c for c in turn.missing() if c.tool_call_id == tool_call_id), None)
            if call is not None:
                await self._toolbox.supply_output(call, output)
        for tool_call_id, error_text in _take(self._conversation.supplied_errors):
            call = next((c for c in turn.missing() if c.tool_call_id == tool_call_id), None)
            if call is not None:
                await self._toolbox.supply_error(call, error_text)
        await self._toolbox.run_decided(messages=messages, abort=signal)
        to_run = self._runnable(turn)
        if to_run:
            await self._toolbox.run(to_run, messages=messages, abort=signal)
        if turn.missing():
            return False
        self.close_turn()
        return True

    def _runnable(self, turn: Turn) -> list[ToolCall]:
        parked = set(self._toolbox.suspended) | turn.awaiting_output
        parked.update(r.call.tool_call_id for r in self._toolbox.pending_approvals.values())
        runnable: list[ToolCall] = []
        for call in turn.missing():
            if call.tool_call_id in parked:
                continue
            tool = self._toolbox.tools.get(call.tool_name)
            if tool is not None and tool.execute is None:
                turn.awaiting_output.add(call.tool_call_id)  # its output comes from the front end
            else:
                runnable.append(call)
        return runnable

    def close_turn(self) -> None:
        """Append the tool message answering every call of the turn."""
        turn = self._conversation.turn
        if turn is None:
            return
        self._conversation.messages.append(turn.message())
        self._conversation.turn = None

    def abort(self, reason: str | None) -> None:
        """Answer every unfinished call of the turn as aborted and close it (no hook fires)."""
        turn = self._conversation.turn
        if turn is None:
            return
        missing = turn.missing()
        ids = {c.tool_call_id for c in missing}
        self._toolbox.forget(ids)
        for tool_call_id in ids:
            self._conversation.resume_data.pop(tool_call_id, None)
            self._conversation.supplied_outputs.pop(tool_call_id, None)
            self._conversation.supplied_errors.pop(tool_call_id, None)
        for call in missing:
            result = aborted_result(call, reason)
            self.collect(result)
            self._outbox.append(display_event(self._toolbox.tools.get(call.tool_name), Finished(result)))
        self.close_turn()

    # -- what waits ---------------------------------------------------------------------------------

    def waiting(self) -> tuple[list[ApprovalRequest], list[Suspension], list[ToolCall]]:
        """Pending approvals, suspended calls, and calls waiting for a supplied output."""
        turn = self._conversation.turn
        supplied = self._conversation.supplied_outputs.keys() | self._conversation.supplied_errors.keys()
        awaiting = (
            []
            if turn is None
            else [
                c for c in turn.missing() if c.tool_call_id in turn.awaiting_output and c.tool_call_id not in supplied
            ]
        )
        return list(self._toolbox.pending_approvals.values()), list(self._toolbox.suspended.values()), awaiting


def _take(values: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every item, removing them (each is applied once)."""
    items = list(values.items())
    values.clear()
    return items
