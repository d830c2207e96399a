"""Specification of response sources: sniffing JSON, JSON arrays, NDJSON and SSE into frames, with byte offsets."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire._sources import ChunkDecoder, FrameError, aiter_frames, iter_frames


class Chunk(pydantic.BaseModel):
    """Stands in for an SDK stream event object."""

    type: str
    index: int = 0


def _convert(item: Any) -> Any:
    return {"converted": item.model_dump()}


def _frames(source: Any) -> list[Any]:
    return list(iter_frames(source, _convert))


def _chunked(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    bounds = [0, *sorted(c % (len(body) + 1) for c in cuts), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


class TestSniffing:
    def test_a_json_body_is_one_frame(self) -> None:
        """A non-streamed response is a single frame, even with leading whitespace."""
        assert _frames(b'  \n{"id": "msg_1", "content": []}') == [{"id": "msg_1", "content": []}]

    def test_a_json_array_body_is_one_frame_per_element(self) -> None:
        """Gemini's streamed array (`[{...},{...}]`) is split into its elements."""
        assert _frames(b'[{"a": 1},\r\n{"b": [2, {"c": "]}"}]}]') == [{"a": 1}, {"b": [2, {"c": "]}"}]}]

    def test_ndjson_is_one_frame_per_line(self) -> None:
        """Newline-delimited JSON (chunk logs) falls back to one object per line."""
        assert _frames(b'{"a": 1}\n\n{"b": 2}\r\n{"c": 3}') == [{"a": 1}, {"b": 2}, {"c": 3}]

    def test_sse_data_becomes_frames_and_done_is_dropped(self) -> None:
        """Each `data:` payload is a frame; OpenAI's `[DONE]` sentinel is not."""
        body = b'data: {"id": 1}\n\ndata: {"id": 2}\n\ndata: [DONE]\n\n'
        assert _frames(body) == [{"id": 1}, {"id": 2}]

    def test_the_sse_event_name_fills_a_missing_type(self) -> None:
        """Anthropic names events on `event:` lines; a frame without `type` gets that name."""
        body = b'event: ping\ndata: {}\n\nevent: other\ndata: {"type": "message_stop"}\n\n'
        assert _frames(body) == [{"type": "ping"}, {"type": "message_stop"}]

    def test_a_str_body_is_decoded_like_bytes(self) -> None:
        """Text bodies are UTF-8 encoded first."""
        assert _frames('data: {"text": "é"}\n\n') == [{"text": "é"}]

    def test_an_empty_body_has_no_frames(self) -> None:
        """Nothing sent, nothing decoded."""
        assert _frames(b"") == []
        assert _frames(b"  \n ") == []

    def test_a_body_that_is_neither_json_nor_sse_is_an_error(self) -> None:
        """An HTML error page from a proxy must not look like an empty response."""
        (error,) = _frames(b"<html><body>502 Bad Gateway</body></html>")
        assert isinstance(error, FrameError)
        assert error.offset == 0

    def test_a_bom_before_a_json_body_is_skipped(self) -> None:
        """Some servers prefix UTF-8 bodies with a BOM."""
        assert _frames(b'\xef\xbb\xbf{"a": 1}') == [{"a": 1}]


class TestErrors:
    def test_malformed_json_in_an_sse_event_is_a_frame_error_at_the_event_offset(self) -> None:
        """The error says what was wrong and where the event starts; later events still decode."""
        body = b'data: {"a": 1}\n\ndata: {"a": \n\ndata: {"b": 2}\n\n'
        frames = _frames(body)
        assert frames[0] == {"a": 1}
        assert frames[2] == {"b": 2}
        error = frames[1]
        assert isinstance(error, FrameError)
        assert error.offset == 16
        assert error.message.startswith("malformed JSON in SSE event (Expecting value: line 1 column 7 (char 6)): ")
        assert str(error).endswith(" at byte 16")

    def test_a_malformed_json_body_points_at_the_byte_of_the_problem(self) -> None:
        """The offset counts bytes, not characters, even after multi-byte text."""
        (error,) = _frames('{"é": tru}'.encode())
        assert error == FrameError(
            "malformed JSON body (Expecting value: line 1 column 7 (char 6))", offset=len('{"é": '.encode())
        )

    def test_a_malformed_ndjson_line_is_an_error_at_its_line_and_the_rest_decodes(self) -> None:
        """Only the bad line is lost."""
        frames = _frames(b'{"a": 1}\n{"b": \n{"c": 3}\n')
        assert frames[0] == {"a": 1}
        assert frames[2] == {"c": 3}
        assert isinstance(frames[1], FrameError)
        assert frames[1].offset == 9

    def test_a_malformed_array_element_is_an_error_at_its_offset(self) -> None:
        """Element boundaries are found by bracket depth, so one bad element is isolated."""
        frames = _frames(b'[{"a": 1}, {"b": tru}, {"c": 3}]')
        assert frames[0] == {"a": 1}
        assert frames[2] == {"c": 3}
        assert isinstance(frames[1], FrameError)
        assert frames[1].offset == 11

    def test_an_array_stream_cut_inside_an_element_is_an_error_where_the_element_starts(self) -> None:
        """A truncated Gemini stream reports the element it lost."""
        assert _frames(b'[{"a": 1}, {"b": "unfinished') == [
            {"a": 1},
            FrameError("JSON array stream ended inside an element", 11),
        ]

    def test_array_offsets_stay_absolute_after_the_buffer_is_compacted(self) -> None:
        """Past 64 KiB the consumed prefix is dropped; offsets still count from the first byte."""
        padding = b'{"pad": "' + b"x" * 70_000 + b'"}'
        body = b"[" + padding + b"," + b'{"bad": }]'
        decoder = ChunkDecoder()
        frames = [*decoder.feed(body[:40_000]), *decoder.feed(body[40_000:]), *decoder.close()]
        assert frames[0] == {"pad": "x" * 70_000}
        assert frames[1] == FrameError(
            "malformed JSON array element (Expecting value: line 1 column 9 (char 8))", len(b"[" + padding + b",")
        )

    def test_a_value_that_is_not_a_source_is_a_frame_error(self) -> None:
        """Nothing raises: an unreadable source is reported as a frame error."""
        assert _frames(42) == [FrameError("cannot read a response from int")]


class TestIterables:
    def test_an_iterable_of_byte_chunks_is_decoded_as_one_body(self) -> None:
        """An HTTP body arriving in pieces, split anywhere, gives the same frames."""
        assert _frames([b'data: {"a"', b": 1}\n", b"\n", b'data: {"b": 2}\n\n']) == [{"a": 1}, {"b": 2}]

    def test_an_iterable_of_str_chunks_is_decoded_as_one_body(self) -> None:
        """Text chunks are accepted too."""
        assert _frames(['[{"a": 1}', ', {"b": 2}]']) == [{"a": 1}, {"b": 2}]

    def test_an_iterable_of_dicts_passes_through(self) -> None:
        """Decoded JSON events are frames already."""
        assert _frames([{"a": 1}, {"b": 2}]) == [{"a": 1}, {"b": 2}]

    def test_one_dict_is_one_frame(self) -> None:
        """A non-streamed response given as a dict."""
        assert _frames({"id": "resp_1"}) == [{"id": "resp_1"}]

    def test_pydantic_objects_go_through_the_converter(self) -> None:
        """SDK event objects (pydantic models) are converted by the adapter's hook."""
        assert _frames([Chunk(type="a"), {"type": "b"}]) == [{"converted": {"type": "a", "index": 0}}, {"type": "b"}]
        assert _frames(Chunk(type="whole")) == [{"converted": {"type": "whole", "index": 0}}]

    def test_objects_that_are_not_pydantic_pass_through_as_they_are(self) -> None:
        """Plain SDK-like objects are read by attribute later, not converted."""
        marker = object()
        assert _frames([marker]) == [marker]

    async def test_an_async_source_gives_the_same_frames(self) -> None:
        """Async byte chunks, dicts and SDK objects are handled like their sync forms."""

        async def source() -> AsyncIterator[Any]:
            yield b'data: {"a": 1}\n'
            yield b"\n"
            yield Chunk(type="x")
            yield b'data: {"b"'
            yield b": 2}"

        assert [f async for f in aiter_frames(source(), _convert)] == [
            {"a": 1},
            {"converted": {"type": "x", "index": 0}},
            {"b": 2},
        ]


_json_leaf = st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\{}[],: é😀\n', max_size=6)
_json_values = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
_elements = st.lists(st.dictionaries(st.text(alphabet='k"\\[]{}', max_size=3), _json_values, max_size=3), max_size=5)


class TestAnyChunking:
    @settings(max_examples=200, deadline=None)
    @given(
        elements=_elements,
        ensure_ascii=st.booleans(),
        indent=st.none() | st.integers(0, 2),
        cuts=st.lists(st.integers(0, 5_000), max_size=40),
    )
    def test_a_json_array_stream_splits_into_its_elements_however_it_is_chunked(
        self, elements: list[dict[str, Any]], ensure_ascii: bool, indent: int | None, cuts: list[int]
    ) -> None:
        """Strings holding brackets, quotes and escapes never confuse the element boundaries."""
        body = json.dumps(elements, ensure_ascii=ensure_ascii, indent=indent).encode()
        assert _frames(_chunked(body, cuts)) == elements

    @settings(max_examples=200, deadline=None)
    @given(elements=st.lists(_json_values, min_size=1, max_size=4), cuts=st.lists(st.integers(0, 5_000), max_size=40))
    def test_an_sse_stream_gives_the_same_frames_however_it_is_chunked(
        self, elements: list[Any], cuts: list[int]
    ) -> None:
        """SSE framing and JSON decoding are independent of the chunking."""
        frames = [{"n": i, "v": v} for i, v in enumerate(elements)]
        body = b"".join(b"data: " + json.dumps(f, ensure_ascii=False).encode() + b"\r\n\r\n" for f in frames)
        assert _frames(_chunked(body + b"data: [DONE]\r\n\r\n", cuts)) == frames
