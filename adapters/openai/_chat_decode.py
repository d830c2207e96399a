"""Chat Completions responses (chunks, whole completions, SDK helper events) mapped to deltas.

Calls are keyed by `(choice index, tool_calls[].index)` (`ChoiceDeltaToolCall` in
`openai/types/chat/chat_completion_chunk.py`); id and name come with a call's first delta,
arguments in later ones. OpenAI streams calls one after another, but interleaved calls work
too, and a new id on an index that is already open starts a new call (servers that number
every call 0). A choice's calls and text end at its `finish_reason`, or at the end of the
stream. The usage chunk has empty `choices`; `[DONE]` never reaches the decoder.

OpenAI-compatible servers stretch the format in two ways handled here:
- a chunk's choice may carry a cumulative `message` snapshot beside its `delta` (Perplexity):
  the delta is read and the snapshot never, so text is not repeated;
- `content` may be a list of typed chunks (Mistral): `text` chunks are text, `thinking` chunks
  (whose `thinking` is a list of text chunks) are reasoning, in the order they come.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

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
    UsageReport,
)
from toolwire.exceptions import MalformedFrameError

from .._frames import NOT_OBJECTS, Skipped, error_text, field, int_of, items_of, maybe_text, object_of, text_of, wrong
from ._annotations import annotation_sources, listed_sources
from ._custom import custom_input
from ._usage import CHAT_FINISH_REASONS, chat_usage

API = "openai-chat"

_REFUSAL_END = {"openai": {"refusal": True}}
_TOOL_CALLS_ONLY = frozenset({"tool_calls"})
_REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Reasoning text some OpenAI-compatible servers add to the delta (vLLM, DeepSeek; OpenRouter)."""


class _OpenCall:
    """A streaming call: its assembler key, its id, and whether its name was seen."""

    __slots__ = ("call_id", "key", "named")

    def __init__(self, key: Hashable, call_id: str | None, named: bool) -> None:
        self.key = key
        self.call_id = call_id
        self.named = named


class ChatDecoder:
    """Per-response state for Chat Completions."""

    __slots__ = ("_calls", "_last_index", "_parts", "_started")

    def __init__(self) -> None:
        self._calls: dict[tuple[int, int], _OpenCall] = {}
        self._last_index: dict[int, int] = {}
        self._parts: dict[int, list[Hashable]] = {}
        self._started = False

    def feed(self, frame: Any) -> list[Delta]:
        """Deltas for one chunk, completion, or SDK helper event."""
        piece = self._arguments_only(frame) if type(frame) is dict else self._sdk_arguments_only(frame)
        if piece is not None:
            return [piece]
        choices = items_of(frame, "choices", "choices") if field(frame, "choices") is not None else None
        if choices is None:
            return self._not_a_chunk(frame)
        out: list[Delta] = []
        if not self._started:
            self._started = True
            out.append(MessageStarted(message_id=maybe_text(frame, "id", "id")))
        skipped = Skipped("choices")
        for position, choice in enumerate(choices):
            try:
                self._choice(choice, out)
            except MalformedFrameError as exc:
                skipped.add(position, exc)
        skipped.report(API, out)
        listed = field(frame, "search_results") or field(frame, "citations")
        if listed:  # Perplexity lists its sources beside the choices (on every chunk: the core sends each once)
            out.extend(listed_sources(field(frame, "search_results"), field(frame, "citations")))
        try:
            usage = object_of(frame, "usage", "usage")
            if usage is not None:
                out.append(UsageReport(chat_usage(usage)))
        except MalformedFrameError as exc:  # the content read above is kept
            out.append(StreamFailed(f"skipped the malformed usage in one {API} frame: {exc}"))
        return out

    def _choice(self, choice: Any, out: list[Delta]) -> None:
        index = int_of(choice, "index", "index")
        delta = object_of(choice, "delta", "delta")
        if delta is None:
            message = object_of(choice, "message", "message")
            if message is not None:
                self._message(index, message, out)
                self._finish(index, choice, out)
                return
        else:
            self._delta(index, delta, out)
        if field(choice, "finish_reason") is not None:
            self._finish(index, choice, out)

    def close(self) -> list[Delta]:
        """End of stream: calls and parts of choices that never sent a finish_reason end here."""
        out: list[Delta] = []
        for open_call in self._calls.values():
            out.append(ToolCallFinished(open_call.key))
        self._calls.clear()
        for keys in self._parts.values():
            out.extend(PartFinished(key) for key in keys)
        self._parts.clear()
        return out

    # -- the hot path: a chunk that only carries more argument text for an open call -----------

    def _arguments_only(self, frame: dict[str, Any]) -> ToolArgsPiece | None:
        try:
            choices = frame.get("choices")
            if not choices or len(choices) != 1 or frame.get("usage") is not None:
                return None
            if "search_results" in frame or "citations" in frame:  # Perplexity's sources: the general path reads them
                return None
            choice = choices[0]
            delta = choice.get("delta")
            if delta is None or len(delta) != 1 or choice.get("finish_reason") is not None:
                return None
            calls = delta.get("tool_calls")
            if not calls or len(calls) != 1:
                return None
            call = calls[0]
            function = call.get("function")
            if function is None or call.get("id") is not None or function.get("name") is not None:
                return None
            open_call = self._calls.get((choice.get("index", 0), call.get("index")))
            arguments = function.get("arguments")
        except (AttributeError, TypeError, KeyError):  # a field of the wrong type: the general path names it
            return None
        return ToolArgsPiece(open_call.key, arguments) if open_call is not None and type(arguments) is str else None

    def _sdk_arguments_only(self, frame: Any) -> ToolArgsPiece | None:
        """`_arguments_only` for SDK chunks: declared fields read directly, anything else falls through."""
        try:
            attributes = frame.__dict__
            choices = attributes["choices"]
            if len(choices) != 1 or attributes["usage"] is not None:
                return None
            if frame.__pydantic_extra__:  # fields the SDK does not declare (Perplexity's sources)
                return None
            choice = choices[0]
            delta = choice.delta
            if choice.finish_reason is not None or delta.__pydantic_fields_set__ != _TOOL_CALLS_ONLY:
                return None
            calls = delta.tool_calls
            if len(calls) != 1:
                return None
            call = calls[0]
            function = call.function
            if call.id is not None or function.name is not None:
                return None
            open_call = self._calls.get((choice.index, call.index))
            arguments = function.arguments
        except (AttributeError, KeyError, TypeError):  # not a plain SDK chunk: the general path reads it
            return None
        return ToolArgsPiece(open_call.key, arguments) if open_call is not None and type(arguments) is str else None

    # -- frames that are not chunks ------------------------------------------------------------

    def _not_a_chunk(self, frame: Any) -> list[Delta]:
        kind = field(frame, "type")
        if kind == "chunk":  # `client.chat.completions.stream()` helper event wrapping a chunk
            chunk = object_of(frame, "chunk", "chunk")
            return [] if chunk is None else self.feed(chunk)
        error = field(frame, "error")
        if error is not None:
            return [StreamFailed(error_text(API, error))]
        return []

    # -- streamed chunks -----------------------------------------------------------------------

    def _delta(self, choice: int, delta: Any, out: list[Delta]) -> None:
        for position, call in enumerate(items_of(delta, "tool_calls", "delta.tool_calls")):
            self._call_delta(choice, call, f"delta.tool_calls[{position}]", out)
        reasoning = _reasoning_text(delta)
        if reasoning:
            self._reasoning(choice, reasoning, out)
        for is_reasoning, text in _content_pieces(field(delta, "content"), "delta.content"):
            if is_reasoning:
                self._reasoning(choice, text, out)
            else:
                self._text(("text", choice), choice, text, out)
        refusal = text_of(delta, "refusal", "delta.refusal")
        if refusal:
            self._text(("refusal", choice), choice, refusal, out)
        legacy = object_of(delta, "function_call", "delta.function_call")
        if legacy is not None:
            self._call_delta(choice, {"index": -1, "function": legacy}, "delta.function_call", out)
        annotations = field(delta, "annotations")
        if annotations:  # search models' `url_citation`s, streamed with the text's last delta
            out.extend(annotation_sources(annotations))

    def _call_delta(self, choice: int, call: Any, where: str, out: list[Delta]) -> None:
        if isinstance(call, NOT_OBJECTS):
            raise wrong(where, "an object", call)
        index = field(call, "index")
        if index is not None and type(index) is not int:
            raise wrong(f"{where}.index", "an integer", index)
        call_id = maybe_text(call, "id", f"{where}.id")
        if index is None:  # servers that leave out the index: continue the last call, or start one
            last = self._last_index.get(choice, -1)
            index = last + 1 if call_id is not None or last < 0 else last
        slot = (choice, index)
        function = object_of(call, "function", f"{where}.function")
        name = maybe_text(function, "name", f"{where}.function.name") if function is not None else None
        open_call = self._calls.get(slot)
        if open_call is None or (
            call_id is not None and open_call.call_id is not None and call_id != open_call.call_id
        ):
            if open_call is not None:
                out.append(ToolCallFinished(open_call.key))
            self._end_parts(choice, out)  # Chat never streams text after its tool calls begin
            open_call = self._calls[slot] = _OpenCall(slot, call_id, name is not None)
            self._last_index[choice] = index
            out.append(ToolCallStarted(slot, call_id, name))
        elif name is not None and not open_call.named:
            open_call.named = True
            out.append(ToolCallStarted(slot, open_call.call_id or call_id, name))
        if function is not None:
            arguments = _arguments_text(field(function, "arguments"), f"{where}.function.arguments")
            if arguments:
                out.append(ToolArgsPiece(open_call.key, arguments))

    def _text(self, key: tuple[str, int], choice: int, text: str, out: list[Delta]) -> None:
        keys = self._parts.setdefault(choice, [])
        if key not in keys:
            keys.append(key)
        out.append(TextPiece(key, text))

    def _reasoning(self, choice: int, text: str, out: list[Delta]) -> None:
        key = ("reasoning", choice)
        keys = self._parts.setdefault(choice, [])
        if key not in keys:
            keys.append(key)
        out.append(ReasoningPiece(key, text))

    def _end_parts(self, choice: int, out: list[Delta]) -> None:
        for key in self._parts.pop(choice, ()):
            end = _REFUSAL_END if isinstance(key, tuple) and key[0] == "refusal" else None
            out.append(PartFinished(key, end))

    def _finish(self, index: int, choice: Any, out: list[Delta]) -> None:
        raw = maybe_text(choice, "finish_reason", "finish_reason")
        for slot in [s for s in self._calls if s[0] == index]:
            open_call = self._calls.pop(slot)
            if raw != "length":  # cut by the output limit: the core reports the call as incomplete
                out.append(ToolCallFinished(open_call.key))
        self._end_parts(index, out)
        if raw is not None:
            out.append(StepFinished(CHAT_FINISH_REASONS.get(raw, "other"), raw_reason=raw))

    # -- whole completions ---------------------------------------------------------------------

    def _message(self, choice: int, message: Any, out: list[Delta]) -> None:
        pieces = _content_pieces(field(message, "content"), "message.content")
        reasoning = "".join([_reasoning_text(message) or "", *(text for is_reasoning, text in pieces if is_reasoning)])
        if reasoning:
            out.append(ReasoningPiece(("reasoning", choice), reasoning))
            out.append(PartFinished(("reasoning", choice)))
        text = "".join(text for is_reasoning, text in pieces if not is_reasoning)
        if text:
            out.append(TextPiece(("text", choice), text))
            out.append(PartFinished(("text", choice)))
        out.extend(annotation_sources(field(message, "annotations")))
        refusal = text_of(message, "refusal", "message.refusal")
        if refusal:
            out.append(TextPiece(("refusal", choice), refusal))
            out.append(PartFinished(("refusal", choice), _REFUSAL_END))
        skipped = Skipped("message.tool_calls")
        for position, call in enumerate(items_of(message, "tool_calls", "message.tool_calls")):
            try:
                out.append(_complete_call((choice, position), call))
            except MalformedFrameError as exc:
                skipped.add(position, exc)
        skipped.report(API, out)
        legacy = object_of(message, "function_call", "message.function_call")
        if legacy is not None:
            arguments = _arguments_text(field(legacy, "arguments"), "message.function_call.arguments")
            name = maybe_text(legacy, "name", "message.function_call.name")
            out.append(ToolCallComplete((choice, -1), None, name, arguments))


def _complete_call(key: tuple[int, int], call: Any) -> ToolCallComplete:
    """A whole `tool_calls[]` entry: a function call (JSON text) or a custom call (raw text, see `custom_input`)."""
    if isinstance(call, NOT_OBJECTS):
        raise wrong("", "an object", call)
    call_id = maybe_text(call, "id", ".id")
    custom = object_of(call, "custom", ".custom")
    if field(call, "type") == "custom" and custom is not None:
        return ToolCallComplete(
            key,
            call_id,
            maybe_text(custom, "name", ".custom.name"),
            input=custom_input(text_of(custom, "input", ".custom.input")),
            has_input=True,
            provider_metadata={"openai": {"custom": True}},
        )
    function = object_of(call, "function", ".function")
    if function is None:
        raise wrong(".function", "an object", None)
    arguments = _arguments_text(field(function, "arguments"), ".function.arguments")
    return ToolCallComplete(key, call_id, maybe_text(function, "name", ".function.name"), arguments)


def _arguments_text(value: Any, where: str) -> str:
    """Argument text; some compatible servers (older Ollama) send the arguments as an object."""
    if value is None or type(value) is str:
        return value or ""
    if type(value) is not dict:
        raise wrong(where, "a string (or an object)", value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _content_pieces(content: Any, where: str) -> list[tuple[bool, str]]:
    """`(is_reasoning, text)` of a content string, or of a list of typed chunks (Mistral), in order."""
    if not content:
        return []
    if type(content) is str:
        return [(False, content)]
    if type(content) is not list:
        raise wrong(where, "a string or an array of content chunks", content)
    pieces: list[tuple[bool, str]] = []
    for position, chunk in enumerate(content):
        kind = field(chunk, "type")
        if kind == "text":
            pieces.append((False, text_of(chunk, "text", f"{where}[{position}].text")))
        elif kind == "thinking":
            pieces.append((True, _thinking_text(field(chunk, "thinking"), f"{where}[{position}].thinking")))
    return [piece for piece in pieces if piece[1]]


def _thinking_text(thinking: Any, where: str) -> str:
    """A Mistral thinking chunk's text: a list of text chunks (references and the like carry none)."""
    if thinking is None or type(thinking) is str:
        return thinking or ""
    if type(thinking) is not list:
        raise wrong(where, "an array of text chunks", thinking)
    return "".join(
        text_of(part, "text", f"{where}[{position}].text")
        for position, part in enumerate(thinking)
        if field(part, "type") == "text"
    )


def _reasoning_text(message: Any) -> str | None:
    """The first reasoning field a compatible server filled in (servers that fill both repeat the text)."""
    for name in _REASONING_FIELDS:
        value = field(message, name)
        if isinstance(value, str) and value:
            return value
    return None
