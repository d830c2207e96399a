"""The conformance scenarios: one conversation each, run on every api that can take it.

A scenario is an agent run (tools, prompt, tool choice, per-api request options) replayed from
`cassettes/<api>/<name>.yaml`. Its checks state what must be true on the wire and in the run,
independently of the recorded expectations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.conformance.fixtures import ToolLog
from toolwire.conformance.wire import (
    examples_visible,
    find,
    request_has_image,
    request_has_result_for,
    tool_choice_sent,
)

Check = Callable[["ScenarioRun"], None]


@dataclass(slots=True)
class ScenarioRun:
    """What one replay produced."""

    api: str
    requests: list[Any]
    """JSON bodies the SDK sent, in order."""
    steps: list[list[dict[str, Any]]]
    """Unified events (JSON form) of each model call."""
    log: ToolLog
    text: str
    finish_reason: str
    degradations: list[str] = field(default_factory=list)

    def events(self, kind: str) -> list[dict[str, Any]]:
        """Every event of a type, across steps."""
        return [e for step in self.steps for e in step if e["type"] == kind]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """One conversation to replay."""

    name: str
    description: str
    tools: tuple[str, ...]
    """Tool ids from `fixtures.scenario_tools`, in request order."""
    prompt: str
    stream: bool = True
    tool_choice: Any = None
    max_steps: int = 3
    requires: tuple[str, ...] = ()
    """Capability flags the api must have (see `toolwire.capabilities.Capabilities`)."""
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Extra SDK request fields per api (e.g. Anthropic `max_tokens`, thinking settings)."""
    models: Mapping[str, str] = field(default_factory=dict)
    """Model per api when the default is not right (e.g. a reasoning model)."""
    checks: tuple[Check, ...] = ()
    expects_errors: bool = False
    """Whether `error` events are part of the scenario (otherwise any error event fails it)."""


DEFAULT_MODELS = {
    "openai-chat": "gpt-4.1-mini",
    "openai-responses": "gpt-5-mini",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-flash",
}
BASE_OPTIONS: dict[str, dict[str, Any]] = {"anthropic": {"max_tokens": 1024}}


def _named(name: str, check: Check) -> Check:
    check.__name__ = name
    return check


def _called(*expected: tuple[str, Any]) -> Check:
    def check(run: ScenarioRun) -> None:
        assert run.log.calls == list(expected), f"tools ran with {run.log.calls}, expected {list(expected)}"

    return _named("tools_ran", check)


def _requests(count: int) -> Check:
    def check(run: ScenarioRun) -> None:
        assert len(run.requests) == count, f"{len(run.requests)} requests, expected {count}"

    return _named(f"requests_{count}", check)


def _result_sent(call_index: int = 0) -> Check:
    def check(run: ScenarioRun) -> None:
        calls = run.events("tool-input-available") + run.events("tool-input-error")
        client = [c for c in calls if not c.get("providerExecuted")]
        call_id = client[call_index]["toolCallId"]
        assert request_has_result_for(run.api, run.requests[-1], call_id), (
            f"no result for {call_id} in the last request"
        )

    return _named(f"result_sent_{call_index}", check)


def _image_sent(run: ScenarioRun) -> None:
    assert request_has_image(run.api, run.requests[-1]), "the follow-up request carries no image in the provider's form"


def _finish(reason: str) -> Check:
    def check(run: ScenarioRun) -> None:
        assert run.finish_reason == reason, f"finish reason {run.finish_reason!r}, expected {reason!r}"

    return _named(f"finish_{reason}", check)


def _first_step_finish(reason: str) -> Check:
    def check(run: ScenarioRun) -> None:
        finishes = [e for e in run.steps[0] if e["type"] == "finish-step"]
        assert finishes, "the first step has no finish-step event"
        assert finishes[-1]["finishReason"] == reason, f"first step finished with {finishes[-1]}"

    return _named(f"first_step_finish_{reason}", check)


def _input_error(run: ScenarioRun) -> None:
    assert run.events("tool-input-error"), "no tool-input-error event"


def _malformed_call_handled(run: ScenarioRun) -> None:
    """Where arguments are text, the bad call gets an error result; Gemini refuses the call itself."""
    if run.events("tool-input-error"):
        _error_result_sent(run)
        return
    errors = [e["errorText"] for e in run.events("error")]
    assert errors, "neither a tool-input-error nor a provider error reported the malformed call"
    assert not run.events("tool-input-available"), "a malformed call was made available to run"
    assert run.steps[0][-1]["type"] in ("finish", "finish-step"), "the step did not finish"


def _error_result_sent(run: ScenarioRun) -> None:
    text = str(run.requests[-1])
    assert "does not exist" in text or "not valid JSON" in text or "ended before" in text, "error text not sent back"


def _choice_sent(run: ScenarioRun) -> None:
    assert tool_choice_sent(run.requests[0]) is not None, "the request carries no tool choice"


def _examples_visible(run: ScenarioRun) -> None:
    assert examples_visible(run.api, run.requests[0]), "the input examples are not in the request"


def _no_tool_calls(run: ScenarioRun) -> None:
    assert not run.events("tool-input-available"), "the model called a tool"


def _signature_echoed(run: ScenarioRun) -> None:
    echoed = find(
        run.requests[-1],
        lambda node: (
            isinstance(node, dict)
            and any(k in node for k in ("signature", "thoughtSignature", "thought_signature", "encrypted_content"))
        ),
    )
    assert echoed, "the follow-up request does not echo the reasoning signature"


def _provider_executed(run: ScenarioRun) -> None:
    executed = [e for e in run.events("tool-input-available") if e.get("providerExecuted")]
    assert executed, "no provider-executed call reported"
    assert not run.log.calls, "a provider-executed call was run locally"


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="single_call",
        description="one call, its result sent back, a final answer (streamed)",
        tools=("get_weather",),
        prompt="What is the weather in Paris?",
        checks=(
            _called(("get_weather", {"city": "Paris", "unit": "celsius"})),
            _requests(2),
            _result_sent(),
            _finish("stop"),
        ),
    ),
    Scenario(
        name="single_call_nonstream",
        description="the same conversation without streaming",
        tools=("get_weather",),
        prompt="What is the weather in Paris?",
        stream=False,
        checks=(_called(("get_weather", {"city": "Paris", "unit": "celsius"})), _requests(2), _result_sent()),
    ),
    Scenario(
        name="parallel_calls",
        description="two calls in one turn, both results in one follow-up",
        tools=("get_weather",),
        prompt="Compare the weather in Paris and Tokyo.",
        requires=("parallel_tool_calls",),
        checks=(
            _called(
                ("get_weather", {"city": "Paris", "unit": "celsius"}),
                ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
            ),
            _result_sent(0),
            _result_sent(1),
        ),
    ),
    Scenario(
        name="parallel_calls_nonstream",
        description="two calls in one turn, without streaming",
        tools=("get_weather",),
        prompt="Compare the weather in Paris and Tokyo.",
        stream=False,
        requires=("parallel_tool_calls",),
        checks=(_result_sent(0), _result_sent(1)),
    ),
    Scenario(
        name="call_with_text",
        description="text before a call in the same turn",
        tools=("get_weather",),
        prompt="Tell me what you will do, then check Berlin's weather.",
        checks=(_called(("get_weather", {"city": "Berlin", "unit": "celsius"})), _result_sent()),
    ),
    Scenario(
        name="no_argument_tool",
        description="a tool without parameters (empty arguments become {})",
        tools=("get_time",),
        prompt="What time is it?",
        checks=(_called(("get_time", {})), _result_sent()),
    ),
    Scenario(
        name="strict_nested_optional",
        description="a strict tool with nested models and optional fields (nulls for optionals repaired)",
        tools=("create_event",),
        prompt="Create a 'Design review' event on 2026-12-01 with Ada.",
        checks=(
            _called(
                (
                    "create_event",
                    {
                        "title": "Design review",
                        "when": {"date": "2026-12-01", "time": None},
                        "attendees": [{"name": "Ada", "email": None}],
                        "notes": None,
                    },
                )
            ),
            _result_sent(),
        ),
    ),
    Scenario(
        name="examples_and_options",
        description="input examples and provider options visible in the request",
        tools=("search_docs",),
        prompt="Find the docs about streaming tool calls.",
        checks=(_result_sent(), _examples_visible),
    ),
    Scenario(
        name="multimodal_result",
        description="a tool result with an image, sent back in the provider's form",
        tools=("make_chart",),
        prompt="Draw the temperature chart for Paris.",
        # functionResponse.parts (images in tool results) exist from Gemini 3 on.
        models={"gemini": "gemini-3-flash-preview"},
        checks=(_called(("make_chart", {"city": "Paris"})), _image_sent, _finish("stop")),
    ),
    Scenario(
        name="error_result",
        description="a failing tool: the error is sent back as an error result",
        tools=("lookup_order",),
        prompt="Where is order 42?",
        checks=(_called(("lookup_order", {"order_id": "42"})), _error_result_sent),
    ),
    Scenario(
        name="tool_choice_forced",
        description="tool choice forces one tool",
        tools=("get_weather", "get_time"),
        prompt="I'm in Paris.",
        tool_choice={"tool": "get_weather"},
        max_steps=1,
        checks=(_requests(1), _choice_sent, _called(("get_weather", {"city": "Paris", "unit": "celsius"}))),
    ),
    Scenario(
        name="tool_choice_required",
        description="tool choice requires some tool",
        tools=("get_weather", "get_time"),
        prompt="Hello!",
        tool_choice="required",
        max_steps=1,
        checks=(_requests(1), _choice_sent),
    ),
    Scenario(
        name="tool_choice_none",
        description="tool choice forbids tools: a text answer",
        tools=("get_weather",),
        prompt="What is the weather in Paris?",
        tool_choice="none",
        checks=(_requests(1), _choice_sent, _no_tool_calls, _finish("stop")),
    ),
    Scenario(
        name="reasoning_call",
        description="reasoning before a call; its signature or item echoed in the follow-up request",
        tools=("get_weather",),
        prompt="Think, then get the weather in Paris.",
        requires=("reasoning",),
        models={"openai-responses": "gpt-5-mini", "anthropic": "claude-sonnet-4-6", "gemini": "gemini-3-pro-preview"},
        options={
            "anthropic": {"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024}},
            "openai-responses": {
                "reasoning": {"effort": "low", "summary": "auto"},
                "include": ["reasoning.encrypted_content"],
                "store": False,
            },
            "gemini": {"config": {"thinkingConfig": {"includeThoughts": True}}},
        },
        checks=(_result_sent(), _signature_echoed),
    ),
    Scenario(
        name="truncated_stream",
        description="the output limit cuts the arguments: tool-input-error, finish length",
        tools=("get_weather",),
        prompt="What is the weather in Paris?",
        max_steps=1,
        # Only where arguments stream can the limit cut them (the Gemini API sends whole calls).
        requires=("streamed_arguments",),
        options={
            "openai-chat": {"max_completion_tokens": 16},
            "openai-responses": {"max_output_tokens": 64, "reasoning": {"effort": "minimal"}},
            "anthropic": {"max_tokens": 24},
            "gemini": {"config": {"maxOutputTokens": 24}},
        },
        checks=(_input_error, _first_step_finish("length"), _called()),
    ),
    Scenario(
        name="malformed_arguments",
        description="a malformed call: an error result the model can act on, or the provider's own refusal",
        tools=("get_weather",),
        prompt="What is the weather in Paris?",
        expects_errors=True,
        checks=(_malformed_call_handled, _called()),
    ),
    Scenario(
        name="weather_and_chart",
        description="two different tools in one turn, one returning an image (the `toolwire demo` conversation)",
        tools=("get_weather", "make_chart"),
        prompt="What's the weather in Paris? Draw me the temperature chart too.",
        requires=("parallel_tool_calls",),
        models={"gemini": "gemini-3-flash-preview"},
        checks=(
            _called(("get_weather", {"city": "Paris", "unit": "celsius"}), ("make_chart", {"city": "Paris"})),
            _image_sent,
            _finish("stop"),
        ),
    ),
    Scenario(
        name="server_tool",
        description="a provider-executed tool (web search / code execution) reported, never run locally",
        tools=("get_weather",),
        prompt="Search the web for today's news.",
        requires=("server_tools",),
        options={
            "anthropic": {
                "max_tokens": 1024,
                "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
            },
            "openai-responses": {"tools": [{"type": "web_search"}]},
            # Built-in tools combine with function calling from Gemini 3 on, with this flag.
            "gemini": {
                "config": {"tools": [{"codeExecution": {}}], "toolConfig": {"includeServerSideToolInvocations": True}}
            },
        },
        models={"gemini": "gemini-3-flash-preview"},
        checks=(_provider_executed,),
    ),
)


def scenario(name: str) -> Scenario:
    """A scenario by name.

    Raises:
        KeyError: no such scenario (the message lists them).
    """
    for item in SCENARIOS:
        if item.name == name:
            return item
    raise KeyError(f"no scenario {name!r}; scenarios: {', '.join(s.name for s in SCENARIOS)}")
