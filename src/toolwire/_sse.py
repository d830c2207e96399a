"""Incremental Server-Sent Events decoder that works on bytes and knows each event's byte offset.

Written by hand: the SDKs' decoders are private and work on text, and we need byte offsets
for error reports and the same events however the bytes are chunked (`\\n`, `\\r\\n`, `\\r`,
a `\\r\\n` split across chunks, a UTF-8 character split across chunks).

Two paths give the same events. Blocks of the shape every provider sends (an optional
`event:` line, one `data:` line, a blank line; LF or CRLF) are cut out of the bytes whole and
their data handed over as bytes, without decoding lines one by one. Anything else (comments,
`id:`, several data lines, bare CR endings) goes line by line. Between chunks the decoder holds
the start of a block not complete yet (under `LONG_LINE` bytes; at most three lines: it is
scanned again only when a chunk ends one of them) or, line by line, an incomplete line; a
chunk that ends no line is appended without a scan of what is held, so a frame arriving in
many small chunks costs time linear in its size. A long held data line is handed over as it
is (`emit_span`), never copied: a frame of a megabyte is in memory once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_BOM = b"\xef\xbb\xbf"
LONG_LINE = 65536
"""Bytes from which a held data line is handed over without a copy (`emit_span`)."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event."""

    data: str
    event: str | None = None
    id: str | None = None
    offset: int = 0
    """Byte offset of the event's first line in the stream."""


class SseDecoder:
    """Feed bytes in any chunking; get complete events back (`emit` says what an event becomes)."""

    __slots__ = ("_consumed", "_data", "_event", "_event_offset", "_id", "_pending", "_skip_lf", "_started")

    def __init__(self) -> None:
        self._pending: bytes | bytearray = b""
        """The start of an incomplete block, or (line by line) an incomplete line, held for the next chunk.

        Bytes as it is cut; a `bytearray` once a chunk that ends no line is appended to it.
        """
        self._consumed = 0
        self._skip_lf = False
        self._started = False
        self._data: list[bytes | tuple[bytearray, int, int]] = []
        self._event: bytes | None = None
        self._id: bytes | None = None
        self._event_offset: int | None = None

    def emit(self, data: bytes, event: bytes | None, offset: int, out: list[Any]) -> None:
        """Append what one dispatched event becomes to `out` (here: a `ServerSentEvent`)."""
        last_id = None if self._id is None else self._id.decode("utf-8", errors="replace")
        name = None if event is None else event.decode("utf-8", errors="replace")
        out.append(ServerSentEvent(data.decode("utf-8", errors="replace"), name, last_id, offset))

    def emit_span(
        self, data: bytes | bytearray, start: int, stop: int, event: bytes | None, offset: int, out: list[Any]
    ) -> None:
        """`emit` for the data `data[start:stop]` of a long line (`data` is not shared: it may be kept)."""
        self.emit(bytes(memoryview(data)[start:stop]), event, offset, out)

    def feed(self, chunk: bytes) -> list[Any]:
        """Decode whatever complete lines `chunk` finishes."""
        out: list[Any] = []
        if not chunk:
            return out
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                self._consumed += 1
                if not chunk:
                    return out
        pending = self._pending
        if not pending:
            data = chunk
        elif 10 not in chunk and 13 not in chunk:  # the held line goes on: nothing to decode yet
            if type(pending) is bytes:
                self._pending = pending = bytearray(pending)  # appended to in place from now on
            pending += chunk
            return out
        else:
            rest = self._long_line(chunk, out) if self._started and len(pending) + len(chunk) > LONG_LINE else None
            if rest is None:
                data = (pending if type(pending) is bytes else bytes(pending)) + chunk
                self._pending = b""
            elif rest:
                data = rest
            else:
                return out
        if not self._started:
            data = self._strip_bom(data)
            if not self._started:
                return out
        position = self._decode(data, out)
        if position < len(data):
            self._pending = data[position:]
        return out

    def _long_line(self, chunk: bytes, out: list[Any]) -> bytes | None:
        """End a long held line with `chunk` and hand it over whole: the rest of `chunk`; None when not long."""
        end = _line_end(chunk, 0, len(chunk)) + 1
        if len(self._pending) + end <= LONG_LINE:
            return None
        if chunk[end - 1] == 13 and chunk[end : end + 1] == b"\n":
            end += 1
        line = self._pending if type(self._pending) is bytearray else bytearray(self._pending)
        line += chunk[:end]
        self._pending = b""
        self._all_lines(line, out)
        rest = chunk[end:]
        if self._skip_lf and rest:
            self._skip_lf = False
            if rest[:1] == b"\n":
                rest = rest[1:]
                self._consumed += 1
        return rest

    def close(self) -> list[Any]:
        """End of stream: an unterminated last line and an undispatched event still count."""
        out: list[Any] = []
        remainder = bytes(self._pending)
        self._pending = b""
        if not self._started and remainder.startswith(_BOM):
            remainder = remainder[3:]
            self._consumed += 3
        if remainder:
            position = self._all_lines(remainder, out)  # a held block's complete lines
            if position < len(remainder):
                self._field(remainder, position, len(remainder), self._consumed, out)
                self._consumed += len(remainder) - position
        self._dispatch(out)
        return out

    @property
    def offset(self) -> int:
        """Bytes consumed so far (complete lines)."""
        pending = self._pending
        return self._consumed + max(pending.rfind(b"\n"), pending.rfind(b"\r")) + 1  # a held block's lines

    def _strip_bom(self, data: bytes) -> bytes:
        if len(data) < 3 and _BOM.startswith(data):
            self._pending += data  # wait for more bytes to decide
            return data
        self._started = True
        if data.startswith(_BOM):
            self._consumed += 3
            return data[3:]
        return data

    def _decode(self, data: bytes, out: list[Any]) -> int:
        """Consume every complete block and line of `data`; the position of the incomplete rest."""
        position = 0
        end = len(data)
        plain_lf = 13 not in data  # (`b"\r" in` tries the operand as an int first, raising inside)
        while position < end:
            if self._event_offset is None:
                position = self._blocks(data, position, plain_lf, out)
                if position < 0:  # the start of a block: held whole unless long (line by line, never copied)
                    position = -1 - position
                    if end - position < LONG_LINE:
                        return position
                elif position >= end:
                    break
            position = self._lines(data, position, out)
            if position < 0:
                return -position - 1
        return position

    def _blocks(self, data: bytes, position: int, plain_lf: bool, out: list[Any]) -> int:
        """Cut whole `[event: NAME]` + `data: ...` + blank-line blocks; stop at the first other shape.

        `-1 - position` when what is left from `position` may be such a block, not complete yet.
        """
        find = data.find
        startswith = data.startswith
        emit = self.emit
        end = len(data)
        base = self._consumed - position  # the stream offset of data[0]
        start = position
        incomplete = False
        while True:
            newline = find(b"\n", position)
            if newline < 0:  # a partial line, unless a CR ends lines here (then line by line)
                incomplete = position < end and (plain_lf or find(b"\r", position, end - 1) < 0)
                break
            event = None
            if data[position] == 101 and startswith(b"event:", position):  # 101: "e"
                if not plain_lf and (data[newline - 1] != 13 or find(b"\r", position, newline - 1) >= 0):
                    break
                value = position + 7 if data[position + 6] == 32 else position + 6  # one optional space
                event = data[value : newline if plain_lf else newline - 1]
                position = newline + 1
                newline = find(b"\n", position)
                if newline < 0:
                    incomplete = plain_lf or find(b"\r", position, end - 1) < 0
                    break
                if not startswith(b"data:", position):
                    break
            elif not startswith(b"data:", position):
                break
            if plain_lf:
                stop = newline
                if newline + 1 >= end:
                    incomplete = True
                    break
                if data[newline + 1] != 10:
                    break
                after = newline + 2
            else:
                stop = newline - 1
                if data[stop] != 13 or find(b"\r", position, stop) >= 0:
                    break
                blank = data[newline + 1 : newline + 3]
                if blank == b"\r\n":
                    after = newline + 3
                elif blank == b"\r" and newline + 2 == end:  # the blank line's CR ends the event now
                    self._skip_lf = True
                    after = end
                else:
                    incomplete = blank == b""
                    break
            emit(data[position + 6 if data[position + 5] == 32 else position + 5 : stop], event, base + start, out)
            position = start = after
        self._consumed = base + start
        return -1 - start if incomplete else start

    def _lines(self, data: bytes | bytearray, position: int, out: list[Any]) -> int:
        """Decode lines one by one until an event is dispatched; `-1 - position` when out of complete lines."""
        end = len(data)
        while True:
            stop = _line_end(data, position, end)
            if stop < 0:
                return -1 - position
            after = stop + 1
            if data[stop] == 13:
                if after == end:
                    self._skip_lf = True  # a CR ends the line; an LF opening the next chunk belongs to it
                elif data[after] == 10:
                    after += 1
            line_offset = self._consumed
            self._consumed += after - position
            dispatched = self._field(data, position, stop, line_offset, out)
            position = after
            if dispatched:
                return position

    def _all_lines(self, data: bytes | bytearray, out: list[Any]) -> int:
        """Decode every complete line of `data`; the position of its incomplete rest."""
        position = 0
        while position >= 0:
            position = self._lines(data, position, out)
        return -1 - position

    def _field(self, data: bytes | bytearray, start: int, stop: int, offset: int, out: list[Any]) -> bool:
        """The line `data[start:stop]`: a field, a comment, or (empty) the end of an event; True when it ends one.

        Read in place: a data line is copied once, as its value; a long line handed over
        (a `bytearray`) is not copied at all.
        """
        if start == stop:
            self._dispatch(out)
            return True
        colon = data.find(b":", start, stop)
        if colon == start:
            return False  # a comment
        value_start = stop if colon < 0 else colon + 2 if colon + 1 < stop and data[colon + 1] == 32 else colon + 1
        name = bytes(data[start : stop if colon < 0 else colon])
        if self._event_offset is None:
            self._event_offset = offset
        if name == b"data":
            if type(data) is bytearray and stop - value_start >= LONG_LINE:
                self._data.append((data, value_start, stop))
            else:
                self._data.append(bytes(data[value_start:stop]))
        elif name == b"event":
            self._event = bytes(data[value_start:stop])
        elif name == b"id" and b"\0" not in data[value_start:stop]:
            self._id = bytes(data[value_start:stop])
        return False

    def _dispatch(self, out: list[Any]) -> None:
        if self._data:
            first = self._data[0]
            if len(self._data) == 1 and type(first) is tuple:
                self.emit_span(*first, self._event, self._event_offset or 0, out)
            else:
                data = b"\n".join(_value(part) for part in self._data)
                self.emit(data, self._event, self._event_offset or 0, out)
        self._data = []
        self._event = None
        self._event_offset = None  # the last event id persists across events, as the SSE spec says


def _value(part: bytes | tuple[bytearray, int, int]) -> bytes:
    """A data line's value, held as bytes or (a long line) as its span of the line."""
    if type(part) is tuple:
        line, start, stop = part
        return bytes(memoryview(line)[start:stop])
    return part  # type: ignore[return-value]  # a tuple was handled above


def _line_end(data: bytes | bytearray, start: int, end: int) -> int:
    """The position of the first CR or LF in `data[start:end]`, or -1 (`find` is several times faster than a regex)."""
    newline = data.find(b"\n", start, end)
    carriage = data.find(b"\r", start, end if newline < 0 else newline)
    return newline if carriage < 0 else carriage
