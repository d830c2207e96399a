"""Long restated strings of big SSE frames: left undecoded, compared piece by piece, decoded on demand."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import _long_strings, get_adapter
from toolwire._long_strings import LONG_STRING, JsonString, restating_frame
from toolwire.events import ToolInputAvailable, ToolInputDelta

RESTATED = {"call.done": frozenset({("arguments",), ("items", "*", "arguments")})}
LONG = "x" * LONG_STRING


def _restating(data: bytes, event: str | None) -> Any:
    return restating_frame(data, 0, len(data), event, RESTATED)


def _frame(**fields: Any) -> bytes:
    return json.dumps({"type": "call.done", **fields}, ensure_ascii=False).encode()


def _literal(text: str, *, ensure_ascii: bool = False) -> tuple[JsonString, bytes]:
    """The literal of `text` (lone surrogates escaped, as JSON encoders write them) and its value's UTF-8."""
    data = json.dumps(text, ensure_ascii=ensure_ascii).encode("utf-8", "backslashreplace")
    value: str = json.loads(data)
    return JsonString(data, 0, len(data)), value.encode("utf-8", "surrogatepass")


class TestRestatingFrame:
    def test_a_long_string_at_a_restated_path_is_left_undecoded(self) -> None:
        frame = _restating(_frame(arguments=LONG, id="fc_1"), None)

        assert frame["id"] == "fc_1"
        assert type(frame["arguments"]) is JsonString
        assert frame["arguments"].text() == LONG

    def test_a_restated_path_inside_a_list_matches_every_index(self) -> None:
        frame = _restating(_frame(items=[{"arguments": "{}"}, {"arguments": LONG}]), None)

        assert frame["items"][0]["arguments"] == "{}"
        assert type(frame["items"][1]["arguments"]) is JsonString

    def test_a_long_string_elsewhere_is_decoded_as_usual(self) -> None:
        frame = _restating(_frame(arguments=LONG, text="é" + LONG), None)

        assert frame["text"] == "é" + LONG

    def test_a_frame_type_without_restated_paths_gets_every_string_decoded(self) -> None:
        data = json.dumps({"type": "other", "arguments": LONG}).encode()

        assert _restating(data, None) == {"type": "other", "arguments": LONG}

    def test_the_sse_event_name_stands_for_a_missing_type(self) -> None:
        data = json.dumps({"arguments": LONG}).encode()

        assert type(_restating(data, "call.done")["arguments"]) is JsonString

    def test_a_frame_without_long_strings_is_left_to_the_plain_parser(self) -> None:
        assert _restating(_frame(arguments="{}", padding=[1] * LONG_STRING), None) is None

    def test_a_long_key_is_not_taken_for_a_value(self) -> None:
        data = json.dumps({"type": "call.done", LONG: 1, "arguments": LONG}).encode()

        frame = _restating(data, None)

        assert frame[LONG] == 1
        assert type(frame["arguments"]) is JsonString

    def test_an_invalid_escape_in_a_long_string_is_left_to_the_plain_parser_and_its_error(self) -> None:
        data = _frame(arguments=LONG).replace(b"xxxx", b"x\\qx", 1)

        assert _restating(data, None) is None

    def test_a_raw_control_character_in_a_long_string_is_left_to_the_plain_parser(self) -> None:
        data = _frame(arguments=LONG).replace(b"xxxx", b"x\x01xx", 1)

        assert _restating(data, None) is None

    def test_a_string_spelling_the_placeholder_makes_the_frame_parse_plainly(self) -> None:
        data = _frame(arguments=LONG, forged="\x00toolwire-long-string:0")

        assert _restating(data, None) is None

    def test_invalid_json_around_the_long_string_is_left_to_the_plain_parser(self) -> None:
        assert _restating(_frame(arguments=LONG)[:-1] + b",}", None) is None

    def test_a_long_string_that_is_the_whole_frame_is_left_to_the_plain_parser(self) -> None:
        assert _restating(json.dumps(LONG).encode(), None) is None


class TestJsonString:
    def test_same_text_is_true_for_the_text_it_spells(self) -> None:
        literal, data = _literal('{"a": "\\n\\u00e9 😀"}')

        assert literal.same_text(data)

    def test_same_text_is_false_for_another_text_of_the_same_length(self) -> None:
        assert not _literal('{"a": 1}')[0].same_text(b'{"a": 2}')

    def test_same_text_is_false_for_a_prefix_or_a_longer_text(self) -> None:
        literal = _literal('{"a": "é"}')[0]

        assert not literal.same_text('{"a": "é'.encode())
        assert not literal.same_text('{"a": "é"}}'.encode())

    def test_a_released_string_refuses_to_be_read(self) -> None:
        literal = _literal("{}")[0]
        literal.release()

        with pytest.raises(RuntimeError, match="released"):
            literal.text()

    @settings(max_examples=300, deadline=None)
    @given(
        text=st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('"\\\n\t😀é日\ud83d\ude00')),
        ensure_ascii=st.booleans(),
        piece=st.integers(min_value=1, max_value=40),
    )
    def test_same_text_and_text_agree_with_json_loads_however_the_pieces_are_cut(
        self, text: str, ensure_ascii: bool, piece: int
    ) -> None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_long_strings, "PIECE", piece)
            literal, data = _literal(text, ensure_ascii=ensure_ascii)

            assert literal.text().encode("utf-8", "surrogatepass") == data
            assert literal.same_text(data)
            assert not literal.same_text(data + b"!")
            if data:
                assert not literal.same_text(data[:-1] + bytes([data[-1] ^ 1]))


def _responses_body(streamed: str, restated: str) -> bytes:
    item = {"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "c1"}
    item["name"] = "write"
    done = {**item, "status": "completed", "arguments": restated}
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m", "output": []}
    frames: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "item": item, "output_index": 0},
        *(
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": streamed[i : i + 1000]}
            for i in range(0, len(streamed), 1000)
        ),
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": restated},
        {"type": "response.output_item.done", "item": done, "output_index": 0},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [done]}},
    ]
    return b"".join(
        f"event: {frame['type']}\ndata: {json.dumps(frame, ensure_ascii=False)}\n\n".encode() for frame in frames
    )


ARGUMENTS = json.dumps({"content": 'é\n"😀\\ ' * (LONG_STRING // 4), "n": 1}, ensure_ascii=False)


class TestResponsesRestatements:
    def test_a_long_call_restated_three_times_gives_the_input_once(self) -> None:
        events = list(get_adapter("openai-responses").normalize(_responses_body(ARGUMENTS, ARGUMENTS)))

        inputs = [event.input for event in events if isinstance(event, ToolInputAvailable)]
        assert inputs == [json.loads(ARGUMENTS)]
        assert "".join(e.input_text_delta for e in events if isinstance(e, ToolInputDelta)) == ARGUMENTS
        assert [event.type for event in events if event.type == "error"] == []

    def test_a_restated_text_that_differs_from_the_streamed_one_wins(self) -> None:
        restated = ARGUMENTS.replace('"n": 1', '"n": 2')

        events = list(get_adapter("openai-responses").normalize(_responses_body(ARGUMENTS, restated)))

        inputs = [event.input for event in events if isinstance(event, ToolInputAvailable)]
        assert inputs == [json.loads(restated)]

    def test_a_restated_text_that_completes_the_streamed_one_streams_the_rest(self) -> None:
        streamed = ARGUMENTS[: len(ARGUMENTS) // 2]

        events = list(get_adapter("openai-responses").normalize(_responses_body(streamed, ARGUMENTS)))

        assert "".join(e.input_text_delta for e in events if isinstance(e, ToolInputDelta)) == ARGUMENTS
        assert [event.input for event in events if isinstance(event, ToolInputAvailable)] == [json.loads(ARGUMENTS)]

    def test_the_events_are_the_same_in_small_chunks(self) -> None:
        body = _responses_body(ARGUMENTS, ARGUMENTS)
        chunks = [body[start : start + 1024] for start in range(0, len(body), 1024)]
        adapter = get_adapter("openai-responses")

        whole = [event.to_dict() for event in adapter.normalize(body)]

        assert [event.to_dict() for event in adapter.normalize(chunks)] == whole


def test_a_long_literal_is_compared_a_piece_at_a_time_without_decoding_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = 'é\n"😀\\ \ud83d\ude00 日本' * 2000
    literal, data = _literal(text)
    monkeypatch.setattr(_long_strings, "PIECE", 100)
    monkeypatch.setattr(JsonString, "text", lambda self: pytest.fail("decoded whole"))

    assert literal.same_text(data)


def test_a_long_string_at_a_restated_path_of_another_item_type_reads_as_its_text() -> None:
    """An MCP call's `arguments` sit at a restated path too: its reader gets the decoded text."""
    item = {"id": "mcp_1", "type": "mcp_call", "server_label": "docs", "name": "search", "arguments": ARGUMENTS}
    frames = [
        {"type": "response.created", "response": {"id": "resp_1", "object": "response", "status": "in_progress"}},
        {"type": "response.output_item.done", "item": {**item, "output": "done", "status": "completed"}},
        {"type": "response.completed", "response": {"id": "resp_1", "object": "response", "status": "completed"}},
    ]
    body = b"".join(f"data: {json.dumps(frame, ensure_ascii=False)}\n\n".encode() for frame in frames)
    adapter = get_adapter("openai-responses")

    from_bytes = [event.to_dict() for event in adapter.normalize(body)]

    assert from_bytes == [event.to_dict() for event in adapter.normalize(frames)]
    assert [event["input"] for event in from_bytes if event["type"] == "tool-input-available"] == [
        json.loads(ARGUMENTS)
    ]
