"""The SDK glue the agent loop uses: request building, sending with the official client, a whole run."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from toolwire import Agent, ConfigurationError, create_tool
from toolwire.adapter import Adapter
from toolwire.events import ToolInputAvailable
from toolwire.messages import SystemMessage, user
from toolwire.testing.capture import RequestCapture

MODEL = "claude-sonnet-4-6"


def sse(*frames: dict[str, Any]) -> httpx2.Response:
    body = b"".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode() for f in frames)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def streamed_call(call_id: str, name: str, arguments: str) -> httpx2.Response:
    return sse(
        {"type": "message_start", "message": _message("msg_1", [], None)},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": arguments}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    )


def streamed_text(text: str) -> httpx2.Response:
    return sse(
        {"type": "message_start", "message": _message("msg_2", [], None)},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
        {"type": "message_stop"},
    )


def _message(message_id: str, content: list[dict[str, Any]], stop_reason: str | None) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 3},
    }


class TestBuildRequest:
    def test_the_request_holds_the_conversation_tools_and_a_default_max_tokens(self, adapter: Adapter) -> None:
        tools = adapter.encode_tools([create_tool(id="now", description="The time.")])
        request = adapter.build_request(
            model=MODEL,
            messages=[SystemMessage(content="Be brief."), user("Time?")],
            tools=tools,
            options={},
            stream=True,
        )
        assert request == {
            "model": MODEL,
            "max_tokens": 4096,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": "Time?"}],
            "tools": [
                {"name": "now", "description": "The time.", "input_schema": {"type": "object", "properties": {}}}
            ],
            "stream": True,
        }

    def test_caller_options_are_added_and_win_over_defaults(self, adapter: Adapter) -> None:
        options = {"max_tokens": 512, "thinking": {"type": "enabled", "budget_tokens": 256}}
        request = adapter.build_request(model=MODEL, messages=[user("Hi")], tools=None, options=options, stream=False)
        assert request["max_tokens"] == 512
        assert request["thinking"] == {"type": "enabled", "budget_tokens": 256}
        assert request["stream"] is False

    def test_options_may_not_replace_what_toolwire_builds(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match=r"anthropic request options may not set \['messages'\]"):
            adapter.build_request(model=MODEL, messages=[user("Hi")], tools=None, options={"messages": []}, stream=True)

    def test_anthropic_server_tools_given_as_options_follow_toolwires_tools(self, adapter: Adapter) -> None:
        tools = adapter.encode_tools([create_tool(id="now", description="The time.")])
        search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
        request = adapter.build_request(
            model=MODEL, messages=[user("News?")], tools=tools, options={"tools": [search]}, stream=True
        )
        assert [t["name"] for t in request["tools"]] == ["now", "web_search"]

    def test_a_system_option_beside_system_messages_is_an_error(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match="either as a system message or as the `system` option"):
            adapter.build_request(
                model=MODEL,
                messages=[SystemMessage(content="A"), user("Hi")],
                tools=None,
                options={"system": "B"},
                stream=True,
            )


class TestInvoke:
    def test_a_streamed_call_through_the_sdk_client(self, adapter: Adapter) -> None:
        capture = RequestCapture([streamed_call("toolu_1", "now", "{}")])
        client = adapter.sdk_client(api_key="test", http_client=capture.client())
        request = adapter.build_request(model=MODEL, messages=[user("Time?")], tools=None, options={}, stream=True)
        events = list(adapter.normalize(adapter.invoke(client, request, stream=True)))
        assert [e.to_dict() for e in events if isinstance(e, ToolInputAvailable)] == [
            {"type": "tool-input-available", "toolCallId": "toolu_1", "toolName": "now", "input": {}}
        ]
        assert capture.body()["stream"] is True

    def test_a_whole_response_through_the_sdk_client(self, adapter: Adapter) -> None:
        answer = _message("msg_2", [{"type": "text", "text": "Noon."}], "end_turn")
        capture = RequestCapture([httpx2.Response(200, json=answer)])
        client = adapter.sdk_client(api_key="test", http_client=capture.client())
        request = adapter.build_request(model=MODEL, messages=[user("Time?")], tools=None, options={}, stream=False)
        events = [e.to_dict() for e in adapter.normalize(adapter.invoke(client, request, stream=False))]
        assert {"type": "text-delta", "id": "0", "delta": "Noon."} in events

    def test_betas_go_through_the_beta_messages_api(self, adapter: Adapter) -> None:
        capture = RequestCapture([streamed_call("toolu_1", "now", "{}")])
        client = adapter.sdk_client(api_key="test", http_client=capture.client())
        request = adapter.build_request(
            model=MODEL, messages=[user("Hi")], tools=None, options={"betas": ["mcp-client-2025-04-04"]}, stream=True
        )
        list(adapter.normalize(adapter.invoke(client, request, stream=True)))
        assert capture.requests[0].headers["anthropic-beta"] == "mcp-client-2025-04-04"
        assert "betas" not in capture.body()

    async def test_the_async_client(self, adapter: Adapter) -> None:
        capture = RequestCapture([streamed_call("toolu_1", "now", '{"tz": "UTC"}')])
        client = adapter.sdk_client(api_key="test", asynchronous=True, http_client=capture.async_client())
        request = adapter.build_request(model=MODEL, messages=[user("Time?")], tools=None, options={}, stream=True)
        source = await adapter.ainvoke(client, request, stream=True)
        inputs = [e.input async for e in adapter.anormalize(source) if isinstance(e, ToolInputAvailable)]
        assert inputs == [{"tz": "UTC"}]


def test_an_agent_run_calls_the_tool_and_sends_its_result_back(adapter: Adapter) -> None:
    capture = RequestCapture(
        [streamed_call("toolu_1", "get_weather", '{"city": "Paris"}'), streamed_text("21C in Paris.")]
    )
    weather = create_tool(
        id="get_weather",
        description="Weather.",
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        execute=lambda data: f"21C in {data['city']}",
    )
    agent = Agent(
        api="anthropic",
        client=adapter.sdk_client(api_key="test", http_client=capture.client()),
        model=MODEL,
        tools=[weather],
    )
    result = agent.run("Weather in Paris?")
    assert result.text == "21C in Paris."
    assert capture.body(-1)["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C in Paris"}]},
    ]
