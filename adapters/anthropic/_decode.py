"""Anthropic Messages responses, streamed or whole, mapped to neutral deltas.

Frames are raw stream events (`anthropic/types/raw_message_stream_event.py`) or whole `message`
objects (`anthropic/types/message.py`), as decoded JSON dicts or SDK objects. Content blocks are
keyed by their index; when one source holds several messages (agent traces), each message's
keys continue after the previous one's, so parts never share an id. The SDK stream helper's
synthesized events (`text`, `input_json`, `thinking`, `signature`, `citation`) repeat the raw
deltas and are ignored, as are `ping` and event types this version does not know.

Usage: `input_tokens` is the whole prompt, as Anthropic bills it (`input_tokens` +
`cache_read_input_tokens` + `cache_creation_input_tokens`, per `anthropic/types/usage.py`), so it
means the same as on the other APIs; `cached_input_tokens` is the cache read, and the cache
write is kept in the finish event's metadata (`anthropic.cacheCreationInputTokens`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from toolwire.deltas import (
    Delta,
    MessageStarted,
    PartFinished,
    ReasoningPiece,
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
from toolwire.events import FinishReason, Usage
from toolwire.exceptions import MalformedFrameError

from .._frames import Skipped, error_text, field, items_of, maybe_text, object_of, text_of, wrong
from ._block_values import anthropic_metadata as _anthropic
from ._block_values import call_metadata as _call_metadata
from ._block_values import plain_json as _json
from ._block_values import provider_output as _provider_output
from ._sources import RESULT_SOURCES, citation_sources, result_sources

STOP_REASONS: Final[dict[str, FinishReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
    # the server paused a long turn of its own tools; sending the response back continues it
    "pause_turn": "other",
}
"""`anthropic/types/stop_reason.py` mapped to neutral finish reasons (unknown ones: `other`)."""

CALL_BLOCKS: Final = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Blocks that are calls: the client's own (`tool_use`) and the ones the provider runs."""

_PAYLOADS: Final[dict[Any, str]] = {
    "input_json_delta": "partial_json",
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "signature",
    "citations_delta": "citation",
}
"""The field that carries each delta type's payload (`anthropic/types/raw_content_block_delta.py`)."""

API = "anthropic"
BlockKind = Literal["tool", "text", "reasoning"]
Deltas = tuple[Delta, ...] | list[Delta]
_NONE: Final[tuple[Delta, ...]] = ()


class AnthropicDecoder:
    """State of one response: open blocks, inputs that came whole, usage so far."""

    __slots__ = ("_base", "_citations", "_handlers", "_next_key", "_open", "_stopped", "_streaming", "_usage", "_whole")

    def __init__(self) -> None:
        self._base = 0
        """Key of index 0 in the current message."""
        self._next_key = 0
        """First key no message has used yet."""
        self._open: dict[int, BlockKind] = {}
        self._whole: dict[int, Any] = {}
        """Inputs that came complete in `content_block_start`, used when no delta follows."""
        self._citations: dict[int, list[Any]] = {}
        self._usage: dict[str, int] = {}
        self._streaming = False
        self._stopped = False
        self._handlers: dict[str, Callable[[Any], Deltas]] = {
            "content_block_start": self._block_start,
            "content_block_stop": self._block_stop,
            "message_start": self._message_start,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "message": self._message,
            "error": self._error,
        }

    def feed(self, frame: Any) -> Deltas:
        """Deltas for one frame; argument and text deltas take the shortest path."""
        if type(frame) is dict:
            kind = frame.get("type")
            if kind == "content_block_delta":
                delta = frame.get("delta")
                if type(delta) is dict and delta.get("type") == "input_json_delta" and not self._whole:
                    text, index = delta.get("partial_json"), frame.get("index")
                    if type(text) is str and type(index) is int:
                        return (ToolArgsPiece(index + self._base, text),)
                return self._block_delta(frame.get("index"), delta)
        else:
            kind = getattr(frame, "type", None)
            if kind == "content_block_delta":
                # SDK objects: plain attribute reads for the two hot delta types (a missing attribute is
                # reported by the base as a malformed frame); everything else takes the general path
                delta = frame.delta
                dkind = delta.type
                if dkind == "input_json_delta" and not self._whole:
                    text, index = delta.partial_json, frame.index
                    if type(text) is str and type(index) is int:
                        return (ToolArgsPiece(index + self._base, text),)
                elif dkind == "text_delta":
                    text, index = delta.text, frame.index
                    if type(text) is str and type(index) is int:
                        return (TextPiece(index + self._base, text),)
                return self._block_delta(getattr(frame, "index", None), delta)
        handler = self._handlers.get(kind) if type(kind) is str else None
        if handler is None:
            # a proxy's error body without Anthropic's `"type": "error"` is still an error
            return self._error(frame) if kind is None and field(frame, "error") is not None else _NONE
        return handler(frame)

    def close(self) -> Deltas:
        """A stream cut before `message_stop` is an error (open calls are refused by the core)."""
        if self._streaming and not self._stopped:
            return (StreamFailed("the Anthropic stream ended before `message_stop`: the response is incomplete"),)
        return _NONE

    # -- content blocks ----------------------------------------------------------------------

    def _block_delta(self, index: Any, delta: Any) -> Deltas:
        if type(delta) is dict:
            kind = delta.get("type")
            value = delta.get(_PAYLOADS.get(kind, "type"))
        else:
            kind = getattr(delta, "type", None)
            value = getattr(delta, _PAYLOADS.get(kind, "type"), None)
        if type(index) is not int:
            return (StreamFailed(f"content_block_delta without an index: {delta!r:.80}"),)
        key = index + self._base
        if kind == "input_json_delta" and type(value) is str:
            if self._whole:
                self._whole.pop(key, None)
            return (ToolArgsPiece(key, value),)
        if kind == "text_delta" and type(value) is str:
            return (TextPiece(key, value),)
        return self._other_delta(key, kind, value)

    def _other_delta(self, key: int, kind: Any, value: Any) -> Deltas:
        if kind == "thinking_delta" and type(value) is str:
            return (ReasoningPiece(key, value),)
        if kind == "signature_delta" and (value is None or type(value) is str):
            return (ReasoningPiece(key, "", _anthropic(signature=value)),)
        if kind == "citations_delta":
            self._citations.setdefault(key, []).append(_json(value))
            return _NONE
        if kind in _PAYLOADS:
            return (StreamFailed(f"skipped an unreadable {API} `{kind}`: its `{_PAYLOADS[kind]}` is not a string"),)
        return _NONE

    def _block_start(self, frame: Any) -> Deltas:
        index = field(frame, "index")
        block = object_of(frame, "content_block", "content_block")
        if type(index) is not int or block is None:
            return (StreamFailed(f"content_block_start without an index or a content block: {frame!r:.80}"),)
        key = index + self._base
        if key >= self._next_key:
            self._next_key = key + 1
        return self._block(key, block, whole=False)

    def _block_stop(self, frame: Any) -> Deltas:
        index = field(frame, "index")
        if type(index) is not int:
            return (StreamFailed(f"content_block_stop without an index: {frame!r:.80}"),)
        key = index + self._base
        kind = self._open.pop(key, None)
        if kind == "tool":
            whole = self._whole.pop(key, None) if self._whole else None
            return (ToolCallFinished(key) if whole is None else ToolCallFinished(key, input=whole, has_input=True),)
        if kind == "text":
            citations = self._citations.pop(key, None) if self._citations else None
            if citations:
                return (PartFinished(key, _anthropic(citations=citations)), *citation_sources(citations))
            return (PartFinished(key),)
        if kind == "reasoning":
            return (PartFinished(key),)
        return _NONE

    def _block(self, key: int, block: Any, *, whole: bool) -> Deltas:
        """Deltas for a block's start (`whole`: the block is complete, as in a non-streamed message)."""
        kind = field(block, "type")
        if type(kind) is not str:
            return _NONE
        if kind in CALL_BLOCKS:
            return self._call(key, kind, block, whole)
        if kind == "text":
            return self._text(key, block, whole)
        if kind == "thinking":
            signature = maybe_text(block, "signature", "thinking.signature")
            piece = ReasoningPiece(
                key, text_of(block, "thinking", "thinking.thinking"), _anthropic(signature=signature)
            )
            return self._part(key, piece, whole)
        if kind == "redacted_thinking":
            data = maybe_text(block, "data", "redacted_thinking.data")
            return self._part(key, ReasoningPiece(key, "", _anthropic(redactedData=data)), whole)
        if kind.endswith("_tool_result"):
            output = _provider_output(kind, block)
            if isinstance(output, ToolOutput) and kind in RESULT_SOURCES:
                return (output, *result_sources(output.output))
            return (output,)
        return _NONE  # container uploads, compaction and blocks this version does not know

    def _text(self, key: int, block: Any, whole: bool) -> Deltas:
        citations = items_of(block, "citations", "text.citations")
        piece = TextPiece(key, text_of(block, "text", "text.text"))
        if whole:
            if citations:
                cited = _json(citations)
                return (piece, PartFinished(key, _anthropic(citations=cited)), *citation_sources(cited))
            return (piece, PartFinished(key))
        if citations:
            self._citations[key] = _json(citations)
        self._open[key] = "text"
        return (piece,)

    def _part(self, key: int, piece: ReasoningPiece, whole: bool) -> Deltas:
        if whole:
            return (piece, PartFinished(key))
        self._open[key] = "reasoning"
        return (piece,)

    def _call(self, key: int, kind: str, block: Any, whole: bool) -> Deltas:
        call_id = maybe_text(block, "id", f"{kind}.id")
        name = maybe_text(block, "name", f"{kind}.name")
        executed = kind != "tool_use"
        metadata = _call_metadata(kind, block)
        raw_input = field(block, "input")
        if raw_input is not None and type(raw_input) is not dict and isinstance(raw_input, (str, int, float, list)):
            raise wrong(f"{kind}.input", "an object", raw_input)
        if whole:
            if not raw_input:  # `{}` (or no input): the same events as a stream whose deltas are all empty
                return (
                    ToolCallComplete(
                        key, call_id, name, arguments="", provider_executed=executed, provider_metadata=metadata
                    ),
                )
            return (
                ToolCallComplete(
                    key,
                    call_id,
                    name,
                    input=raw_input,
                    has_input=True,
                    provider_executed=executed,
                    provider_metadata=metadata,
                ),
            )
        self._open[key] = "tool"
        if raw_input:
            self._whole[key] = raw_input
        return (ToolCallStarted(key, call_id, name, provider_executed=executed, provider_metadata=metadata),)

    # -- messages ----------------------------------------------------------------------------

    def _message_start(self, frame: Any) -> Deltas:
        self._streaming = True
        self._stopped = False
        return self._message(field(frame, "message"))

    def _message(self, message: Any) -> Deltas:
        """A whole message, or the start of a streamed one (its `content` is usually empty)."""
        if message is not None and isinstance(message, (str, int, float, list)):
            raise wrong("message", "an object", message)
        self._base = self._next_key
        self._usage = {}
        out: list[Delta] = [MessageStarted(maybe_text(message, "id", "message.id") if message is not None else None)]
        if message is None:
            return out
        content = items_of(message, "content", "message.content")
        skipped = Skipped("content blocks")
        for position, block in enumerate(content):
            try:
                if block is None or isinstance(block, (str, int, float, list)):
                    raise wrong("", "an object", block)
                out.extend(self._block(self._base + position, block, whole=True))
            except MalformedFrameError as exc:
                skipped.add(position, exc)
        skipped.report(API, out)
        self._next_key = self._base + len(content)
        usage = object_of(message, "usage", "message.usage")
        if usage is not None:
            out.append(self._usage_report(usage))
        reason = maybe_text(message, "stop_reason", "message.stop_reason")
        if reason is not None:
            out.append(self._finished(reason, message))
        return out

    def _message_delta(self, frame: Any) -> Deltas:
        out: list[Delta] = []
        usage = object_of(frame, "usage", "usage")
        if usage is not None:
            out.append(self._usage_report(usage))
        delta = object_of(frame, "delta", "delta")
        reason = maybe_text(delta, "stop_reason", "delta.stop_reason") if delta is not None else None
        if reason is not None:
            out.append(self._finished(reason, delta))
        return out

    def _message_stop(self, frame: Any) -> Deltas:
        self._stopped = True
        return _NONE

    def _error(self, frame: Any) -> Deltas:
        """An error event or HTTP error body (`{"type": "error", "error": {"type", "message"}}`)."""
        error = field(frame, "error")
        return (StreamFailed(error_text(API, error) if error is not None else f"{API} error: no details"),)

    def _finished(self, reason: Any, source: Any) -> StepFinished:
        metadata = {
            "stopSequence": maybe_text(source, "stop_sequence", "stop_sequence"),
            "stopDetails": _json(field(source, "stop_details")),
            "container": _json(field(source, "container")),
            "cacheCreationInputTokens": self._usage.get("cache_creation_input_tokens"),
        }
        raw = str(reason)
        return StepFinished(STOP_REASONS.get(raw, "other"), raw, provider_metadata=_anthropic(**metadata))

    def _usage_report(self, usage: Any) -> UsageReport:
        seen = self._usage
        for name in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            value = field(usage, name)
            if type(value) is int:
                seen[name] = value
        details = object_of(usage, "output_tokens_details", "usage.output_tokens_details")
        thinking = field(details, "thinking_tokens") if details is not None else None
        if type(thinking) is int:
            seen["thinking_tokens"] = thinking
        return UsageReport(_usage(seen))


def _usage(seen: Mapping[str, int]) -> Usage:
    fresh = seen.get("input_tokens")
    cache_read = seen.get("cache_read_input_tokens")
    total_input = None if fresh is None else fresh + (cache_read or 0) + seen.get("cache_creation_input_tokens", 0)
    output = seen.get("output_tokens")
    return Usage(
        input_tokens=total_input,
        output_tokens=output,
        total_tokens=None if total_input is None or output is None else total_input + output,
        reasoning_tokens=seen.get("thinking_tokens"),
        cached_input_tokens=cache_read,
    )
