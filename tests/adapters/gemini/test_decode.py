"""Gemini responses normalized into unified events: text, reasoning, calls, provider-executed tools, finish."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolwire import create_tool

from .frames import (
    START_EVENT,
    USAGE,
    USAGE_EVENT,
    call,
    chunk,
    finish_event,
    text,
    thought,
)

Decode = Callable[..., list[dict[str, Any]]]

WEATHER = create_tool(
    id="get weather",
    description="Weather",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def of_type(events: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] in kinds]


class TestText:
    def test_text_streamed_over_chunks_is_one_part(self, decode: Decode) -> None:
        frames = [chunk(text("Hel")), chunk(text("lo")), chunk(text("!"), finish="STOP", usage=USAGE)]
        assert decode(frames) == [
            START_EVENT,
            {"type": "text-start", "id": "0-0"},
            {"type": "text-delta", "id": "0-0", "delta": "Hel"},
            {"type": "text-delta", "id": "0-0", "delta": "lo"},
            {"type": "text-delta", "id": "0-0", "delta": "!"},
            {"type": "text-end", "id": "0-0"},
            finish_event("stop", usage=USAGE_EVENT),
        ]

    def test_thought_parts_are_reasoning_and_end_where_text_begins(self, decode: Decode) -> None:
        frames = [chunk(thought("Plan.")), chunk(text("Answer"), finish="STOP")]
        assert decode(frames)[1:-1] == [
            {"type": "reasoning-start", "id": "0-0"},
            {"type": "reasoning-delta", "id": "0-0", "delta": "Plan."},
            {"type": "reasoning-end", "id": "0-0"},
            {"type": "text-start", "id": "0-1"},
            {"type": "text-delta", "id": "0-1", "delta": "Answer"},
            {"type": "text-end", "id": "0-1"},
        ]

    def test_a_signature_in_a_closing_empty_text_part_lands_on_that_text(self, decode: Decode) -> None:
        frames = [chunk(text("Done")), chunk(text("", thoughtSignature="c2ln"), finish="STOP")]
        assert of_type(decode(frames), "text-end") == [
            {"type": "text-end", "id": "0-0", "providerMetadata": {"google": {"thoughtSignature": "c2ln"}}}
        ]

    def test_a_signature_on_a_text_part_closes_it(self, decode: Decode) -> None:
        frames = [chunk(text("One", thoughtSignature="c2ln")), chunk(text("Two"), finish="STOP")]
        assert [(e["type"], e["id"]) for e in of_type(decode(frames), "text-start", "text-end")] == [
            ("text-start", "0-0"),
            ("text-end", "0-0"),
            ("text-start", "0-1"),
            ("text-end", "0-1"),
        ]

    def test_a_lone_signature_part_is_kept_as_signature_only_reasoning(self, decode: Decode) -> None:
        frames = [chunk({"thoughtSignature": "c2ln"}, finish="STOP")]
        assert decode(frames)[1:-1] == [
            {"type": "reasoning-start", "id": "0-0"},
            {"type": "reasoning-end", "id": "0-0", "providerMetadata": {"google": {"thoughtSignature": "c2ln"}}},
        ]

    def test_empty_text_parts_without_a_signature_emit_nothing(self, decode: Decode) -> None:
        assert decode([chunk(text("")), chunk(text(""), finish="STOP")]) == [START_EVENT, finish_event("stop")]


class TestCalls:
    def test_a_complete_call_is_start_one_delta_and_available(self, decode: Decode) -> None:
        frames = [chunk(call("get_weather", {"city": "Paris"}, "fc1"), finish="STOP", usage=USAGE)]
        assert decode(frames) == [
            START_EVENT,
            {"type": "tool-input-start", "toolCallId": "fc1", "toolName": "get_weather"},
            {"type": "tool-input-delta", "toolCallId": "fc1", "inputTextDelta": '{"city":"Paris"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "fc1",
                "toolName": "get_weather",
                "input": {"city": "Paris"},
            },
            finish_event("tool-calls", usage=USAGE_EVENT),
        ]

    def test_calls_without_an_id_get_ids_from_the_response_id_and_position(self, decode: Decode) -> None:
        frames = [chunk(call("a", {}), call("b", {})), chunk(call("c", {}), finish="STOP")]
        assert [e["toolCallId"] for e in of_type(decode(frames), "tool-input-available")] == [
            "gemini-call-resp-1-1",
            "gemini-call-resp-1-2",
            "gemini-call-resp-1-3",
        ]

    def test_without_a_response_id_the_ids_are_counted(self, decode: Decode) -> None:
        frames = [chunk(call("a", {}), finish="STOP", response_id=None)]
        assert of_type(decode(frames), "tool-input-available")[0]["toolCallId"] == "gemini-call-1"

    def test_parallel_calls_keep_their_own_arguments(self, decode: Decode) -> None:
        frames = [
            chunk(
                call("get_weather", {"city": "Paris"}, "a"), call("get_weather", {"city": "Oslo"}, "b"), finish="STOP"
            )
        ]
        assert [(e["toolCallId"], e["input"]) for e in of_type(decode(frames), "tool-input-available")] == [
            ("a", {"city": "Paris"}),
            ("b", {"city": "Oslo"}),
        ]

    def test_text_before_a_call_ends_before_the_call_starts(self, decode: Decode) -> None:
        frames = [chunk(text("Checking.")), chunk(call("get_weather", {"city": "Rome"}, "c1"), finish="STOP")]
        assert [e["type"] for e in decode(frames)] == [
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-available",
            "finish",
        ]

    @pytest.mark.parametrize("part", [call("get_time"), call("get_time", {})])
    def test_a_call_without_arguments_has_an_empty_object_input(self, decode: Decode, part: dict[str, Any]) -> None:
        assert of_type(decode([chunk(part, finish="STOP")]), "tool-input-available")[0]["input"] == {}

    def test_the_thought_signature_of_a_call_travels_on_that_call(self, decode: Decode) -> None:
        frames = [chunk(call("a", {}, "1", thoughtSignature="c2ln"), call("b", {}, "2"), finish="STOP")]
        calls = of_type(decode(frames), "tool-input-available")
        assert [c.get("providerMetadata") for c in calls] == [{"google": {"thoughtSignature": "c2ln"}}, None]

    def test_provider_names_map_back_to_tool_ids(self, decode: Decode) -> None:
        frames = [chunk(call("get_weather", {"city": "Lima"}, "c"), finish="STOP")]
        available = of_type(decode(frames, tools=[WEATHER]), "tool-input-start", "tool-input-available")
        assert {e["toolName"] for e in available} == {"get weather"}

    def test_input_that_fails_the_schema_is_an_input_error_and_the_stream_goes_on(self, decode: Decode) -> None:
        frames = [
            chunk(
                call("get_weather", {"town": "Lima"}, "bad"),
                call("get_weather", {"city": "Lima"}, "good"),
                finish="STOP",
            )
        ]
        events = decode(frames, tools=[WEATHER])
        error = of_type(events, "tool-input-error")[0]
        assert (error["toolCallId"], error["input"]) == ("bad", {"town": "Lima"})
        assert error["errorText"].startswith("Invalid input for tool 'get weather': ")
        assert [e["toolCallId"] for e in of_type(events, "tool-input-available")] == ["good"]


class TestFinish:
    @pytest.mark.parametrize(
        ("raw", "reason"),
        [
            ("STOP", "stop"),
            ("MAX_TOKENS", "length"),
            ("SAFETY", "content-filter"),
            ("RECITATION", "content-filter"),
            ("BLOCKLIST", "content-filter"),
            ("PROHIBITED_CONTENT", "content-filter"),
            ("SPII", "content-filter"),
            ("IMAGE_SAFETY", "content-filter"),
            ("OTHER", "other"),
            ("LANGUAGE", "other"),
            ("FINISH_REASON_UNSPECIFIED", "other"),
            ("SOMETHING_NEW", "other"),
        ],
    )
    def test_finish_reasons_map_to_the_unified_reason(self, decode: Decode, raw: str, reason: str) -> None:
        assert decode([chunk(text("x"), finish=raw)])[-1] == finish_event(reason, raw)

    @pytest.mark.parametrize(
        ("raw", "explanation"),
        [
            ("MALFORMED_FUNCTION_CALL", "the model generated a function call Gemini could not parse"),
            ("UNEXPECTED_TOOL_CALL", "the model called a function that is not declared or not allowed in this request"),
            ("TOO_MANY_TOOL_CALLS", "the model made too many tool calls in one request"),
        ],
    )
    def test_call_failures_are_an_error_event_and_an_error_finish(
        self, decode: Decode, raw: str, explanation: str
    ) -> None:
        events = decode([chunk(finish=raw, message="Malformed function call: weather(city=)")])
        assert events[1:] == [
            {
                "type": "error",
                "errorText": f"Gemini stopped with {raw}: {explanation} (Malformed function call: weather(city=))",
            },
            finish_event("error", raw, finishMessage="Malformed function call: weather(city=)"),
        ]

    def test_a_missing_thought_signature_says_how_to_fix_the_history(self, decode: Decode) -> None:
        assert decode([chunk(finish="MISSING_THOUGHT_SIGNATURE")])[1] == {
            "type": "error",
            "errorText": "Gemini stopped with MISSING_THOUGHT_SIGNATURE: the request lacks a thought signature: echo "
            "each part's thoughtSignature (providerMetadata.google.thoughtSignature) in the history",
        }

    def test_a_blocked_prompt_is_an_error_and_a_content_filter_finish(self, decode: Decode) -> None:
        frame = {"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "unsafe"}, "responseId": "resp-1"}
        assert decode([frame])[1:] == [
            {"type": "error", "errorText": "Gemini blocked the prompt (SAFETY): unsafe"},
            {
                "type": "finish",
                "finishReason": "content-filter",
                "providerMetadata": {"google": {"blockReason": "SAFETY"}},
            },
        ]

    def test_an_error_frame_in_the_stream_is_an_error_event(self, decode: Decode) -> None:
        frame = {"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}
        assert decode([chunk(text("a")), frame])[-3:] == [
            {"type": "error", "errorText": "gemini error (500, INTERNAL): Internal error"},
            {"type": "text-end", "id": "0-0"},
            {"type": "finish", "finishReason": "error"},
        ]

    def test_usage_counts_reasoning_and_tool_prompts_and_cache(self, decode: Decode) -> None:
        usage = {
            "promptTokenCount": 100,
            "toolUsePromptTokenCount": 20,
            "cachedContentTokenCount": 60,
            "candidatesTokenCount": 30,
            "thoughtsTokenCount": 40,
            "totalTokenCount": 190,
        }
        assert decode([chunk(text("x"), finish="STOP", usage=usage)])[-1]["usage"] == {
            "inputTokens": 120,
            "outputTokens": 70,
            "totalTokens": 190,
            "reasoningTokens": 40,
            "cachedInputTokens": 60,
        }

    def test_usage_without_counts_is_ignored_and_later_counts_win(self, decode: Decode) -> None:
        frames = [chunk(text("a"), usage={"trafficType": "ON_DEMAND"}), chunk(text("b"), finish="STOP", usage=USAGE)]
        assert decode(frames)[-1]["usage"] == USAGE_EVENT

    def test_a_stream_without_a_finish_reason_finishes_as_other_without_an_error(self, decode: Decode) -> None:
        assert decode([chunk(text("cut"))])[-2:] == [
            {"type": "text-end", "id": "0-0"},
            {"type": "finish", "finishReason": "other"},
        ]


class TestProviderExecuted:
    def test_code_execution_is_a_provider_executed_call_with_its_output(self, decode: Decode) -> None:
        code = {"executableCode": {"language": "PYTHON", "code": "print(1)", "id": "ex1"}, "thoughtSignature": "c2ln"}
        result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n", "id": "ex1"}}
        events = decode([chunk(code), chunk(result), chunk(text("One."), finish="STOP")])
        assert events[1:5] == [
            {
                "type": "tool-input-start",
                "toolCallId": "ex1",
                "toolName": "code_execution",
                "providerExecuted": True,
                "providerMetadata": {"google": {"thoughtSignature": "c2ln"}},
            },
            {
                "type": "tool-input-delta",
                "toolCallId": "ex1",
                "inputTextDelta": '{"code":"print(1)","language":"PYTHON"}',
            },
            {
                "type": "tool-input-available",
                "toolCallId": "ex1",
                "toolName": "code_execution",
                "input": {"code": "print(1)", "language": "PYTHON"},
                "providerExecuted": True,
                "providerMetadata": {"google": {"thoughtSignature": "c2ln"}},
            },
            {
                "type": "tool-output-available",
                "toolCallId": "ex1",
                "output": {"outcome": "OUTCOME_OK", "output": "1\n"},
                "providerExecuted": True,
                "providerMetadata": {"google": {"outcome": "OUTCOME_OK"}},
            },
        ]
        assert events[-1]["finishReason"] == "stop"

    def test_failed_code_is_an_output_error_matched_to_the_last_code_without_ids(self, decode: Decode) -> None:
        frames = [
            chunk({"executableCode": {"language": "PYTHON", "code": "1/0"}}),
            chunk({"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}}, finish="STOP"),
        ]
        assert of_type(decode(frames), "tool-output-error") == [
            {
                "type": "tool-output-error",
                "toolCallId": "gemini-call-resp-1-1",
                "errorText": "ZeroDivisionError",
                "providerExecuted": True,
                "providerMetadata": {"google": {"outcome": "OUTCOME_FAILED"}},
            }
        ]

    def test_server_side_tool_calls_are_provider_executed(self, decode: Decode) -> None:
        frames = [
            chunk({"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["news"]}}}),
            chunk({"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"results": 3}}}),
            chunk(text("News."), finish="STOP"),
        ]
        events = decode(frames, tools=[WEATHER])
        assert [(e["type"], e.get("toolName"), e.get("providerExecuted")) for e in events[1:5]] == [
            ("tool-input-start", "google_search_web", True),
            ("tool-input-delta", None, None),
            ("tool-input-available", "google_search_web", True),
            ("tool-output-available", None, True),
        ]
        assert events[-1]["finishReason"] == "stop"


class TestCandidatesAndOddFrames:
    def test_each_candidate_has_its_own_parts_and_the_first_gives_the_finish(self, decode: Decode) -> None:
        frame = {
            "candidates": [
                {"index": 0, "content": {"parts": [{"text": "A"}]}, "finishReason": "STOP"},
                {"index": 1, "content": {"parts": [{"text": "B"}]}, "finishReason": "MAX_TOKENS"},
            ]
        }
        events = decode([frame])
        assert [(e["id"], e["delta"]) for e in of_type(events, "text-delta")] == [("0-0", "A"), ("1-0", "B")]
        assert events[-1] == finish_event("stop")

    def test_unknown_parts_and_fields_are_ignored(self, decode: Decode) -> None:
        frame = chunk({"somethingNew": {}}, text("ok"), finish="STOP")
        frame["candidates"][0]["groundingMetadata"] = {"webSearchQueries": ["x"]}
        assert [e["type"] for e in decode([frame])] == ["start", "text-start", "text-delta", "text-end", "finish"]

    def test_snake_case_frames_read_like_camel_case_ones(self, decode: Decode) -> None:
        camel = chunk(call("f", {"a": 1}, thoughtSignature="c2ln"), finish="STOP", usage=USAGE)
        snake = {
            "candidates": [
                {
                    "content": {
                        "parts": [{"function_call": {"name": "f", "args": {"a": 1}}, "thought_signature": "c2ln"}]
                    },
                    "finish_reason": "STOP",
                }
            ],
            "usage_metadata": {
                "prompt_token_count": 10,
                "candidates_token_count": 5,
                "total_token_count": 22,
                "thoughts_token_count": 7,
            },
            "model_version": "gemini-3-flash-preview",
            "response_id": "resp-1",
        }
        assert decode([snake]) == decode([camel])

    def test_a_frame_that_is_not_a_response_is_an_error_event(self, decode: Decode) -> None:
        assert decode([42])[1] == {"type": "error", "errorText": "gemini: a frame must be an object, got int 42"}
