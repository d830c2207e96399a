"""The real AI SDK reads every bundled scenario's whole agent run, on every adapter, as toolwire.ui serves it.

One node process reads each run twice: with `DefaultChatTransport` + `readUIMessageStream` (the
server runs the agent with its sync SDK client) and with `@ai-sdk/react`'s `Chat` (async
client). The SDK must accept every chunk, build one assistant message whose parts are the
run's events, and `validateUIMessages` must pass; the UI messages then rebuild the conversation
the run recorded, request for request.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.conformance.cassette import cassette_path, events_path, replay_vcr
from toolwire.conformance.fixtures import ToolLog
from toolwire.conformance.runner import _expected_events, _run_agent, build_agent, replay_client
from toolwire.conformance.scenarios import DEFAULT_MODELS, scenario
from toolwire.messages import AssistantMessage, message_to_dict
from toolwire.ui import read_ui_messages
from toolwire.ui.protocol import DISPLAY_DATA_PARTS

from .conftest import Node, ScenarioServer, scenario_cases

CASES = scenario_cases()
SOURCE_PARTS = ("source-url", "source-document", "file")
USE_CHAT = {("anthropic", "weather_and_chart"), ("openai-responses", "reasoning_call")}


@pytest.fixture(scope="module")
def sdk_results(node: Node, scenario_server: ScenarioServer) -> dict[str, Any]:
    """What the SDK made of every case (one node run for all of them)."""
    cases = [
        {
            "id": f"{api}/{name}",
            "prompt": scenario(name).prompt,
            "transportUrl": scenario_server.chat_url(api, name, "sync"),
            "chatUrl": scenario_server.chat_url(api, name, "async"),
            "useChat": (api, name) in USE_CHAT,
        }
        for api, name in CASES
    ]
    results: dict[str, Any] = node.run("scenarios.mjs", {"cases": cases})
    return results


def expected_parts(steps: list[list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], str | None]:
    """The parts a run's events describe, and the error text that ends the client's reading (if any)."""
    parts: list[dict[str, Any]] = []
    open_parts: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    for event in (e for step in steps for e in step):
        kind = event["type"]
        if kind == "error":
            return parts, event["errorText"]
        if kind == "start-step":
            parts.append({"type": "step-start"})
        elif kind.startswith(("text-", "reasoning-")):
            _expect_text(event, parts, open_parts)
        elif kind.startswith("tool-"):
            _expect_tool(event, parts, tools)
        elif kind in SOURCE_PARTS:
            parts.append(event)  # the chunk is the part, field for field
    return parts, None


def _expect_text(event: dict[str, Any], parts: list[dict[str, Any]], open_parts: dict[str, dict[str, Any]]) -> None:
    part_kind, _, stage = event["type"].partition("-")
    key = f"{part_kind}:{event['id']}"
    if key not in open_parts:
        open_parts[key] = {"type": part_kind, "text": ""}
        parts.append(open_parts[key])
    part = open_parts[key]
    part["text"] += event.get("delta", "")
    if "providerMetadata" in event:
        part["providerMetadata"] = event["providerMetadata"]
    if stage == "end":
        del open_parts[key]


def _expect_tool(event: dict[str, Any], parts: list[dict[str, Any]], tools: dict[str, dict[str, Any]]) -> None:
    kind, call_id = event["type"], event["toolCallId"]
    if kind == "tool-output-available":
        tools[call_id].update(state="output-available", output=event["output"])
        return
    if kind == "tool-output-error":
        tools[call_id].update(state="output-error", errorText=event["errorText"])
        return
    if kind == "tool-input-delta":
        return
    if call_id not in tools:
        tools[call_id] = {"type": f"tool-{event['toolName']}", "toolCallId": call_id}
        parts.append(tools[call_id])
    call = tools[call_id]
    states = {"tool-input-start": "input-streaming", "tool-input-available": "input-available"}
    call["state"] = states.get(kind, "output-error")
    for field in ("input", "errorText", "providerExecuted"):
        if field in event:
            call[field] = event[field]
    if "providerMetadata" in event:
        call["callProviderMetadata"] = event["providerMetadata"]


def shown_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """An SDK message's parts, without toolwire's data parts and the SDK's own bookkeeping fields."""
    kept = ("type", "text", "toolCallId", "state", "input", "output", "errorText", "providerExecuted")
    kept += ("sourceId", "url", "title", "mediaType", "filename")
    parts = []
    for part in message["parts"]:
        if part["type"].startswith("data-"):
            continue
        shown = {k: v for k, v in part.items() if k in kept and v is not None}
        if part["type"] in ("text", "reasoning", *SOURCE_PARTS):
            shown.pop("state", None)
            if part.get("providerMetadata"):
                shown["providerMetadata"] = part["providerMetadata"]
        elif part.get("callProviderMetadata"):
            shown["callProviderMetadata"] = part["callProviderMetadata"]
        parts.append(shown)
    return parts


def expected_steps(api: str, name: str) -> list[list[dict[str, Any]]]:
    steps = _expected_events(events_path(api, name))
    assert steps is not None
    return steps


@pytest.mark.parametrize(("api", "name"), CASES)
def test_the_transport_reads_one_valid_message_per_run(sdk_results: dict[str, Any], api: str, name: str) -> None:
    """DefaultChatTransport + readUIMessageStream: every frame valid and strict, one message, parts = events."""
    result = sdk_results[f"{api}/{name}"]["transport"]
    parts, error = expected_parts(expected_steps(api, name))
    assert result["frameProblems"] == []
    assert result["status"] == 200
    assert result["headers"]["x-vercel-ai-ui-message-stream"] == "v1"
    assert result["headers"]["content-type"].startswith("text/event-stream")
    assert len(result["messageIds"]) == 1
    assert result["errors"] == ([error] if error else [])
    assert result["validation"] is None
    assert shown_parts(result["message"]) == parts


@pytest.mark.parametrize(("api", "name"), CASES)
def test_the_chat_holds_the_user_message_and_one_assistant_message(
    sdk_results: dict[str, Any], api: str, name: str
) -> None:
    """@ai-sdk/react's Chat: no SDK error (an error event of the run is the chat's error), parts = events."""
    result = sdk_results[f"{api}/{name}"]["chat"]
    parts, error = expected_parts(expected_steps(api, name))
    assert [m["role"] for m in result["messages"]] == ["user", "assistant"]
    assert result["status"] == ("error" if error else "ready")
    assert result["error"] == error
    assert result["validation"] is None
    assert shown_parts(result["messages"][1]) == parts


@pytest.mark.parametrize(("api", "name"), CASES)
def test_the_message_metadata_sums_usage_over_steps(sdk_results: dict[str, Any], api: str, name: str) -> None:
    """The finish metadata: the run's finish reason and usage (summed over steps), model and api."""
    metadata = sdk_results[f"{api}/{name}"]["transport"]["message"]["metadata"]
    steps = expected_steps(api, name)
    finish = [e for step in steps for e in step if e["type"] == "finish"]
    step_finishes = [e for step in steps for e in step if e["type"] == "finish-step"]
    assert metadata["api"] == api
    assert metadata["model"] == scenario(name).models.get(api, DEFAULT_MODELS[api])
    assert [s.get("finishReason") for s in metadata["steps"]] == [e["finishReason"] for e in step_finishes]
    if finish:
        assert metadata["finishReason"] == finish[-1]["finishReason"]
        assert metadata.get("usage") == finish[-1].get("usage")


@pytest.mark.parametrize(("api", "name"), CASES)
def test_data_parts_are_only_the_documented_ones(sdk_results: dict[str, Any], api: str, name: str) -> None:
    """Whatever toolwire adds is one of its documented data parts."""
    message = sdk_results[f"{api}/{name}"]["chat"]["messages"][1]
    kinds = {p["type"] for p in message["parts"] if p["type"].startswith("data-")}
    assert kinds <= DISPLAY_DATA_PARTS


@pytest.mark.parametrize(("api", "name"), sorted(USE_CHAT))
def test_use_chat_renders_the_same_message(sdk_results: dict[str, Any], api: str, name: str) -> None:
    """useChat (rendered with React) ends with the same messages as the Chat class."""
    result = sdk_results[f"{api}/{name}"]
    assert result["useChat"]["status"] == "ready"
    assert shown_parts(result["useChat"]["messages"][1]) == shown_parts(result["chat"]["messages"][1])


def _original_run(api: str, name: str) -> list[Any]:
    with replay_vcr().use_cassette(str(cassette_path(api, name))):
        _log, _events, summary = _run_agent(api, scenario(name), "sync")
    return summary.messages


@pytest.mark.parametrize(("api", "name"), CASES)
def test_the_ui_messages_rebuild_the_recorded_conversation(sdk_results: dict[str, Any], api: str, name: str) -> None:
    """UIMessage[] → messages gives the run's own conversation, so every request is built the same."""
    ui_messages = sdk_results[f"{api}/{name}"]["chat"]["messages"]
    rebuilt = read_ui_messages(ui_messages).messages
    original = _original_run(api, name)
    assert [message_to_dict(m) for m in rebuilt] == [message_to_dict(m) for m in original]


@pytest.mark.parametrize(("api", "name"), CASES)
def test_the_rebuilt_conversation_sends_the_recorded_last_request(
    sdk_results: dict[str, Any], api: str, name: str
) -> None:
    """The conversation read back from the UI, up to the last model call, sends exactly the recorded request."""
    item = scenario(name)
    rebuilt = read_ui_messages(sdk_results[f"{api}/{name}"]["chat"]["messages"]).messages
    last_call = max(i for i, m in enumerate(rebuilt) if isinstance(m, AssistantMessage))
    step = sum(isinstance(m, AssistantMessage) for m in rebuilt[:last_call])
    with replay_vcr().use_cassette(str(cassette_path(api, name))) as cassette:
        cassette.play_counts.update(range(step))  # the earlier calls are not asked again
        agent = build_agent(api, item, replay_client(api, "sync"), ToolLog())
        agent.import_state({"messages": [message_to_dict(m) for m in rebuilt[:last_call]]})
        agent.max_steps = 1
        for _ in agent.stream(None):  # vcr refuses a request whose JSON body differs from the recorded one
            pass
        assert cassette.play_counts[step] == 1
