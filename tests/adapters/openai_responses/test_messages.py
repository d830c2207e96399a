"""Conversation history as Responses `input` items, and the request the agent loop sends through the SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest

from toolwire import CompatibilityWarning, create_tool, get_adapter
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
from toolwire.results import ToolCall, ToolResult, file_data, image_data, image_url, json_output, text
from toolwire.testing.capture import RequestCapture

Wire = Callable[..., dict[str, Any]]
PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQ="


def degradations(caught: Any) -> list[str]:
    return [w.message.degradation.feature for w in caught if isinstance(w.message, CompatibilityWarning)]


def openai_meta(**values: Any) -> dict[str, Any]:
    return {"openai": values}


REASONED_TURN = AssistantMessage(
    content=(
        ReasoningPart(
            text="Need the weather.", provider_metadata=openai_meta(itemId="rs_1", reasoningEncryptedContent="gAAA-enc")
        ),
        ReasoningPart(text="Paris it is.", provider_metadata=openai_meta(itemId="rs_1")),
        TextPart(text="Let me check.", provider_metadata=openai_meta(itemId="msg_1", phase="commentary")),
        ToolCall(
            tool_call_id="call_1",
            tool_name="get_weather",
            input={"city": "Paris"},
            provider_metadata=openai_meta(itemId="fc_1"),
        ),
    )
)
REASONED_ITEMS = [
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [
            {"type": "summary_text", "text": "Need the weather."},
            {"type": "summary_text", "text": "Paris it is."},
        ],
        "encrypted_content": "gAAA-enc",
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
        "phase": "commentary",
    },
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
        "id": "fc_1",
    },
]


class TestHistory:
    def test_a_reasoned_turn_goes_back_as_the_items_the_api_produced(self, adapter: Adapter, wire: Wire) -> None:
        conversation = [
            SystemMessage(content="Be brief."),
            user("Weather in Paris?"),
            REASONED_TURN,
            ToolMessage(content=(ToolResult(tool_call_id="call_1", tool_name="get_weather", output=text("21°C")),)),
        ]
        encoded = adapter.encode_messages(conversation)
        assert encoded == {
            "input": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                *REASONED_ITEMS,
                {"type": "function_call_output", "call_id": "call_1", "output": "21°C"},
            ]
        }
        assert wire(**encoded) == encoded

    def test_a_decoded_stream_round_trips_into_the_next_request(self, adapter: Adapter, wire: Wire) -> None:
        frames: list[dict[str, Any]] = [
            {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {"type": "reasoning", "id": "rs_1", "summary": []},
            },
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            },
            {
                "type": "response.output_item.added",
                "output_index": 1,
                "item": {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_time",
                    "arguments": "",
                },
            },
            {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 1, "arguments": "{}"},
            {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": []}},
        ]
        turn = assistant_message(adapter.normalize(frames))
        encoded = adapter.encode_messages([user("time?"), turn], store=False)
        assert encoded["input"][1:] == [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            {"type": "function_call", "call_id": "call_1", "name": "get_time", "arguments": "{}", "id": "fc_1"},
        ]
        assert wire(**encoded) == encoded

    def test_system_messages_can_go_to_instructions(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_messages(
            [SystemMessage(content="Be brief."), SystemMessage(content="Use metric."), user("hello")], instructions=True
        )
        assert encoded == {"input": [{"role": "user", "content": "hello"}], "instructions": "Be brief.\n\nUse metric."}
        assert wire(**encoded) == encoded

    def test_a_user_message_with_media(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_messages(
            [
                user(
                    "Compare",
                    image_url("https://example.com/a.png"),
                    image_data(PNG, "image/png"),
                    file_data(PDF, "application/pdf", "r.pdf"),
                )
            ]
        )
        assert encoded == {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Compare"},
                        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"},
                        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
                        {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF}", "filename": "r.pdf"},
                    ],
                }
            ]
        }
        assert wire(**encoded) == encoded

    def test_text_without_an_item_id_is_a_plain_assistant_message(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_messages([user("a"), AssistantMessage(content=(TextPart(text="b"),)), user("c")])
        assert encoded["input"][1] == {"role": "assistant", "content": "b"}
        assert wire(**encoded) == encoded

    def test_a_refusal_goes_back_as_refusal_content(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(TextPart(text="No.", provider_metadata=openai_meta(itemId="msg_1", refusal=True)),)
        )
        assert adapter.encode_messages([turn])["input"] == [
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "status": "completed",
                "content": [{"type": "refusal", "refusal": "No."}],
            }
        ]

    def test_a_custom_call_and_its_result(self, adapter: Adapter, wire: Wire) -> None:
        call = ToolCall(
            tool_call_id="call_c",
            tool_name="run_sql",
            input={"input": "SELECT 1"},
            provider_metadata=openai_meta(itemId="ctc_1", custom=True),
        )
        encoded = adapter.encode_messages(
            [
                user("q"),
                AssistantMessage(content=(call,)),
                ToolMessage(content=(ToolResult(tool_call_id="call_c", tool_name="run_sql", output=text("1")),)),
            ]
        )
        assert encoded["input"][1:] == [
            {"type": "custom_tool_call", "call_id": "call_c", "name": "run_sql", "input": "SELECT 1", "id": "ctc_1"},
            {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"},
        ]
        assert wire(**encoded) == encoded

    def test_namespace_and_caller_of_a_call_go_back_with_it_and_its_result(self, adapter: Adapter, wire: Wire) -> None:
        caller = {"type": "program", "caller_id": "call_p"}
        call = ToolCall(
            tool_call_id="call_1",
            tool_name="lookup",
            input={},
            provider_metadata=openai_meta(itemId="fc_1", namespace="crm", caller=caller),
        )
        result = ToolResult(tool_call_id="call_1", tool_name="lookup", output=json_output([1]))
        encoded = adapter.encode_messages(
            [user("q"), AssistantMessage(content=(call,)), ToolMessage(content=(result,))]
        )
        assert encoded["input"][1:] == [
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "lookup",
                "arguments": "{}",
                "namespace": "crm",
                "id": "fc_1",
                "caller": caller,
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "[1]", "caller": caller},
        ]
        assert wire(**encoded) == encoded

    def test_provider_executed_calls_are_referenced_by_item_id(self, adapter: Adapter, wire: Wire) -> None:
        turn = AssistantMessage(
            content=(
                ToolCall(
                    tool_call_id="ws_1",
                    tool_name="web_search",
                    input={"query": "x"},
                    provider_executed=True,
                    provider_metadata=openai_meta(itemId="ws_1", itemType="web_search_call"),
                ),
                ToolResult(tool_call_id="ws_1", tool_name="web_search", output=json_output({"status": "completed"})),
                TextPart(text="Found."),
            )
        )
        encoded = adapter.encode_messages([user("q"), turn])
        assert encoded["input"][1:] == [
            {"type": "item_reference", "id": "ws_1"},
            {"role": "assistant", "content": "Found."},
        ]
        assert wire(**encoded) == encoded

    def test_unstored_conversations_drop_what_needs_a_stored_item_and_report_it(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                ReasoningPart(text="", provider_metadata=openai_meta(itemId="rs_1")),
                ToolCall(
                    tool_call_id="ws_1",
                    tool_name="web_search",
                    input={},
                    provider_executed=True,
                    provider_metadata=openai_meta(itemId="ws_1"),
                ),
                ToolCall(
                    tool_call_id="call_1", tool_name="get_time", input={}, provider_metadata=openai_meta(itemId="fc_1")
                ),
            )
        )
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([turn], store=False)
        assert encoded == {
            "input": [{"type": "function_call", "call_id": "call_1", "name": "get_time", "arguments": "{}"}]
        }
        assert degradations(caught) == ["history.reasoning", "history.provider_executed"]

    def test_another_provider_s_reasoning_is_dropped_with_its_metadata(self, adapter: Adapter, wire: Wire) -> None:
        turn = AssistantMessage(
            content=(
                ReasoningPart(text="thinking", provider_metadata={"anthropic": {"signature": "sig"}}),
                ToolCall(tool_call_id="toolu_1", tool_name="get_time", input={}),
            )
        )
        with pytest.warns(CompatibilityWarning) as caught:
            encoded = adapter.encode_messages([user("time?"), turn])
        assert encoded["input"][1:] == [
            {"type": "function_call", "call_id": "toolu_1", "name": "get_time", "arguments": "{}"}
        ]
        assert degradations(caught) == ["history.reasoning", "history.provider_metadata"]
        assert wire(**encoded) == encoded

    def test_a_chat_completions_transcript_encodes_as_items_without_ids(self, adapter: Adapter, wire: Wire) -> None:
        chat = get_adapter("openai-chat")
        frames = [
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            for delta, finish in [
                ({"content": "Charting."}, None),
                (
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_9",
                                "type": "function",
                                "function": {"name": "make_chart", "arguments": '{"city":"Oslo"}'},
                            }
                        ]
                    },
                    None,
                ),
                ({}, "tool_calls"),
            ]
        ]
        turn = assistant_message(chat.normalize(frames))
        result = ToolResult(
            tool_call_id="call_9",
            tool_name="make_chart",
            output={"type": "content", "value": [image_data(PNG, "image/png")]},
        )
        encoded = adapter.encode_messages([user("chart"), turn, ToolMessage(content=(result,))])
        assert encoded["input"][1:] == [
            {"role": "assistant", "content": "Charting."},
            {"type": "function_call", "call_id": "call_9", "name": "make_chart", "arguments": '{"city":"Oslo"}'},
            {
                "type": "function_call_output",
                "call_id": "call_9",
                "output": [{"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}],
            },
        ]
        assert wire(**encoded) == encoded

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (
                {"previous_response_id": "r"},
                r"openai-responses encode_messages has no options \['previous_response_id'\]",
            ),
            ({"store": "no"}, "openai-responses encode_messages option 'store' must be true or false"),
        ],
    )
    def test_bad_options_are_refused(self, adapter: Adapter, options: dict[str, Any], message: str) -> None:
        with pytest.raises(ConfigurationError, match=message):
            adapter.encode_messages([], **options)


class TestRequests:
    def test_a_request_merges_history_tools_and_options(self, adapter: Adapter) -> None:
        tools = adapter.encode_tools([create_tool(id="get_time", description="Time.")], "required")
        request = adapter.build_request(
            model="gpt-5-mini",
            messages=[user("hi")],
            tools=tools,
            options={"reasoning": {"effort": "low"}},
            stream=True,
        )
        assert request == {
            "model": "gpt-5-mini",
            "input": [{"role": "user", "content": "hi"}],
            "tools": [
                {
                    "type": "function",
                    "name": "get_time",
                    "description": "Time.",
                    "parameters": {"type": "object", "properties": {}},
                    "strict": None,
                }
            ],
            "tool_choice": "required",
            "reasoning": {"effort": "low"},
            "stream": True,
        }

    def test_store_false_in_the_options_shapes_the_history(self, adapter: Adapter) -> None:
        turn = AssistantMessage(content=(ReasoningPart(text="", provider_metadata=openai_meta(itemId="rs_1")),))
        with pytest.warns(CompatibilityWarning):
            request = adapter.build_request(
                model="m", messages=[turn], tools=None, options={"store": False}, stream=False
            )
        assert request == {"model": "m", "input": [], "store": False, "stream": False}

    def test_invoke_sends_through_the_sdk_and_its_result_normalizes(self, adapter: Adapter) -> None:
        body = {
            "id": "resp_1",
            "object": "response",
            "status": "completed",
            "output": [
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_time", "arguments": "{}"}
            ],
        }
        capture = RequestCapture([httpx2.Response(200, json=body)])
        client = openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)
        request = adapter.build_request(model="gpt-5-mini", messages=[user("hi")], tools=None, options={}, stream=False)
        source = adapter.invoke(client, request, stream=False)
        assert capture.body() == request
        assert [e.to_dict()["type"] for e in adapter.normalize(source)][-2:] == ["tool-input-available", "finish"]

    async def test_ainvoke_sends_through_the_async_sdk(self, adapter: Adapter) -> None:
        capture = RequestCapture(
            [httpx2.Response(200, json={"id": "resp_1", "object": "response", "status": "completed", "output": []})]
        )
        client = openai.AsyncOpenAI(api_key="sk-test", http_client=capture.async_client(), max_retries=0)
        request = adapter.build_request(model="gpt-5-mini", messages=[user("hi")], tools=None, options={}, stream=False)
        source = await adapter.ainvoke(client, request, stream=False)
        assert capture.body() == request
        assert [e.to_dict() async for e in adapter.anormalize(source)][-1] == {
            "type": "finish",
            "finishReason": "stop",
            "providerMetadata": {"openai": {"responseId": "resp_1"}},
        }
