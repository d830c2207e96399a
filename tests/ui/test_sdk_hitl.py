"""Human in the loop through the AI SDK's own client (`Chat` over 127.0.0.1, sending automatically).

The weather tool needs approval, suspends for its unit, or answers a card; or the chart tool has
no `execute` and the browser runs it. Each answer continues the paused run from the answer,
without asking the model first, in the same assistant message; approval ids are random and
single-use, and a forged or replayed answer is refused.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from toolwire.conformance.fixtures import PNG_1X1

from .conftest import WEATHER, Node, ScenarioServer

PROMPT = "What's the weather in Paris? Draw me the temperature chart too."
PNG = base64.b64encode(PNG_1X1).decode()
APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")


@pytest.fixture(scope="module")
def flows(node: Node, scenario_server: ScenarioServer) -> dict[str, Any]:
    """Every flow, in one node run."""
    url = scenario_server.chat_url
    jobs: list[dict[str, Any]] = [
        {
            "id": f"approve/{api}",
            "kind": "approval",
            "url": url(api, "weather_and_chart", "async" if i % 2 else "sync", "approve"),
            "chatId": f"approve-{api}",
            "prompt": PROMPT,
            "approved": True,
            "forgeFirst": api == "anthropic",
        }
        for i, api in enumerate(APIS)
    ]
    jobs += [
        {
            "id": "deny",
            "kind": "approval",
            "url": url("anthropic", "tool_choice_forced", "async", "approve"),
            "chatId": "deny",
            "prompt": "I'm in Paris.",
            "approved": False,
            "reason": "Not now",
        },
        {
            "id": "client",
            "kind": "clientTool",
            "url": url("openai-chat", "weather_and_chart", "async", "client"),
            "chatId": "client",
            "prompt": PROMPT,
            "tool": "make_chart",
            "output": PNG,
        },
        {
            "id": "suspend",
            "kind": "answerData",
            "url": url("anthropic", "weather_and_chart", "sync", "suspend"),
            "chatId": "suspend",
            "prompt": PROMPT,
            "dataPart": "data-tool-suspended",
            "answer": "resume",
            "output": {"unit": "celsius"},
        },
        {
            "id": "suspend-refused",
            "kind": "answerData",
            "url": url("openai-chat", "weather_and_chart", "async", "suspend"),
            "chatId": "suspend-refused",
            "prompt": PROMPT,
            "dataPart": "data-tool-suspended",
            "answer": "resume",
            "refusedOutput": {"unit": "kelvin"},
            "output": {"unit": "celsius"},
        },
        {
            "id": "card",
            "kind": "answerData",
            "url": url("gemini", "weather_and_chart", "async", "card"),
            "chatId": "card",
            "prompt": PROMPT,
            "dataPart": "data-action-required",
            "answer": "card",
            "buttonId": "confirm",
        },
    ]
    results: dict[str, Any] = node.run("hitl.mjs", {"flows": jobs})
    return results


def tool_part(message: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in message["parts"] if p["type"] == f"tool-{name}")


def model_calls(message: dict[str, Any]) -> int:
    return sum(p["type"] == "step-start" for p in message["parts"])


def assert_clean(flow: dict[str, Any]) -> None:
    """The SDK accepted every exchange and ends with the user message and one assistant message."""
    assert flow["errors"] == []
    assert flow["status"] == "ready"
    assert flow["validation"] is None
    assert flow["frameProblems"] == []
    assert flow["statuses"] == [200, 200]
    assert [m["role"] for m in flow["messages"]] == ["user", "assistant"]


@pytest.mark.parametrize("api", APIS)
def test_an_approval_request_carries_an_unguessable_id(flows: dict[str, Any], api: str) -> None:
    """The paused message asks for approval with a random id; the other call already ran."""
    flow = flows[f"approve/{api}"]
    assert flow["asked"]["state"] == "approval-requested"
    assert re.fullmatch(r"approval_[A-Za-z0-9_-]{22}", flow["asked"]["approval"]["id"])
    assert tool_part(flow["paused"], "make_chart")["state"] == "output-available"
    assert flow["paused"]["metadata"]["paused"] is True


@pytest.mark.parametrize("api", APIS)
def test_an_approved_call_runs_and_the_run_finishes_in_the_same_message(flows: dict[str, Any], api: str) -> None:
    """After addToolApprovalResponse the call runs first, then the model answers once."""
    flow = flows[f"approve/{api}"]
    assert_clean(flow)
    message = flow["messages"][1]
    weather = tool_part(message, "get_weather")
    assert weather["state"] == "output-available"
    assert weather["output"] == {**WEATHER, "unit": weather["input"].get("unit", "celsius")}
    assert weather["approval"]["approved"] is True
    assert message["id"] == flow["paused"]["id"]
    assert model_calls(message) == 2
    assert message["parts"][-1]["type"] == "text"
    assert message["metadata"]["finishReason"] == "stop"
    assert message["metadata"]["paused"] is False
    assert [s["finishReason"] for s in message["metadata"]["steps"]] == ["tool-calls", "stop"]


@pytest.mark.parametrize("api", APIS)
def test_a_replayed_approval_is_refused(flows: dict[str, Any], api: str) -> None:
    """Posting the answering request again finds nothing waiting: 409 with the reason."""
    replayed = flows[f"approve/{api}"]["replayed"]
    assert replayed["status"] == 409
    assert "waits for answers in message" in replayed["text"]


def test_a_forged_approval_id_is_refused_and_the_run_still_waits(flows: dict[str, Any]) -> None:
    """An approval id the server never issued is refused; the real answer then goes through."""
    flow = flows["approve/anthropic"]
    assert flow["forged"]["status"] == 409
    assert "approval 'approval_forged'" in flow["forged"]["text"]
    assert "never issued by this server" in flow["forged"]["text"]
    assert tool_part(flow["messages"][1], "get_weather")["state"] == "output-available"


def test_a_denied_call_ends_denied_without_asking_the_model(flows: dict[str, Any]) -> None:
    """A denial with a reason: the part ends `output-denied`; the run had no model call left."""
    flow = flows["deny"]
    assert_clean(flow)
    weather = tool_part(flow["messages"][1], "get_weather")
    assert weather["state"] == "output-denied"
    assert weather["approval"] == {
        "id": flow["asked"]["approval"]["id"],
        "approved": False,
        "reason": "Not now",
        "descriptor": {"city": "Paris"},
    }
    assert model_calls(flow["messages"][1]) == 1


def test_a_browser_side_tool_gets_its_output_from_the_browser(flows: dict[str, Any]) -> None:
    """make_chart without execute: onToolCall supplies the PNG, the run continues with it."""
    flow = flows["client"]
    assert_clean(flow)
    assert [c["toolName"] for c in flow["calls"]] == ["make_chart"]
    message = flow["messages"][1]
    chart = tool_part(message, "make_chart")
    assert chart["state"] == "output-available"
    assert chart["output"] == PNG
    assert tool_part(message, "get_weather")["output"] == WEATHER
    assert model_calls(message) == 2
    assert message["metadata"]["finishReason"] == "stop"


def test_a_suspended_call_resumes_with_the_browser_data(flows: dict[str, Any]) -> None:
    """The suspension shows as a data part; the answer resumes the call, whose real output replaces it."""
    flow = flows["suspend"]
    assert_clean(flow)
    assert flow["shown"]["data"] == {
        "toolCallId": tool_part(flow["paused"], "get_weather")["toolCallId"],
        "toolName": "get_weather",
        "payload": {"question": "Which unit?", "options": ["celsius", "fahrenheit"]},
        "status": "suspended",
    }
    message = flow["messages"][1]
    assert tool_part(message, "get_weather")["output"] == WEATHER
    suspended = next(p for p in message["parts"] if p["type"] == "data-tool-suspended")
    assert suspended["data"]["status"] == "resumed"
    assert model_calls(message) == 2
    assert flow["replayed"]["status"] == 409


def test_a_card_press_resumes_the_target_call(flows: dict[str, Any]) -> None:
    """The card shows its buttons (not their inputs); pressing one gives its input as the result."""
    flow = flows["card"]
    assert_clean(flow)
    card = flow["shown"]["data"]["card"]
    assert card["title"] == "Confirm the city"
    assert card["elements"] == [{"type": "button", "id": "confirm", "label": "Use Paris", "variant": "primary"}]
    message = flow["messages"][1]
    assert tool_part(message, "get_weather")["output"] == {"content": WEATHER}
    shown = next(p for p in message["parts"] if p["type"] == "data-action-required")
    assert shown["data"]["status"] == "answered"
    assert model_calls(message) == 2
    assert flow["replayed"]["status"] == 409


def test_resume_data_the_tool_refuses_leaves_the_call_waiting_with_the_reason(flows: dict[str, Any]) -> None:
    """Kelvin fails the resume schema: the part waits again and says why; celsius then resumes it."""
    flow = flows["suspend-refused"]
    assert flow["errors"] == []
    assert flow["statuses"] == [200, 200, 200]
    refused = flow["refused"]
    assert tool_part(refused, "get_weather")["state"] == "input-available"
    suspended = next(p for p in refused["parts"] if p["type"] == "data-tool-suspended")
    assert suspended["data"]["status"] == "suspended"
    assert "kelvin" in suspended["data"]["errorText"]
    assert refused["metadata"]["paused"] is True
    message = flow["messages"][1]
    assert tool_part(message, "get_weather")["output"] == WEATHER
    assert "errorText" not in next(p for p in message["parts"] if p["type"] == "data-tool-suspended")["data"]
    assert message["metadata"]["finishReason"] == "stop"
