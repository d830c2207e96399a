"""The run's inbox: every message a durable run receives, on one DBOS topic.

Answers (approve, deny, resume, supply an output, press a card), an abort, and news from background tasks
(progress, an end) are `DBOS.send` messages to the run's workflow id. `DBOS.recv` is recorded,
so a replayed run receives the same messages in the same order and takes the same path.
An answer is applied when the run is paused; at any other time (and when it names no waiting
call) it is refused with an `error` event in the stream, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from dbos import DBOS

from toolwire.events import Error, Event
from toolwire.exceptions import ApprovalError, ResumeError
from toolwire.runtime import AbortSignal

from ._cards import apply_press

if TYPE_CHECKING:
    from ._agent import WorkflowAgent

INBOX_TOPIC = "toolwire.inbox"
ANSWER_KINDS = ("approve", "deny", "resume", "output", "press")

Received = Literal["none", "answer", "abort", "news"]


class Inbox:
    """Receives and applies the run's messages."""

    def __init__(self, agent: WorkflowAgent, emit: Callable[[Event], None]) -> None:
        self._agent = agent
        self._emit = emit
        self.abort_reason: str | None = None
        """Set once an abort was received."""

    async def receive(self, timeout: float, *, paused: bool = False, signal: AbortSignal | None = None) -> Received:
        """Wait up to `timeout` seconds for one message and apply it; what it was."""
        message = await DBOS.recv_async(INBOX_TOPIC, timeout_seconds=timeout)
        if message is None:
            return "none"
        return await self.apply(message, paused=paused, signal=signal)

    async def apply(self, message: Any, *, paused: bool, signal: AbortSignal | None) -> Received:
        """Act on one message."""
        if not isinstance(message, Mapping):
            self._emit(Error(error_text=f"the run ignored a message that is not an object: {message!r}"))
            return "news"
        kind = message.get("kind")
        if kind == "abort":
            self.abort_reason = str(message.get("reason") or "aborted")
            if signal is not None:
                signal.abort(self.abort_reason)
            return "abort"
        if kind == "progress":
            self._agent.background.note_progress(str(message.get("taskId")), message.get("data"))
            return "news"
        if kind == "task-ended":
            return "news"  # the task's status says how it ended; the next collection reads it
        if kind == "press" and paused:
            await apply_press(self._agent.toolbox, message, self._emit)
            return "answer"
        if kind in ANSWER_KINDS:
            self._answer(kind, message, paused)
            return "answer"
        self._emit(Error(error_text=f"the run ignored a message of unknown kind {kind!r}"))
        return "news"

    def _answer(self, kind: str, message: Mapping[str, Any], paused: bool) -> None:
        agent = self._agent
        try:
            if not paused:
                raise ApprovalError(message.get("approvalId"), "the run is not paused: no call waits for an answer")
            if kind == "approve":
                agent.approve(message.get("approvalId"))  # type: ignore[arg-type]  # checked by the toolbox
            elif kind == "deny":
                agent.deny(message.get("approvalId"), message.get("reason"))  # type: ignore[arg-type]
            elif kind == "resume":
                agent.resume(str(message.get("toolCallId")), message.get("data"))
            else:
                agent.supply_output(str(message.get("toolCallId")), message.get("output"))
        except (ApprovalError, ResumeError) as exc:
            self._emit(Error(error_text=f"answer refused: {exc}"))
