"""StreamAssembler: adapter deltas in, unified events out, in time linear in the bytes.

The single owner of part state: it opens and closes text and reasoning parts, hands tool
calls to `ToolCalls` (buffering, parsing, validation) and merges finish reasons and usage
into one `finish` event.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

from ._fast_events import reasoning_delta, text_delta
from ._source_ledger import SourceLedger
from ._tool_calls import ToolCalls, merge_metadata
from .deltas import (
    Delta,
    FileFound,
    MessageStarted,
    PartFinished,
    ReasoningPiece,
    SourceFound,
    StepFinished,
    StreamFailed,
    TextPiece,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
    UsageReport,
)
from .events import (
    Error,
    Event,
    Finish,
    FinishReason,
    ProviderMetadata,
    ReasoningEnd,
    ReasoningStart,
    Start,
    TextEnd,
    TextStart,
    ToolOutputAvailable,
    ToolOutputError,
    Usage,
)
from .names import NameMap
from .tools import Tool


class StreamAssembler:
    """Turns one response's deltas into events; call `feed` per delta and `close` at the end."""

    def __init__(
        self,
        *,
        names: NameMap,
        tools: Mapping[str, Tool] | None = None,
        partial: bool = False,
        provider: str = "",
    ) -> None:
        self._started = False
        self._open_text: dict[Hashable, str] = {}
        self._open_reasoning: dict[Hashable, tuple[str, dict[str, Any]]] = {}
        self._calls = ToolCalls(
            names=names, tools=tools, partial=partial, provider=provider, ensure_started=self._ensure_started
        )
        self._finish: StepFinished | None = None
        self._usage: Usage | None = None
        self._failed = False
        self._sources = SourceLedger()
        self._handlers: dict[type[Any], Any] = {
            ToolArgsPiece: self._calls.args,
            TextPiece: self._text,
            ReasoningPiece: self._reasoning,
            ToolCallStarted: self._calls.started,
            ToolCallFinished: self._calls.finished,
            ToolCallComplete: self._calls.complete,
            PartFinished: self._part_finished,
            MessageStarted: self._message_started,
            ToolOutput: self._tool_output,
            SourceFound: self._source,
            FileFound: self._source,
            UsageReport: self._usage_report,
            StepFinished: self._step_finished,
            StreamFailed: self._stream_failed,
        }

    def feed(self, delta: Delta, out: list[Event]) -> None:
        """Append the events `delta` causes to `out`."""
        self._handlers[type(delta)](delta, out)

    @property
    def handlers(self) -> Mapping[type[Any], Any]:
        """Delta type -> handler(delta, out): what `feed` dispatches to, for loops that inline it."""
        return self._handlers

    def error(self, message: str, out: list[Event]) -> None:
        """Report a decoding problem found outside the adapter (bad bytes, bad JSON)."""
        self._ensure_started(out)
        self._failed = True
        out.append(Error(error_text=message))

    def close(self, out: list[Event]) -> None:
        """End of the response: close open parts, refuse incomplete calls, emit `finish`."""
        self._ensure_started(out)
        for key in list(self._open_text):
            self._part_finished(PartFinished(key), out)
        for key in list(self._open_reasoning):
            self._part_finished(PartFinished(key), out)
        cut = self._finish is not None and self._finish.reason == "length"
        if self._calls.close(cut, out):
            self._failed = True
        out.append(
            Finish(finish_reason=self._finish_reason(), usage=self._usage, provider_metadata=self._finish_metadata())
        )

    # -- parts -------------------------------------------------------------------------

    def _ensure_started(self, out: list[Event]) -> None:
        if not self._started:
            self._started = True
            out.append(Start())

    def _message_started(self, delta: MessageStarted, out: list[Event]) -> None:
        if not self._started:
            self._started = True
            out.append(Start(message_id=delta.message_id, provider_metadata=delta.provider_metadata))

    def _text(self, delta: TextPiece, out: list[Event]) -> None:
        if not self._started:
            self._ensure_started(out)
        part_id = self._open_text.get(delta.key)
        if part_id is None:
            part_id = self._open_text[delta.key] = _part_id(delta.key)
            out.append(TextStart(id=part_id))
        if delta.text:
            out.append(text_delta(part_id, delta.text))

    def _reasoning(self, delta: ReasoningPiece, out: list[Event]) -> None:
        self._ensure_started(out)
        state = self._open_reasoning.get(delta.key)
        if state is None:
            state = self._open_reasoning[delta.key] = (_part_id(delta.key), {})
            out.append(ReasoningStart(id=state[0]))
        if delta.provider_metadata:
            merge_metadata(state[1], delta.provider_metadata)
        if delta.text:
            out.append(reasoning_delta(state[0], delta.text))

    def _part_finished(self, delta: PartFinished, out: list[Event]) -> None:
        part_id = self._open_text.pop(delta.key, None)
        if part_id is not None:
            out.append(TextEnd(id=part_id, provider_metadata=delta.provider_metadata))
            return
        state = self._open_reasoning.pop(delta.key, None)
        if state is not None:
            metadata = state[1]
            if delta.provider_metadata:
                merge_metadata(metadata, delta.provider_metadata)
            out.append(ReasoningEnd(id=state[0], provider_metadata=metadata or None))

    def _source(self, delta: SourceFound | FileFound, out: list[Event]) -> None:
        self._ensure_started(out)
        event = self._sources.source(delta) if isinstance(delta, SourceFound) else self._sources.file(delta)
        if event is not None:
            out.append(event)

    def _tool_output(self, delta: ToolOutput, out: list[Event]) -> None:
        self._ensure_started(out)
        if delta.is_error:
            text = delta.output if isinstance(delta.output, str) else json.dumps(delta.output)
            out.append(
                ToolOutputError(
                    tool_call_id=delta.tool_call_id,
                    error_text=text,
                    provider_executed=True,
                    provider_metadata=delta.provider_metadata,
                )
            )
        else:
            out.append(
                ToolOutputAvailable(
                    tool_call_id=delta.tool_call_id,
                    output=delta.output,
                    provider_executed=True,
                    provider_metadata=delta.provider_metadata,
                )
            )

    # -- end of response -------------------------------------------------------------------

    def _usage_report(self, delta: UsageReport, out: list[Event]) -> None:
        self._usage = _merge_usage(self._usage, delta.usage)

    def _step_finished(self, delta: StepFinished, out: list[Event]) -> None:
        self._ensure_started(out)
        self._finish = delta
        self._calls.release_unparsed(delta.reason == "length", out)
        if delta.usage is not None:
            self._usage = _merge_usage(self._usage, delta.usage)

    def _stream_failed(self, delta: StreamFailed, out: list[Event]) -> None:
        self.error(delta.message, out)

    def _finish_reason(self) -> FinishReason:
        if self._finish is None:
            return "error" if self._failed else "other"
        reason = self._finish.reason
        if reason == "stop" and self._calls.client_calls:
            return "tool-calls"
        return reason

    def _finish_metadata(self) -> ProviderMetadata | None:
        return self._finish.provider_metadata if self._finish is not None else None


def _part_id(key: Hashable) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, tuple):
        return "-".join(str(k) for k in key)
    return str(key)


def _merge_usage(old: Usage | None, new: Usage) -> Usage:
    if old is None:
        return new
    return Usage(
        input_tokens=new.input_tokens if new.input_tokens is not None else old.input_tokens,
        output_tokens=new.output_tokens if new.output_tokens is not None else old.output_tokens,
        total_tokens=new.total_tokens if new.total_tokens is not None else old.total_tokens,
        reasoning_tokens=new.reasoning_tokens if new.reasoning_tokens is not None else old.reasoning_tokens,
        cached_input_tokens=(
            new.cached_input_tokens if new.cached_input_tokens is not None else old.cached_input_tokens
        ),
    )
