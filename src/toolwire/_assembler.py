"""StreamAssembler: adapter deltas in, unified events out, in time linear in the bytes.

The single owner of part state: it opens and closes text and reasoning parts, buffers each
call's argument fragments in a list (joined once), parses and validates a call's input only
when the provider says the call is complete (never on a parsable prefix), maps provider names
back to tool ids, and merges finish reasons and usage into one `finish` event.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

from ._partial_json import IncrementalJsonParser, parse_partial
from ._source_ledger import SourceLedger
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
    PartialToolInputDelta,
    ProviderMetadata,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    Start,
    TextDelta,
    TextEnd,
    TextStart,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputError,
    Usage,
)
from .names import NameMap
from .schema import SchemaValidationError
from .tools import Tool, free_form_input


class _Call:
    """State of one streaming tool call."""

    __slots__ = ("executed", "metadata", "name", "parser", "pieces", "tool", "tool_call_id")

    def __init__(self, tool_call_id: str, name: str, tool: Tool | None, executed: bool, metadata: Any) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.tool = tool
        self.executed = executed
        self.metadata: ProviderMetadata | None = metadata
        self.pieces: list[str] = []
        self.parser: IncrementalJsonParser | None = None

    def partial_value(self, delta_count: int) -> Any:
        """Live value when current, else recomputed from the text at that delta."""
        if self.parser is not None and delta_count == len(self.pieces):
            return self.parser.value()
        return parse_partial("".join(self.pieces[:delta_count]))


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
        self._names = names
        self._provider = provider
        """The adapter's `provider_options` key: a free-form call sent wrapped is marked `freeForm` under it."""
        self._tools = tools
        self._partial = partial
        self._started = False
        self._open_text: dict[Hashable, str] = {}
        self._open_reasoning: dict[Hashable, tuple[str, dict[str, Any]]] = {}
        self._calls: dict[Hashable, _Call] = {}
        self._pending_args: dict[Hashable, list[str]] = {}
        self._nameless: dict[Hashable, ToolCallStarted] = {}
        self._unparsed: list[tuple[_Call, str, str]] = []
        self._seen_call_ids: set[str] = set()
        self._client_calls = 0
        self._call_counter = 0
        self._finish: StepFinished | None = None
        self._usage: Usage | None = None
        self._failed = False
        self._sources = SourceLedger()
        self._handlers: dict[type[Any], Any] = {
            ToolArgsPiece: self._args,
            TextPiece: self._text,
            ReasoningPiece: self._reasoning,
            ToolCallStarted: self._call_started,
            ToolCallFinished: self._call_finished,
            ToolCallComplete: self._call_complete,
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
        self._release_unparsed(cut, out)
        for key in list(self._calls):
            call = self._calls.pop(key)
            raw = "".join(call.pieces)
            message = (
                _cut_by_limit(call.name, raw)
                if cut
                else (
                    f"The response ended before the input of tool {call.name!r} was complete "
                    f"(received {len(raw)} characters); call the tool again with the complete input."
                )
            )
            self._input_error(call, raw, message, out)
        if self._pending_args:
            # one event for all of them: a hostile response may open thousands of nameless calls
            keys = list(self._pending_args)
            self._pending_args.clear()
            self._failed = True
            named = ", ".join(repr(key)[:60] for key in keys[:3]) + (
                f" and {len(keys) - 3} more" if len(keys) > 3 else ""
            )
            what = "tool call" if len(keys) == 1 else f"{len(keys)} tool calls"
            out.append(Error(error_text=f"{what} {named} sent arguments but never a tool name"))
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
            out.append(TextDelta(id=part_id, delta=delta.text))

    def _reasoning(self, delta: ReasoningPiece, out: list[Event]) -> None:
        self._ensure_started(out)
        state = self._open_reasoning.get(delta.key)
        if state is None:
            state = self._open_reasoning[delta.key] = (_part_id(delta.key), {})
            out.append(ReasoningStart(id=state[0]))
        if delta.provider_metadata:
            _merge_metadata(state[1], delta.provider_metadata)
        if delta.text:
            out.append(ReasoningDelta(id=state[0], delta=delta.text))

    def _part_finished(self, delta: PartFinished, out: list[Event]) -> None:
        part_id = self._open_text.pop(delta.key, None)
        if part_id is not None:
            out.append(TextEnd(id=part_id, provider_metadata=delta.provider_metadata))
            return
        state = self._open_reasoning.pop(delta.key, None)
        if state is not None:
            metadata = state[1]
            if delta.provider_metadata:
                _merge_metadata(metadata, delta.provider_metadata)
            out.append(ReasoningEnd(id=state[0], provider_metadata=metadata or None))

    # -- tool calls ----------------------------------------------------------------------

    def _call_started(self, delta: ToolCallStarted, out: list[Event]) -> None:
        self._ensure_started(out)
        if delta.key in self._calls:
            return
        earlier = self._nameless.get(delta.key)
        if earlier is not None:
            delta = ToolCallStarted(
                delta.key,
                delta.tool_call_id or earlier.tool_call_id,
                delta.name,
                delta.provider_executed or earlier.provider_executed,
                _merged(earlier.provider_metadata, delta.provider_metadata),
            )
        if delta.name is None:
            self._nameless[delta.key] = delta
            self._pending_args.setdefault(delta.key, [])
            return
        self._nameless.pop(delta.key, None)
        call = self._open_call(
            delta.key, delta.tool_call_id, delta.name, delta.provider_executed, delta.provider_metadata
        )
        out.append(
            ToolInputStart(
                tool_call_id=call.tool_call_id,
                tool_name=call.name,
                provider_executed=call.executed,
                provider_metadata=call.metadata,
            )
        )
        held = self._pending_args.pop(delta.key, None)
        if held:
            self._args(ToolArgsPiece(delta.key, "".join(held)), out)

    def _open_call(self, key: Hashable, call_id: str | None, name: str, executed: bool, metadata: Any) -> _Call:
        tool_id = self._names.tool_id(name)
        tool = self._tools.get(tool_id) if self._tools is not None else None
        call = _Call(self._unique_id(call_id), tool_id, tool, executed, metadata)
        if self._partial:
            call.parser = IncrementalJsonParser()
        self._calls[key] = call
        return call

    def _unique_id(self, call_id: str | None) -> str:
        self._call_counter += 1
        if not call_id:
            call_id = f"call_{self._call_counter}"
        while call_id in self._seen_call_ids:
            call_id = f"{call_id}_{self._call_counter}"
        self._seen_call_ids.add(call_id)
        return call_id

    def _args(self, delta: ToolArgsPiece, out: list[Event]) -> None:
        call = self._calls.get(delta.key)
        if call is None:
            self._pending_args.setdefault(delta.key, []).append(delta.text)
            return
        text = delta.text
        if not text:
            return
        if call.parser is None:  # the hottest path of every stream: one append, one event
            call.pieces.append(text)
            out.append(ToolInputDelta(tool_call_id=call.tool_call_id, input_text_delta=text))
        else:
            self._push(call, text, out)

    def _push(self, call: _Call, text: str, out: list[Event]) -> None:
        """Buffer one argument fragment and emit its delta (with the partial value when asked)."""
        call.pieces.append(text)
        parser = call.parser
        if parser is None:
            out.append(ToolInputDelta(tool_call_id=call.tool_call_id, input_text_delta=text))
        else:
            parser.feed(text)
            out.append(
                PartialToolInputDelta(
                    tool_call_id=call.tool_call_id,
                    input_text_delta=text,
                    _partial=call,
                    _delta_count=len(call.pieces),
                )
            )

    def _call_finished(self, delta: ToolCallFinished, out: list[Event]) -> None:
        call = self._calls.pop(delta.key, None)
        if call is None:
            return
        if delta.provider_metadata:
            call.metadata = _merged(call.metadata, delta.provider_metadata)
        buffered = "".join(call.pieces)
        if delta.has_input:
            try:
                text = json.dumps(delta.input, ensure_ascii=False, separators=(",", ":"))
            except RecursionError:
                self._too_deep(call, out)
                return
            if not buffered:
                self._emit_rest(call, text, out)
            self._finalize(call, delta.input, text, out)
            return
        if delta.arguments is not None and delta.arguments != buffered:
            if delta.arguments.startswith(buffered):
                self._emit_rest(call, delta.arguments[len(buffered) :], out)
            buffered = delta.arguments
        self._finalize_text(call, buffered, out)

    def _emit_rest(self, call: _Call, text: str, out: list[Event]) -> None:
        if text:
            self._push(call, text, out)

    def _call_complete(self, delta: ToolCallComplete, out: list[Event]) -> None:
        self._call_started(
            ToolCallStarted(
                delta.key, delta.tool_call_id, delta.name, delta.provider_executed, delta.provider_metadata
            ),
            out,
        )
        if delta.name is None:
            return
        self._call_finished(ToolCallFinished(delta.key, delta.arguments, delta.input, delta.has_input), out)

    def _finalize_text(self, call: _Call, text: str, out: list[Event]) -> None:
        if not text.strip():
            self._finalize(call, {}, text, out)
            return
        try:
            value = json.loads(text)
        except RecursionError:
            self._too_deep(call, out)
            return
        except ValueError as exc:
            # Held until the finish reason is known: an input cut by the output limit needs other advice.
            self._unparsed.append((call, text, str(exc)))
            if not call.executed:
                self._client_calls += 1
            return
        self._finalize(call, value, text, out)

    def _release_unparsed(self, cut: bool, out: list[Event]) -> None:
        for call, text, problem in self._unparsed:
            message = (
                _cut_by_limit(call.name, text)
                if cut
                else (
                    f"The input for tool {call.name!r} is not valid JSON ({problem}). "
                    "Call the tool again with a single JSON object as its input."
                )
            )
            self._input_error(call, text, message, out)
        self._unparsed.clear()

    def _finalize(self, call: _Call, value: Any, text: str, out: list[Event]) -> None:
        if not call.executed:
            self._client_calls += 1
        tool = call.tool
        if tool is not None and tool.free_form and not call.executed:
            text = free_form_input(value)
            if isinstance(text, str):
                if text is not value and self._provider and not _marked(call.metadata, self._provider, "custom"):
                    # sent as `{"input": text}`: the history sends it back that way
                    call.metadata = _merged(call.metadata, {self._provider: {"freeForm": True}})
                self._validated(call, tool, text, out)
                return
        if not isinstance(value, dict):
            self._input_error(call, value, f"The input for tool {call.name!r} must be a JSON object.", out)
            return
        if not call.executed and self._tools is not None:
            if tool is None:
                known = ", ".join(sorted(self._tools)) or "none"
                self._input_error(call, value, f"There is no tool named {call.name!r}. Available tools: {known}.", out)
                return
            self._validated(call, tool, value, out)
            return
        self._available(call, value, value, out)

    def _validated(self, call: _Call, tool: Tool, value: Any, out: list[Event]) -> None:
        """Validate a client call's input against its tool's schema (null repair first)."""
        try:
            value = tool.input_schema.drop_disallowed_nulls(value)
            validated = tool.input_schema.validate(value)
        except RecursionError:
            self._too_deep(call, out, counted=True)
            return
        except SchemaValidationError as exc:
            self._input_error(
                call,
                value,
                f"Invalid input for tool {call.name!r}: {exc}. Call the tool again with input that matches "
                f"its schema: {json.dumps(tool.input_schema.json_schema, separators=(',', ':'))}",
                out,
            )
            return
        self._available(call, value, validated, out)

    def _available(self, call: _Call, value: Any, validated: Any, out: list[Event]) -> None:
        out.append(
            ToolInputAvailable(
                tool_call_id=call.tool_call_id,
                tool_name=call.name,
                input=value,
                provider_executed=call.executed,
                provider_metadata=call.metadata,
                validated_input=validated,
            )
        )

    def _too_deep(self, call: _Call, out: list[Event], *, counted: bool = False) -> None:
        """An input nested deeper than Python can parse or check: refused, never raised."""
        if not counted and not call.executed:
            self._client_calls += 1
        text = "".join(call.pieces)
        self._input_error(
            call,
            text[:200],
            f"The input for tool {call.name!r} is nested too deeply to decode ({len(text)} characters). "
            "Call the tool again with a flatter JSON object as its input.",
            out,
        )

    def _input_error(self, call: _Call, value: Any, message: str, out: list[Event]) -> None:
        out.append(
            ToolInputError(
                tool_call_id=call.tool_call_id,
                tool_name=call.name,
                input=value,
                error_text=message,
                provider_executed=call.executed,
                provider_metadata=call.metadata,
            )
        )

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
        self._release_unparsed(delta.reason == "length", out)
        if delta.usage is not None:
            self._usage = _merge_usage(self._usage, delta.usage)

    def _stream_failed(self, delta: StreamFailed, out: list[Event]) -> None:
        self.error(delta.message, out)

    def _finish_reason(self) -> FinishReason:
        if self._finish is None:
            return "error" if self._failed else "other"
        reason = self._finish.reason
        if reason == "stop" and self._client_calls:
            return "tool-calls"
        return reason

    def _finish_metadata(self) -> ProviderMetadata | None:
        return self._finish.provider_metadata if self._finish is not None else None


def _cut_by_limit(name: str, text: str) -> str:
    return (
        f"The output limit cut the input of tool {name!r} short ({len(text)} characters arrived). "
        "Call the tool again with shorter input, or split the work into several calls."
    )


def _marked(metadata: ProviderMetadata | None, provider: str, flag: str) -> bool:
    values = metadata.get(provider) if metadata else None
    return bool(values.get(flag)) if isinstance(values, Mapping) else False


def _part_id(key: Hashable) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, tuple):
        return "-".join(str(k) for k in key)
    return str(key)


def _merged(first: ProviderMetadata | None, second: ProviderMetadata | None) -> ProviderMetadata | None:
    if not first or not second:
        return first or second
    merged: dict[str, Any] = {}
    _merge_metadata(merged, first)
    _merge_metadata(merged, second)
    return merged


def _merge_metadata(target: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for provider, values in extra.items():
        existing = target.get(provider)
        if isinstance(existing, dict) and isinstance(values, Mapping):
            existing.update(values)
        else:
            target[provider] = dict(values) if isinstance(values, Mapping) else values


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
