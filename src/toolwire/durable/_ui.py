"""A durable run's stream as one assistant UI message across its pauses, for AI SDK front ends.

The run is one assistant message (`toolwire.ui`): each segment — from the start, or from the
offset after a `run-paused` once the answers were sent — streams into the same message id. The
entries before the offset are taken in without being sent, so the calls the browser shows already
get their outputs, answers and steps; each batch comes with its entry's offset (an SSE id: a
browser reconnecting reads on from the next one, without a repeat). A `step-retried` entry becomes
a `data-step-retried` part (`toolwire.ui.protocol`): the browser cannot take back what it showed.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolwire.events import Event
from toolwire.ui import UIMessageStream
from toolwire.ui.protocol import STEP_RETRIED, data_chunk

from ._run import DurableRun
from ._stream import RunPaused, StepRetried

Chunk = dict[str, object]


def ui_message_id(run: DurableRun) -> str:
    """The assistant message id of a run (the same in every segment and every process)."""
    return f"msg_{run.run_id}"


def ui_chunks(
    run: DurableRun, offset: int = 0, *, message_id: str | None = None, timeout: float | None = None
) -> Iterator[tuple[int | None, list[Chunk]]]:
    """The chunks of the run's entries from `offset` to its next pause or its end, with each entry's offset."""
    facts = run.definition.model_facts
    message = UIMessageStream(
        message_id=message_id or ui_message_id(run),
        tools=run.definition.tools,
        model=facts["model"],
        api=facts["api"],
        provider=facts["provider"],
    )
    if offset > 0:
        message.replay(_shown(run, offset, timeout))
    yield None, list(message.start())
    for item in run.events(offset, timeout=timeout):
        if isinstance(item.event, RunPaused):
            yield item.offset, list(message.close(paused=True))
            return
        if isinstance(item.event, StepRetried):
            yield item.offset, [data_chunk(STEP_RETRIED, item.event.to_dict())]
        else:
            yield item.offset, list(message.feed(item.event))
    yield None, list(message.close())


def _shown(run: DurableRun, offset: int, timeout: float | None) -> Iterator[Event | None]:
    """The events of entries before `offset` (written already), None where the message closed as paused."""
    for item in run.events(0, until="end", timeout=timeout):
        if item.offset >= offset:
            return
        if isinstance(item.event, RunPaused):
            yield None
        elif not isinstance(item.event, StepRetried):
            yield item.event
