"""Specification of switching provider mid-conversation, and of starting an agent from a saved history."""

from __future__ import annotations

import json
import warnings
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from toolwire import Agent, create_tool
from toolwire.compat import CompatibilityWarning, Degradation
from toolwire.exceptions import ArgumentError
from toolwire.messages import AssistantMessage, ReasoningPart, TextPart, ToolMessage, user
from toolwire.results import ToolCall, ToolResult
from toolwire.testing.capture import RequestCapture

WEATHER = create_tool(
    id="get_weather",
    description="Weather for a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    execute=lambda value: f"Sunny in {value['city']}",
)
HISTORY = [
    user("Weather in Rome?"),
    AssistantMessage(
        content=(
            ReasoningPart(text="Let me check.", provider_metadata={"anthropic": {"signature": "sig-1"}}),
            ToolCall(tool_call_id="toolu_1", tool_name="get_weather", input={"city": "Rome"}),
        )
    ),
    ToolMessage(
        content=(
            ToolResult(tool_call_id="toolu_1", tool_name="get_weather", output={"type": "text", "value": "Sunny"}),
        )
    ),
    AssistantMessage(content=(TextPart(text="Sunny in Rome."),)),
]
HISTORY_ON_CHAT = [
    {"role": "user", "content": "Weather in Rome?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_1", "content": "Sunny"},
    {"role": "assistant", "content": "Sunny in Rome."},
]
SWITCH_DEGRADATIONS = [
    Degradation(
        api="openai-chat", feature="history.reasoning", action="dropped 1 reasoning part(s): Chat has no field"
    ),
    Degradation(
        api="openai-chat",
        feature="history.provider_metadata",
        action="dropped anthropic metadata: only anthropic understands it",
    ),
]


def _completion(message: dict[str, Any], finish: str) -> httpx2.Response:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}],
    }
    return httpx2.Response(200, json=body)


def _paris_then_answer() -> RequestCapture:
    call = {"id": "call_p", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    return RequestCapture(
        [
            _completion({"content": None, "tool_calls": [call]}, "tool_calls"),
            _completion({"content": "Sunny in Paris too."}, "stop"),
        ]
    )


def _chat_client(capture: RequestCapture) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)


def _on_anthropic(capture: RequestCapture | None = None) -> Agent:
    client = anthropic.Anthropic(api_key="k", http_client=(capture or RequestCapture()).client(), max_retries=0)
    return Agent(
        api="anthropic", client=client, model="claude-sonnet-4-6", tools=[WEATHER], messages=HISTORY, stream=False
    )


class TestSavedHistory:
    def test_an_agent_continues_a_saved_conversation(self) -> None:
        """`Agent(..., messages=history)`: the next request carries the history, then the prompt."""
        capture = _paris_then_answer()
        agent = Agent(
            api="openai-chat",
            client=_chat_client(capture),
            model="gpt-4.1-mini",
            tools=[WEATHER],
            messages=[*HISTORY[:1], AssistantMessage(content=(TextPart(text="Sunny in Rome."),))],
            stream=False,
        )
        assert agent.run("And Paris?").text == "Sunny in Paris too."
        assert capture.body(0)["messages"] == [
            {"role": "user", "content": "Weather in Rome?"},
            {"role": "assistant", "content": "Sunny in Rome."},
            {"role": "user", "content": "And Paris?"},
        ]

    def test_a_history_ending_in_calls_runs_them_without_asking_the_model_first(self) -> None:
        """A saved turn whose calls have no results yet continues with `run()`."""
        capture = RequestCapture([_completion({"content": "Sunny in Rome."}, "stop")])
        agent = Agent(
            api="openai-chat",
            client=_chat_client(capture),
            model="m",
            tools=[WEATHER],
            messages=HISTORY[:2],
            stream=False,
        )
        assert agent.run().text == "Sunny in Rome."
        assert len(capture.requests) == 1
        assert capture.body(0)["messages"][2] == {"role": "tool", "tool_call_id": "toolu_1", "content": "Sunny in Rome"}


class TestSwitch:
    def test_switch_returns_what_the_history_loses_on_the_new_api(self) -> None:
        """Reasoning and signatures only Anthropic understands are named before anything is sent."""
        agent = _on_anthropic()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = agent.switch(api="openai-chat", client=_chat_client(RequestCapture()), model="gpt-4.1-mini")
        assert found == SWITCH_DEGRADATIONS
        assert [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)] == found

    def test_the_next_run_goes_to_the_new_provider_and_reports_nothing_again(self) -> None:
        """Two model calls after the switch, no repeated warnings; the result lists each degradation once."""
        before, after = RequestCapture(), _paris_then_answer()
        agent = _on_anthropic(before)
        agent.switch(api="openai-chat", client=_chat_client(after), model="gpt-4.1-mini")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = agent.run("And Paris?")
        assert [w for w in caught if issubclass(w.category, CompatibilityWarning)] == []
        assert result.text == "Sunny in Paris too."
        assert result.warnings == SWITCH_DEGRADATIONS
        assert (len(before.requests), len(after.requests)) == (0, 2)
        assert after.body(0)["messages"] == [*HISTORY_ON_CHAT, {"role": "user", "content": "And Paris?"}]
        assert after.body(0)["model"] == "gpt-4.1-mini"

    def test_switching_back_and_forth_reports_each_degradation_once(self) -> None:
        """The same loss met again is not news."""
        agent = _on_anthropic()
        chat = _chat_client(RequestCapture())
        agent.switch(api="openai-chat", client=chat, model="gpt-4.1-mini")
        agent.switch(api="anthropic", client=anthropic.Anthropic(api_key="k"), model="claude-sonnet-4-6")
        assert agent.switch(api="openai-chat", client=chat, model="gpt-4.1-mini") == []
        assert agent.warnings == SWITCH_DEGRADATIONS

    def test_a_new_api_needs_a_model(self) -> None:
        """Model names do not carry over between providers."""
        agent = _on_anthropic()
        with pytest.raises(ArgumentError, match=r"^`model` must be the model to use on api 'openai-chat'"):
            agent.switch(api="openai-chat", client=_chat_client(RequestCapture()))

    def test_a_refused_switch_changes_nothing(self) -> None:
        """Keeping the Anthropic client for an OpenAI api is refused; the agent stays as it was."""
        agent = _on_anthropic()
        with pytest.raises(ArgumentError, match="got a client of anthropic"):
            agent.switch(api="openai-chat", model="gpt-4.1-mini")
        assert (agent.adapter.api, agent.model) == ("anthropic", "claude-sonnet-4-6")

    def test_changing_only_the_model_keeps_the_client_and_options(self) -> None:
        """Within one api, everything else stays."""
        agent = _on_anthropic()
        agent.request_options = {"max_tokens": 99}
        client = agent.client
        assert agent.switch(model="claude-opus-4-1") == []
        assert (agent.client, agent.model, agent.request_options) == (client, "claude-opus-4-1", {"max_tokens": 99})

    def test_a_new_api_starts_with_empty_request_options_unless_given(self) -> None:
        """Provider options rarely mean anything to another provider."""
        agent = _on_anthropic()
        agent.request_options = {"max_tokens": 99}
        agent.switch(api="openai-chat", client=_chat_client(RequestCapture()), model="m")
        assert agent.request_options == {}
        agent.switch(api="openai-responses", model="m", request_options={"store": False})
        assert agent.request_options == {"store": False}

    def test_the_warnings_travel_with_the_state(self) -> None:
        """A restored agent does not report again what the conversation already met."""
        agent = _on_anthropic()
        agent.switch(api="openai-chat", client=_chat_client(RequestCapture()), model="gpt-4.1-mini")
        state = json.loads(json.dumps(agent.export_state()))
        restored = Agent(
            api="openai-chat", client=_chat_client(RequestCapture()), model="gpt-4.1-mini", tools=[WEATHER]
        )
        restored.import_state(state)
        assert restored.warnings == SWITCH_DEGRADATIONS
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            restored.build_model_request()
        assert [w for w in caught if issubclass(w.category, CompatibilityWarning)] == []
