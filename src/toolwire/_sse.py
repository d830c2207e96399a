"""Incremental Server-Sent Events decoder that works on bytes and knows each event's byte offset.

Written by hand: the SDKs' decoders are private and work on text, and we need byte offsets
for error reports and the same events however the bytes are chunked (`\\n`, `\\r\\n`, `\\r`,
a `\\r\\n` split across chunks, a UTF-8 character split across chunks).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event."""

    data: str
    event: str | None = None
    id: str | None = None
    offset: int = 0
    """Byte offset of the event's first line in the stream."""


class SseDecoder:
    """Feed bytes in any chunking; get complete events back."""

    __slots__ = ("_buffer", "_consumed", "_data", "_event", "_event_offset", "_id", "_skip_lf", "_started")

    def __init__(self) -> None:
        self._buffer = b""
        self._consumed = 0
        self._skip_lf = False
        self._started = False
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._event_offset: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Decode whatever complete lines `chunk` finishes."""
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                self._consumed += 1
        if not self._started:
            chunk = self._strip_bom(chunk)
        data = self._buffer + chunk if self._buffer else chunk
        if self._event_offset is None and b"\r" not in data:
            return self._feed_blocks(data)
        lines = data.splitlines(keepends=True)
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            self._buffer = lines.pop()
        else:
            self._buffer = b""
        events: list[ServerSentEvent] = []
        for line in lines:
            self._line(line, events)
        if not self._buffer and lines and lines[-1].endswith(b"\r"):
            self._skip_lf = True
        return events

    def _feed_blocks(self, data: bytes) -> list[ServerSentEvent]:
        """Fast path for LF-only data between events: whole blank-line-terminated blocks at once."""
        events: list[ServerSentEvent] = []
        position = 0
        while True:
            end = data.find(b"\n\n", position)
            if end < 0:
                break
            block = data[position:end]
            offset = self._consumed
            self._consumed += end + 2 - position
            position = end + 2
            if block.startswith(b"data: ") and b"\n" not in block:
                events.append(ServerSentEvent(block[6:].decode("utf-8", errors="replace"), None, self._id, offset))
                continue
            for line in block.split(b"\n"):
                self._field(line, offset, events)
                offset += len(line) + 1
            self._dispatch(events)
        self._buffer = data[position:]
        return events

    def close(self) -> list[ServerSentEvent]:
        """End of stream: an unterminated last line and an undispatched event still count."""
        events: list[ServerSentEvent] = []
        remainder, self._buffer = self._buffer, b""
        for line in remainder.splitlines(keepends=True):
            self._line(line, events)
        self._dispatch(events)
        return events

    @property
    def offset(self) -> int:
        """Bytes consumed so far (complete lines)."""
        return self._consumed

    def _strip_bom(self, chunk: bytes) -> bytes:
        pending = self._buffer + chunk
        if len(pending) < 3 and b"\xef\xbb\xbf".startswith(pending):
            return chunk  # wait for more bytes to decide
        self._started = True
        if pending.startswith(b"\xef\xbb\xbf"):
            self._consumed += 3
            self._buffer = b""
            return pending[3:]
        return chunk

    def _line(self, raw: bytes, events: list[ServerSentEvent]) -> None:
        start = self._consumed
        self._consumed += len(raw)
        if raw.endswith(b"\r\n"):
            raw = raw[:-2]
        elif raw.endswith((b"\n", b"\r")):
            raw = raw[:-1]
        self._field(raw, start, events)

    def _field(self, raw: bytes, start: int, events: list[ServerSentEvent]) -> None:
        """One line without its terminator: a field, a comment, or (empty) the end of an event."""
        if not raw:
            self._dispatch(events)
            return
        if raw[:1] == b":":
            return
        line = raw.decode("utf-8", errors="replace")
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if self._event_offset is None:
            self._event_offset = start
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value

    def _dispatch(self, events: list[ServerSentEvent]) -> None:
        if self._data:
            data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
            events.append(ServerSentEvent(data, self._event, self._id, self._event_offset or 0))
        self._data = []
        self._event = None
        self._event_offset = None  # the last event id persists across events, as the SSE spec says
