"""Vertex streamed function-call arguments: `partialArgs` pairs written as JSON text.

A call opened with `willContinue` gets its arguments as (`jsonPath`, value) pairs; `JsonPathWriter`
turns them into argument text deltas. The per-delta path (`continue_*_call`) takes the chunks that
only add one pair to the open call without building the general decoder's objects: only chunks of
exactly one candidate with one `functionCall` part carrying one partial arg, no name, no signature
and no finish reason take it; any other shape raises on unpacking or fails a check and goes the
general way. Usage is left to the general path: Gemini repeats the cumulative counts on the
finishing chunk, which never takes this path.

Most pairs need no path read: the next piece of the open string carries its `jsonPath` again
(`Streamed.open_raw_path`), and a new member of the innermost open container is its `jsonPath`
text plus one plain segment (`Streamed.parent_raw_path`, `member_segment`). Any other path is
read by `PathReader` and written by `JsonPathWriter.feed`.
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

from toolwire.deltas import Delta, StreamFailed, ToolArgsPiece

from .._frames import NOT_OBJECTS, maybe_text, wrong
from ._json_path import Path, PathError, PathReader, Segment
from ._partial_args import JsonPathWriter

_NO_PATH: Any = object()


class Streamed:
    """A Vertex call whose arguments arrive as `partialArgs`."""

    __slots__ = ("key", "metadata", "open_raw_path", "parent_raw_path", "paths", "writer")

    def __init__(self, key: tuple[int, int], metadata: dict[str, Any] | None) -> None:
        self.key = key
        self.metadata = metadata
        self.writer = JsonPathWriter()
        self.paths = PathReader()
        self.open_raw_path: Any = _NO_PATH
        """The `jsonPath` of the string the writer's text ends inside: its next pieces need no path read."""
        self.parent_raw_path: str | None = None
        """The `jsonPath` text of the writer's innermost open container: its new members need no path read."""

    def path(self, raw_path: Any) -> Path:
        """The segments of a `jsonPath` (PathError when it is not one)."""
        return self.paths.read(raw_path if type(raw_path) is str else str(raw_path))

    def string_piece(self, string: str, more: bool) -> list[Delta]:
        """The deltas of the next piece of the string at `open_raw_path`."""
        if more:  # the string stays open: its escaped text without quotes
            return [ToolArgsPiece(self.key, encode_basestring(string)[1:-1])] if string else []
        self.open_raw_path = _NO_PATH
        writer = self.writer
        open_string = writer.open_string
        assert open_string is not None
        return [ToolArgsPiece(self.key, writer.continue_string(open_string, string, False) or "")]


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
    if len(part) != 1 or len(call) != 2 or call.get("willContinue") is not True or type(arg) is not dict:
        return None
    if len(candidate) == 1:  # only `content`, as Vertex sends it: index 0
        if state.index:
            return None
    elif "finishReason" in candidate or "groundingMetadata" in candidate or candidate.get("index", 0) != state.index:
        return None
    streamed = state.call
    assert streamed is not None
    string = arg.get("stringValue")
    if type(string) is str and arg.get("jsonPath") == streamed.open_raw_path:
        if arg.get("willContinue"):  # `Streamed.string_piece`, inlined: most deltas continue a string
            return [ToolArgsPiece(streamed.key, encode_basestring(string)[1:-1])] if string else []
        return streamed.string_piece(string, False)
    out: list[Delta] = []
    write_partial_args(streamed, (arg,), out)
    return out


def _one_arg(state: CandidateState, arg: Any, raw_path: Any, string: Any, more: Any) -> list[Delta]:
    streamed = state.call
    assert streamed is not None
    if type(string) is str and raw_path == streamed.open_raw_path:
        return streamed.string_piece(string, bool(more))
    out: list[Delta] = []
    write_partial_args(streamed, (arg,), out)
    return out


def write_partial_args(streamed: Streamed, partial: Any, out: list[Delta]) -> None:
    writer = streamed.writer
    open_raw_path, parent_raw_path = streamed.open_raw_path, streamed.parent_raw_path
    # Unknown until the pairs are written: a frame may fail half way.
    streamed.open_raw_path, streamed.parent_raw_path = _NO_PATH, None
    pieces: list[str] = []
    raw_path: Any
    for arg in partial:  # usually one per chunk
        if type(arg) is dict:
            raw_path = arg.get("jsonPath")
            string = arg.get("stringValue")
            if type(raw_path) is not str or (string is not None and type(string) is not str):
                raw_path = maybe_text(arg, "jsonPath", "partialArgs[].jsonPath")
                string = maybe_text(arg, "stringValue", "partialArgs[].stringValue")
        elif isinstance(arg, NOT_OBJECTS) or arg is None:
            raise wrong("functionCall.partialArgs[]", "an object", arg)
        else:
            raw_path, string = arg.json_path, arg.string_value
        segment = None if parent_raw_path is None else member_segment(parent_raw_path, raw_path)
        if segment is None:
            try:
                path = streamed.path(raw_path)
            except PathError as exc:
                out.append(StreamFailed(f"Gemini partialArgs: {exc}"))
                continue
        if string is not None:
            value: Any = string
            more = bool(arg.get("willContinue") if type(arg) is dict else arg.will_continue)
        else:
            value, more = _scalar_value(arg), False
        text = None if segment is None else writer.feed_member(segment, value, string is not None, more)
        if text is not None:  # a new member of the open container: its text, and the same container
            open_raw_path = raw_path if string is not None and more else _NO_PATH
        else:
            if segment is not None:
                path = streamed.path(raw_path)
            text = writer.feed(path, value, string is not None, more)
            open_raw_path = raw_path if writer.open_string is path else _NO_PATH
            parent_raw_path = streamed.paths.parent_text() if writer.writing else None
        if text:
            pieces.append(text)
    streamed.open_raw_path, streamed.parent_raw_path = open_raw_path, parent_raw_path
    if pieces:
        out.append(ToolArgsPiece(streamed.key, pieces[0] if len(pieces) == 1 else "".join(pieces)))


def member_segment(parent_raw_path: str, raw_path: Any) -> Segment | None:
    """The last segment of `raw_path` when it is `parent_raw_path` and one plain segment (else None).

    The text of a path up to a segment boundary reads as the same segments on its own, so the
    path is the parent's and this segment, exactly as `parse_json_path` would read it.
    """
    if type(raw_path) is not str or not raw_path.startswith(parent_raw_path):
        return None
    tail = raw_path[len(parent_raw_path) :]
    if tail[:1] == ".":
        name = tail[1:]
        if name and "." not in name and "[" not in name:
            return name
    elif tail[:1] == "[" and tail[-1:] == "]":
        index = tail[1:-1]
        if index.isdigit() and index.isascii():
            return int(index)
    return None


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
