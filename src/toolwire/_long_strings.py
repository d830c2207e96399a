"""Long JSON strings of big SSE frames, left undecoded where a provider restates text it streamed.

OpenAI's Responses API repeats a function call's whole arguments three times after streaming
them (`function_call_arguments.done`, `output_item.done`, `response.completed`). Decoded, each
repetition is a `str` of up to four bytes per character: a 1 MB call would hold several more
copies of its input than the one it streamed. In a frame of at least `LONG_STRING` bytes, the
string literals of at least that size at the paths an adapter declares restated become
`JsonString`s: their escaped bytes, compared with the streamed text a piece at a time
(`same_text`) and decoded only when someone asks (`text`). Long strings elsewhere are decoded
as usual, and a frame that is not valid JSON is left to the plain parser and its error message.

Written by hand: no JSON library parses a document while leaving chosen strings undecoded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jiter import from_json

from ._json_text import loads_text

LONG_STRING = 65536
"""Bytes from which a string literal is left undecoded."""

PIECE = 65536
"""Bytes of a literal decoded at a time when comparing it with the streamed text."""

_RETRIES = 12
"""Cuts tried, a byte earlier each time, before a literal is decoded whole: an escape spans 6 bytes."""

Text = bytes | bytearray
"""A frame's bytes: a long line is handed over as the decoder's `bytearray`, never copied."""

RestatedStrings = Mapping[str, frozenset[tuple[str, ...]]]
"""Frame `type` -> the paths of its restated strings (keys; `*` for any list index)."""

_STRING = re.compile(rb'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+(")?')
"""A string literal, valid up to its closing quote (group 1); without it, invalid where the match ends."""
_KEY_FOLLOWS = re.compile(rb"[ \t\r\n]*:")
_MARK = "\x00toolwire-long-string:"
_ESCAPED_MARK = b"\\u0000toolwire-long-string:"
_ENCODED_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


class JsonString:
    """A JSON string literal not decoded yet: `frame[start:end]`, quotes included; `release` lets it go."""

    __slots__ = ("_end", "_frame", "_start")

    def __init__(self, frame: Text, start: int, end: int) -> None:
        self._frame: Text | None = frame
        self._start = start
        self._end = end

    def __repr__(self) -> str:
        size = "released" if self._frame is None else f"{self._end - self._start} bytes"
        return f"JsonString({size})"

    def _bytes(self) -> Text:
        if self._frame is None:
            raise RuntimeError("this long string was released after it was read")
        return self._frame

    def text(self) -> str:
        """The decoded string, as decoding its whole frame would have given it."""
        value = loads_text(bytes(memoryview(self._bytes())[self._start : self._end]))
        if type(value) is not str:  # the literal was checked when the frame was cut: never happens
            raise ValueError("a long string literal did not decode to a string")
        return value

    def release(self) -> None:
        """Let the frame's bytes go: the caller has what it needed."""
        self._frame = None

    def same_text(self, data: bytes) -> bool:
        """Whether the string is `data` (UTF-8, lone surrogates as `surrogatepass` writes them)."""
        frame = self._bytes()
        view = memoryview(frame)
        start, end = self._start + 1, self._end - 1
        if frame.find(b"\\", start, end) < 0 and not _ENCODED_SURROGATE.search(data):
            return view[start:end] == data  # no escapes: the literal's bytes are the text's
        data_view = memoryview(data)
        position, written = start, 0
        while position < end:
            piece = _piece(view, position, end)
            if piece is None:
                return self.text().encode("utf-8", "surrogatepass") == data
            text, position = piece
            encoded = text.encode("utf-8", "surrogatepass")
            if data_view[written : written + len(encoded)] != encoded:
                return False
            written += len(encoded)
        return written == len(data)


def _piece(view: memoryview, start: int, end: int) -> tuple[str, int] | None:
    """The text of about `PIECE` bytes of a literal's body from `start`, and where the piece ends.

    A cut inside a UTF-8 character is moved back to its first byte. A cut inside an escape
    or between the two halves of a surrogate pair leaves a piece jiter refuses (a dangling
    backslash, a short or lone `\\u` escape): the cut moves back a byte. None when no cut
    works (jiter refuses the text itself: the caller decodes it whole, as `json.loads` would).
    """
    cut = min(start + PIECE, end)
    while cut < end and cut > start and view[cut] & 0xC0 == 0x80:
        cut -= 1
    for _ in range(_RETRIES):
        if cut <= start:
            return None
        try:
            text = from_json(b"".join((b'"', view[start:cut], b'"')), cache_mode="none")
        except ValueError:
            cut -= 1
            continue
        return text, cut
    return None


def restating_frame(data: Text, start: int, stop: int, event: str | None, restated: RestatedStrings) -> Any:
    """The frame of `data[start:stop]` with its long restated strings left undecoded; None to parse it plainly.

    `data` is kept by the `JsonString`s: it must not change afterwards.
    """
    spans: list[tuple[int, int]] = []
    for match in _STRING.finditer(data, start, stop):
        if match.group(1) is None:
            return None  # an invalid string: the plain parser gives the error
        if match.end() - match.start() >= LONG_STRING and not _KEY_FOLLOWS.match(data, match.end(), stop):
            spans.append(match.span())
    if not spans or data.find(_ESCAPED_MARK, start, stop) >= 0:
        return None
    view = memoryview(data)
    shrunk: list[Any] = []
    last = start
    for index, (first, end) in enumerate(spans):
        shrunk += (view[last:first], f'"\\u0000toolwire-long-string:{index}"'.encode())
        last = end
    shrunk.append(view[last:stop])
    try:
        frame = from_json(b"".join(shrunk), cache_mode="keys")
    except ValueError:
        return None
    if type(frame) is not dict:
        return None
    kind = frame.get("type", event)
    paths = restated.get(kind, frozenset()) if type(kind) is str else frozenset()
    restorer = _Restorer(data, spans, paths)
    try:
        restorer.restore(frame, ())
    except ValueError:
        return None
    return frame if restorer.found == len(spans) else None


class _Restorer:
    """Puts each long literal back: a `JsonString` at a restated path, its decoded text elsewhere."""

    __slots__ = ("_data", "_paths", "_seen", "_spans", "found")

    def __init__(self, data: Text, spans: list[tuple[int, int]], paths: frozenset[tuple[str, ...]]) -> None:
        self._data = data
        self._spans = spans
        self._paths = paths
        self._seen: set[int] = set()
        self.found = 0

    def restore(self, node: Any, path: tuple[str, ...]) -> None:
        if type(node) is dict:
            for key, value in node.items():
                if type(value) is str:
                    if value.startswith(_MARK):
                        node[key] = self._literal(value, (*path, key))
                elif type(value) is dict or type(value) is list:
                    self.restore(value, (*path, key))
        elif type(node) is list:
            inner = (*path, "*")
            for index, value in enumerate(node):
                if type(value) is str:
                    if value.startswith(_MARK):
                        node[index] = self._literal(value, inner)
                elif type(value) is dict or type(value) is list:
                    self.restore(value, inner)

    def _literal(self, mark: str, path: tuple[str, ...]) -> Any:
        index = int(mark[len(_MARK) :]) if mark[len(_MARK) :].isdigit() else -1
        if not 0 <= index < len(self._spans) or index in self._seen:
            raise ValueError("a string of the frame spells a placeholder")  # the plain parser decides
        self._seen.add(index)
        self.found += 1
        literal = JsonString(self._data, *self._spans[index])
        if path in self._paths:
            return literal
        return literal.text()
