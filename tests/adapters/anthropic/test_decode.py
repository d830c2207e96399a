"""Anthropic responses normalized into unified events: what each kind of content block becomes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.events import ToolInputDelta

# -- frames as the API streams them (`anthropic/types/raw_message_stream_event.py`) ----------------


def message_start(content: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content or [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return {"type": "message_start", "message": {**message, **fields}}


def block(index: int, content_block: dict[str, Any], deltas: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": content_block},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def text(index: int, *chunks: str) -> list[dict[str, Any]]:
    return block(index, {"type": "text", "text": ""}, [{"type": "text_delta", "text": c} for c in chunks])


def tool_use(
    index: int, call_id: str, name: str, *chunks: str, kind: str = "tool_use", **extra: Any
) -> list[dict[str, Any]]:
    start = {"type": kind, "id": call_id, "name": name, "input": {}, **extra}
    return block(index, start, [{"type": "input_json_delta", "partial_json": c} for c in chunks])


def thinking(index: int, signature: str, *chunks: str) -> list[dict[str, Any]]:
    deltas = [{"type": "thinking_delta", "thinking": c} for c in chunks]
    return block(
        index,
        {"type": "thinking", "thinking": "", "signature": ""},
        [*deltas, {"type": "signature_delta", "signature": signature}],
    )


def end(stop_reason: str = "end_turn", output_tokens: int = 5, **delta: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None, **delta},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def stream(*parts: list[dict[str, Any]], stop_reason: str = "end_turn") -> list[dict[str, Any]]:
    frames = [message_start()]
    for part in parts:
        frames.extend(part)
    return frames + end(stop_reason)


def events(adapter: Adapter, frames: Any, **options: Any) -> list[dict[str, Any]]:
    return [event.to_dict() for event in adapter.normalize(frames, **options)]


START = {"type": "start", "messageId": "msg_1"}
USAGE = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}


def finish(reason: str, **metadata: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "finish", "finishReason": reason, "usage": USAGE}
    if metadata:
        event["providerMetadata"] = {"anthropic": metadata}
    return event


class TestText:
    def test_text_only(self, adapter: Adapter) -> None:
        assert events(adapter, stream(text(0, "Hello", ", world"))) == [
            START,
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "Hello"},
            {"type": "text-delta", "id": "0", "delta": ", world"},
            {"type": "text-end", "id": "0"},
            finish("stop"),
        ]

    def test_citations_arrive_on_the_text_end(self, adapter: Adapter) -> None:
        citation = {
            "type": "char_location",
            "cited_text": "grass is green",
            "document_index": 0,
            "document_title": "Facts",
            "start_char_index": 0,
            "end_char_index": 14,
        }
        frames = stream(
            block(0, {"type": "text", "text": ""}, [
                {"type": "text_delta", "text": "Green."},
                {"type": "citations_delta", "citation": citation},
            ])
        )  # fmt: skip
        assert events(adapter, frames)[3] == {
            "type": "text-end",
            "id": "0",
            "providerMetadata": {"anthropic": {"citations": [citation]}},
        }


class TestToolCalls:
    def test_one_call(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "toolu_1", "get_weather", '{"city": "Pa', 'ris"}'), stop_reason="tool_use")
        assert events(adapter, frames) == [
            START,
            {"type": "tool-input-start", "toolCallId": "toolu_1", "toolName": "get_weather"},
            {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": '{"city": "Pa'},
            {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": 'ris"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "toolu_1",
                "toolName": "get_weather",
                "input": {"city": "Paris"},
            },
            finish("tool-calls"),
        ]

    def test_parallel_calls_keep_their_own_arguments(self, adapter: Adapter) -> None:
        frames = stream(
            tool_use(0, "toolu_1", "get_weather", '{"city": "Paris"}'),
            tool_use(1, "toolu_2", "get_weather", '{"city":', ' "Tokyo"}'),
            stop_reason="tool_use",
        )
        available = [e for e in events(adapter, frames) if e["type"] == "tool-input-available"]
        assert available == [
            {
                "type": "tool-input-available",
                "toolCallId": "toolu_1",
                "toolName": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "type": "tool-input-available",
                "toolCallId": "toolu_2",
                "toolName": "get_weather",
                "input": {"city": "Tokyo"},
            },
        ]

    def test_calls_mixed_with_text(self, adapter: Adapter) -> None:
        frames = stream(text(0, "Checking."), tool_use(1, "toolu_1", "lookup", '{"q": "x"}'), stop_reason="tool_use")
        assert [(e["type"], e.get("id") or e.get("toolCallId")) for e in events(adapter, frames)] == [
            ("start", None),
            ("text-start", "0"),
            ("text-delta", "0"),
            ("text-end", "0"),
            ("tool-input-start", "toolu_1"),
            ("tool-input-delta", "toolu_1"),
            ("tool-input-available", "toolu_1"),
            ("finish", None),
        ]

    def test_a_no_argument_call_streams_an_empty_partial_json_and_gets_an_empty_object(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "toolu_1", "now", ""), stop_reason="tool_use")
        assert events(adapter, frames)[1:3] == [
            {"type": "tool-input-start", "toolCallId": "toolu_1", "toolName": "now"},
            {"type": "tool-input-available", "toolCallId": "toolu_1", "toolName": "now", "input": {}},
        ]

    def test_a_no_argument_call_without_any_delta_gets_an_empty_object(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "toolu_1", "now"), stop_reason="tool_use")
        assert events(adapter, frames)[2] == {
            "type": "tool-input-available",
            "toolCallId": "toolu_1",
            "toolName": "now",
            "input": {},
        }

    def test_interleaved_blocks_keep_their_own_arguments(self, adapter: Adapter) -> None:
        first = tool_use(0, "toolu_1", "get_weather", '{"city": ', '"Paris"}')
        second = tool_use(1, "toolu_2", "get_weather", '{"city": ', '"Lima"}')
        frames = stream([first[0], second[0], first[1], second[1], first[2], second[2], first[3], second[3]])
        assert [
            (e["toolCallId"], e["input"]) for e in events(adapter, frames) if e["type"] == "tool-input-available"
        ] == [
            ("toolu_1", {"city": "Paris"}),
            ("toolu_2", {"city": "Lima"}),
        ]

    def test_a_call_whose_input_arrives_whole_in_the_block_start(self, adapter: Adapter) -> None:
        frames = stream(block(0, {"type": "tool_use", "id": "toolu_1", "name": "roll", "input": {"player": "p1"}}))
        assert events(adapter, frames)[1:4] == [
            {"type": "tool-input-start", "toolCallId": "toolu_1", "toolName": "roll"},
            {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": '{"player":"p1"}'},
            {"type": "tool-input-available", "toolCallId": "toolu_1", "toolName": "roll", "input": {"player": "p1"}},
        ]

    def test_deltas_win_over_an_input_in_the_block_start(self, adapter: Adapter) -> None:
        start = {"type": "tool_use", "id": "toolu_1", "name": "roll", "input": {"player": "stale"}}
        frames = stream(block(0, start, [{"type": "input_json_delta", "partial_json": '{"player": "p2"}'}]))
        assert events(adapter, frames)[3]["input"] == {"player": "p2"}

    def test_calls_already_complete_in_message_start(self, adapter: Adapter) -> None:
        caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
        call = {"type": "tool_use", "id": "toolu_9", "name": "roll", "input": {"player": "p2"}, "caller": caller}
        frames = [message_start([call], stop_reason="tool_use"), {"type": "message_stop"}]
        assert events(adapter, frames) == [
            START,
            {
                "type": "tool-input-start",
                "toolCallId": "toolu_9",
                "toolName": "roll",
                "providerMetadata": {"anthropic": {"caller": caller}},
            },
            {"type": "tool-input-delta", "toolCallId": "toolu_9", "inputTextDelta": '{"player":"p2"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "toolu_9",
                "toolName": "roll",
                "input": {"player": "p2"},
                "providerMetadata": {"anthropic": {"caller": caller}},
            },
            {
                "type": "finish",
                "finishReason": "tool-calls",
                "usage": {"inputTokens": 10, "outputTokens": 1, "totalTokens": 11},
            },
        ]

    def test_a_direct_caller_is_not_repeated_in_metadata(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "toolu_1", "now", "{}", caller={"type": "direct"}))
        assert "providerMetadata" not in events(adapter, frames)[1]

    def test_provider_names_are_mapped_back_to_tool_ids(self, adapter: Adapter) -> None:
        tool = create_tool(id="weather.get", description="Weather.")
        frames = stream(tool_use(0, "toolu_1", "weather_get", "{}"))
        assert events(adapter, frames, tools=[tool])[1]["toolName"] == "weather.get"

    def test_partial_inputs_when_asked_for(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "toolu_1", "get_weather", '{"city": "Pa', 'ris"}'))
        deltas = [e for e in adapter.normalize(frames, partial=True) if isinstance(e, ToolInputDelta)]
        assert [d.partial_input for d in deltas] == [{"city": "Pa"}, {"city": "Paris"}]


class TestBadInput:
    def test_malformed_arguments_give_an_input_error_and_the_stream_goes_on(self, adapter: Adapter) -> None:
        frames = stream(
            tool_use(0, "toolu_1", "get_weather", '{"city": "Paris"'),
            tool_use(1, "toolu_2", "get_weather", '{"city": "Oslo"}'),
        )
        result = events(adapter, frames)
        error = next(e for e in result if e["type"] == "tool-input-error")
        assert error["toolCallId"] == "toolu_1"
        assert error["input"] == '{"city": "Paris"'
        assert error["errorText"].startswith("The input for tool 'get_weather' is not valid JSON")
        assert [e["toolCallId"] for e in result if e["type"] == "tool-input-available"] == ["toolu_2"]

    def test_input_that_fails_the_schema_gives_an_actionable_input_error(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="get_weather",
            description="Weather.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        )
        result = events(adapter, stream(tool_use(0, "toolu_1", "get_weather", '{"town": "Paris"}')), tools=[tool])
        assert result[3]["type"] == "tool-input-error"
        assert result[3]["input"] == {"town": "Paris"}
        assert "'city' is a required property" in result[3]["errorText"]

    def test_a_truncated_stream_refuses_the_open_call_and_reports_the_cut(self, adapter: Adapter) -> None:
        frames = [message_start(), *tool_use(0, "toolu_1", "get_weather", '{"city": "Pa')[:2]]
        assert events(adapter, frames)[3:] == [
            {
                "type": "error",
                "errorText": "the Anthropic stream ended before `message_stop`: the response is incomplete",
            },
            {
                "type": "tool-input-error",
                "toolCallId": "toolu_1",
                "toolName": "get_weather",
                "input": '{"city": "Pa',
                "errorText": "The response ended before the input of tool 'get_weather' was complete (received "
                "12 characters); call the tool again with the complete input.",
            },
            {
                "type": "finish",
                "finishReason": "error",
                "usage": {"inputTokens": 10, "outputTokens": 1, "totalTokens": 11},
            },
        ]

    def test_a_max_tokens_cut_inside_a_call_is_an_input_error_with_finish_length(self, adapter: Adapter) -> None:
        frames = [
            message_start(),
            *tool_use(0, "toolu_1", "write", '{"text": "abc')[:2],
            {"type": "content_block_stop", "index": 0},
            *end("max_tokens"),
        ]
        result = events(adapter, frames)
        assert [e["type"] for e in result[-2:]] == ["tool-input-error", "finish"]
        assert result[-1]["finishReason"] == "length"

    def test_an_error_frame_becomes_an_error_event(self, adapter: Adapter) -> None:
        frames = [
            message_start(),
            *text(0, "Hi"),
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ]
        result = events(adapter, frames)
        assert {"type": "error", "errorText": "anthropic error (overloaded_error): Overloaded"} in result
        assert result[-1]["finishReason"] == "error"

    def test_a_delta_without_an_index_is_reported_and_the_stream_goes_on(self, adapter: Adapter) -> None:
        frames = stream(
            [{"type": "content_block_delta", "delta": {"type": "text_delta", "text": "lost"}}], text(0, "kept")
        )
        result = events(adapter, frames)
        assert result[1]["type"] == "error"
        assert "content_block_delta without an index" in result[1]["errorText"]
        assert {"type": "text-delta", "id": "0", "delta": "kept"} in result

    def test_a_delta_whose_payload_is_not_text_is_reported_and_the_stream_goes_on(self, adapter: Adapter) -> None:
        start, _, stop = tool_use(0, "toolu_1", "now", "")
        bad = {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 7}}
        good = {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}}
        result = events(adapter, stream([start, bad, good, stop]))
        assert result[2] == {
            "type": "error",
            "errorText": "skipped an unreadable anthropic `input_json_delta`: its `partial_json` is not a string",
        }
        assert result[4]["type"] == "tool-input-available"

    def test_a_result_block_without_its_call_id_is_reported(self, adapter: Adapter) -> None:
        frames = stream(block(0, {"type": "web_search_tool_result", "content": []}))
        assert events(adapter, frames)[1] == {
            "type": "error",
            "errorText": "skipped an unreadable `web_search_tool_result` block: it has no `tool_use_id`",
        }

    def test_unknown_events_blocks_and_deltas_and_pings_are_ignored(self, adapter: Adapter) -> None:
        frames = stream(
            [{"type": "ping"}, {"type": "brand_new_event", "data": 1}],
            block(0, {"type": "container_upload", "file_id": "file_1"}),
            block(
                1,
                {"type": "text", "text": ""},
                [{"type": "future_delta", "x": 1}, {"type": "text_delta", "text": "ok"}],
            ),
        )
        assert events(adapter, frames) == [
            START,
            {"type": "text-start", "id": "1"},
            {"type": "text-delta", "id": "1", "delta": "ok"},
            {"type": "text-end", "id": "1"},
            finish("stop"),
        ]


class TestReasoning:
    def test_thinking_then_a_call_carries_the_signature_on_reasoning_end(self, adapter: Adapter) -> None:
        frames = stream(
            thinking(0, "sig-1", "Let me ", "check."), tool_use(1, "toolu_1", "now", "{}"), stop_reason="tool_use"
        )
        assert events(adapter, frames)[:5] == [
            START,
            {"type": "reasoning-start", "id": "0"},
            {"type": "reasoning-delta", "id": "0", "delta": "Let me "},
            {"type": "reasoning-delta", "id": "0", "delta": "check."},
            {"type": "reasoning-end", "id": "0", "providerMetadata": {"anthropic": {"signature": "sig-1"}}},
        ]

    def test_redacted_thinking_is_a_reasoning_part_with_its_data(self, adapter: Adapter) -> None:
        frames = stream(block(0, {"type": "redacted_thinking", "data": "EncryptedBlob"}))
        assert events(adapter, frames)[1:3] == [
            {"type": "reasoning-start", "id": "0"},
            {"type": "reasoning-end", "id": "0", "providerMetadata": {"anthropic": {"redactedData": "EncryptedBlob"}}},
        ]


class TestServerTools:
    """Calls Anthropic runs itself are provider-executed: reported, never run by toolwire."""

    def test_web_search_is_a_provider_executed_call_with_its_output(self, adapter: Adapter) -> None:
        results = [{"type": "web_search_result", "url": "https://a.example", "title": "A", "encrypted_content": "e1"}]
        frames = stream(
            tool_use(0, "srvtoolu_1", "web_search", '{"query": "x"}', kind="server_tool_use"),
            block(1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results}),
        )
        metadata = {"anthropic": {"blockType": "server_tool_use"}}
        assert events(adapter, frames)[1:5] == [
            {
                "type": "tool-input-start",
                "toolCallId": "srvtoolu_1",
                "toolName": "web_search",
                "providerExecuted": True,
                "providerMetadata": metadata,
            },
            {"type": "tool-input-delta", "toolCallId": "srvtoolu_1", "inputTextDelta": '{"query": "x"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "srvtoolu_1",
                "toolName": "web_search",
                "input": {"query": "x"},
                "providerExecuted": True,
                "providerMetadata": metadata,
            },
            {
                "type": "tool-output-available",
                "toolCallId": "srvtoolu_1",
                "output": results,
                "providerExecuted": True,
                "providerMetadata": {"anthropic": {"blockType": "web_search_tool_result"}},
            },
        ]

    def test_a_server_tool_error_object_is_a_tool_output_error(self, adapter: Adapter) -> None:
        error = {"type": "code_execution_tool_result_error", "error_code": "unavailable"}
        frames = stream(block(0, {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1", "content": error}))
        assert events(adapter, frames)[1] == {
            "type": "tool-output-error",
            "toolCallId": "srvtoolu_1",
            "errorText": '{"type": "code_execution_tool_result_error", "error_code": "unavailable"}',
            "providerExecuted": True,
            "providerMetadata": {"anthropic": {"blockType": "code_execution_tool_result"}},
        }

    def test_an_mcp_call_keeps_its_server_name(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "mcptoolu_1", "ask", '{"q": "hi"}', kind="mcp_tool_use", server_name="wiki"))
        assert events(adapter, frames)[3]["providerMetadata"] == {
            "anthropic": {"blockType": "mcp_tool_use", "serverName": "wiki"}
        }

    def test_a_failed_mcp_result_is_an_output_error_with_its_text(self, adapter: Adapter) -> None:
        result = {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_1",
            "is_error": True,
            "content": [{"type": "text", "text": "server down"}],
        }
        assert events(adapter, stream(block(0, result)))[1] == {
            "type": "tool-output-error",
            "toolCallId": "mcptoolu_1",
            "errorText": "server down",
            "providerExecuted": True,
            "providerMetadata": {"anthropic": {"blockType": "mcp_tool_result"}},
        }

    def test_only_provider_executed_calls_leave_the_finish_reason_alone(self, adapter: Adapter) -> None:
        frames = stream(tool_use(0, "srvtoolu_1", "web_search", '{"query": "x"}', kind="server_tool_use"))
        assert events(adapter, frames)[-1]["finishReason"] == "stop"


class TestFinish:
    @pytest.mark.parametrize(
        ("stop_reason", "finish_reason"),
        [
            ("end_turn", "stop"),
            ("stop_sequence", "stop"),
            ("max_tokens", "length"),
            ("model_context_window_exceeded", "length"),
            ("tool_use", "tool-calls"),
            ("refusal", "content-filter"),
            ("pause_turn", "other"),
            ("a_reason_from_the_future", "other"),
        ],
    )
    def test_stop_reasons(self, adapter: Adapter, stop_reason: str, finish_reason: str) -> None:
        assert events(adapter, stream(text(0, "x"), stop_reason=stop_reason))[-1]["finishReason"] == finish_reason

    def test_usage_counts_the_whole_prompt_and_the_cache_read_separately(self, adapter: Adapter) -> None:
        usage = {
            "input_tokens": 12,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 30,
            "output_tokens": 1,
        }
        frames = [
            message_start(usage=usage),
            *text(0, "x"),
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 40, "output_tokens_details": {"thinking_tokens": 25}},
            },
            {"type": "message_stop"},
        ]
        assert events(adapter, frames)[-1] == {
            "type": "finish",
            "finishReason": "stop",
            "usage": {
                "inputTokens": 142,
                "outputTokens": 40,
                "totalTokens": 182,
                "reasoningTokens": 25,
                "cachedInputTokens": 100,
            },
            "providerMetadata": {"anthropic": {"cacheCreationInputTokens": 30}},
        }

    def test_refusal_details_and_the_stop_sequence_are_kept_in_metadata(self, adapter: Adapter) -> None:
        details = {"type": "refusal", "category": "cyber", "explanation": None}
        frames = [message_start(), *end("refusal", stop_details=details, stop_sequence="###")]
        assert events(adapter, frames)[-1]["providerMetadata"] == {
            "anthropic": {"stopSequence": "###", "stopDetails": details}
        }

    def test_the_container_of_code_execution_is_kept_for_the_next_request(self, adapter: Adapter) -> None:
        container = {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"}
        frames = [message_start(), *end("end_turn", container=container)]
        assert events(adapter, frames)[-1]["providerMetadata"] == {"anthropic": {"container": container}}


class TestSeveralMessages:
    def test_a_source_with_several_messages_gives_every_part_its_own_id(self, adapter: Adapter) -> None:
        first = stream(text(0, "one"), tool_use(1, "toolu_1", "now", "{}"), stop_reason="tool_use")
        second = [message_start(id="msg_2"), *text(0, "two"), *end()]
        result = events(adapter, first + second)
        assert [(e["type"], e.get("id")) for e in result if e["type"].startswith("text")] == [
            ("text-start", "0"),
            ("text-delta", "0"),
            ("text-end", "0"),
            ("text-start", "2"),
            ("text-delta", "2"),
            ("text-end", "2"),
        ]
        assert [e["type"] for e in result].count("start") == 1
        assert result[-1]["finishReason"] == "tool-calls"
