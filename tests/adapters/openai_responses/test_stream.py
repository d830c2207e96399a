"""Responses streams and response objects normalized into unified events, from every source form."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import openai
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import create_tool, get_adapter
from toolwire.adapter import Adapter
from toolwire.testing.capture import RequestCapture

Events = Callable[..., list[dict[str, Any]]]
Sse = Callable[..., bytes]

RESPONSE_ID = "resp_1"
START = {"type": "start", "messageId": RESPONSE_ID, "providerMetadata": {"openai": {"responseId": RESPONSE_ID}}}
USAGE = {
    "input_tokens": 100,
    "input_tokens_details": {"cached_tokens": 40},
    "output_tokens": 20,
    "output_tokens_details": {"reasoning_tokens": 8},
    "total_tokens": 120,
}
FINISH_USAGE = {
    "inputTokens": 100,
    "outputTokens": 20,
    "totalTokens": 120,
    "reasoningTokens": 8,
    "cachedInputTokens": 40,
}


def response(status: str = "completed", output: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1,
        "model": "gpt-5-mini",
        "status": status,
        "output": output or [],
        **extra,
    }


def stream(*frames: dict[str, Any], status: str = "completed", **extra: Any) -> list[dict[str, Any]]:
    """`response.created`, the frames, and the closing event, with sequence numbers."""
    closing = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}[
        status
    ]
    body = [
        {"type": "response.created", "response": response("in_progress")},
        *frames,
        {"type": closing, "response": response(status, usage=USAGE, **extra)},
    ]
    return [{**frame, "sequence_number": n} for n, frame in enumerate(body)]


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def function_call(
    index: int, item_id: str, call_id: str, name: str, *deltas: str, **extra: Any
) -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, **extra}
    arguments = "".join(deltas)
    return [
        added(index, {**item, "arguments": "", "status": "in_progress"}),
        *(
            {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": d}
            for d in deltas
        ),
        {
            "type": "response.function_call_arguments.done",
            "item_id": item_id,
            "output_index": index,
            "arguments": arguments,
        },
        done(index, {**item, "arguments": arguments, "status": "completed"}),
    ]


def message(index: int, item_id: str, *deltas: str, **extra: Any) -> list[dict[str, Any]]:
    text = "".join(deltas)
    part = {"type": "output_text", "text": text, "annotations": []}
    return [
        added(
            index,
            {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": [], **extra},
        ),
        {
            "type": "response.content_part.added",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": {**part, "text": ""},
        },
        *(
            {
                "type": "response.output_text.delta",
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "delta": d,
                "logprobs": [],
            }
            for d in deltas
        ),
        {
            "type": "response.output_text.done",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "text": text,
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": part,
        },
        done(
            index,
            {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": [part], **extra},
        ),
    ]


def reasoning(index: int, item_id: str, *summaries: str, encrypted: str | None = "gAAA-enc") -> list[dict[str, Any]]:
    frames = [added(index, {"type": "reasoning", "id": item_id, "summary": []})]
    for n, summary in enumerate(summaries):
        base = {"item_id": item_id, "output_index": index, "summary_index": n}
        frames += [
            {"type": "response.reasoning_summary_part.added", **base, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", **base, "delta": summary},
            {"type": "response.reasoning_summary_text.done", **base, "text": summary},
            {"type": "response.reasoning_summary_part.done", **base, "part": {"type": "summary_text", "text": summary}},
        ]
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": s} for s in summaries],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return [*frames, done(index, item)]


def calls(events: list[dict[str, Any]], *, executed: bool = False) -> list[tuple[Any, ...]]:
    """Finished calls: (id, tool, input, kind); client calls only unless `executed`."""
    return [
        (e["toolCallId"], e["toolName"], e["input"], e["type"])
        for e in events
        if e["type"] in ("tool-input-available", "tool-input-error") and bool(e.get("providerExecuted")) is executed
    ]


REASONED_CALL = stream(
    *reasoning(0, "rs_1", "Need the weather."),
    *message(1, "msg_1", "Let me ", "check."),
    *function_call(2, "fc_1", "call_1", "get_weather", '{"city":', '"Paris"}'),
)
REASONED_CALL_EVENTS = [
    START,
    {"type": "reasoning-start", "id": "rs_1:summary:0"},
    {"type": "reasoning-delta", "id": "rs_1:summary:0", "delta": "Need the weather."},
    {
        "type": "reasoning-end",
        "id": "rs_1:summary:0",
        "providerMetadata": {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAA-enc"}},
    },
    {"type": "text-start", "id": "msg_1:0"},
    {"type": "text-delta", "id": "msg_1:0", "delta": "Let me "},
    {"type": "text-delta", "id": "msg_1:0", "delta": "check."},
    {"type": "text-end", "id": "msg_1:0", "providerMetadata": {"openai": {"itemId": "msg_1"}}},
    {
        "type": "tool-input-start",
        "toolCallId": "call_1",
        "toolName": "get_weather",
        "providerMetadata": {"openai": {"itemId": "fc_1"}},
    },
    {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": '{"city":'},
    {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": '"Paris"}'},
    {
        "type": "tool-input-available",
        "toolCallId": "call_1",
        "toolName": "get_weather",
        "input": {"city": "Paris"},
        "providerMetadata": {"openai": {"itemId": "fc_1"}},
    },
    {
        "type": "finish",
        "finishReason": "tool-calls",
        "usage": FINISH_USAGE,
        "providerMetadata": {"openai": {"responseId": RESPONSE_ID}},
    },
]


class TestText:
    def test_text_only(self, events: Events) -> None:
        assert events(stream(*message(0, "msg_1", "Hi", "!"))) == [
            START,
            {"type": "text-start", "id": "msg_1:0"},
            {"type": "text-delta", "id": "msg_1:0", "delta": "Hi"},
            {"type": "text-delta", "id": "msg_1:0", "delta": "!"},
            {"type": "text-end", "id": "msg_1:0", "providerMetadata": {"openai": {"itemId": "msg_1"}}},
            {
                "type": "finish",
                "finishReason": "stop",
                "usage": FINISH_USAGE,
                "providerMetadata": {"openai": {"responseId": RESPONSE_ID}},
            },
        ]

    def test_the_phase_of_a_message_is_kept_for_the_next_request(self, events: Events) -> None:
        decoded = events(stream(*message(0, "msg_1", "Done.", phase="final_answer")))
        assert {
            "type": "text-end",
            "id": "msg_1:0",
            "providerMetadata": {"openai": {"itemId": "msg_1", "phase": "final_answer"}},
        } in decoded

    def test_a_refusal_is_text_marked_as_a_refusal(self, events: Events) -> None:
        frames = stream(
            added(0, {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}),
            {
                "type": "response.refusal.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "No.",
            },
            done(
                0,
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "refusal", "refusal": "No."}],
                },
            ),
        )
        assert events(frames)[1:4] == [
            {"type": "text-start", "id": "msg_1:refusal:0"},
            {"type": "text-delta", "id": "msg_1:refusal:0", "delta": "No."},
            {
                "type": "text-end",
                "id": "msg_1:refusal:0",
                "providerMetadata": {"openai": {"itemId": "msg_1", "refusal": True}},
            },
        ]

    def test_the_output_limit_finishes_with_length(self, events: Events) -> None:
        frames = stream(
            *message(0, "msg_1", "Hi"), status="incomplete", incomplete_details={"reason": "max_output_tokens"}
        )
        assert events(frames)[-1]["finishReason"] == "length"

    def test_a_content_filter_finishes_with_content_filter(self, events: Events) -> None:
        frames = stream(
            *message(0, "msg_1", "Hi"), status="incomplete", incomplete_details={"reason": "content_filter"}
        )
        assert events(frames)[-1]["finishReason"] == "content-filter"


class TestCalls:
    def test_reasoning_text_and_a_call(self, events: Events) -> None:
        assert events(REASONED_CALL) == REASONED_CALL_EVENTS

    def test_parallel_calls(self, events: Events) -> None:
        frames = stream(
            *function_call(0, "fc_1", "call_1", "get_weather", '{"city":"Paris"}'),
            *function_call(1, "fc_2", "call_2", "get_weather", '{"city":"Tokyo"}'),
        )
        assert calls(events(frames)) == [
            ("call_1", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_2", "get_weather", {"city": "Tokyo"}, "tool-input-available"),
        ]

    def test_interleaved_argument_deltas_are_kept_apart_by_item_id(self, events: Events) -> None:
        first = function_call(0, "fc_1", "call_1", "get_weather", '{"city":', '"Paris"}')
        second = function_call(1, "fc_2", "call_2", "get_weather", '{"city":', '"Tokyo"}')
        frames = stream(first[0], second[0], second[1], first[1], first[2], second[2], *first[3:], *second[3:])
        assert calls(events(frames)) == [
            ("call_1", "get_weather", {"city": "Paris"}, "tool-input-available"),
            ("call_2", "get_weather", {"city": "Tokyo"}, "tool-input-available"),
        ]

    def test_a_call_without_arguments_has_an_empty_object_as_input(self, events: Events) -> None:
        assert calls(events(stream(*function_call(0, "fc_1", "call_1", "get_time")))) == [
            ("call_1", "get_time", {}, "tool-input-available")
        ]

    def test_arguments_sent_only_in_the_done_event_are_streamed_once(self, events: Events) -> None:
        frames = [
            f
            for f in function_call(0, "fc_1", "call_1", "get_weather", '{"city":"Rome"}')
            if not f["type"].endswith(".delta")
        ]
        decoded = events(stream(*frames))
        assert {"type": "tool-input-delta", "toolCallId": "call_1", "inputTextDelta": '{"city":"Rome"}'} in decoded
        assert calls(decoded) == [("call_1", "get_weather", {"city": "Rome"}, "tool-input-available")]

    def test_a_call_whose_added_event_is_missing_comes_whole_from_its_done_item(self, events: Events) -> None:
        frames = function_call(0, "fc_1", "call_1", "get_weather", '{"city":', '"Lima"}')[1:]
        decoded = events(stream(*frames))
        assert calls(decoded) == [("call_1", "get_weather", {"city": "Lima"}, "tool-input-available")]
        assert [e["inputTextDelta"] for e in decoded if e["type"] == "tool-input-delta"] == ['{"city":"Lima"}']

    def test_a_call_item_that_arrives_whole_is_a_call(self, events: Events) -> None:
        item = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_time",
            "arguments": "{}",
            "status": "completed",
        }
        assert calls(events(stream(done(0, item)))) == [("call_1", "get_time", {}, "tool-input-available")]

    def test_namespace_and_caller_are_kept_for_the_next_request(self, events: Events) -> None:
        frames = stream(
            *function_call(
                0, "fc_1", "call_1", "lookup", "{}", namespace="crm", caller={"type": "program", "caller_id": "call_p"}
            )
        )
        [available] = [e for e in events(frames) if e["type"] == "tool-input-available"]
        assert available["providerMetadata"] == {
            "openai": {"itemId": "fc_1", "namespace": "crm", "caller": {"type": "program", "caller_id": "call_p"}}
        }

    def test_calls_are_mapped_back_to_tool_ids_and_validated(self, events: Events) -> None:
        tool = create_tool(
            id="weather.get",
            description="Weather.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        )
        frames = stream(
            *function_call(0, "fc_1", "call_1", "weather_get", '{"city":"Oslo"}'),
            *function_call(1, "fc_2", "call_2", "weather_get", "{}"),
        )
        decoded = events(frames, tools=[tool])
        assert calls(decoded) == [
            ("call_1", "weather.get", {"city": "Oslo"}, "tool-input-available"),
            ("call_2", "weather.get", {}, "tool-input-error"),
        ]

    def test_a_custom_tool_call_streams_its_raw_text_as_json_of_an_input_object(self, events: Events) -> None:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "run_sql"}
        frames = stream(
            added(0, {**item, "input": ""}),
            {
                "type": "response.custom_tool_call_input.delta",
                "item_id": "ctc_1",
                "output_index": 0,
                "delta": 'SELECT "a"',
            },
            {
                "type": "response.custom_tool_call_input.delta",
                "item_id": "ctc_1",
                "output_index": 0,
                "delta": "\nFROM t",
            },
            {
                "type": "response.custom_tool_call_input.done",
                "item_id": "ctc_1",
                "output_index": 0,
                "input": 'SELECT "a"\nFROM t',
            },
            done(0, {**item, "input": 'SELECT "a"\nFROM t'}),
        )
        decoded = events(frames)
        metadata = {"openai": {"itemId": "ctc_1", "custom": True}}
        assert decoded[1:6] == [
            {"type": "tool-input-start", "toolCallId": "call_c", "toolName": "run_sql", "providerMetadata": metadata},
            {"type": "tool-input-delta", "toolCallId": "call_c", "inputTextDelta": '{"input":"SELECT \\"a\\"'},
            {"type": "tool-input-delta", "toolCallId": "call_c", "inputTextDelta": "\\nFROM t"},
            {"type": "tool-input-delta", "toolCallId": "call_c", "inputTextDelta": '"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "call_c",
                "toolName": "run_sql",
                "input": {"input": 'SELECT "a"\nFROM t'},
                "providerMetadata": metadata,
            },
        ]
        streamed = "".join(e["inputTextDelta"] for e in decoded if e["type"] == "tool-input-delta")
        assert json.loads(streamed) == {"input": 'SELECT "a"\nFROM t'}

    def test_a_custom_tool_call_in_a_response_object(self, events: Events) -> None:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "run_sql", "input": "SELECT 1"}
        assert calls(events(response(output=[item]))) == [
            ("call_c", "run_sql", {"input": "SELECT 1"}, "tool-input-available")
        ]


class TestReasoning:
    def test_a_reasoning_item_without_summary_still_carries_its_metadata(self, events: Events) -> None:
        assert events(stream(*reasoning(0, "rs_1")))[1:3] == [
            {"type": "reasoning-start", "id": "rs_1"},
            {
                "type": "reasoning-end",
                "id": "rs_1",
                "providerMetadata": {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAA-enc"}},
            },
        ]

    def test_several_summary_parts_are_parts_of_one_item(self, events: Events) -> None:
        ends = [
            e
            for e in events(stream(*reasoning(0, "rs_1", "One.", "Two.", encrypted=None)))
            if e["type"] == "reasoning-end"
        ]
        assert ends == [
            {"type": "reasoning-end", "id": "rs_1:summary:0", "providerMetadata": {"openai": {"itemId": "rs_1"}}},
            {"type": "reasoning-end", "id": "rs_1:summary:1", "providerMetadata": {"openai": {"itemId": "rs_1"}}},
        ]

    def test_raw_reasoning_text_is_reasoning_marked_as_content(self, events: Events) -> None:
        frames = stream(
            added(0, {"type": "reasoning", "id": "rs_1", "summary": []}),
            {
                "type": "response.reasoning_text.delta",
                "item_id": "rs_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "raw",
            },
            done(
                0,
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [],
                    "content": [{"type": "reasoning_text", "text": "raw"}],
                },
            ),
        )
        assert events(frames)[1:4] == [
            {"type": "reasoning-start", "id": "rs_1:content:0"},
            {"type": "reasoning-delta", "id": "rs_1:content:0", "delta": "raw"},
            {
                "type": "reasoning-end",
                "id": "rs_1:content:0",
                "providerMetadata": {"openai": {"itemId": "rs_1", "reasoningContent": True}},
            },
        ]


class TestHostedTools:
    def test_a_web_search_is_a_provider_executed_call_with_its_sources(self, events: Events) -> None:
        item = {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "in_progress",
            "action": {"type": "search", "query": "news"},
        }
        finished = {
            **item,
            "status": "completed",
            "action": {**item["action"], "sources": [{"type": "url", "url": "https://a.example"}]},
        }
        metadata = {"openai": {"itemId": "ws_1", "itemType": "web_search_call"}}
        decoded = events(stream(added(0, item), done(0, finished), *message(1, "msg_1", "Found.")))
        assert decoded[1:5] == [
            {
                "type": "tool-input-start",
                "toolCallId": "ws_1",
                "toolName": "web_search",
                "providerExecuted": True,
                "providerMetadata": metadata,
            },
            {"type": "tool-input-delta", "toolCallId": "ws_1", "inputTextDelta": '{"type":"search","query":"news"}'},
            {
                "type": "tool-input-available",
                "toolCallId": "ws_1",
                "toolName": "web_search",
                "input": {"type": "search", "query": "news"},
                "providerExecuted": True,
                "providerMetadata": metadata,
            },
            {
                "type": "tool-output-available",
                "toolCallId": "ws_1",
                "output": {"status": "completed", "sources": [{"type": "url", "url": "https://a.example"}]},
                "providerExecuted": True,
            },
        ]
        assert decoded[-1]["finishReason"] == "stop"

    def test_an_mcp_call_reports_its_arguments_output_and_server(self, events: Events) -> None:
        item = {
            "type": "mcp_call",
            "id": "mcp_1",
            "name": "ask",
            "server_label": "wiki",
            "arguments": '{"q":"x"}',
            "output": "answer",
        }
        decoded = events(response(output=[item]))
        assert calls(decoded, executed=True) == [("mcp_1", "ask", {"q": "x"}, "tool-input-available")]
        assert decoded[1]["providerMetadata"] == {
            "openai": {"itemId": "mcp_1", "itemType": "mcp_call", "serverLabel": "wiki"}
        }
        assert decoded[4] == {
            "type": "tool-output-available",
            "toolCallId": "mcp_1",
            "output": "answer",
            "providerExecuted": True,
        }

    def test_a_failed_hosted_call_is_an_output_error(self, events: Events) -> None:
        item = {
            "type": "mcp_call",
            "id": "mcp_1",
            "name": "ask",
            "server_label": "wiki",
            "arguments": "{}",
            "error": {"type": "http_error", "code": 500, "message": "down"},
        }
        assert {
            "type": "tool-output-error",
            "toolCallId": "mcp_1",
            "errorText": "down",
            "providerExecuted": True,
        } in events(response(output=[item]))

    def test_code_interpreter_and_file_search_carry_their_results(self, events: Events) -> None:
        code = {
            "type": "code_interpreter_call",
            "id": "ci_1",
            "code": "1+1",
            "container_id": "cntr",
            "status": "completed",
            "outputs": [{"type": "logs", "logs": "2"}],
        }
        search = {
            "type": "file_search_call",
            "id": "fs_1",
            "queries": ["q"],
            "status": "completed",
            "results": [{"file_id": "f", "text": "t"}],
        }
        decoded = events(response(output=[code, search]))
        assert calls(decoded, executed=True) == [
            ("ci_1", "code_interpreter", {"code": "1+1", "container_id": "cntr"}, "tool-input-available"),
            ("fs_1", "file_search", {"queries": ["q"]}, "tool-input-available"),
        ]
        assert [e["output"] for e in decoded if e["type"] == "tool-output-available"] == [
            {"status": "completed", "outputs": [{"type": "logs", "logs": "2"}]},
            {"status": "completed", "results": [{"file_id": "f", "text": "t"}]},
        ]

    def test_a_local_shell_call_waits_on_the_application(self, events: Events) -> None:
        item = {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "call_s",
            "status": "completed",
            "action": {"commands": ["ls"], "timeout_ms": None},
        }
        decoded = events(stream(added(0, {**item, "status": "in_progress"}), done(0, item)))
        assert calls(decoded, executed=True) == [
            ("call_s", "shell", {"commands": ["ls"], "timeout_ms": None}, "tool-input-available")
        ]
        assert decoded[1]["providerMetadata"] == {
            "openai": {"itemId": "sh_1", "itemType": "shell_call", "execution": "client"}
        }
        assert decoded[-1]["finishReason"] == "tool-calls"

    def test_a_program_and_its_output(self, events: Events) -> None:
        program = {"type": "program", "id": "cm_1", "call_id": "call_p", "code": "await tools.f()", "fingerprint": "x"}
        output = {"type": "program_output", "id": "cmo_1", "call_id": "call_p", "result": "ok", "status": "completed"}
        decoded = events(response(output=[program, output]))
        assert calls(decoded, executed=True) == [
            ("call_p", "program", {"code": "await tools.f()"}, "tool-input-available")
        ]
        assert decoded[-2] == {
            "type": "tool-output-available",
            "toolCallId": "call_p",
            "output": {"result": "ok", "status": "completed"},
            "providerExecuted": True,
        }

    def test_a_server_tool_search_is_paired_with_its_output(self, events: Events) -> None:
        call = {
            "type": "tool_search_call",
            "id": "tsc_1",
            "execution": "server",
            "status": "completed",
            "arguments": {"paths": ["crm"]},
        }
        output = {
            "type": "tool_search_output",
            "id": "tso_1",
            "execution": "server",
            "status": "completed",
            "tools": [{"type": "function", "name": "lookup"}],
        }
        decoded = events(response(output=[call, output]))
        assert calls(decoded, executed=True) == [("tsc_1", "tool_search", {"paths": ["crm"]}, "tool-input-available")]
        assert decoded[-2]["output"] == {"tools": [{"type": "function", "name": "lookup"}]}
        assert decoded[-1]["finishReason"] == "stop"

    def test_a_failed_image_generation_is_an_output_error(self, events: Events) -> None:
        item = {"type": "image_generation_call", "id": "ig_1", "status": "failed"}
        assert {
            "type": "tool-output-error",
            "toolCallId": "ig_1",
            "errorText": "the image_generation call failed",
            "providerExecuted": True,
        } in events(response(output=[item]))


class TestFailures:
    def test_malformed_arguments_give_an_input_error_and_the_stream_goes_on(self, events: Events) -> None:
        decoded = events(
            stream(*function_call(0, "fc_1", "call_1", "get_weather", "{city: Paris}"), *message(1, "msg_1", "more"))
        )
        [error] = [e for e in decoded if e["type"] == "tool-input-error"]
        assert error["input"] == "{city: Paris}"
        assert error["errorText"].startswith(
            "The input for tool 'get_weather' is not valid JSON (Expecting property name"
        )
        assert [e["type"] for e in decoded[-3:]] == ["text-end", "tool-input-error", "finish"]

    def test_arguments_cut_by_the_output_limit_give_an_input_error_and_finish_length(self, events: Events) -> None:
        frames = function_call(0, "fc_1", "call_1", "get_weather", '{"city": "Par')
        frames[-1]["item"]["status"] = "incomplete"
        decoded = events(stream(*frames, status="incomplete", incomplete_details={"reason": "max_output_tokens"}))
        assert calls(decoded) == [("call_1", "get_weather", '{"city": "Par', "tool-input-error")]
        assert decoded[-1]["finishReason"] == "length"

    def test_a_stream_cut_before_the_call_ends_refuses_the_call_and_says_it_was_cut(self, events: Events) -> None:
        frames = function_call(0, "fc_1", "call_1", "get_weather", '{"city": "Paris"}')[:2]
        decoded = events([{"type": "response.created", "response": response("in_progress")}, *frames])
        [error] = [e for e in decoded if e["type"] == "tool-input-error"]
        assert error["errorText"].startswith("The response ended before the input of tool 'get_weather' was complete")
        assert [e["type"] for e in decoded[-3:]] == ["error", "tool-input-error", "finish"]
        assert (
            decoded[-3]["errorText"]
            == "the openai-responses stream ended before its response.completed event: it was cut off"
        )
        assert decoded[-1] == {"type": "finish", "finishReason": "error"}

    def test_a_failed_response_is_an_error_and_finishes_with_error(self, events: Events) -> None:
        decoded = events(stream(status="failed", error={"code": "server_error", "message": "boom"}))
        assert decoded[-2:] == [
            {"type": "error", "errorText": "openai-responses error (server_error): boom"},
            {
                "type": "finish",
                "finishReason": "error",
                "usage": FINISH_USAGE,
                "providerMetadata": {"openai": {"responseId": RESPONSE_ID}},
            },
        ]

    def test_an_error_event_is_an_error(self, events: Events) -> None:
        decoded = events(
            [{"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "sequence_number": 0}]
        )
        assert decoded == [
            {"type": "start"},
            {"type": "error", "errorText": "openai-responses error (rate_limit_exceeded): slow down"},
            {"type": "finish", "finishReason": "error"},
        ]

    def test_unknown_events_and_items_are_ignored(self, events: Events) -> None:
        frames = stream(
            {"type": "response.something_new", "payload": 1},
            added(0, {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"}),
            done(0, {"type": "compaction", "id": "cmp_1", "encrypted_content": "x"}),
            {"type": "response.output_text.annotation.added", "item_id": "msg_1", "annotation": {}},
        )
        assert [e["type"] for e in events(frames)] == ["start", "finish"]


RESPONSE_OBJECT = response(
    output=[
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Need the weather."}],
            "encrypted_content": "gAAA-enc",
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
    ],
    usage=USAGE,
)


SSE_BODY = b"".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode() for f in REASONED_CALL)


class TestSources:
    def test_raw_sse_bytes(self, events: Events, sse: Sse) -> None:
        assert events(sse(REASONED_CALL)) == REASONED_CALL_EVENTS

    def test_sse_split_at_every_byte_gives_the_same_events(self, events: Events, sse: Sse) -> None:
        body = sse(REASONED_CALL)
        for cut in range(1, len(body), 7):
            assert events([body[:cut], body[cut:]]) == REASONED_CALL_EVENTS, cut

    @settings(max_examples=60, deadline=None)
    @given(cuts=st.lists(st.integers(min_value=1, max_value=4000), max_size=12))
    def test_sse_in_arbitrary_chunks_gives_the_same_events(self, cuts: list[int]) -> None:
        adapter = get_adapter("openai-responses")
        body = SSE_BODY
        points = sorted({c % len(body) for c in cuts} - {0})
        chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
        assert [e.to_dict() for e in adapter.normalize(chunks)] == REASONED_CALL_EVENTS

    def test_sdk_event_objects(self, events: Events, sse: Sse, sdk_events: Callable[[bytes], list[Any]]) -> None:
        sdk = sdk_events(sse(REASONED_CALL))
        assert type(sdk[0]).__name__ == "ResponseCreatedEvent"
        assert events(sdk) == REASONED_CALL_EVENTS

    def test_the_sdk_stream_helper(self, events: Events, sse: Sse) -> None:
        capture = RequestCapture(
            [httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(REASONED_CALL))]
        )
        client = openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)
        with client.responses.stream(model="gpt-5-mini", input="hi") as helper:
            helper_events = list(helper)
        assert calls(events(helper_events)) == calls(REASONED_CALL_EVENTS)

    async def test_the_async_sdk_stream(self, adapter: Adapter, sse: Sse) -> None:
        capture = RequestCapture(
            [httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(REASONED_CALL))]
        )
        client = openai.AsyncOpenAI(api_key="sk-test", http_client=capture.async_client(), max_retries=0)
        source = await client.responses.create(model="gpt-5-mini", input="hi", stream=True)
        assert [e.to_dict() async for e in adapter.anormalize(source)] == REASONED_CALL_EVENTS

    def test_a_response_object_gives_the_events_of_its_stream_without_the_deltas_split(self, events: Events) -> None:
        decoded = events(RESPONSE_OBJECT)
        streamed = [e for e in REASONED_CALL_EVENTS if e["type"] != "tool-input-delta" and e["type"] != "text-delta"]
        assert [e for e in decoded if e["type"] not in ("tool-input-delta", "text-delta")] == streamed
        assert calls(decoded) == calls(REASONED_CALL_EVENTS)

    def test_the_json_body_and_the_sdk_object_agree(self, events: Events, sdk_response: Callable[..., Any]) -> None:
        expected = events(RESPONSE_OBJECT)
        assert events(json.dumps(RESPONSE_OBJECT).encode()) == expected
        sdk = sdk_response(RESPONSE_OBJECT)
        assert type(sdk).__name__ == "Response"
        assert events(sdk) == expected

    def test_responses_concatenated_in_one_log_give_every_call(self, events: Events) -> None:
        first = stream(*function_call(0, "fc_1", "call_1", "get_time"))
        second = [
            {**f, "response": {**f["response"], "id": "resp_2"}} if "response" in f else f
            for f in stream(*message(0, "msg_2", "It is noon."))
        ]
        decoded = events([*first, *second])
        assert calls(decoded) == [("call_1", "get_time", {}, "tool-input-available")]
        assert [e["type"] for e in decoded].count("start") == 1
        assert decoded[-1]["providerMetadata"] == {"openai": {"responseId": "resp_2"}}
