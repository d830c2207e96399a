"""Every kind of response source turned into one sequence of frames (decoded JSON objects).

A source is a raw body (bytes or text: a JSON response, an SSE stream, a JSON-array stream,
newline-delimited JSON), an iterable of such chunks as they arrive, an iterable of dicts or
SDK objects, or one SDK response object. Bytes that do not decode become `FrameError`s with
the byte offset, never exceptions.

Frames come in batches (`frame_batches`): the frames one chunk of bytes completes, or one
object of an iterable, so the per-frame loop of `normalize` runs without a generator step
per frame.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import pydantic

from ._json_frames import FrameError, JsonArraySplitter, SseFrames, describe, json_body_frames
from ._long_strings import RestatedStrings

__all__ = [
    "ChunkDecoder",
    "FrameError",
    "SdkConverter",
    "aframe_batches",
    "aiter_frames",
    "frame_batches",
    "iter_frames",
]

SdkConverter = Callable[[Any], Any] | None
"""How an SDK object becomes a frame; None: it is read as it is."""

_BOM = b"\xef\xbb\xbf"
_SLICE = 16384
"""Bytes decoded at a time: a batch keeps the frames of one slice alive (about 100 frames, 70 KB)."""
_SSE_FIELDS = (b"data", b"event", b"id", b"retry", b":")
_BLANK = b" \t\r\n"


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

    __slots__ = ("_array", "_held", "_kind", "_seen_text", "_sse")

    def __init__(self, restated: RestatedStrings | None = None) -> None:
        self._kind: str | None = None
        self._seen_text = False
        self._sse = SseFrames(restated)
        self._array = JsonArraySplitter()
        self._held = bytearray()

    def feed(self, chunk: bytes) -> list[Any]:
        """Frames (and `FrameError`s) completed by `chunk`."""
        kind = self._kind
        if kind == "sse":
            return self._sse.feed(chunk)
        if kind is None:
            self._held += chunk
            if not self._seen_text:
                if not chunk.strip(_BLANK):  # leading whitespace decides nothing: not sniffed again and again
                    return []
                self._seen_text = True
            kind = self._kind = _sniff(bytes(self._held))
            if kind is None:
                return []
            chunk, self._held = bytes(self._held), bytearray()
            if kind == "invalid":
                return [FrameError(f"the body is not JSON or server-sent events: {chunk[:60]!r}", 0)]
            if kind == "sse":
                return self._sse.feed(chunk)
            if chunk.startswith(_BOM):
                chunk = chunk[3:]
                self._array.skipped(3)
        if kind == "array":
            return self._array.feed(chunk)
        if kind == "json":
            self._held += chunk
        return []

    def feed_sliced(self, chunk: bytes) -> Iterator[list[Any]]:
        """`feed` a slice at a time, so only one slice's frames are alive at once.

        Decoded whole, a 12 MB body keeps 78k dicts alive and the cyclic GC's full passes make
        the run superlinear.
        """
        for start in range(0, len(chunk), _SLICE):
            yield self.feed(chunk[start : start + _SLICE])

    def close(self) -> list[Any]:
        """Frames still held at the end of the body."""
        if self._kind is None and self._held.strip(_BLANK + _BOM):
            return [FrameError(f"the body is not JSON or server-sent events: {bytes(self._held[:60])!r}", 0)]
        if self._kind == "json":
            return json_body_frames(bytes(self._held), self._array.offset_base)
        if self._kind == "array":
            return self._array.close()
        if self._kind == "sse":
            return self._sse.close()
        return []


def _as_bytes(chunk: Any) -> bytes | None:
    if isinstance(chunk, bytes):
        return chunk
    if isinstance(chunk, (bytearray, memoryview)):
        return bytes(chunk)
    if isinstance(chunk, str):
        return chunk.encode("utf-8")
    return None


def frame_batches(
    source: Any, convert_sdk: SdkConverter, restated: RestatedStrings | None = None
) -> Iterator[Sequence[Any]]:
    """Frames of any synchronous source, in order, in batches; `FrameError`s stand for undecodable parts."""
    raw = _as_bytes(source)
    if raw is not None:
        decoder = ChunkDecoder(restated)
        yield from decoder.feed_sliced(raw)
        yield decoder.close()
        return
    if isinstance(source, (Mapping, pydantic.BaseModel)):
        yield (_frame(source, convert_sdk),)
        return
    if not isinstance(source, Iterable):
        yield (FrameError(f"cannot read a response from {type(source).__name__}"),)
        return
    chunks: ChunkDecoder | None = None
    kinds = _KINDS
    try:
        for item in source:  # pyright: ignore[reportUnknownVariableType]
            kind = kinds.get(type(item)) or _kind_of(type(item))
            if kind == "plain":
                yield (item,)
            elif kind == "sdk":
                yield (item if convert_sdk is None else convert_sdk(item),)
            elif kind == "invalid":
                yield (FrameError(f"a frame must be an object, got {describe(item)}"),)
            else:
                chunks = chunks or ChunkDecoder(restated)
                data = item if type(item) is bytes else _as_bytes(item) or b""
                if len(data) <= _SLICE:  # a network chunk: no generator per chunk
                    yield chunks.feed(data)
                else:
                    yield from chunks.feed_sliced(data)
    except Exception as exc:  # the source itself failed (network, an SDK error frame): report, stop
        yield (FrameError(f"source raised {type(exc).__name__}: {exc}", from_source=True),)
        return
    if chunks is not None:
        yield chunks.close()


def iter_frames(source: Any, convert_sdk: SdkConverter) -> Iterator[Any]:
    """Frames of any synchronous source, one by one."""
    for batch in frame_batches(source, convert_sdk):
        yield from batch


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


async def aframe_batches(
    source: AsyncIterable[Any], convert_sdk: SdkConverter, restated: RestatedStrings | None = None
) -> AsyncIterator[Sequence[Any]]:
    """Frames of an asynchronous source (an async generator of frames or chunks), in batches."""
    chunks: ChunkDecoder | None = None
    try:
        async for item in source:
            data = _as_bytes(item)
            if data is not None:
                chunks = chunks or ChunkDecoder(restated)
                if len(data) <= _SLICE:
                    yield chunks.feed(data)
                else:
                    for batch in chunks.feed_sliced(data):
                        yield batch
            else:
                yield (_frame(item, convert_sdk),)
    except Exception as exc:  # the source itself failed (network, an SDK error frame): report, stop
        yield (FrameError(f"source raised {type(exc).__name__}: {exc}", from_source=True),)
        return
    if chunks is not None:
        yield chunks.close()


async def aiter_frames(source: AsyncIterable[Any], convert_sdk: SdkConverter) -> AsyncIterator[Any]:
    """Frames of an asynchronous source, one by one."""
    async for batch in aframe_batches(source, convert_sdk):
        for frame in batch:
            yield frame


def _frame(item: Any, convert_sdk: SdkConverter) -> Any:
    if convert_sdk is not None and isinstance(item, pydantic.BaseModel):
        return convert_sdk(item)
    if isinstance(item, _NOT_FRAMES):
        return FrameError(f"a frame must be an object, got {describe(item)}")
    return item
