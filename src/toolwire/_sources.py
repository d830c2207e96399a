"""Every kind of response source turned into one sequence of frames (decoded JSON objects).

A source is a raw body (bytes or text: a JSON response, an SSE stream, a JSON-array stream,
newline-delimited JSON), an iterable of such chunks as they arrive, an iterable of dicts or
SDK objects, or one SDK response object. Bytes that do not decode become `FrameError`s with
the byte offset, never exceptions.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pydantic

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


SdkConverter = Callable[[Any], Any] | None
"""How an SDK object becomes a frame; None: it is read as it is."""


_BOM = b"\xef\xbb\xbf"
_SLICE = 65536
_SSE_FIELDS = (b"data", b"event", b"id", b"retry", b":")


def _sniff(held: bytes) -> str | None:
    """The body kind from its first bytes; None while too few bytes have arrived to tell."""
    stripped = held.removeprefix(_BOM).lstrip()
    if not stripped or _BOM.startswith(held):
        return None
    first = stripped[:1]
    if first == b"[":
        return "array"
    if first == b"{":
        return "json"
    if any(stripped.startswith(name) for name in _SSE_FIELDS):
        return "sse"
    if any(name.startswith(stripped) for name in _SSE_FIELDS):
        return None
    return "invalid"


class ChunkDecoder:
    """Decodes raw byte chunks, choosing SSE, JSON array, or JSON/NDJSON from the first bytes."""

    def __init__(self) -> None:
        self._kind: str | None = None
        self._sse = SseDecoder()
        self._array = _JsonArraySplitter()
        self._held = bytearray()

    def feed(self, chunk: bytes) -> list[Any]:
        """Frames (and `FrameError`s) completed by `chunk`."""
        if self._kind is None:
            self._held += chunk
            self._kind = _sniff(bytes(self._held))
            if self._kind is None:
                return []
            chunk, self._held = bytes(self._held), bytearray()
            if self._kind == "invalid":
                return [FrameError(f"the body is not JSON or server-sent events: {chunk[:60]!r}", 0)]
            if self._kind != "sse" and chunk.startswith(_BOM):
                chunk = chunk[3:]
                self._array.skipped(3)
            if self._kind == "json":
                self._held += chunk
                return []
        if self._kind == "invalid":
            return []
        if self._kind == "json":
            self._held += chunk
            return []
        if self._kind == "array":
            return self._array.feed(chunk)
        return _sse_frames(self._sse.feed(chunk))

    def close(self) -> list[Any]:
        """Frames still held at the end of the body."""
        if self._kind is None and self._held.strip(b" \t\r\n" + _BOM):
            return [FrameError(f"the body is not JSON or server-sent events: {bytes(self._held[:60])!r}", 0)]
        if self._kind == "json":
            return _json_body_frames(bytes(self._held), self._array.offset_base)
        if self._kind == "array":
            return self._array.close()
        if self._kind == "sse":
            return _sse_frames(self._sse.close())
        return []


def _sse_frames(events: Iterable[Any]) -> list[Any]:
    frames: list[Any] = []
    for event in events:
        data = event.data
        if data == "[DONE]":
            continue
        try:
            frame = json.loads(data)
        except ValueError as exc:
            frames.append(FrameError(f"malformed JSON in SSE event ({exc}): {data[:80]!r}", event.offset))
            continue
        except RecursionError:
            frames.append(FrameError(_too_deep("SSE event data", len(data)), event.offset))
            continue
        if type(frame) is not dict:
            frames.append(FrameError(f"SSE event data must be a JSON object, got {_kind(frame)}", event.offset))
            continue
        if event.event and "type" not in frame:
            frame["type"] = event.event
        frames.append(frame)
    return frames


def _too_deep(what: str, size: int) -> str:
    return f"{what} ({size} characters) is nested too deeply to decode (deeper than Python's recursion limit)"


def _kind(value: Any) -> str:
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
                f"(the first, at index {first}, is {_kind(values[first])})",
                base,
            )
        )
    return frames


def _json_body_frames(body: bytes, base: int = 0) -> list[Any]:
    """A whole JSON body; falls back to one object per line (NDJSON / chunk logs)."""
    try:
        value = json.loads(body)
    except RecursionError:
        return [FrameError(_too_deep("the JSON body", len(body)), base)]
    except ValueError as whole_error:
        frames: list[Any] = []
        offset = base
        parsed_any = False
        for line in body.splitlines(keepends=True):
            text = line.strip()
            if text:
                try:
                    line_value = json.loads(text)
                except ValueError as exc:
                    frames.append(FrameError(f"malformed JSON line ({exc})", offset))
                except RecursionError:
                    frames.append(FrameError(_too_deep("a JSON line", len(text)), offset))
                else:
                    parsed_any = True
                    frames.append(
                        line_value
                        if type(line_value) is dict
                        else FrameError(f"a JSON line must be an object, got {_kind(line_value)}", offset)
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
    return [FrameError(f"the JSON body must be an object or an array of objects, got {_kind(value)}", base)]


def _error_offset(body: bytes, error: ValueError) -> int | None:
    position = getattr(error, "pos", None)
    if not isinstance(position, int):
        return None
    text = body.decode("utf-8", errors="replace")
    return len(text[:position].encode("utf-8"))


_ARRAY_SPECIAL = re.compile(rb'["\\{}\[\]]')


class _JsonArraySplitter:
    """Splits a streamed top-level JSON array (`[{...},{...}]`) into its elements as they close."""

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
        while position < len(buffer):
            if self._in_string:
                position = self._skip_string(buffer, position)
                continue
            match = _ARRAY_SPECIAL.search(buffer, position)
            if match is None:
                position = len(buffer)
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
        while position < len(buffer):
            char = buffer[position]
            position += 1
            if self._escape:
                self._escape = False
            elif char == 0x5C:  # backslash
                self._escape = True
            elif char == 0x22:
                self._in_string = False
                break
        return position

    def _element(self, buffer: bytearray, start: int, end: int) -> Any:
        try:
            value = json.loads(bytes(buffer[start:end]))
        except ValueError as exc:
            return FrameError(f"malformed JSON array element ({exc})", self._consumed + start)
        except RecursionError:
            return FrameError(_too_deep("a JSON array element", end - start), self._consumed + start)
        if type(value) is not dict:
            return FrameError(f"a JSON array element must be an object, got {_kind(value)}", self._consumed + start)
        return value

    def _compact(self) -> None:
        keep_from = self._element_start if self._element_start is not None else self._scan
        if keep_from > 65536:
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


def _as_bytes(chunk: Any) -> bytes | None:
    if isinstance(chunk, bytes):
        return chunk
    if isinstance(chunk, (bytearray, memoryview)):
        return bytes(chunk)
    if isinstance(chunk, str):
        return chunk.encode("utf-8")
    return None


def iter_frames(source: Any, convert_sdk: SdkConverter) -> Iterator[Any]:
    """Frames of any synchronous source, in order; `FrameError`s stand for undecodable parts."""
    raw = _as_bytes(source)
    if raw is not None:
        # Fed in slices so only a slice's frames are alive at once: decoding a 12 MB body in one
        # go keeps 78k dicts alive and the cyclic GC's full passes make the whole run superlinear.
        decoder = ChunkDecoder()
        for start in range(0, len(raw), _SLICE):
            yield from decoder.feed(raw[start : start + _SLICE])
        yield from decoder.close()
        return
    if isinstance(source, (Mapping, pydantic.BaseModel)):
        yield _frame(source, convert_sdk)
        return
    if not isinstance(source, Iterable):
        yield FrameError(f"cannot read a response from {type(source).__name__}")
        return
    chunks: ChunkDecoder | None = None
    kinds = _KINDS
    try:
        for item in source:  # pyright: ignore[reportUnknownVariableType]
            kind = kinds.get(type(item)) or _kind_of(type(item))
            if kind == "plain":
                yield item
            elif kind == "invalid":
                yield FrameError(f"a frame must be an object, got {_kind(item)}")
            elif kind == "sdk":
                yield item if convert_sdk is None else convert_sdk(item)
            else:
                chunks = chunks or ChunkDecoder()
                yield from chunks.feed(_as_bytes(item) or b"")
    except Exception as exc:  # the source itself failed (network, an SDK error frame): report, stop
        yield FrameError(f"source raised {type(exc).__name__}: {exc}", from_source=True)
        return
    if chunks is not None:
        yield from chunks.close()


_KINDS: dict[type, str] = {}
_NOT_FRAMES = (list, tuple, int, float, type(None))
"""Items of a frame source that are never frames (a frame is an object: a dict or an SDK object)."""


def _kind_of(cls: type) -> str:
    """`bytes`, `sdk` or `plain` for an item type, cached (isinstance on pydantic models is slow)."""
    if issubclass(cls, (bytes, bytearray, memoryview, str)):
        kind = "bytes"
    elif issubclass(cls, _NOT_FRAMES):
        kind = "invalid"
    elif issubclass(cls, pydantic.BaseModel):
        kind = "sdk"
    else:
        kind = "plain"
    _KINDS[cls] = kind
    return kind


async def aiter_frames(source: AsyncIterable[Any], convert_sdk: SdkConverter) -> Any:
    """Frames of an asynchronous source (an async generator of frames)."""
    chunks: ChunkDecoder | None = None
    try:
        async for item in source:
            data = _as_bytes(item)
            if data is not None:
                chunks = chunks or ChunkDecoder()
                for frame in chunks.feed(data):
                    yield frame
            else:
                yield _frame(item, convert_sdk)
    except Exception as exc:  # the source itself failed (network, an SDK error frame): report, stop
        yield FrameError(f"source raised {type(exc).__name__}: {exc}", from_source=True)
        return
    if chunks is not None:
        for frame in chunks.close():
            yield frame


def _frame(item: Any, convert_sdk: SdkConverter) -> Any:
    if convert_sdk is not None and isinstance(item, pydantic.BaseModel):
        return convert_sdk(item)
    if isinstance(item, _NOT_FRAMES):
        return FrameError(f"a frame must be an object, got {_kind(item)}")
    return item
