"""JSON text to frames: SSE event data, JSON-array stream elements, whole bodies and NDJSON lines.

Frames are parsed by jiter straight from the bytes (four times faster than `json.loads` on a
stream event), caching keys only: jiter's cache of string values would keep up to 16,384
argument fragments alive after the stream (1.5 MB for a 1 MB call). Wherever jiter refuses a
text, `json.loads` decides (`_json_text`), so values and error messages are exactly
`json.loads`'s: it alone accepts lone surrogate escapes, nesting deeper than jiter's limit of
200 and (in SSE) invalid UTF-8, which it reads as U+FFFD. On texts both accept they agree (NaN
and infinities, duplicate keys: the last wins, integers of any size up
to Python's digit limit); `tests/unit/test_json_frames.py` pins it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jiter import from_json

from ._json_text import loads
from ._long_strings import RestatedStrings, restating_frame
from ._sse import SseDecoder


@dataclass(frozen=True, slots=True)
class FrameError:
    """A part of the source that could not be decoded."""

    message: str
    offset: int | None = None
    from_source: bool = False
    """True when the source itself raised (the message then completes `the <api> ...`)."""

    def __str__(self) -> str:
        where = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{self.message}{where}"


_DONE: Any = object()
"""OpenAI's end-of-stream sentinel: no frame."""


class SseFrames(SseDecoder):
    """Server-sent events straight to frames: each event's data parsed from its bytes, `[DONE]` dropped.

    `restated`: where the provider restates text it streamed; long strings there, in the long
    lines the decoder hands over whole, stay undecoded (`_long_strings`).
    """

    __slots__ = ("_restated",)

    def __init__(self, restated: RestatedStrings | None = None) -> None:
        super().__init__()
        self._restated = restated

    def emit_span(
        self, data: bytes | bytearray, start: int, stop: int, event: bytes | None, offset: int, out: list[Any]
    ) -> None:
        """A long line's frame, its restated strings left undecoded when the adapter names them."""
        if self._restated is not None:
            name = None if event is None else event.decode("utf-8", errors="replace")
            frame = restating_frame(data, start, stop, name, self._restated)
            if frame is not None:  # always a dict
                if name and "type" not in frame:
                    frame["type"] = name
                out.append(frame)
                return
        super().emit_span(data, start, stop, event, offset, out)

    def emit(self, data: bytes, event: bytes | None, offset: int, out: list[Any]) -> None:
        """The event's frame (a dict, its `type` taken from `event:` when missing) or a `FrameError`."""
        try:
            frame = from_json(data, cache_mode="keys")
        except ValueError:
            frame = self._fallback(data, offset)
            if frame is _DONE:
                return
        if type(frame) is dict:
            if event and "type" not in frame:
                frame["type"] = event.decode("utf-8", errors="replace")
            out.append(frame)
        elif type(frame) is FrameError:
            out.append(frame)
        else:
            out.append(FrameError(f"SSE event data must be a JSON object, got {describe(frame)}", offset))

    @staticmethod
    def _fallback(data: bytes, offset: int) -> Any:
        """What `json.loads` makes of text jiter refused: a value, a `FrameError`, or `_DONE` for `[DONE]`."""
        if data == b"[DONE]":
            return _DONE
        text = data.decode("utf-8", errors="replace")
        try:
            return json.loads(text)
        except ValueError as exc:
            return FrameError(f"malformed JSON in SSE event ({exc}): {text[:80]!r}", offset)
        except RecursionError:
            return FrameError(too_deep("SSE event data", len(text)), offset)


def too_deep(what: str, size: int) -> str:
    return f"{what} ({size} characters) is nested too deeply to decode (deeper than Python's recursion limit)"


def describe(value: Any) -> str:
    """The JSON type of a decoded value, for error messages."""
    if isinstance(value, list):
        return f"an array of {len(value)} items"  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return "null" if value is None else f"{type(value).__name__} {value!r:.20}"


def _objects(values: list[Any], base: int) -> list[Any]:
    """The elements of a whole JSON array body; elements that are not objects become one error."""
    frames: list[Any] = [value for value in values if type(value) is dict]
    if len(frames) < len(values):
        first = next(index for index, value in enumerate(values) if type(value) is not dict)
        frames.append(
            FrameError(
                f"{len(values) - len(frames)} element(s) of the JSON array body are not objects "
                f"(the first, at index {first}, is {describe(values[first])})",
                base,
            )
        )
    return frames


def json_body_frames(body: bytes, base: int = 0) -> list[Any]:
    """A whole JSON body; falls back to one object per line (NDJSON / chunk logs)."""
    try:
        value = loads(body)
    except RecursionError:
        return [FrameError(too_deep("the JSON body", len(body)), base)]
    except ValueError as whole_error:
        frames: list[Any] = []
        offset = base
        parsed_any = False
        for line in body.splitlines(keepends=True):
            text = line.strip()
            if text:
                try:
                    line_value = loads(text)
                except ValueError as exc:
                    frames.append(FrameError(f"malformed JSON line ({exc})", offset))
                except RecursionError:
                    frames.append(FrameError(too_deep("a JSON line", len(text)), offset))
                else:
                    parsed_any = True
                    frames.append(
                        line_value
                        if type(line_value) is dict
                        else FrameError(f"a JSON line must be an object, got {describe(line_value)}", offset)
                    )
            offset += len(line)
        if parsed_any:
            return frames
        position = _error_offset(body, whole_error)
        return [FrameError(f"malformed JSON body ({whole_error})", None if position is None else base + position)]
    if type(value) is dict:
        return [value]
    if type(value) is list:
        return _objects(value, base)  # pyright: ignore[reportUnknownArgumentType]
    return [FrameError(f"the JSON body must be an object or an array of objects, got {describe(value)}", base)]


def _error_offset(body: bytes, error: ValueError) -> int | None:
    position = getattr(error, "pos", None)
    if not isinstance(position, int):
        return None
    text = body.decode("utf-8", errors="replace")
    return len(text[:position].encode("utf-8"))


_ARRAY_SPECIAL = re.compile(rb'["\\{}\[\]]')
_STRING_SPECIAL = re.compile(rb'["\\]')
_KEEP = 65536
"""Bytes of consumed prefix the splitter tolerates before dropping it."""


class JsonArraySplitter:
    """Splits a streamed top-level JSON array (`[{...},{...}]`) into its elements as they close.

    Every byte is scanned once: the scan resumes where the last chunk ended, strings are
    skipped to their next quote or backslash, and the consumed prefix is dropped.
    """

    __slots__ = ("_buffer", "_consumed", "_depth", "_element_start", "_escape", "_in_string", "_scan")

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._consumed = 0
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._element_start: int | None = None
        self._scan = 0

    @property
    def offset_base(self) -> int:
        """Bytes of the stream before the splitter's buffer (a skipped BOM included)."""
        return self._consumed

    def skipped(self, count: int) -> None:
        """Count bytes removed before the array (a BOM) so offsets stay those of the stream."""
        self._consumed += count

    def feed(self, chunk: bytes) -> list[Any]:
        self._buffer += chunk
        frames: list[Any] = []
        buffer = self._buffer
        position = self._scan
        end = len(buffer)
        search = _ARRAY_SPECIAL.search
        while position < end:
            if self._in_string:
                position = self._skip_string(buffer, position)
                continue
            match = search(buffer, position)
            if match is None:
                position = end
                break
            position = match.start()
            char = buffer[position]
            position += 1
            if char == 0x22:  # '"'
                self._in_string = True
            elif char in (0x7B, 0x5B):  # '{' '['
                self._depth += 1
                if self._depth == 2:
                    self._element_start = position - 1
            elif char in (0x7D, 0x5D):  # '}' ']'
                self._depth -= 1
                if self._depth == 1 and self._element_start is not None:
                    frames.append(self._element(buffer, self._element_start, position))
                    self._element_start = None
        self._scan = position
        self._compact()
        return frames

    def _skip_string(self, buffer: bytearray, position: int) -> int:
        """Past the closing quote of the string being scanned, or to the end of the buffer."""
        end = len(buffer)
        if self._escape:
            self._escape = False
            position += 1
        search = _STRING_SPECIAL.search
        while position < end:
            match = search(buffer, position)
            if match is None:
                return end
            position = match.end()
            if buffer[position - 1] == 0x22:  # the closing quote
                self._in_string = False
                return position
            if position == end:  # a backslash ends the chunk: the escaped byte comes next
                self._escape = True
                return end
            position += 1
        return position

    def _element(self, buffer: bytearray, start: int, end: int) -> Any:
        try:
            value = loads(bytes(buffer[start:end]))
        except ValueError as exc:
            return FrameError(f"malformed JSON array element ({exc})", self._consumed + start)
        except RecursionError:
            return FrameError(too_deep("a JSON array element", end - start), self._consumed + start)
        if type(value) is not dict:
            return FrameError(f"a JSON array element must be an object, got {describe(value)}", self._consumed + start)
        return value

    def _compact(self) -> None:
        keep_from = self._element_start if self._element_start is not None else self._scan
        if keep_from > _KEEP:
            del self._buffer[:keep_from]
            self._consumed += keep_from
            self._scan -= keep_from
            if self._element_start is not None:
                self._element_start -= keep_from

    def close(self) -> list[Any]:
        if self._element_start is not None or self._depth > 0:
            return [
                FrameError("JSON array stream ended inside an element", self._consumed + (self._element_start or 0))
            ]
        return []
