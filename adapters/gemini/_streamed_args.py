"""Vertex streamed function-call arguments: `partialArgs` pairs written as JSON text.

A call opened with `willContinue` gets its arguments as (`jsonPath`, value) pairs; `JsonPathWriter`
turns them into argument text deltas. The per-delta path (`continue_*_call`) takes the chunks that
only add one pair to the open call without building the general decoder's objects: only chunks of
exactly one candidate with one `functionCall` part carrying one partial arg, no name, no signature
and no finish reason take it; any other shape raises on unpacking or fails a check and goes the
general way. Usage is left to the general path: Gemini repeats the cumulative counts on the
finishing chunk, which never takes this path.
"""

from __future__ import annotations

from typing import Any

from toolwire.deltas import Delta, StreamFailed, ToolArgsPiece

from .._frames import NOT_OBJECTS, maybe_text, wrong
from ._partial_args import JsonPathWriter, Path, PathError, parse_json_path

_NO_PATH: Any = object()


class Streamed:
    """A Vertex call whose arguments arrive as `partialArgs`."""

    __slots__ = ("key", "last_path", "last_raw_path", "metadata", "writer")

    def __init__(self, key: tuple[int, int], metadata: dict[str, Any] | None) -> None:
        self.key = key
        self.metadata = metadata
        self.writer = JsonPathWriter()
        self.last_raw_path: Any = _NO_PATH
        """The `jsonPath` of the last pair and its segments: the pieces of one string share it."""
        self.last_path: Path = ()

    def path(self, raw_path: Any) -> Path:
        """The segments of a `jsonPath` (PathError when it is not one)."""
        if raw_path == self.last_raw_path:
            return self.last_path
        path = parse_json_path(str(raw_path))
        self.last_raw_path, self.last_path = raw_path, path
        return path


class CandidateState:
    """Part state of one candidate."""

    __slots__ = ("call", "index", "last_code_id", "last_tool_id", "numbered", "open_key", "open_kind")

    def __init__(self, index: int) -> None:
        self.index = index
        self.numbered = 0
        self.open_key: tuple[int, int] | None = None
        self.open_kind = 0
        self.call: Streamed | None = None
        self.last_code_id: str | None = None
        self.last_tool_id: str | None = None

    def next_key(self) -> tuple[int, int]:
        key = (self.index, self.numbered)
        self.numbered += 1
        return key


def continue_sdk_call(frame: Any, state: CandidateState) -> list[Delta] | None:
    """Deltas of a google-genai chunk that only adds one partial arg; None for any other chunk."""
    try:
        (candidate,) = frame.candidates
        (part,) = candidate.content.parts
        call = part.function_call
        (arg,) = call.partial_args
    except (AttributeError, TypeError, ValueError):
        return None
    if (
        call.name is not None
        or not call.will_continue
        or part.thought_signature is not None
        or candidate.finish_reason is not None
        or candidate.grounding_metadata is not None
        or (candidate.index or 0) != state.index
    ):
        return None
    return _one_arg(state, arg, arg.json_path, arg.string_value, arg.will_continue)


def continue_dict_call(frame: dict[str, Any], state: CandidateState) -> list[Delta] | None:
    """`continue_sdk_call` for response JSON (a part of one key, a call of `partialArgs` and `willContinue`)."""
    try:
        (candidate,) = frame["candidates"]
        (part,) = candidate["content"]["parts"]
        call = part["functionCall"]
        (arg,) = call["partialArgs"]
    except (KeyError, TypeError, ValueError):
        return None
    if (
        len(part) != 1
        or len(call) != 2
        or call.get("willContinue") is not True
        or type(arg) is not dict
        or "finishReason" in candidate
        or "groundingMetadata" in candidate
        or candidate.get("index", 0) != state.index
    ):
        return None
    return _one_arg(state, arg, arg.get("jsonPath"), arg.get("stringValue"), arg.get("willContinue"))


def _one_arg(state: CandidateState, arg: Any, raw_path: Any, string: Any, more: Any) -> list[Delta]:
    streamed = state.call
    assert streamed is not None
    if type(string) is str and raw_path == streamed.last_raw_path:
        text = streamed.writer.continue_string(streamed.last_path, string, bool(more))
        if text is not None:
            return [ToolArgsPiece(streamed.key, text)] if text else []
    out: list[Delta] = []
    write_partial_args(streamed, (arg,), out)
    return out


def write_partial_args(streamed: Streamed, partial: Any, out: list[Delta]) -> None:
    writer = streamed.writer
    pieces: list[str] = []
    raw_path: Any
    for arg in partial:  # usually one per chunk
        if type(arg) is dict:
            raw_path = maybe_text(arg, "jsonPath", "partialArgs[].jsonPath")
            string = maybe_text(arg, "stringValue", "partialArgs[].stringValue")
        elif isinstance(arg, NOT_OBJECTS) or arg is None:
            raise wrong("functionCall.partialArgs[]", "an object", arg)
        else:
            raw_path, string = arg.json_path, arg.string_value
        try:
            path = streamed.path(raw_path)
        except PathError as exc:
            out.append(StreamFailed(f"Gemini partialArgs: {exc}"))
            continue
        if string is not None:
            more = arg.get("willContinue") if type(arg) is dict else arg.will_continue
            text = writer.feed(path, string, True, bool(more))
        else:
            value = _scalar_value(arg)
            text = writer.feed(path, value, False, False)
        if text:
            pieces.append(text)
    if pieces:
        out.append(ToolArgsPiece(streamed.key, pieces[0] if len(pieces) == 1 else "".join(pieces)))


def _scalar_value(arg: Any) -> Any:
    """The number or boolean of a partial arg; None (JSON null) when it carries neither."""
    if type(arg) is dict:
        value = arg.get("numberValue")
        if value is None:
            value = arg.get("boolValue")
            if value is not None and type(value) is not bool:
                raise wrong("partialArgs[].boolValue", "a boolean", value)
        elif type(value) not in (int, float):
            raise wrong("partialArgs[].numberValue", "a number", value)
        return value
    return arg.bool_value if arg.number_value is None else arg.number_value
