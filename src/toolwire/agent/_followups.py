"""Background results entering the conversation, and the follow-up turns they start.

A background call was answered at once with an acknowledgement; when its task ends, the result
comes in as a user message naming the task, the tool and the call (the model reads an error
text for a failure, a timeout, a cancellation or a lost task). Results are delivered between
turns only — never between an assistant's calls and their results — before the next model call
of any run. A new prompt goes after them (they happened first). A run started with
`until_idle=True` does not end while tasks run: it waits for the next one to end (streaming their
progress events meanwhile) and answers it in a follow-up turn, until none runs.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Coroutine, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from toolwire.events import Event, StartStep
from toolwire.messages import MediaPart, TextPart, UserMessage
from toolwire.results import output_text
from toolwire.runtime import BackgroundTask, BackgroundTasks

from ._state import Conversation
from ._transcript import Transcript

if TYPE_CHECKING:
    from ._loop import Run

T = TypeVar("T")

_PHRASES = {
    "completed": "completed",
    "failed": "failed",
    "timed-out": "timed out",
    "cancelled": "was cancelled",
    "lost": "was lost",
    "running": "is still running",
}


@dataclass(slots=True)
class Delivery:
    """Where a run stands with background results."""

    until_idle: bool = False
    """The caller asked the run to wait for running tasks and answer them in follow-up turns."""
    prompt_at: int | None = None
    """Index of the prompt this run started with, while no model call has read it."""
    prompt_entry: int | None = None
    """Index of that prompt in the transcript."""
    follow_up: bool = False
    """Set by the idle wait: a task ended and a follow-up turn answers it."""


class Followups:
    """Puts ended background tasks into the conversation."""

    def __init__(self, conversation: Conversation, transcript: Transcript, background: BackgroundTasks) -> None:
        self._conversation = conversation
        self._transcript = transcript
        self._background = background

    async def deliver(self, delivery: Delivery) -> bool:
        """Add the results of tasks that ended (between turns only); True when there were some."""
        conversation = self._conversation
        if conversation.turn is not None or not self._background.active:
            return False
        tasks = await self._background.collect()
        if not tasks:
            return False
        at, entry = delivery.prompt_at, delivery.prompt_entry
        if at is None or entry is None:  # a follow-up turn: a fresh step budget, as after a prompt
            conversation.steps = 0
        for task in tasks:
            message = result_message(task)
            if at is None or entry is None:
                conversation.messages.append(message)
                self._transcript.background_result(task)
            else:  # it ended before this run's prompt was given: it goes before it
                conversation.messages.insert(at, message)
                self._transcript.background_result(task, at=entry)
                at, entry = at + 1, entry + 1
        delivery.prompt_at, delivery.prompt_entry = at, entry
        return True

    def waiting(self, delivery: Delivery) -> bool:
        """Whether an `until_idle` run still has a task to wait for."""
        return delivery.until_idle and bool(self._background.running)


def result_message(task: BackgroundTask) -> UserMessage:
    """The user message carrying an ended task's result to the model."""
    call = task.call
    header = (
        f"[Background task {task.task_id}] Tool {call.tool_name!r} (call {call.tool_call_id}) {_PHRASES[task.status]}."
    )
    result = task.result
    if result is None:
        return UserMessage(content=(TextPart(text=header),))
    output = result.output
    if output["type"] != "content":
        label = "Result" if task.status == "completed" else "Error"
        return UserMessage(content=(TextPart(text=f"{header}\n{label}: {output_text(output)}"),))
    parts: list[TextPart | MediaPart] = [TextPart(text=f"{header}\nResult:")]
    for part in output["value"]:
        item: Any = part
        parts.append(TextPart(text=item["text"]) if item["type"] == "text" else MediaPart(part=item))
    return UserMessage(content=tuple(parts))


class FollowupSteps:
    """The loop's part in it: deliver before each model call, wait with `until_idle` (sync and async)."""

    background: BackgroundTasks
    max_steps: int
    _followups: Followups
    _conversation: Conversation
    _drain: Callable[[], Iterator[Event]]

    def _run_async(self, work: Coroutine[Any, Any, T]) -> T:
        raise NotImplementedError  # the step loop's: on the run's own loop

    def _step_start(self) -> Iterator[Event]:
        """Events waiting (a task's end, which the next model call reads), then `start-step`."""
        yield from self._drain()
        yield StartStep()

    def _idle_sync(self, run: Run) -> Generator[Event, None, bool]:
        """With `until_idle`, wait for a background task to end (streaming progress); True: a follow-up turn."""
        while run.delivery.until_idle and not run.stopped():
            running = self._followups.waiting(run.delivery)  # looked at first: what ends later is still collected
            if self._run_async(self._followups.deliver(run.delivery)):
                return True
            if not running:
                break
            self._run_async(self.background.wait(run.signal))
            yield from self._drain()
        return False

    def _next_turn_sync(self, run: Run) -> bool:
        """Deliver ended background tasks; whether the step budget allows another model call."""
        if self.background.active:
            self._run_async(self._followups.deliver(run.delivery))
        run.delivery.prompt_at = run.delivery.prompt_entry = None  # the model reads the prompt now
        return self._conversation.steps < self.max_steps

    async def _idle(self, run: Run) -> AsyncGenerator[Event, None]:
        """With `until_idle`, wait for a background task to end (streaming progress); sets `follow_up`."""
        run.delivery.follow_up = False
        while run.delivery.until_idle and not run.stopped():
            running = self._followups.waiting(run.delivery)  # looked at first: what ends later is still collected
            if await self._followups.deliver(run.delivery):
                run.delivery.follow_up = True
                return
            if not running:
                return
            await self.background.wait(run.signal)
            for event in self._drain():
                yield event

    async def _next_turn(self, run: Run) -> bool:
        """Deliver ended background tasks; whether the step budget allows another model call."""
        if self.background.active:
            await self._followups.deliver(run.delivery)
        run.delivery.prompt_at = run.delivery.prompt_entry = None  # the model reads the prompt now
        return self._conversation.steps < self.max_steps
