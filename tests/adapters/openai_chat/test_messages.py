"""Conversation history for Chat Completions, and the request the agent loop sends through the SDK."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest

from toolwire import CompatibilityWarning, create_tool
from toolwire.adapter import Adapter
from toolwire.exceptions import ConfigurationError
from toolwire.messages import (
    AssistantMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    assistant_message,
    user,
)
from toolwire.results import ToolCall, ToolResult, file_url, image_data, image_url, text
from toolwire.testing.capture import RequestCapture

Wire = Callable[..., dict[str, Any]]
PNG = "iVBORw0KGgo="


def degradations(caught: Any) -> list[str]:
    return [w.message.degradation.feature for w in caught if isinstance(w.message, CompatibilityWarning)]


CONVERSATION = [
    SystemMessage(content="Be brief."),
    user("Weather in Paris?"),
    AssistantMessage(
        content=(
            TextPart(text="Checking."),
            ToolCall(tool_call_id="call_a", tool_name="weather.get", input={"city": "Paris", "days": [1, 2]}),
        )
    ),
    ToolMessage(content=(ToolResult(tool_call_id="call_a", tool_name="weather.get", output=text("21°C")),)),
]
CONVERSATION_WIRE = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "weather_get", "arguments": '{"city":"Paris","days":[1,2]}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "21°C"},
]


class TestHistory:
    def test_a_conversation_with_a_call_and_its_result(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_messages(CONVERSATION)
        assert encoded == {"messages": CONVERSATION_WIRE}
        assert wire(**encoded) == encoded

    def test_the_dict_forms_encode_the_same(self, adapter: Adapter) -> None:
        from toolwire.messages import message_to_dict

        assert adapter.encode_messages([message_to_dict(m) for m in CONVERSATION]) == {"messages": CONVERSATION_WIRE}

    def test_a_user_message_with_images(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_messages(
            [user("What is this?", image_url("https://example.com/a.png"), image_data(PNG, "image/png"))]
        )
        assert encoded == {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?"},
                        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    ],
                }
            ]
        }
        assert wire(**encoded) == encoded

    def test_a_file_url_in_a_user_message_is_given_as_text_and_reported(self, adapter: Adapter, wire: Wire) -> None:
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages(
                [user("Summarize", file_url("https://example.com/r.pdf", "application/pdf"))]
            )
        assert encoded["messages"][0]["content"] == [
            {"type": "text", "text": "Summarize"},
            {"type": "text", "text": "[file at https://example.com/r.pdf]"},
        ]
        assert degradations(caught) == ["message.file_url"]
        assert wire(**encoded) == encoded

    def test_an_assistant_turn_with_only_calls_has_null_content(self, adapter: Adapter, wire: Wire) -> None:
        turn = AssistantMessage(content=(ToolCall(tool_call_id="call_t", tool_name="get_time", input={}),))
        encoded = adapter.encode_messages([user("time?"), turn])
        assert encoded["messages"][1] == {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_t", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}],
        }
        assert wire(**encoded) == encoded

    def test_input_that_never_parsed_is_sent_back_as_it_was(self, adapter: Adapter) -> None:
        turn = AssistantMessage(content=(ToolCall(tool_call_id="call_x", tool_name="f", input='{"a": 1'),))
        assert adapter.encode_messages([turn])["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{"a": 1'

    def test_the_compatible_profile_replays_unparsed_input_as_an_empty_object(self, compatible: Adapter) -> None:
        """vLLM, SGLang and others reject history whose arguments are not JSON: `{}` is sent, and reported."""
        turn = AssistantMessage(content=(ToolCall(tool_call_id="call_x", tool_name="f", input='{"a": 1'),))
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = compatible.encode_messages([turn])
        assert encoded["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"
        assert degradations(caught) == ["tool_call.input"]

    def test_a_custom_tool_call_goes_back_as_a_custom_call(self, adapter: Adapter, wire: Wire) -> None:
        call = ToolCall(
            tool_call_id="call_c",
            tool_name="run_sql",
            input={"input": "SELECT 1"},
            provider_metadata={"openai": {"custom": True}},
        )
        encoded = adapter.encode_messages([user("q"), AssistantMessage(content=(call,))])
        assert encoded["messages"][1]["tool_calls"] == [
            {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}
        ]

    def test_reasoning_is_dropped_and_reported(self, adapter: Adapter) -> None:
        turn = AssistantMessage(content=(ReasoningPart(text="hmm"), TextPart(text="Hi")))
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([turn])
        assert encoded == {"messages": [{"role": "assistant", "content": "Hi"}]}
        assert degradations(caught) == ["history.reasoning"]

    def test_an_assistant_turn_of_only_reasoning_is_left_out(self, adapter: Adapter) -> None:
        with pytest.warns(CompatibilityWarning):
            encoded = adapter.encode_messages(
                [user("a"), AssistantMessage(content=(ReasoningPart(text="hmm"),)), user("b")]
            )
        assert encoded == {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}

    def test_provider_executed_calls_are_dropped_and_reported(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                ToolCall(tool_call_id="ws_1", tool_name="web_search", input={"query": "x"}, provider_executed=True),
                ToolResult(tool_call_id="ws_1", tool_name="web_search", output={"type": "json", "value": {}}),
                TextPart(text="Found it."),
            )
        )
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([turn])
        assert encoded == {"messages": [{"role": "assistant", "content": "Found it."}]}
        assert degradations(caught) == ["history.provider_executed"]

    def test_metadata_of_another_provider_is_dropped_and_reported(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                ToolCall(
                    tool_call_id="c1",
                    tool_name="f",
                    input={},
                    provider_metadata={"google": {"thoughtSignature": "sig"}},
                ),
            )
        )
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([turn])
        assert encoded["messages"][0]["tool_calls"][0] == {
            "id": "c1",
            "type": "function",
            "function": {"name": "f", "arguments": "{}"},
        }
        assert degradations(caught) == ["history.provider_metadata"]

    def test_a_responses_transcript_keeps_its_text_and_calls_and_drops_its_reasoning(
        self, adapter: Adapter, wire: Wire
    ) -> None:
        turn = AssistantMessage(
            content=(
                ReasoningPart(
                    text="", provider_metadata={"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "enc"}}
                ),
                TextPart(text="Checking.", provider_metadata={"openai": {"itemId": "msg_1"}}),
                ToolCall(
                    tool_call_id="call_1",
                    tool_name="get_time",
                    input={},
                    provider_metadata={"openai": {"itemId": "fc_1"}},
                ),
            )
        )
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([user("time?"), turn])
        assert encoded["messages"][1] == {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}],
        }
        assert degradations(caught) == ["history.reasoning"]
        assert wire(**encoded) == encoded

    def test_options_are_refused(self, adapter: Adapter) -> None:
        with pytest.raises(
            ConfigurationError, match=r"openai-chat encode_messages takes no options, got \['instructions'\]"
        ):
            adapter.encode_messages([], instructions=True)

    def test_a_decoded_response_goes_back_into_the_next_request(self, adapter: Adapter, wire: Wire) -> None:
        frames = [
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            for delta, finish in [
                ({"content": "On it."}, None),
                (
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_z",
                                "type": "function",
                                "function": {"name": "get_time", "arguments": "{}"},
                            }
                        ]
                    },
                    None,
                ),
                ({}, "tool_calls"),
            ]
        ]
        turn = assistant_message(adapter.normalize(frames))
        encoded = adapter.encode_messages([user("time?"), turn])
        assert encoded["messages"][1] == {
            "role": "assistant",
            "content": "On it.",
            "tool_calls": [{"id": "call_z", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}],
        }
        assert wire(**encoded) == encoded


class TestRequests:
    def test_a_streaming_request_asks_for_the_usage_chunk(self, adapter: Adapter) -> None:
        tools = adapter.encode_tools([create_tool(id="get_time", description="Time.")], "auto")
        request = adapter.build_request(
            model="gpt-4.1-mini", messages=[user("hi")], tools=tools, options={"temperature": 0}, stream=True
        )
        assert request == {
            "model": "gpt-4.1-mini",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_time",
                        "description": "Time.",
                        "parameters": {"type": "object", "properties": {}},
                    },
                }
            ],
            "tool_choice": "auto",
            "stream_options": {"include_usage": True},
            "temperature": 0,
            "stream": True,
        }

    def test_the_compatible_profile_does_not_ask_for_stream_options(self, compatible: Adapter) -> None:
        request = compatible.build_request(model="llama", messages=[user("hi")], tools=None, options={}, stream=True)
        assert request == {"model": "llama", "messages": [{"role": "user", "content": "hi"}], "stream": True}

    def test_invoke_sends_through_the_sdk_and_its_result_normalizes(self, adapter: Adapter) -> None:
        ok = {"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}
        frame = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [ok]}
        body = f"data: {json.dumps(frame)}\n\ndata: [DONE]\n\n".encode()
        capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)])
        client = openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)
        request = adapter.build_request(
            model="gpt-4.1-mini", messages=[user("hi")], tools=None, options={}, stream=True
        )
        source = adapter.invoke(client, request, stream=True)
        assert capture.body() == {**request}
        assert [e.to_dict()["type"] for e in adapter.normalize(source)] == [
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "finish",
        ]

    async def test_ainvoke_sends_through_the_async_sdk(self, adapter: Adapter) -> None:
        completion = {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        }
        capture = RequestCapture([httpx2.Response(200, json=completion)])
        client = openai.AsyncOpenAI(api_key="sk-test", http_client=capture.async_client(), max_retries=0)
        request = adapter.build_request(
            model="gpt-4.1-mini", messages=[user("hi")], tools=None, options={}, stream=False
        )
        source = await adapter.ainvoke(client, request, stream=False)
        assert capture.body() == {
            "model": "gpt-4.1-mini",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": False,
        }
        assert [e.to_dict() async for e in adapter.anormalize(source)][1:3] == [
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "ok"},
        ]
