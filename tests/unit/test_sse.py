"""Specification of the byte-level SSE decoder: the same events and offsets however the bytes are chunked."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire._sse import LONG_LINE, ServerSentEvent, SseDecoder

BOM = b"\xef\xbb\xbf"


def _decode(*chunks: bytes) -> list[ServerSentEvent]:
    decoder = SseDecoder()
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return events


def _bytewise(stream: bytes) -> list[ServerSentEvent]:
    return _decode(*(stream[i : i + 1] for i in range(len(stream))))


class TestLineEndings:
    @pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
    def test_each_line_ending_frames_events_the_same(self, ending: bytes) -> None:
        """LF, CRLF and CR all end lines, and a blank line ends the event."""
        stream = ending.join([b"event: delta", b"data: one", b"", b"data: two", b"", b""])
        assert _decode(stream) == [
            ServerSentEvent("one", event="delta", offset=0),
            ServerSentEvent("two", offset=len(b"event: delta" + ending + b"data: one" + ending + ending)),
        ]

    def test_mixed_line_endings_in_one_stream(self) -> None:
        """A stream may change line endings between lines."""
        assert _decode(b"data: a\r\n\ndata: b\r\rdata: c\n\r\n") == [
            ServerSentEvent("a", offset=0),
            ServerSentEvent("b", offset=10),
            ServerSentEvent("c", offset=19),
        ]

    def test_a_crlf_split_between_chunks_is_one_line_ending(self) -> None:
        """`\\r` at the end of a chunk and `\\n` at the start of the next end a single line."""
        assert _decode(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n") == [ServerSentEvent("a\nb", offset=0)]

    def test_a_cr_ended_line_followed_by_a_partial_line_keeps_the_next_lf(self) -> None:
        """Only a CR at the very end of a chunk may pair with a LF at the start of the next one."""
        assert _decode(b": c\rdata: a", b"\n\ndata: b\n\n") == [
            ServerSentEvent("a", offset=4),
            ServerSentEvent("b", offset=13),
        ]

    def test_a_cr_then_an_empty_chunk_then_lf_is_still_one_line_ending(self) -> None:
        """Empty chunks carry no bytes and change no state."""
        assert _decode(b"data: a\r", b"", b"\n", b"", b"\r\n") == [ServerSentEvent("a", offset=0)]


class TestFields:
    def test_data_lines_are_joined_with_newlines(self) -> None:
        """Multi-line data is one value with `\\n` between the lines."""
        assert _decode(b'data: {\ndata:  "a": 1\ndata: }\n\n') == [ServerSentEvent('{\n "a": 1\n}', offset=0)]

    @pytest.mark.parametrize(
        ("line", "data"),
        [
            (b"data:x", "x"),
            (b"data: x", "x"),
            (b"data:  x", " x"),
            (b"data", ""),
            (b"data:", ""),
            (b"data: a:b", "a:b"),
        ],
    )
    def test_one_leading_space_is_removed_from_the_value(self, line: bytes, data: str) -> None:
        """Only the single space after the colon is syntax; a line without colon has an empty value."""
        assert _decode(line + b"\n\n") == [ServerSentEvent(data, offset=0)]

    def test_the_event_name_belongs_to_one_event_and_the_id_persists(self) -> None:
        """`event:` resets after dispatch; `id:` is the last event id until another one arrives (SSE spec)."""
        assert _decode(b"event: message_start\nid: 7\ndata: {}\n\ndata: {}\n\nid: 8\ndata: {}\n\n") == [
            ServerSentEvent("{}", event="message_start", id="7", offset=0),
            ServerSentEvent("{}", id="7", offset=37),
            ServerSentEvent("{}", id="8", offset=47),
        ]

    def test_an_id_containing_nul_is_ignored(self) -> None:
        """The SSE spec ignores ids with NUL."""
        assert _decode(b"id: a\x00b\ndata: x\n\n") == [ServerSentEvent("x", offset=0)]

    def test_comments_and_unknown_fields_are_ignored(self) -> None:
        """`:` lines are keep-alives; `retry:` and unknown names carry nothing here."""
        stream = b": ping\n\n: hi\nretry: 10\nfoo: bar\ndata: x\n\n"
        assert _decode(stream) == [ServerSentEvent("x", offset=len(b": ping\n\n: hi\n"))]

    def test_an_event_without_data_is_not_dispatched(self) -> None:
        """A blank line after only `event:` dispatches nothing."""
        assert _decode(b"event: ping\n\ndata: x\n\n") == [ServerSentEvent("x", offset=13)]

    def test_multi_byte_characters_split_across_chunks_decode_whole(self) -> None:
        """UTF-8 is decoded per complete line, never per chunk."""
        stream = "data: é日😀\n\n".encode()
        assert _bytewise(stream) == [ServerSentEvent("é日😀", offset=0)]

    def test_invalid_utf8_is_replaced_not_raised(self) -> None:
        """A broken byte becomes U+FFFD; decoding goes on."""
        assert _decode(b"data: a\xffb\n\n") == [ServerSentEvent("a\ufffdb", offset=0)]


class TestBomAndOffsets:
    def test_a_leading_bom_is_skipped_and_counted_in_offsets(self) -> None:
        """Offsets are positions in the bytes as sent, BOM included."""
        assert _decode(BOM + b"data: a\n\ndata: b\n\n") == [
            ServerSentEvent("a", offset=3),
            ServerSentEvent("b", offset=12),
        ]

    def test_a_bom_split_across_chunks_is_skipped(self) -> None:
        """The decoder waits for three bytes before deciding about a BOM."""
        assert _decode(b"\xef", b"\xbb", b"\xbfdata: a\n\n") == [ServerSentEvent("a", offset=3)]

    def test_a_bom_after_the_start_is_not_skipped(self) -> None:
        """Only the very first bytes can be a BOM; later it is part of a field name or value."""
        assert _decode(b"data: a\n\n" + BOM + b"data: b\n\n") == [ServerSentEvent("a", offset=0)]
        assert _decode(b"data: " + BOM + b"x\n\n") == [ServerSentEvent("\ufeffx", offset=0)]

    def test_offset_counts_complete_lines_consumed(self) -> None:
        """`offset` is how far decoding got, in bytes, not counting a partial line."""
        decoder = SseDecoder()
        decoder.feed(b"data: a\r\ndata: b")
        assert decoder.offset == 9
        decoder.feed(b"\r")
        assert decoder.offset == 17
        decoder.feed(b"\n")
        assert decoder.offset == 18


class TestEndOfStream:
    def test_an_unterminated_last_event_is_dispatched_at_close(self) -> None:
        """A body cut after the last data line still yields its event."""
        decoder = SseDecoder()
        assert decoder.feed(b"data: a\n\ndata: b\n") == [ServerSentEvent("a", offset=0)]
        assert decoder.close() == [ServerSentEvent("b", offset=9)]

    def test_an_unterminated_last_line_is_read_at_close(self) -> None:
        """The last line may lack its line ending."""
        assert _decode(b"data: a\n\ndata: [DONE]") == [
            ServerSentEvent("a", offset=0),
            ServerSentEvent("[DONE]", offset=9),
        ]

    def test_an_empty_stream_has_no_events(self) -> None:
        """No bytes, or only blank lines and comments: nothing."""
        assert _decode() == []
        assert _decode(b"\n\n: keep-alive\n\n") == []


@dataclass(frozen=True)
class _Spec:
    """One event to serialize, with comments and field lines."""

    datas: tuple[str, ...]
    event: str | None
    id: str | None
    comment: bool


_value = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), max_size=8) | st.sampled_from(
    ["é", "日本", "😀🚀", "\x0b\x0c\x1c\x85\u2028", " lead", "a:b", "[DONE]"]
)
_specs = st.builds(
    _Spec,
    datas=st.lists(_value, min_size=1, max_size=3).map(tuple),
    event=st.none() | _value,
    id=st.none() | _value.filter(lambda v: "\0" not in v),
    comment=st.booleans(),
)


def _serialize(specs: list[_Spec], endings: list[bytes], bom: bool) -> tuple[bytes, list[ServerSentEvent]]:
    """The stream bytes and the events a correct decoder must produce from them."""
    stream, expected, _ = _serialize_marked(specs, endings, bom)
    return stream, expected


def _serialize_marked(
    specs: list[_Spec], endings: list[bytes], bom: bool
) -> tuple[bytes, list[ServerSentEvent], list[int]]:
    """`_serialize`, and where each event's blank line ending starts: the byte that dispatches it."""
    out = bytearray(BOM if bom else b"")
    dispatched_at: list[int] = []
    expected: list[ServerSentEvent] = []
    previous = b""
    count = 0
    last_id: str | None = None

    def line(text: str) -> None:
        nonlocal previous, count
        ending = endings[count % len(endings)]
        count += 1
        if not text and previous == b"\r" and ending == b"\n":
            ending = b"\r\n"  # a lone LF after a CR would merge into the CR's line ending
        out.extend(text.encode() + ending)
        previous = ending

    for spec in specs:
        if spec.comment:
            line(": keep-alive")
        offset = len(out)
        if spec.event is not None:
            line(f"event: {spec.event}")
        if spec.id is not None:
            line(f"id: {spec.id}")
        for data in spec.datas:
            line(f"data: {data}")
        dispatched_at.append(len(out))
        line("")
        last_id = spec.id if spec.id is not None else last_id
        expected.append(ServerSentEvent("\n".join(spec.datas), event=spec.event, id=last_id, offset=offset))
    return bytes(out), expected, dispatched_at


def _chunks(stream: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(c % (len(stream) + 1) for c in cuts), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(bounds)]


_cuts = st.lists(st.integers(0, 2_000), max_size=60)


class TestAnyChunking:
    @settings(max_examples=300, deadline=None)
    @given(
        specs=st.lists(_specs, max_size=5),
        endings=st.lists(st.sampled_from([b"\n", b"\r\n"]), min_size=1, max_size=3),
        bom=st.booleans(),
        cuts=_cuts,
    )
    def test_events_and_offsets_are_identical_however_the_bytes_are_chunked(
        self, specs: list[_Spec], endings: list[bytes], bom: bool, cuts: list[int]
    ) -> None:
        """Cuts anywhere (inside CRLF, inside UTF-8 sequences, repeated for empty chunks) change nothing."""
        stream, expected = _serialize(specs, endings, bom)
        assert _decode(stream) == expected
        assert _decode(*_chunks(stream, cuts)) == expected

    @settings(max_examples=300, deadline=None)
    @example(
        specs=[_Spec(("a",), None, None, comment=True), _Spec(("b",), None, None, comment=False)],
        endings=[b"\r", b"\n"],
        bom=False,
        cuts=[12],
    )
    @given(
        specs=st.lists(_specs, max_size=5),
        endings=st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=1, max_size=4),
        bom=st.booleans(),
        cuts=_cuts,
    )
    def test_bare_cr_line_endings_give_identical_events_however_the_bytes_are_chunked(
        self, specs: list[_Spec], endings: list[bytes], bom: bool, cuts: list[int]
    ) -> None:
        """Old-Mac CR endings mixed with the others survive every chunking too."""
        stream, expected = _serialize(specs, endings, bom)
        assert _decode(stream) == expected
        assert _decode(*_chunks(stream, cuts)) == expected

    @settings(max_examples=100, deadline=None)
    @given(specs=st.lists(_specs, min_size=1, max_size=3), ending=st.sampled_from([b"\n", b"\r\n", b"\r"]))
    def test_one_byte_at_a_time_gives_the_same_events(self, specs: list[_Spec], ending: bytes) -> None:
        """The hardest chunking for state carried between chunks, every boundary at once."""
        stream, expected = _serialize(specs, [ending], bom=True)
        assert _bytewise(stream) == expected

    @settings(max_examples=100, deadline=None)
    @given(specs=st.lists(_specs, min_size=1, max_size=3), drop=st.sampled_from([1, 2]), cuts=_cuts)
    def test_a_stream_cut_before_its_final_blank_line_still_yields_every_event(
        self, specs: list[_Spec], drop: int, cuts: list[int]
    ) -> None:
        """Dropping the last terminator (and maybe the last line ending) loses no event at close."""
        stream, expected = _serialize(specs, [b"\n"], bom=False)
        assert _decode(*_chunks(stream[:-drop], cuts)) == expected

    @settings(max_examples=200, deadline=None)
    @given(
        specs=st.lists(_specs, min_size=1, max_size=5),
        endings=st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=1, max_size=3),
        cuts=_cuts,
    )
    def test_each_event_comes_out_of_the_feed_that_receives_its_blank_line(
        self, specs: list[_Spec], endings: list[bytes], cuts: list[int]
    ) -> None:
        """No event waits for a later chunk (a held block included): the first byte of its blank line dispatches it."""
        stream, expected, dispatched_at = _serialize_marked(specs, endings, bom=False)
        decoder = SseDecoder()
        fed = 0
        received: list[tuple[range, ServerSentEvent]] = []  # the stream bytes of the feed that gave each event
        for chunk in _chunks(stream, cuts):
            received += [(range(fed, fed + len(chunk)), event) for event in decoder.feed(chunk)]
            fed += len(chunk)

        assert [event for _, event in received] == expected
        assert all(at in chunk for (chunk, _), at in zip(received, dispatched_at, strict=True))


class TestHeldBlocks:
    """The start of a block cut by a chunk boundary is held whole and decoded when its blank line arrives."""

    def test_a_held_block_gives_its_event_when_the_blank_line_arrives(self) -> None:
        decoder = SseDecoder()

        assert decoder.feed(b"event: a\ndata: 1") == []
        assert decoder.feed(b"\n") == []
        assert decoder.feed(b"\n") == [ServerSentEvent("1", event="a", offset=0)]

    def test_offset_counts_the_complete_lines_of_a_held_block(self) -> None:
        decoder = SseDecoder()
        decoder.feed(b"data: 0\n\nevent: a\ndata: 1")
        assert decoder.offset == 18
        decoder.feed(b"\n")
        assert decoder.offset == 26

    def test_the_cr_of_a_crlf_blank_line_dispatches_before_its_lf_arrives(self) -> None:
        decoder = SseDecoder()

        assert decoder.feed(b"data: 1\r\n\r") == [ServerSentEvent("1", offset=0)]
        assert decoder.offset == 10
        assert decoder.feed(b"\ndata: 2\r\n\r\n") == [ServerSentEvent("2", offset=11)]

    def test_bare_cr_line_endings_after_a_partial_line_are_not_held(self) -> None:
        """Only LF and CRLF blocks are held; a CR ending a line elsewhere is decoded line by line now."""
        assert SseDecoder().feed(b"data: 1\r\rdata: 2") == [ServerSentEvent("1", offset=0)]

    def test_bare_cr_line_endings_after_an_event_line_are_not_held(self) -> None:
        assert SseDecoder().feed(b"event: a\r\ndata: 1\r\rdata: 2") == [ServerSentEvent("1", event="a", offset=0)]

    def test_a_held_block_is_decoded_at_close(self) -> None:
        decoder = SseDecoder()

        assert decoder.feed(b"event: a\r\ndata: 1\r\n") == []
        assert decoder.close() == [ServerSentEvent("1", event="a", offset=0)]

    def test_a_held_block_whose_data_line_grows_long_hands_the_line_over_uncopied(self) -> None:
        spans: list[tuple[type, bytes | None, int]] = []

        class Spans(SseDecoder):
            def emit_span(
                self, data: bytes | bytearray, start: int, stop: int, event: bytes | None, offset: int, out: list[Any]
            ) -> None:
                spans.append((type(data), event, stop - start))

        long = b"x" * (LONG_LINE + 5)
        stream = b"data: 0\n\nevent: big\ndata: " + long + b"\n\ndata: after\n\n"
        decoder = Spans()
        events = [event for part in _chunks(stream, list(range(0, len(stream), 1000))) for event in decoder.feed(part)]

        assert spans == [(bytearray, b"big", len(long))]
        assert events == [ServerSentEvent("0", offset=0), ServerSentEvent("after", offset=len(stream) - 13)]

    @pytest.mark.parametrize("size", [LONG_LINE - 100, 4 * LONG_LINE])
    @pytest.mark.parametrize("chunk", [1, 1000])
    def test_a_frame_in_small_chunks_is_scanned_a_bounded_number_of_times(self, size: int, chunk: int) -> None:
        """Linear under any chunking: the bytes handed to the block decoder stay within 4x the stream."""
        scanned: list[int] = []

        class Counting(SseDecoder):
            def _decode(self, data: bytes, out: list[Any]) -> int:
                scanned.append(len(data))
                return super()._decode(data, out)

        stream = b"event: e\ndata: " + b"y" * size + b"\n\n" + b"event: e\ndata: {}\n\n" * 50
        decoder = Counting()
        events = [event for part in _chunks(stream, list(range(0, len(stream), chunk))) for event in decoder.feed(part)]

        assert len(events) == 51
        assert sum(scanned) <= 4 * len(stream)


_long_value = st.sampled_from([0, 3, LONG_LINE - 9, LONG_LINE - 8, LONG_LINE, LONG_LINE + 1, LONG_LINE + 40])


class TestLongLinesInAnyChunking:
    @settings(max_examples=40, deadline=None)
    @given(
        blocks=st.lists(st.tuples(st.none() | st.sampled_from(["e", "big"]), _long_value), min_size=1, max_size=3),
        ending=st.sampled_from([b"\n", b"\r\n"]),
        cuts=st.lists(st.integers(0, 3 * LONG_LINE + 200), max_size=30),
    )
    def test_long_and_short_blocks_give_the_same_events_however_the_bytes_are_chunked(
        self, blocks: list[tuple[str | None, int]], ending: bytes, cuts: list[int]
    ) -> None:
        stream = b""
        expected: list[ServerSentEvent] = []
        for event, size in blocks:
            data = "é" * (size // 2) + "x" * (size % 2)
            expected.append(ServerSentEvent(data, event=event, offset=len(stream)))
            head = b"" if event is None else f"event: {event}".encode() + ending
            stream += head + b"data: " + data.encode() + ending + ending

        assert _decode(*_chunks(stream, cuts)) == expected


class TestLongLines:
    """A data line of `LONG_LINE` bytes or more, held across chunks, is handed over whole (not copied)."""

    LONG = b"x" * LONG_LINE + "é日😀".encode()

    @pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
    @pytest.mark.parametrize("size", [1, 1000, 4096, LONG_LINE + 7])
    def test_a_long_line_in_chunks_gives_the_events_and_offsets_of_the_whole_stream(
        self, ending: bytes, size: int
    ) -> None:
        lines = [b": hi", b"id: 7", b"event: big", b"data: " + self.LONG, b"", b"data: after", b"", b""]
        stream = ending.join(lines)
        chunks = [stream[start : start + size] for start in range(0, len(stream), size)]

        events = _decode(*chunks)

        assert events == _decode(stream)
        assert [(event.event, len(event.data), event.offset) for event in events] == [
            ("big", len(self.LONG.decode()), len(b": hi" + ending)),
            (None, 5, len(ending.join(lines[:5])) + len(ending)),
        ]

    def test_a_crlf_split_after_a_long_line_is_one_line_ending(self) -> None:
        line = b"data: " + self.LONG + b"\r"

        events = _decode(line[:100], line[100:], b"\n\r\ndata: next\r\n\r\n")

        assert [(len(event.data), event.offset) for event in events] == [
            (len(self.LONG.decode()), 0),
            (4, len(line) + 3),
        ]

    def test_two_data_lines_one_of_them_long_are_joined_with_a_newline(self) -> None:
        stream = b"data: short\ndata: " + self.LONG + b"\n\n"

        events = _decode(*(stream[start : start + 500] for start in range(0, len(stream), 500)))

        assert [event.data for event in events] == ["short\n" + self.LONG.decode()]

    def test_a_long_line_is_handed_to_emit_span_not_copied(self) -> None:
        spans: list[tuple[type, int, int]] = []

        class Spans(SseDecoder):
            def emit_span(
                self, data: bytes | bytearray, start: int, stop: int, event: bytes | None, offset: int, out: list[Any]
            ) -> None:
                spans.append((type(data), start, stop))

        stream = b"data: " + self.LONG + b"\n\n"
        decoder = Spans()
        for start in range(0, len(stream), 1000):
            decoder.feed(stream[start : start + 1000])

        assert spans == [(bytearray, 6, 6 + len(self.LONG))]
