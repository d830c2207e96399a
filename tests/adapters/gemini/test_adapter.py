"""The `gemini` adapter as users reach it: registry, settings, SDK requests, and a whole agent run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from google import genai

from toolwire import ConfigurationError, create_tool, get_adapter, list_adapters
from toolwire.adapter import Adapter
from toolwire.adapters.gemini import GeminiAdapter
from toolwire.agent import Agent
from toolwire.messages import SystemMessage, user
from toolwire.testing.capture import RequestCapture

from .frames import call, chunk, text

WEATHER = create_tool(
    id="get_weather",
    description="Current weather",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    execute=lambda input: {"city": input["city"], "sky": "clear"},
)
SIGNATURE = "Eqo+Cqc/Ab4+9vtg"


class TestRegistry:
    def test_the_entry_point_gives_the_gemini_adapter(self) -> None:
        adapter = get_adapter("gemini")
        assert ("gemini" in list_adapters(), type(adapter), adapter.api, adapter.provider) == (
            True,
            GeminiAdapter,
            "gemini",
            "google",
        )

    def test_settings_that_change_tool_entries_are_part_of_the_cache_key(self) -> None:
        keys = {
            get_adapter("gemini", **s).settings_key()
            for s in (
                {},
                {"schema_format": "openapi"},
                {"function_response_parts": False},
                {"schema_format": "openapi", "vertex": True},
            )
        }
        assert keys == {("json", False), ("openapi", False), ("openapi", True)}

    @pytest.mark.parametrize(
        ("settings", "message"),
        [
            ({"schema_format": "yaml"}, "schema_format must be 'json' or 'openapi', got 'yaml'"),
            ({"stream_function_call_arguments": "yes"}, "stream_function_call_arguments must be true or false"),
            ({"function_response_parts": 1}, "function_response_parts must be true or false"),
            ({"vertex": "yes"}, "vertex must be true or false"),
            (
                {"vertex": False, "stream_function_call_arguments": True},
                "stream_function_call_arguments is Vertex AI only, but vertex=False",
            ),
        ],
    )
    def test_bad_settings_are_refused(self, settings: dict[str, Any], message: str) -> None:
        with pytest.raises(ConfigurationError, match=message):
            GeminiAdapter(**settings)

    def test_capabilities_state_what_gemini_takes_natively(self, adapter: Adapter) -> None:
        capabilities = adapter.capabilities
        assert (
            capabilities.strict_tools,
            capabilities.native_input_examples,
            capabilities.disable_parallel,
            capabilities.allowed_tools_subset,
            capabilities.image_tool_results,
            capabilities.server_tools,
        ) == (False, False, False, True, True, True)


class TestSdkRequests:
    def test_build_request_puts_everything_but_contents_into_config(self, adapter: Adapter) -> None:
        tools = adapter.encode_tools([WEATHER], "required")
        request = adapter.build_request(
            model="gemini-2.5-flash",
            messages=[SystemMessage(content="Be brief."), user("Weather in Rome?")],
            tools=tools,
            options={"config": {"thinkingConfig": {"includeThoughts": True}}},
            stream=True,
        )
        assert request == {
            "model": "gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "Weather in Rome?"}]}],
            "config": {
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
                **tools,
                "thinkingConfig": {"includeThoughts": True},
            },
        }

    def test_other_options_are_refused(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match=r"options are `config` and `tools`, got \['temperature'\]"):
            adapter.build_request(
                model="m", messages=[user("hi")], tools=None, options={"temperature": 0}, stream=False
            )

    @pytest.mark.parametrize("where", ["tools", "config"])
    def test_gemini_own_tools_go_after_the_function_declarations(self, adapter: Adapter, where: str) -> None:
        tools = adapter.encode_tools([WEATHER])
        search = [{"googleSearch": {}}]
        options = {"tools": search} if where == "tools" else {"config": {"tools": search}}
        request = adapter.build_request(model="m", messages=[user("hi")], tools=tools, options=options, stream=True)
        assert request["config"]["tools"] == [*tools["tools"], {"googleSearch": {}}]

    @pytest.mark.parametrize("field", ["toolConfig", "tool_config"])
    def test_a_config_that_would_replace_the_tool_choice_is_refused(self, adapter: Adapter, field: str) -> None:
        tools = adapter.encode_tools([WEATHER], "required")
        with pytest.raises(ConfigurationError, match=rf"options.config sets \['{field}'\], which toolwire fills in"):
            adapter.build_request(
                model="m", messages=[user("hi")], tools=tools, options={"config": {field: {}}}, stream=False
            )

    def test_a_tool_config_without_a_tool_choice_is_taken(self, adapter: Adapter) -> None:
        config = {"toolConfig": {"includeServerSideToolInvocations": True}}
        request = adapter.build_request(
            model="m",
            messages=[user("hi")],
            tools=adapter.encode_tools([WEATHER]),
            options={"config": config},
            stream=False,
        )
        assert request["config"]["toolConfig"] == {"includeServerSideToolInvocations": True}

    def test_a_system_instruction_option_beside_system_messages_is_refused(self, adapter: Adapter) -> None:
        messages = [SystemMessage(content="Be brief."), user("hi")]
        with pytest.raises(ConfigurationError, match=r"sets \['system_instruction'\]"):
            adapter.build_request(
                model="m", messages=messages, tools=None, options={"config": {"system_instruction": "x"}}, stream=False
            )

    def test_the_sdk_client_talks_to_v1beta_through_the_given_http_client(self, adapter: Adapter) -> None:
        capture = RequestCapture([{"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}])
        client = adapter.sdk_client(api_key="k", http_client=capture.client())
        request = adapter.build_request(
            model="gemini-2.5-flash", messages=[user("hi")], tools=None, options={}, stream=False
        )
        response = adapter.invoke(client, request, stream=False)
        assert isinstance(client, genai.Client)
        assert (
            str(capture.requests[0].url)
            == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        )
        assert [e.type for e in adapter.normalize(response)] == [
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "finish",
        ]


def _sse(*frames: dict[str, Any]) -> httpx2.Response:
    body = b"".join(b"data: " + json.dumps(f).encode() + b"\r\n\r\n" for f in frames)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def script() -> list[httpx2.Response]:
    """A call (signed, as Gemini 3 sends it), then the answer; fresh responses for each run."""
    return [
        _sse(chunk(call("get_weather", {"city": "Rome"}, "fc_1", thoughtSignature=SIGNATURE), finish="STOP")),
        _sse(chunk(text("Clear in Rome.")), chunk(text(""), finish="STOP")),
    ]


class TestAgent:
    @pytest.mark.parametrize("mode", ["sync", "async"])
    def test_a_tool_using_conversation_runs_and_echoes_the_signature(self, adapter: Adapter, mode: str) -> None:
        capture = RequestCapture(script())
        http: Callable[[], Any] = capture.client if mode == "sync" else capture.async_client
        client = adapter.sdk_client(api_key="k", asynchronous=mode == "async", http_client=http())
        agent = Agent(api=adapter, client=client, model="gemini-3-pro-preview", tools=[WEATHER])
        result = agent.run("Weather in Rome?") if mode == "sync" else asyncio.run(agent.arun("Weather in Rome?"))
        assert (result.text, result.finish_reason) == ("Clear in Rome.", "stop")
        second = capture.body(1)
        assert second["contents"] == [
            {"role": "user", "parts": [{"text": "Weather in Rome?"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {"id": "fc_1", "name": "get_weather", "args": {"city": "Rome"}},
                        "thoughtSignature": "Eqo-Cqc_Ab4-9vtg",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "fc_1",
                            "name": "get_weather",
                            "response": {"output": {"city": "Rome", "sky": "clear"}},
                        }
                    }
                ],
            },
        ]
        assert second["tools"] == capture.body(0)["tools"]

    def test_a_non_streaming_run_gives_the_same_requests(self, adapter: Adapter) -> None:
        streamed = RequestCapture(script())
        whole = RequestCapture(
            [
                {
                    "candidates": [
                        {
                            "content": {
                                "role": "model",
                                "parts": [call("get_weather", {"city": "Rome"}, "fc_1", thoughtSignature=SIGNATURE)],
                            },
                            "finishReason": "STOP",
                        }
                    ]
                },
                {
                    "candidates": [
                        {"content": {"role": "model", "parts": [text("Clear in Rome.")]}, "finishReason": "STOP"}
                    ]
                },
            ]
        )
        for capture, stream in ((streamed, True), (whole, False)):
            client = adapter.sdk_client(api_key="k", http_client=capture.client())
            Agent(api=adapter, client=client, model="m", tools=[WEATHER], stream=stream).run("Weather in Rome?")
        assert [streamed.body(i) for i in (0, 1)] == [whole.body(i) for i in (0, 1)]
