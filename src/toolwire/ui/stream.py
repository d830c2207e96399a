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
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from toolwire.compat import Degradation
from toolwire.events import (
    Error,
    Event,
    Finish,
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    Start,
    StartStep,
    TextDelta,
    TextEnd,
    TextStart,
    ToolApprovalRequest,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolSuspended,
    Usage,
)
from toolwire.results import ToolResult, default_output
from toolwire.tools import Tool, TransformPhase

from . import protocol
from ._safety import safe_error_text, safe_exception_text
from .metadata import RunMetadata

Chunk = dict[str, Any]


def new_message_id() -> str:
    """A fresh, unguessable assistant message id."""
    return f"msg_{secrets.token_urlsafe(16)}"


@dataclass(slots=True)
class _Open:
    """Parts and the step the client has open."""

    step: bool = False
    text: set[str] = field(default_factory=set)
    reasoning: set[str] = field(default_factory=set)


class UIMessageStream:
    """Translates one run's events into chunks; feed events in order, then `close()`."""

    def __init__(
        self,
        *,
        message_id: str | None = None,
        model: str | None = None,
        api: str | None = None,
        provider: str | None = None,
        tools: Mapping[str, Tool] | None = None,
        known_calls: Mapping[str, str] | None = None,
        client_tools: Iterable[str] = (),
        tool_result: Callable[[str], ToolResult | None] | None = None,
        approval_id: Callable[[ToolApprovalRequest], str] | None = None,
        on_error: Callable[[BaseException], str] | None = None,
    ) -> None:
        self.message_id = message_id or new_message_id()
        self.metadata = RunMetadata(model=model, api=api, provider=provider)
        self._tools = dict(tools or {})
        self._calls: dict[str, str] = dict(known_calls or {})
        """Tool name of every call the client knows, by call id."""
        self._client_tools = frozenset(client_tools)
        self._tool_result = tool_result
        self._approval_id = approval_id
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
                self._begin_step(out)
            case Start():
                self._ensure_step(out)
                self.metadata.response(event.message_id, event.provider_metadata)
            case TextStart() | TextDelta() | TextEnd():
                self._text(event, out)
            case ReasoningStart() | ReasoningDelta() | ReasoningEnd():
                self._reasoning(event, out)
            case ToolInputStart() | ToolInputDelta() | ToolInputAvailable() | ToolInputError():
                self._tool_input(event, out)
            case ToolOutputAvailable() | ToolOutputError() | ToolOutputDenied():
                self._tool_output(event, out)
            case ToolApprovalRequest():
                public_id = self._approval_id(event) if self._approval_id else event.approval_id
                out.append({"type": "tool-approval-request", "approvalId": public_id, "toolCallId": event.tool_call_id})
            case ToolSuspended():
                self._suspended(event, out)
            case FinishStep():
                self._finish_step(event.finish_reason, event.usage, None, out)
            case Finish():
                if self._open.step:
                    self._finish_step(event.finish_reason, event.usage, event.provider_metadata, out)
                self.metadata.run_finish(event.finish_reason, event.usage)
            case Error():
                out.append({"type": "error", "errorText": safe_error_text(event.error_text)})
            case _:
                assert_never(event)
        return out

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
        self._closed = True
        out.append({"type": "finish", "finishReason": self.metadata.finish_reason(), **self._finish_metadata(paused)})
        return out

    def _finish_metadata(self, paused: bool) -> dict[str, Any]:
        return {"messageMetadata": self.metadata.at_finish(paused=paused)}

    # -- steps ---------------------------------------------------------------------------------

    def _begin_step(self, out: list[Chunk]) -> None:
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

    def _text(self, event: TextStart | TextDelta | TextEnd, out: list[Chunk]) -> None:
        self._ensure_step(out)
        self._part("text", self._open.text, event, out)

    def _reasoning(self, event: ReasoningStart | ReasoningDelta | ReasoningEnd, out: list[Chunk]) -> None:
        self._ensure_step(out)
        self._part("reasoning", self._open.reasoning, event, out)

    @staticmethod
    def _part(
        kind: str,
        open_ids: set[str],
        event: TextStart | TextDelta | TextEnd | ReasoningStart | ReasoningDelta | ReasoningEnd,
        out: list[Chunk],
    ) -> None:
        is_start = isinstance(event, (TextStart, ReasoningStart))
        if not is_start and event.id not in open_ids:
            out.append({"type": f"{kind}-start", "id": event.id})  # the client needs a start to place it
            open_ids.add(event.id)
        if isinstance(event, (TextDelta, ReasoningDelta)):
            out.append({"type": f"{kind}-delta", "id": event.id, "delta": event.delta})
            return
        chunk: Chunk = {"type": f"{kind}-start" if is_start else f"{kind}-end", "id": event.id}
        if event.provider_metadata is not None:
            chunk["providerMetadata"] = _json_metadata(event.provider_metadata)
        if is_start:
            if event.id in open_ids:  # a second start for an open part: end the first one
                out.append({"type": f"{kind}-end", "id": event.id})
            open_ids.add(event.id)
        else:
            open_ids.discard(event.id)
        out.append(chunk)

    # -- tools ---------------------------------------------------------------------------------

    def _tool_input(
        self, event: ToolInputStart | ToolInputDelta | ToolInputAvailable | ToolInputError, out: list[Chunk]
    ) -> None:
        self._ensure_step(out)
        if isinstance(event, ToolInputDelta):
            # A delta for a call the client never saw start cannot be placed; its input comes complete later.
            if event.tool_call_id in self._calls:
                delta = event.input_text_delta
                out.append({"type": "tool-input-delta", "toolCallId": event.tool_call_id, "inputTextDelta": delta})
            return
        self._calls[event.tool_call_id] = event.tool_name
        chunk: Chunk = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name}
        if isinstance(event, (ToolInputAvailable, ToolInputError)):
            chunk["input"] = event.input
        metadata = _json_metadata(event.provider_metadata)
        if isinstance(event, ToolInputError):
            chunk["errorText"] = event.error_text
            metadata = {**(metadata or {}), protocol.TOOLWIRE_METADATA: {"inputError": True}}
        _provider_fields(chunk, event.provider_executed, metadata)
        out.append(chunk)
        if isinstance(event, ToolInputAvailable) and self._is_background(event.tool_name):
            out.append(protocol.task_chunk(event.tool_call_id, event.tool_name, "running"))

    def _tool_output(self, event: ToolOutputAvailable | ToolOutputError | ToolOutputDenied, out: list[Chunk]) -> None:
        self._ensure_call(event.tool_call_id, out)
        if isinstance(event, ToolOutputDenied):
            out.append({"type": "tool-output-denied", "toolCallId": event.tool_call_id})
            return
        name = self._calls[event.tool_call_id]
        channel = None
        if isinstance(event, ToolOutputAvailable):
            shown, channel = _split_display(event.output)
            chunk: Chunk = {"type": "tool-output-available", "toolCallId": event.tool_call_id, "output": shown}
            derived = default_output(shown)
        else:
            chunk = {"type": "tool-output-error", "toolCallId": event.tool_call_id, "errorText": event.error_text}
            derived = {"type": "error-text", "value": event.error_text}
        metadata = dict(_json_metadata(event.provider_metadata) or {})
        result = self._tool_result(event.tool_call_id) if self._tool_result and not event.provider_executed else None
        if result is not None:
            metadata.update(_json_metadata(result.provider_metadata) or {})
            if result.output != derived and self._may_show(name, isinstance(event, ToolOutputError)):
                metadata[protocol.TOOLWIRE_METADATA] = {"modelOutput": result.output}
        _provider_fields(chunk, event.provider_executed, metadata or None)
        out.append(chunk)
        if channel is not None:
            out.append(protocol.display_chunk(event.tool_call_id, *channel))
        if self._is_background(name):
            failed = isinstance(event, ToolOutputError)
            out.append(protocol.task_chunk(event.tool_call_id, name, "failed" if failed else "done"))

    def _ensure_call(self, tool_call_id: str, out: list[Chunk]) -> None:
        """A call the client never saw (its output came in a later response): announce it first."""
        if tool_call_id in self._calls:
            return
        self._ensure_step(out)
        self._calls[tool_call_id] = "unknown"
        announced = {"type": "tool-input-available", "toolCallId": tool_call_id, "toolName": "unknown", "input": None}
        out.append({**announced, "dynamic": True})

    def _may_show(self, tool_name: str, is_error: bool) -> bool:
        """Whether the UI may see what the model read: not when a display transform hides the result."""
        tool = self._tools.get(tool_name)
        phase: TransformPhase = "error" if is_error else "output"
        return tool is None or tool.transform is None or tool.transform.display.get(phase) is None

    def _suspended(self, event: ToolSuspended, out: list[Chunk]) -> None:
        self._ensure_call(event.tool_call_id, out)
        name = self._calls[event.tool_call_id]
        if name in self._client_tools:
            return  # a browser-side call: its tool part is the request, the browser answers it
        if protocol.is_card(event.payload):
            out.append(protocol.card_chunk(event.tool_call_id, name, event.payload, "waiting"))
        else:
            out.append(protocol.suspended_chunk(event.tool_call_id, name, event.payload, "suspended"))

    def _is_background(self, tool_name: str) -> bool:
        tool = self._tools.get(tool_name)
        return tool is not None and tool.background is not None and tool.background.enabled


def _provider_fields(chunk: Chunk, provider_executed: bool, metadata: Mapping[str, Any] | None) -> None:
    if provider_executed:
        chunk["providerExecuted"] = True
    if metadata:
        chunk["providerMetadata"] = _json_metadata(metadata)


def _json_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Provider metadata as plain JSON dicts (`{provider: {key: value}}`)."""
    if metadata is None:
        return None
    return {str(k): dict(v) if isinstance(v, Mapping) else v for k, v in metadata.items()}


def _split_display(output: Any) -> tuple[Any, tuple[Any, str] | None]:
    """A target tool's display answer `{content, markdown | embedUrl}` → the content, and the channel."""
    if isinstance(output, Mapping) and "content" in output and len(output) == 2:
        for channel in ("embedUrl", "markdown"):
            value = output.get(channel)
            if isinstance(value, str):
                return output["content"], (channel, value)
    return output, None


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
