"""Events of a whole run → the chunks of one assistant UI message, as the AI SDK client expects them.

One `start` (one message id for the whole turn, however many provider responses it takes),
`start-step`/`finish-step` around each model call, tool outputs where the runtime produced
them, `message-metadata` after each step and one `finish` at the end. Every chunk carries only
fields of the `ai` package's `uiMessageChunkSchema`; toolwire-only facts become the data parts
of `toolwire.ui.protocol`. Parts the client could not place (a `text-end` without its start, the
output of a call it never saw) are completed so the client never rejects the stream.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from toolwire.compat import Degradation
from toolwire.events import (
    Abort,
    BackgroundTaskFinished,
    BackgroundTaskProgress,
    BackgroundTaskStarted,
    Error,
    Event,
    File,
    Finish,
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    SourceDocument,
    SourceUrl,
    Start,
    StartStep,
    TextDelta,
    TextEnd,
    TextStart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolResumed,
    ToolResumeError,
    ToolSuspended,
    Usage,
)
from toolwire.messages import Message
from toolwire.results import ToolResult
from toolwire.tools import Tool

from . import protocol
from ._safety import safe_error_text, safe_exception_text
from ._tool_chunks import Chunk, ToolChunks, json_metadata
from .metadata import RunMetadata


def _source_chunk(event: SourceUrl | SourceDocument | File) -> Chunk:
    """The event's own JSON form is the chunk's; its metadata is made plain JSON."""
    chunk = event.to_dict()
    if event.provider_metadata is not None:
        chunk["providerMetadata"] = json_metadata(event.provider_metadata)
    return chunk


def new_message_id() -> str:
    """A fresh, unguessable assistant message id."""
    return f"msg_{secrets.token_urlsafe(16)}"


@dataclass(slots=True)
class _Open:
    """Parts and the step the client has open."""

    step: bool = False
    text: set[str] = field(default_factory=set)
    reasoning: set[str] = field(default_factory=set)


class UIMessageStream(ToolChunks):
    """Translates one run's events into chunks; feed events in order, then `close()`.

    `known_calls` (call id → tool name) are the calls the message being continued shows;
    `history` is the conversation before this message, where the call of an output that comes
    in this message is found (see `toolwire.ui._tool_chunks`); `dynamic_calls` are the calls
    the client shows as `dynamic-tool` parts; `background_result` finds the message that brought
    an ended background task's result (by task id) in the run's conversation; `ended_tasks` are
    tasks that ended before this stream (`(call id, tool name, failed)` by task id) whose result
    is still to come.
    """

    def __init__(
        self,
        *,
        message_id: str | None = None,
        model: str | None = None,
        api: str | None = None,
        provider: str | None = None,
        tools: Mapping[str, Tool] | None = None,
        known_calls: Mapping[str, str] | None = None,
        known_inputs: Mapping[str, Any] | None = None,
        suspensions: Mapping[str, Mapping[str, Any]] | None = None,
        client_tools: Iterable[str] = (),
        tool_result: Callable[[str], ToolResult | None] | None = None,
        history: Sequence[Message] = (),
        dynamic_calls: Iterable[str] = (),
        on_error: Callable[[BaseException], str] | None = None,
        background_result: Callable[[str], Message | None] | None = None,
        ended_tasks: Mapping[str, tuple[str, str, bool]] | None = None,
    ) -> None:
        self.message_id = message_id or new_message_id()
        self.metadata = RunMetadata(model=model, api=api, provider=provider)
        super().__init__(
            tools=tools,
            known_calls=known_calls,
            known_inputs=known_inputs,
            suspensions=suspensions,
            client_tools=client_tools,
            tool_result=tool_result,
            history=history,
            dynamic_calls=dynamic_calls,
            api=api,
            background_result=background_result,
            ended_tasks=ended_tasks,
        )
        self._on_error = on_error
        self._open = _Open()
        self._started = False
        self._closed = False
        self._warned: set[Degradation] = set()

    # -- the stream ----------------------------------------------------------------------------

    def start(self) -> list[Chunk]:
        """The `start` chunk (sent once, before anything else)."""
        if self._started:
            return []
        self._started = True
        chunk: Chunk = {"type": "start", "messageId": self.message_id}
        start_metadata = self.metadata.at_start()
        if start_metadata:
            chunk["messageMetadata"] = start_metadata
        return [chunk]

    def feed(self, event: Event) -> list[Chunk]:
        """The chunks one event becomes (often one, sometimes none or several)."""
        out = self.start()
        if self._closed:
            return out
        match event:
            case StartStep():
                self._end_step(out)
                self._background_results(out)
                self._begin_step(out)
            case Start():
                self._ensure_step(out)
                self.metadata.response(event.message_id, event.provider_metadata)
            case TextStart() | TextDelta() | TextEnd() | ReasoningStart() | ReasoningDelta() | ReasoningEnd():
                self._ensure_step(out)
                self._part(event, out)
            case SourceUrl() | SourceDocument() | File():
                self._ensure_step(out)
                out.append(_source_chunk(event))
            case ToolInputStart() | ToolInputDelta() | ToolInputAvailable() | ToolInputError():
                self._tool_input(event, out)
            case ToolOutputAvailable() | ToolOutputError() | ToolOutputDenied():
                self._tool_output(event, out)
            case ToolApprovalRequest() | ToolApprovalResponse():
                self._approval(event, out)
            case ToolSuspended() | ToolResumed() | ToolResumeError():
                self._suspension(event, out)
            case BackgroundTaskStarted() | BackgroundTaskProgress() | BackgroundTaskFinished():
                self._background_task(event, out)
            case FinishStep() | Finish():
                self._finish(event, out)
            case Abort():
                self._aborted(event.reason, out)
            case Error():
                out.append({"type": "error", "errorText": safe_error_text(event.error_text)})
            case _:
                assert_never(event)
        return out

    def replay(self, events: Iterable[Event | None]) -> None:
        """Take in what a continued message shows already: its earlier events, None where it closed as paused.

        Nothing is sent; the next chunk opens the message again with its `start`, and later outputs,
        answers and steps land on the parts the client has.
        """
        for event in events:
            if event is None:
                self._end_step([])
            else:
                self.feed(event)
        self._started = False

    def warn(self, degradation: Degradation) -> list[Chunk]:
        """A `data-warning` part for a degradation (once per message)."""
        if degradation in self._warned:
            return []
        self._warned.add(degradation)
        return [*self.start(), protocol.warning_chunk(degradation)]

    def fail(self, error: BaseException) -> list[Chunk]:
        """An `error` chunk for an exception that ended the run, worded so it is safe to show."""
        out = self.start()
        text = self._on_error(error) if self._on_error is not None else safe_exception_text(error)
        self.metadata.failed()
        out.append({"type": "error", "errorText": text})
        return out

    def fail_with(self, text: str) -> list[Chunk]:
        """An `error` chunk with text already safe to show; the run ends in error."""
        self.metadata.failed()
        return [*self.start(), {"type": "error", "errorText": text}]

    def close(self, *, paused: bool = False) -> list[Chunk]:
        """Close what is open and send `finish` (`paused`: calls wait for the user)."""
        out = self.start()
        if self._closed:
            return out
        self._end_step(out)
        self._background_results(out)
        self._closed = True
        out.append({"type": "finish", "finishReason": self.metadata.finish_reason(), **self._finish_metadata(paused)})
        return out

    def _finish_metadata(self, paused: bool) -> dict[str, Any]:
        return {"messageMetadata": self.metadata.at_finish(paused=paused)}

    # -- steps ---------------------------------------------------------------------------------

    def _begin_step(self, out: list[Chunk]) -> None:
        self._new_step()
        self._open.step = True
        self.metadata.begin_step()
        out.append({"type": "start-step"})

    def _ensure_step(self, out: list[Chunk]) -> None:
        if not self._open.step:
            self._begin_step(out)

    def _finish_step(
        self, reason: Any, usage: Usage | None, provider_metadata: Mapping[str, Any] | None, out: list[Chunk]
    ) -> None:
        self.metadata.finish_step(reason, usage, provider_metadata)
        self._end_step(out)
        out.append({"type": "message-metadata", "messageMetadata": self.metadata.progress()})

    def _end_step(self, out: list[Chunk]) -> None:
        """Close the parts a stream left open, then the step itself."""
        if not self._open.step:
            return
        out.extend({"type": "text-end", "id": part} for part in sorted(self._open.text))
        out.extend({"type": "reasoning-end", "id": part} for part in sorted(self._open.reasoning))
        self._open = _Open()
        out.append({"type": "finish-step"})

    # -- text and reasoning --------------------------------------------------------------------

    def _part(
        self,
        event: TextStart | TextDelta | TextEnd | ReasoningStart | ReasoningDelta | ReasoningEnd,
        out: list[Chunk],
    ) -> None:
        is_text = isinstance(event, (TextStart, TextDelta, TextEnd))
        kind, open_ids = ("text", self._open.text) if is_text else ("reasoning", self._open.reasoning)
        is_start = isinstance(event, (TextStart, ReasoningStart))
        if not is_start and event.id not in open_ids:
            out.append({"type": f"{kind}-start", "id": event.id})  # the client needs a start to place it
            open_ids.add(event.id)
        if isinstance(event, (TextDelta, ReasoningDelta)):
            out.append({"type": f"{kind}-delta", "id": event.id, "delta": event.delta})
            return
        chunk: Chunk = {"type": f"{kind}-start" if is_start else f"{kind}-end", "id": event.id}
        if event.provider_metadata is not None:
            chunk["providerMetadata"] = json_metadata(event.provider_metadata)
        if is_start:
            if event.id in open_ids:  # a second start for an open part: end the first one
                out.append({"type": f"{kind}-end", "id": event.id})
            open_ids.add(event.id)
        else:
            open_ids.discard(event.id)
        out.append(chunk)

    def _finish(self, event: FinishStep | Finish, out: list[Chunk]) -> None:
        """A model call's end; a `finish` is the run's (after its steps) or a bare stream's only step."""
        if isinstance(event, FinishStep):
            self._finish_step(event.finish_reason, event.usage, None, out)
            return
        if self._open.step:
            self._finish_step(event.finish_reason, event.usage, event.provider_metadata, out)
        self.metadata.run_finish(event.finish_reason, event.usage)

    def _aborted(self, reason: str | None, out: list[Chunk]) -> None:
        """The run was aborted: the protocol's `abort` ends the message (no `finish`, as the SDK's own streams)."""
        self._end_step(out)
        out.append({"type": "abort"} if reason is None else {"type": "abort", "reason": reason})
        self._closed = True


# -- drivers ----------------------------------------------------------------------------------------


def ui_message_chunks(events: Iterable[Event], **settings: Any) -> Iterator[Chunk]:
    """The UI message chunks of a run's events (sync); settings are `UIMessageStream`'s."""
    stream = UIMessageStream(**settings)
    yield from stream.start()
    try:
        for event in events:
            yield from stream.feed(event)
    except Exception as exc:  # the run failed: the client gets a safe error, the host its logs
        yield from stream.fail(exc)
    yield from stream.close()


async def aui_message_chunks(events: AsyncIterable[Event], **settings: Any) -> AsyncIterator[Chunk]:
    """`ui_message_chunks` for an async event stream."""
    stream = UIMessageStream(**settings)
    for chunk in stream.start():
        yield chunk
    try:
        async for event in events:
            for chunk in stream.feed(event):
                yield chunk
    except Exception as exc:  # the run failed: the client gets a safe error, the host its logs
        for chunk in stream.fail(exc):
            yield chunk
    for chunk in stream.close():
        yield chunk
