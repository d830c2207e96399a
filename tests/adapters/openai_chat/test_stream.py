"""Chat Completions responses normalized into unified events: streams, whole completions, every source form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.testing.capture import RequestCapture

Events = Callable[..., list[dict[str, Any]]]
Sse = Callable[..., bytes]

START = {"type": "start", "messageId": "chatcmpl-1"}


def chunk(delta: dict[str, Any] | None = None, *, finish: str | None = None, index: int = 0) -> dict[str, Any]:
    """One `chat.completion.chunk` with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4.1-mini",
        "choices": [{"index": index, "delta": delta or {}, "finish_reason": finish}],
    }


def call_start(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return chunk(
        {
            "tool_calls": [
                {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            ]
        }
    )


def call_args(index: int, arguments: str) -> dict[str, Any]:
    return chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})


def usage_chunk() -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4.1-mini",
        "choices": [],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 30,
            "total_tokens": 150,
            "prompt_tokens_details": {"cached_tokens": 64},
            "completion_tokens_details": {"reasoning_tokens": 12},
        },
    }


ONE_CALL = [
    chunk({"role": "assistant", "content": None}),
    call_start(0, "call_a", "get_weather"),
    call_args(0, '{"ci'),
    call_args(0, 'ty": "Paris"}'),
    chunk(finish="tool_calls"),
    usage_chunk(),
]
ONE_CALL_EVENTS = [
    START,
    {"type": "tool-input-start", "toolCallId": "call_a", "toolName": "get_weather"},
    {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '{"ci'},
    {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": 'ty": "Paris"}'},
    {"type": "tool-input-available", "toolCallId": "call_a", "toolName": "get_weather", "input": {"city": "Paris"}},
    {
        "type": "finish",
        "finishReason": "tool-calls",
        "usage": {
            "inputTokens": 120,
            "outputTokens": 30,
            "totalTokens": 150,
            "reasoningTokens": 12,
            "cachedInputTokens": 64,
        },
    },
]

weather = create_tool(
    id="get_weather",
    description="Weather.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def calls(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The finished calls: (id, tool, input, kind)."""
    return [
        (e["toolCallId"], e["toolName"], e["input"], e["type"])
        for e in events
        if e["type"] in ("tool-input-available", "tool-input-error")
    ]


class TestText:
    def test_text_only(self, events: Events) -> None:
        frames = [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo"}),
            chunk(finish="stop"),
        ]
        assert events(frames) == [
            START,
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "Hel"},
            {"type": "text-delta", "id": "text-0", "delta": "lo"},
            {"type": "text-end", "id": "text-0"},
            {"type": "finish", "finishReason": "stop"},
        ]

    def test_a_refusal_is_text_marked_as_a_refusal(self, events: Events) -> None:
        frames = [chunk({"refusal": "I can't"}), chunk({"refusal": " help."}), chunk(finish="stop")]
        assert events(frames)[1:] == [
            {"type": "text-start", "id": "refusal-0"},
            {"type": "text-delta", "id": "refusal-0", "delta": "I can't"},
            {"type": "text-delta", "id": "refusal-0", "delta": " help."},
            {"type": "text-end", "id": "refusal-0", "providerMetadata": {"openai": {"refusal": True}}},
            {"type": "finish", "finishReason": "stop"},
        ]

    @pytest.mark.parametrize(
        ("raw", "reason"),
        [("length", "length"), ("content_filter", "content-filter"), ("function_call", "tool-calls"), ("eos", "other")],
    )
    def test_finish_reasons(self, events: Events, raw: str, reason: str) -> None:
        assert events([chunk({"content": "x"}), chunk(finish=raw)])[-1] == {"type": "finish", "finishReason": reason}

    def test_reasoning_content_from_compatible_servers_is_reasoning(self, events: Events) -> None:
        frames = [chunk({"reasoning_content": "Let me think."}), chunk({"content": "Hi"}), chunk(finish="stop")]
        assert events(frames)[1:] == [
            {"type": "reasoning-start", "id": "reasoning-0"},
            {"type": "reasoning-delta", "id": "reasoning-0", "delta": "Let me think."},
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "Hi"},
            {"type": "reasoning-end", "id": "reasoning-0"},
            {"type": "text-end", "id": "text-0"},
            {"type": "finish", "finishReason": "stop"},
        ]


class TestCalls:
    def test_reasoning_from_a_compatible_server_then_a_call(self, events: Events) -> None:
        frames = [
            chunk({"reasoning_content": "Weather needs a city."}),
            call_start(0, "call_a", "get_weather", '{"city": "Oslo"}'),
            chunk(finish="tool_calls"),
        ]
        assert [e["type"] for e in events(frames)] == [
            "start",
            "reasoning-start",
            "reasoning-delta",
            "reasoning-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-available",
            "finish",
        ]

    def test_one_call(self, events: Events) -> None:
        assert events(ONE_CALL) == ONE_CALL_EVENTS

    def test_parallel_calls_in_order(self, events: Events) -> None:
        frames = [
            call_start(0, "call_a", "get_weather"),
            call_args(0, '{"city": "Paris"}'),
            call_start(1, "call_b", "get_weather"),
            call_args(1, '{"city": "Tokyo"}'),
            chunk(finish="tool_calls"),
        ]
        assert calls(events(frames)) == [
            ("call_a", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_b", "get_weather", {"city": "Tokyo"}, "tool-input-available"),
        ]

    def test_interleaved_calls_keep_their_own_arguments(self, events: Events) -> None:
        frames = [
            call_start(0, "call_a", "get_weather"),
            call_start(1, "call_b", "get_weather"),
            call_args(1, '{"city": '),
            call_args(0, '{"city": '),
            call_args(0, '"Paris"}'),
            call_args(1, '"Tokyo"}'),
            chunk(finish="tool_calls"),
        ]
        assert calls(events(frames)) == [
            ("call_a", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_b", "get_weather", {"city": "Tokyo"}, "tool-input-available"),
        ]

    def test_a_new_id_on_an_open_index_starts_a_new_call(self, events: Events) -> None:
        frames = [
            call_start(0, "call_a", "get_weather", '{"city": "Paris"}'),
            call_start(0, "call_b", "get_weather", '{"city": "Tokyo"}'),
            chunk(finish="tool_calls"),
        ]
        assert calls(events(frames)) == [
            ("call_a", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_b", "get_weather", {"city": "Tokyo"}, "tool-input-available"),
        ]

    def test_calls_without_an_index_continue_the_last_call_or_start_one_with_an_id(self, events: Events) -> None:
        frames = [
            chunk({"tool_calls": [{"id": "call_a", "function": {"name": "get_weather", "arguments": '{"city": '}}]}),
            chunk({"tool_calls": [{"function": {"arguments": '"Paris"}'}}]}),
            chunk({"tool_calls": [{"id": "call_b", "function": {"name": "get_weather", "arguments": "{}"}}]}),
            chunk(finish="tool_calls"),
        ]
        assert calls(events(frames)) == [
            ("call_a", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_b", "get_weather", {}, "tool-input-available"),
        ]

    def test_a_name_that_comes_after_the_id_still_starts_the_call(self, events: Events) -> None:
        frames = [
            chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"arguments": '{"city": '}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": '"Oslo"}'}}]}),
            chunk(finish="tool_calls"),
        ]
        assert events(frames)[1:4] == [
            {"type": "tool-input-start", "toolCallId": "call_a", "toolName": "get_weather"},
            {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '{"city": '},
            {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '"Oslo"}'},
        ]

    def test_calls_mixed_with_text(self, events: Events) -> None:
        """The text part ends when the call begins (Chat never streams text after its calls)."""
        frames = [
            chunk({"content": "Checking."}),
            call_start(0, "call_a", "get_weather", '{"city": "Rome"}'),
            chunk(finish="tool_calls"),
        ]
        assert [e["type"] for e in events(frames)] == [
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-available",
            "finish",
        ]

    def test_a_call_cut_by_the_output_limit_is_reported_incomplete(self, events: Events) -> None:
        """`finish_reason: length` mid-arguments: the call is incomplete, not merely invalid JSON."""
        frames = [call_start(0, "call_a", "get_weather", '{"city": "Ro'), chunk(finish="length")]
        decoded = events(frames)
        errors = [e for e in decoded if e["type"] == "tool-input-error"]
        assert errors[0]["input"] == '{"city": "Ro'
        assert errors[0]["errorText"].startswith("The output limit cut the input of tool 'get_weather' short")
        assert decoded[-1] == {"type": "finish", "finishReason": "length"}

    def test_a_call_without_arguments_has_an_empty_object_as_input(self, events: Events) -> None:
        frames = [call_start(0, "call_t", "get_time"), chunk(finish="tool_calls")]
        assert calls(events(frames)) == [("call_t", "get_time", {}, "tool-input-available")]

    def test_a_legacy_function_call_is_a_call(self, events: Events) -> None:
        frames = [
            chunk({"function_call": {"name": "get_time", "arguments": ""}}),
            chunk({"function_call": {"arguments": "{}"}}),
            chunk(finish="function_call"),
        ]
        assert calls(events(frames)) == [("call_1", "get_time", {}, "tool-input-available")]

    def test_several_choices_keep_their_calls_apart(self, events: Events) -> None:
        frames = [
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "call_a", "function": {"name": "get_weather", "arguments": '{"city":"A"}'}}
                    ]
                },
                index=0,
            ),
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "call_b", "function": {"name": "get_weather", "arguments": '{"city":"B"}'}}
                    ]
                },
                index=1,
            ),
            chunk(finish="tool_calls", index=1),
            chunk(finish="tool_calls", index=0),
        ]
        assert calls(events(frames)) == [
            ("call_b", "get_weather", {"city": "B"}, "tool-input-available"),
            ("call_a", "get_weather", {"city": "A"}, "tool-input-available"),
        ]

    def test_arguments_sent_as_an_object_by_a_compatible_server_are_json_text(self, events: Events) -> None:
        frames = [
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "call_a", "function": {"name": "get_weather", "arguments": {"city": "Kyiv"}}}
                    ]
                }
            ),
            chunk(finish="tool_calls"),
        ]
        decoded = events(frames)
        assert {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '{"city":"Kyiv"}'} in decoded
        assert calls(decoded) == [("call_a", "get_weather", {"city": "Kyiv"}, "tool-input-available")]

    def test_calls_are_mapped_back_to_tool_ids_and_validated(self, events: Events) -> None:
        dotted = create_tool(
            id="weather.get",
            description="Weather.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        )
        frames = [call_start(0, "call_a", "weather_get", '{"city": "Paris"}'), chunk(finish="tool_calls")]
        assert calls(events(frames, tools=[dotted])) == [
            ("call_a", "weather.get", {"city": "Paris"}, "tool-input-available")
        ]


class TestBrokenInput:
    def test_malformed_arguments_give_an_input_error_and_the_stream_goes_on(self, events: Events) -> None:
        frames = [
            call_start(0, "call_a", "get_weather", '{"city": Paris}'),
            chunk({"content": "after"}),
            chunk(finish="tool_calls"),
        ]
        decoded = events(frames)
        error = next(e for e in decoded if e["type"] == "tool-input-error")
        assert error["input"] == '{"city": Paris}'
        assert error["errorText"].startswith("The input for tool 'get_weather' is not valid JSON")
        assert [e["type"] for e in decoded[-3:]] == ["text-end", "tool-input-error", "finish"]

    def test_arguments_that_fail_the_schema_give_an_input_error(self, events: Events) -> None:
        frames = [call_start(0, "call_a", "get_weather", '{"town": "Paris"}'), chunk(finish="tool_calls")]
        [error] = [e for e in events(frames, tools=[weather]) if e["type"] == "tool-input-error"]
        assert error["input"] == {"town": "Paris"}
        assert error["errorText"].startswith(
            "Invalid input for tool 'get_weather': at `(root)`: 'city' is a required property"
        )

    def test_a_truncated_stream_refuses_the_incomplete_call(self, events: Events) -> None:
        decoded = events([call_start(0, "call_a", "get_weather"), call_args(0, '{"city": "Par')])
        assert calls(decoded) == [("call_a", "get_weather", '{"city": "Par', "tool-input-error")]
        assert decoded[-1] == {"type": "finish", "finishReason": "other"}

    def test_a_stream_that_stops_at_the_length_limit_finishes_with_length(self, events: Events) -> None:
        decoded = events([call_start(0, "call_a", "get_weather", '{"city": "Par'), chunk(finish="length")])
        assert calls(decoded) == [("call_a", "get_weather", '{"city": "Par', "tool-input-error")]
        assert decoded[-1] == {"type": "finish", "finishReason": "length"}

    def test_an_error_frame_becomes_an_error_event(self, events: Events) -> None:
        decoded = events(
            [chunk({"content": "a"}), {"error": {"message": "overloaded", "type": "server_error", "code": "503"}}]
        )
        assert {"type": "error", "errorText": "openai-chat error (503, server_error): overloaded"} in decoded
        assert decoded[-1] == {"type": "finish", "finishReason": "error"}

    def test_unknown_frames_and_fields_are_ignored(self, events: Events) -> None:
        frames = [
            {"object": "something.new"},
            {**chunk({"content": "x", "audio": {"id": "a"}}), "moderation": {}},
            chunk(finish="stop"),
        ]
        assert [e["type"] for e in events(frames)] == ["start", "text-start", "text-delta", "text-end", "finish"]

    def test_bytes_that_are_not_json_become_an_error_event(self, events: Events) -> None:
        decoded = events(b"data: {nope\n\n")
        assert decoded[1]["type"] == "error"
        assert decoded[-1] == {"type": "finish", "finishReason": "error"}


class TestSources:
    def test_raw_sse_bytes(self, events: Events, sse: Sse) -> None:
        assert events(sse(ONE_CALL)) == ONE_CALL_EVENTS

    def test_sse_split_at_every_byte_gives_the_same_events(self, events: Events, sse: Sse) -> None:
        body = sse(ONE_CALL)
        for cut in range(1, len(body)):
            assert events([body[:cut], body[cut:]]) == ONE_CALL_EVENTS, cut

    def test_sse_in_one_byte_chunks(self, events: Events, sse: Sse) -> None:
        body = sse(ONE_CALL)
        assert events([body[i : i + 1] for i in range(len(body))]) == ONE_CALL_EVENTS

    def test_sdk_chunk_objects(self, events: Events, sse: Sse, sdk_chunks: Callable[[bytes], list[Any]]) -> None:
        chunks = sdk_chunks(sse(ONE_CALL))
        assert type(chunks[0]).__name__ == "ChatCompletionChunk"
        assert events(chunks) == ONE_CALL_EVENTS

    def test_the_sdk_stream_helper_events(self, events: Events, sse: Sse) -> None:
        capture = RequestCapture(
            [httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(ONE_CALL))]
        )
        client = openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)
        with client.chat.completions.stream(
            model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            helper_events = list(stream)
        assert {e.type for e in helper_events} > {"chunk", "tool_calls.function.arguments.delta"}
        assert events(helper_events) == ONE_CALL_EVENTS

    def test_fields_the_sdk_does_not_declare_are_read_from_its_objects(
        self, events: Events, sse: Sse, sdk_chunks: Callable[[bytes], list[Any]]
    ) -> None:
        frames = [chunk({"reasoning_content": "Hmm."}), chunk({"content": "Hi"}), chunk(finish="stop")]
        assert events(sdk_chunks(sse(frames))) == events(frames)
        assert {"type": "reasoning-delta", "id": "reasoning-0", "delta": "Hmm."} in events(frames)

    async def test_the_async_sdk_stream(self, adapter: Adapter, sse: Sse) -> None:
        capture = RequestCapture(
            [httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(ONE_CALL))]
        )
        client = openai.AsyncOpenAI(api_key="sk-test", http_client=capture.async_client(), max_retries=0)
        stream = await client.chat.completions.create(
            model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        assert [e.to_dict() async for e in adapter.anormalize(stream)] == ONE_CALL_EVENTS


COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4.1-mini",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}},
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}
STREAMED_COMPLETION = [
    chunk({"role": "assistant", "content": "Checking."}),
    call_start(0, "call_a", "get_weather", '{"city": "Paris"}'),
    call_start(1, "call_b", "get_time"),
    chunk(finish="tool_calls"),
    {**usage_chunk(), "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}},
]


class TestWholeCompletions:
    def test_a_completion_gives_text_calls_and_usage(self, events: Events) -> None:
        assert events(COMPLETION) == [
            START,
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "Checking."},
            {"type": "text-end", "id": "text-0"},
            {"type": "tool-input-start", "toolCallId": "call_a", "toolName": "get_weather"},
            {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '{"city": "Paris"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "call_a",
                "toolName": "get_weather",
                "input": {"city": "Paris"},
            },
            {"type": "tool-input-start", "toolCallId": "call_b", "toolName": "get_time"},
            {"type": "tool-input-available", "toolCallId": "call_b", "toolName": "get_time", "input": {}},
            {
                "type": "finish",
                "finishReason": "tool-calls",
                "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
            },
        ]

    def test_streaming_and_non_streaming_give_the_same_calls(self, events: Events) -> None:
        assert calls(events(STREAMED_COMPLETION)) == calls(events(COMPLETION))

    def test_the_json_body_the_sdk_object_and_the_dict_agree(
        self, events: Events, sdk_completion: Callable[..., Any]
    ) -> None:
        import json

        expected = events(COMPLETION)
        assert events(json.dumps(COMPLETION).encode()) == expected
        assert events(sdk_completion(COMPLETION)) == expected

    def test_content_sent_as_text_parts_by_a_compatible_server_is_text(self, events: Events) -> None:
        message = {"role": "assistant", "content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}
        body = {**COMPLETION, "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
        assert {"type": "text-delta", "id": "text-0", "delta": "Hello"} in events(body)

    def test_a_refusal_and_a_custom_tool_call(self, events: Events) -> None:
        message = {
            "role": "assistant",
            "refusal": "No.",
            "tool_calls": [{"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}],
        }
        body = {**COMPLETION, "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
        decoded = events(body)
        assert {"type": "text-end", "id": "refusal-0", "providerMetadata": {"openai": {"refusal": True}}} in decoded
        assert calls(decoded) == [("call_c", "run_sql", {"input": "SELECT 1"}, "tool-input-available")]
