"""`DurableRun`: a handle on one durable run, from any process sharing its system database.

It reads the run's events from any offset, answers what the run waits for, and gets its end.
Everything goes through DBOS (in a process where DBOS is launched) or a `DBOSClient` (in one
that only talks to the workers, e.g. a web server).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from dbos import DBOS, DBOSClient

from toolwire.agent import AgentResult
from toolwire.exceptions import ApprovalError, ConfigurationError, ResumeError

from ._inbox import INBOX_TOPIC
from ._stream import STREAM_KEY, RunPaused, StreamEvent, read_entry

if TYPE_CHECKING:
    from ._definition import DurableAgent

RUN_WORKFLOW = "toolwire.agent_run"
STATUS_KEY = "toolwire.status"
"""The DBOS event holding where the run stands: `state` (running, paused, finished) and what waits."""

Until = Literal["pause", "end"]


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One entry of a run's stream: its offset (read on from `offset + 1` to resume) and its event."""

    offset: int
    event: StreamEvent


class DurableRun:
    """One run of a `DurableAgent`, identified by its workflow id."""

    def __init__(self, definition: DurableAgent, run_id: str, *, dbos_client: DBOSClient | None = None) -> None:
        self.definition = definition
        self.run_id = run_id
        self._client = dbos_client

    # -- events ------------------------------------------------------------------------------------

    def events(
        self, offset: int = 0, *, until: Until = "pause", timeout: float | None = None, poll: float = 0.05
    ) -> Iterator[StreamItem]:
        """The run's events from `offset` as they are written, until `run-paused` (`until="pause"`) or the end.

        `timeout` bounds the wait for each next entry (`DBOSStreamTimeoutError` past it); `poll`
        is how often the database is asked when it cannot notify (SQLite).
        """
        options: dict[str, Any] = {"offset": offset, "timeout_seconds": timeout, "polling_interval_sec": poll}
        if self._client is not None:
            values = self._client.read_stream(self.run_id, STREAM_KEY, **options)
        else:
            values = DBOS.read_stream(self.run_id, STREAM_KEY, **options)
        try:
            for position, value in enumerate(values, start=offset):
                event = read_entry(value)
                yield StreamItem(position, event)
                if until == "pause" and isinstance(event, RunPaused):
                    return
        finally:
            values.close()

    async def aevents(
        self, offset: int = 0, *, until: Until = "pause", timeout: float | None = None, poll: float = 0.05
    ) -> AsyncIterator[StreamItem]:
        """`events` for async code (in a process where DBOS is launched)."""
        values = DBOS.read_stream_async(
            self.run_id, STREAM_KEY, offset=offset, timeout_seconds=timeout, polling_interval_sec=poll
        )
        position = offset
        try:
            async for value in values:
                event = read_entry(value)
                yield StreamItem(position, event)
                position += 1
                if until == "pause" and isinstance(event, RunPaused):
                    return
        finally:
            await values.aclose()

    def status(self) -> dict[str, Any] | None:
        """Where the run stands (None before it first paused or ended)."""
        if self._client is not None:
            found = self._client.get_event(self.run_id, STATUS_KEY, timeout_seconds=0)
        else:
            found = DBOS.get_event(self.run_id, STATUS_KEY, timeout_seconds=0)
        return dict(found) if isinstance(found, Mapping) else None

    # -- answers -----------------------------------------------------------------------------------

    def approve(self, approval_id: str) -> None:
        """Approve a call the run waits on; the run goes on in whichever worker holds it.

        Raises:
            ApprovalError: the run does not wait for this approval (checked against its status).
        """
        self._check("approvals", approval_id, ApprovalError)
        self._send({"kind": "approve", "approvalId": approval_id})

    def deny(self, approval_id: str, reason: str | None = None) -> None:
        """Deny a call the run waits on; the model reads `execution-denied`.

        Raises:
            ApprovalError: the run does not wait for this approval.
        """
        self._check("approvals", approval_id, ApprovalError)
        self._send({"kind": "deny", "approvalId": approval_id, "reason": reason})

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Give a suspended call its resume data.

        Raises:
            ResumeError: the run has no call suspended under this id.
        """
        self._check("suspended", tool_call_id, ResumeError)
        self._send({"kind": "resume", "toolCallId": tool_call_id, "data": resume_data})

    def supply_output(self, tool_call_id: str, output: Any) -> None:
        """Give the output of a call run elsewhere (a tool without `execute`).

        Raises:
            ResumeError: no call of the run waits for an output under this id.
        """
        self._check("awaitingOutputs", tool_call_id, ResumeError)
        self._send({"kind": "output", "toolCallId": tool_call_id, "output": output})

    def press(
        self,
        tool_call_id: str,
        button_id: str,
        *,
        card_id: str,
        request_context: Any,
        pressed_at: float | None = None,
    ) -> None:
        """Press a button of the action card a suspended call of the run shows (`toolwire.targets.press`).

        The run checks the press (the card's signature, thread, device, single use, and expiry at
        `pressed_at`, the time the user pressed: now by default) when it receives it; a refused
        press is an `error` entry and the card keeps waiting.

        Raises:
            ResumeError: the run has no call suspended under this id.
        """
        self._check("suspended", tool_call_id, ResumeError)
        self._send(_press(tool_call_id, button_id, card_id, request_context, pressed_at))

    def dismiss(self, tool_call_id: str, *, card_id: str, request_context: Any) -> None:
        """Close the card without pressing a button (`toolwire.targets.dismiss`).

        Raises:
            ResumeError: the run has no call suspended under this id.
        """
        self._check("suspended", tool_call_id, ResumeError)
        self._send(_press(tool_call_id, None, card_id, request_context, None))

    def abort(self, reason: str | None = None) -> None:
        """Abort the run: at once when it waits (for answers or background tasks), else before its next model call."""
        self._send({"kind": "abort", "reason": reason})

    def cancel_task(self, task_id: str) -> None:
        """Cancel a background task of the run; the model reads that it was cancelled."""
        if self._client is not None:
            self._client.cancel_workflow(task_id)
        else:
            DBOS.cancel_workflow(task_id)
        self._send({"kind": "task-ended", "taskId": task_id})

    # -- the end -----------------------------------------------------------------------------------

    def final_state(self) -> dict[str, Any]:
        """The conversation state the run ended with (`export_state` form); waits for the end.

        Raises:
            ConfigurationError: the run failed or was cancelled.
        """
        state: Any
        try:
            if self._client is not None:
                state = self._client.retrieve_workflow(self.run_id).get_result(polling_interval_sec=0.1)
            else:
                state = DBOS.retrieve_workflow(self.run_id).get_result(polling_interval_sec=0.1)
        except Exception as exc:
            raise ConfigurationError(f"durable run {self.run_id!r} did not finish: {exc}") from exc
        return dict(state)

    def result(self) -> AgentResult:
        """Where the conversation stands once the run ended (text, messages, background tasks, ...)."""
        result = self.definition.result_of(self.final_state())
        return dataclasses.replace(result, aborted=bool((self.status() or {}).get("aborted")))

    def _check(self, field: str, value: str, error: type[ApprovalError] | type[ResumeError]) -> None:
        status = self.status()
        if status is None or status.get("state") != "paused":
            raise error(value, f"run {self.run_id!r} is not paused: nothing waits for an answer")
        waiting = list(status.get(field, []))
        if value not in waiting:
            raise error(
                value, f"run {self.run_id!r} does not wait for {value!r} (waiting: {', '.join(waiting) or 'none'})"
            )

    def _send(self, message: dict[str, Any]) -> None:
        if self._client is not None:
            self._client.send(self.run_id, message, INBOX_TOPIC)
        else:
            DBOS.send(self.run_id, message, INBOX_TOPIC)


def _press(
    tool_call_id: str, button_id: str | None, card_id: str, request_context: Any, pressed_at: float | None
) -> dict[str, Any]:
    """A press message, stamped with the time of the press (the card's expiry is checked against it)."""
    return {
        "kind": "press",
        "toolCallId": tool_call_id,
        "buttonId": button_id,
        "cardId": card_id,
        "requestContext": request_context,
        "pressedAt": time.time() if pressed_at is None else pressed_at,
    }
