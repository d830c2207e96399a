"""Tool calls in a stream: from a call's first delta to its `tool-input-available` or `tool-input-error`.

The assembler's tool-call half. It buffers each call's argument fragments (`CallState`), parses
and validates a call's input only when the provider says the call is complete (never on a
parsable prefix), maps provider names back to tool ids, keeps call ids unique, and refuses
incomplete or unreadable inputs with advice the model can act on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from ._call_state import NOT_PARSED, CallState
from ._fast_events import partial_tool_input_delta, tool_input_delta
from ._json_text import loads
from ._long_strings import JsonString
from .deltas import ToolArgsPiece, ToolCallComplete, ToolCallFinished, ToolCallStarted
from .events import Error, Event, ProviderMetadata, ToolInputAvailable, ToolInputError, ToolInputStart
from .names import NameMap
from .schema import SchemaValidationError
from .tools import Tool, free_form_input

_VALUE_STARTS = b'{["-0123456789tfn'


class ToolCalls:
    """The open calls of one response and what became of the finished ones."""

    def __init__(
        self,
        *,
        names: NameMap,
        tools: Mapping[str, Tool] | None,
        partial: bool,
        provider: str,
        ensure_started: Callable[[list[Event]], None],
    ) -> None:
        self._names = names
        self._tools = tools
        self._partial = partial
        self._provider = provider
        """The adapter's `provider_options` key: a free-form call sent wrapped is marked `freeForm` under it."""
        self._ensure_started = ensure_started
        self._calls: dict[Hashable, CallState] = {}
        self._pending_args: dict[Hashable, list[str]] = {}
        self._nameless: dict[Hashable, ToolCallStarted] = {}
        self._unparsed: list[tuple[CallState, str, str]] = []
        self._seen_call_ids: set[str] = set()
        self._call_counter = 0
        self.client_calls = 0
        """Client calls whose input is complete (valid or not): they make a `stop` a `tool-calls`."""

    # -- deltas ------------------------------------------------------------------------------

    def started(self, delta: ToolCallStarted, out: list[Event]) -> None:
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
        tool_id = self._names.tool_id(delta.name)
        tool = self._tools.get(tool_id) if self._tools is not None else None
        call = self._calls[delta.key] = CallState(
            self._unique_id(delta.tool_call_id),
            tool_id,
            tool,
            delta.provider_executed,
            delta.provider_metadata,
            self._partial,
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
            self.args(ToolArgsPiece(delta.key, "".join(held)), out)

    def _unique_id(self, call_id: str | None) -> str:
        self._call_counter += 1
        if not call_id:
            call_id = f"call_{self._call_counter}"
        while call_id in self._seen_call_ids:
            call_id = f"{call_id}_{self._call_counter}"
        self._seen_call_ids.add(call_id)
        return call_id

    def args(self, delta: ToolArgsPiece, out: list[Event]) -> None:
        """The hottest path of every stream: one write, one event."""
        call = self._calls.get(delta.key)
        if call is None:
            self._pending_args.setdefault(delta.key, []).append(delta.text)
            return
        text = delta.text
        if text:  # `_push`, inlined
            call.write(text.encode("utf-8", "surrogatepass"))
            if call.partial:
                out.append(partial_tool_input_delta(call.tool_call_id, text, call, call.size))
            else:
                out.append(tool_input_delta(call.tool_call_id, text))

    def _push(self, call: CallState, text: str, out: list[Event]) -> None:
        """Buffer one argument fragment and emit its delta (with the partial value when asked)."""
        call.write(text.encode("utf-8", "surrogatepass"))
        if call.partial:
            out.append(partial_tool_input_delta(call.tool_call_id, text, call, call.size))
        else:
            out.append(tool_input_delta(call.tool_call_id, text))

    def finished(self, delta: ToolCallFinished, out: list[Event]) -> None:
        call = self._calls.pop(delta.key, None)
        if call is None:
            return
        if delta.provider_metadata:
            call.metadata = _merged(call.metadata, delta.provider_metadata)
        if delta.rebuild is not None:  # the decoder derives the input from the complete text
            self._rebuilt(call, delta.rebuild, out)
            return
        if delta.has_input:
            try:
                text = json.dumps(delta.input, ensure_ascii=False, separators=(",", ":"))
            except RecursionError:
                self._too_deep(call, out)
                return
            if not call.size:
                self._push(call, text, out)
            self._finalize(call, delta.input, out)
            return
        data = call.data()
        buffered = True
        arguments = delta.arguments
        if isinstance(arguments, JsonString):  # a long restatement, compared without decoding it whole
            if arguments.same_text(data):
                arguments.release()  # its frame's bytes are not kept while the input is parsed
                arguments = None
            else:
                arguments = arguments.text()
        if arguments is not None:
            restated = arguments.encode("utf-8", "surrogatepass")
            if restated != data:  # the provider's full text wins over the fragments
                if restated.startswith(data):
                    self._push(call, restated[len(data) :].decode("utf-8", "surrogatepass"), out)
                else:
                    buffered = False
                data = restated
            del restated  # the same bytes as the buffer, or now `data`: not kept twice while parsing
        self._finalize_text(call, data, buffered, out)

    def complete(self, delta: ToolCallComplete, out: list[Event]) -> None:
        self.started(
            ToolCallStarted(
                delta.key, delta.tool_call_id, delta.name, delta.provider_executed, delta.provider_metadata
            ),
            out,
        )
        if delta.name is None:
            return
        self.finished(ToolCallFinished(delta.key, delta.arguments, delta.input, delta.has_input), out)

    # -- end of a call ------------------------------------------------------------------------

    def _rebuilt(self, call: CallState, rebuild: Callable[[str], Any], out: list[Event]) -> None:
        text = call.text()
        try:
            value = rebuild(text)
        except RecursionError:
            self._too_deep(call, out)
            return
        except ValueError as exc:
            self._hold_unparsed(call, text, exc)
            return
        self._finalize(call, value, out)

    def _finalize_text(self, call: CallState, data: bytes, buffered: bool, out: list[Event]) -> None:
        """Parse a complete argument text (`buffered`: it is the call's own buffer, which the parser may have read)."""
        if _blank(data):
            self._finalize(call, {}, out)
            return
        value = call.parsed_input(data) if buffered else NOT_PARSED
        if value is NOT_PARSED:
            try:
                value = loads(data)
            except RecursionError:
                self._too_deep(call, out)
                return
            except ValueError as exc:
                self._hold_unparsed(call, data.decode("utf-8", "surrogatepass"), exc)
                return
        self._finalize(call, value, out)

    def _hold_unparsed(self, call: CallState, text: str, problem: ValueError) -> None:
        """Held until the finish reason is known: an input cut by the output limit needs other advice."""
        self._unparsed.append((call, text, str(problem)))
        if not call.executed:
            self.client_calls += 1

    def release_unparsed(self, cut: bool, out: list[Event]) -> None:
        """Report the inputs that did not parse, now that the finish reason says whether the limit cut them."""
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

    def _finalize(self, call: CallState, value: Any, out: list[Event]) -> None:
        if not call.executed:
            self.client_calls += 1
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

    def _validated(self, call: CallState, tool: Tool, value: Any, out: list[Event]) -> None:
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

    def _available(self, call: CallState, value: Any, validated: Any, out: list[Event]) -> None:
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

    def _too_deep(self, call: CallState, out: list[Event], *, counted: bool = False) -> None:
        """An input nested deeper than Python can parse or check: refused, never raised."""
        if not counted and not call.executed:
            self.client_calls += 1
        text = call.text()
        self._input_error(
            call,
            text[:200],
            f"The input for tool {call.name!r} is nested too deeply to decode ({len(text)} characters). "
            "Call the tool again with a flatter JSON object as its input.",
            out,
        )

    def _input_error(self, call: CallState, value: Any, message: str, out: list[Event]) -> None:
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

    # -- end of the response ----------------------------------------------------------------

    def close(self, cut: bool, out: list[Event]) -> bool:
        """Refuse the calls still open; True when some call never got a name (the response failed)."""
        self.release_unparsed(cut, out)
        for key in list(self._calls):
            call = self._calls.pop(key)
            raw = call.text()
            message = (
                _cut_by_limit(call.name, raw)
                if cut
                else (
                    f"The response ended before the input of tool {call.name!r} was complete "
                    f"(received {len(raw)} characters); call the tool again with the complete input."
                )
            )
            self._input_error(call, raw, message, out)
        if not self._pending_args:
            return False
        # one event for all of them: a hostile response may open thousands of nameless calls
        keys = list(self._pending_args)
        self._pending_args.clear()
        named = ", ".join(repr(key)[:60] for key in keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        what = "tool call" if len(keys) == 1 else f"{len(keys)} tool calls"
        out.append(Error(error_text=f"{what} {named} sent arguments but never a tool name"))
        return True


def _blank(data: bytes) -> bool:
    """Whether argument text is only whitespace (as `str.strip` sees it: no input at all)."""
    head = data.lstrip()
    if not head:
        return True
    if head[0] in _VALUE_STARTS:  # the usual case, decided without decoding the text
        return False
    return not data.decode("utf-8", "surrogatepass").strip()


def _cut_by_limit(name: str, text: str) -> str:
    return (
        f"The output limit cut the input of tool {name!r} short ({len(text)} characters arrived). "
        "Call the tool again with shorter input, or split the work into several calls."
    )


def _marked(metadata: ProviderMetadata | None, provider: str, flag: str) -> bool:
    values = metadata.get(provider) if metadata else None
    return bool(values.get(flag)) if isinstance(values, Mapping) else False


def _merged(first: ProviderMetadata | None, second: ProviderMetadata | None) -> ProviderMetadata | None:
    if not first or not second:
        return first or second
    merged: dict[str, Any] = {}
    merge_metadata(merged, first)
    merge_metadata(merged, second)
    return merged


def merge_metadata(target: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge provider metadata into `target`, provider by provider."""
    for provider, values in extra.items():
        existing = target.get(provider)
        if isinstance(existing, dict) and isinstance(values, Mapping):
            existing.update(values)
        else:
            target[provider] = dict(values) if isinstance(values, Mapping) else values
