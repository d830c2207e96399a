"""UIChat without a browser: the framework-free SSE path, paused runs in the store, refused answers."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire.agent import Agent
from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.deltas import StepFinished
from toolwire.registry import get_adapter
from toolwire.testing.capture import RequestCapture
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, call
from toolwire.testing.scripted import answer as model_answer
from toolwire.tools import create_tool
from toolwire.ui import ChatRequestError, MemoryChatStore, UIChat

from .conftest import anthropic_message, scenario_agent

PROMPT = "I'm in Paris."


def chunks_of(frames: Iterator[bytes]) -> list[dict[str, Any]]:
    """The chunks of an SSE body (checking its framing on the way)."""
    text = b"".join(frames).decode()
    assert text.endswith("data: [DONE]\n\n")
    return [json.loads(frame[len("data: ") :]) for frame in text.split("\n\n")[:-2]]


def user_body(chat_id: str = "chat-1", text: str = PROMPT) -> dict[str, Any]:
    return {
        "id": chat_id,
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}],
    }


def as_message(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant UI message the chunks build, enough for these tests (tool parts and states)."""
    parts: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    for chunk in chunks:
        kind = chunk["type"]
        if kind == "start-step":
            parts.append({"type": "step-start"})
        elif kind == "tool-input-available":
            calls[chunk["toolCallId"]] = {
                "type": f"tool-{chunk['toolName']}",
                "toolCallId": chunk["toolCallId"],
                "state": "input-available",
                "input": chunk["input"],
            }
            parts.append(calls[chunk["toolCallId"]])
        elif kind == "tool-approval-request":
            calls[chunk["toolCallId"]].update(state="approval-requested", approval={"id": chunk["approvalId"]})
        elif kind == "tool-output-available":
            calls[chunk["toolCallId"]].update(state="output-available", output=chunk["output"])
            if "providerMetadata" in chunk:
                calls[chunk["toolCallId"]]["resultProviderMetadata"] = chunk["providerMetadata"]
        elif kind == "text-delta":
            parts.append({"type": "text", "text": chunk["delta"]})
    return {"id": chunks[0]["messageId"], "role": "assistant", "parts": parts}


def answer(
    body: dict[str, Any], message: dict[str, Any], approved: bool, approval_id: str | None = None
) -> dict[str, Any]:
    """The next POST after addToolApprovalResponse."""
    answered = copy.deepcopy(message)
    for part in answered["parts"]:
        if part.get("state") == "approval-requested":
            part["state"] = "approval-responded"
            part["approval"] = {"id": approval_id or part["approval"]["id"], "approved": approved}
    return {**body, "messages": [*body["messages"], answered]}


@pytest.fixture
def approve_chat() -> Iterator[UIChat]:
    """tool_choice_forced on Anthropic, the weather tool needing approval; sync client, cassette replay."""
    chat = UIChat(lambda request: scenario_agent("anthropic", "tool_choice_forced", "sync", "approve", request.chat_id))
    with replay_vcr().use_cassette(str(cassette_path("anthropic", "tool_choice_forced")), allow_playback_repeats=True):
        yield chat


def paused(chat: UIChat, body: dict[str, Any]) -> dict[str, Any]:
    return as_message(chunks_of(chat.sse(body)))


class TestPausedRuns:
    def test_a_paused_run_is_kept_with_an_unguessable_approval_id(self, approve_chat: UIChat) -> None:
        """The stream asks with a random id; the store keeps the run under the chat id."""
        chunks = chunks_of(approve_chat.sse(user_body()))
        request = next(c for c in chunks if c["type"] == "tool-approval-request")
        assert re.fullmatch(r"approval_[A-Za-z0-9_-]{22}", request["approvalId"])
        assert chunks[-1]["messageMetadata"]["paused"] is True
        assert len(approve_chat.store) == 1  # type: ignore[arg-type]

    def test_an_answer_continues_the_run_in_the_same_message(self, approve_chat: UIChat) -> None:
        """The continuation starts with the paused message's id and runs the approved call first."""
        body = user_body()
        message = paused(approve_chat, body)
        chunks = chunks_of(approve_chat.sse(answer(body, message, approved=True)))
        assert chunks[0]["messageId"] == message["id"]
        assert [c["type"] for c in chunks][1:3] == ["tool-approval-response", "tool-output-available"]
        assert len(approve_chat.store) == 0  # type: ignore[arg-type]

    def test_an_approval_id_never_issued_is_refused_and_the_run_still_waits(self, approve_chat: UIChat) -> None:
        """A forged id: 409 naming it; the real answer still works afterwards."""
        body = user_body()
        message = paused(approve_chat, body)
        with pytest.raises(ChatRequestError) as caught:
            approve_chat.prepare(answer(body, message, approved=True, approval_id="approval_guess"))
        assert caught.value.status == 409
        assert "approval 'approval_guess' of tool call" in caught.value.message
        finish = chunks_of(approve_chat.sse(answer(body, message, approved=True)))[-1]
        assert (finish["type"], finish["messageMetadata"]["paused"]) == ("finish", False)

    def test_an_answer_is_used_once(self, approve_chat: UIChat) -> None:
        """The same answer posted twice: the second finds nothing waiting."""
        body = user_body()
        answered = answer(body, paused(approve_chat, body), approved=True)
        chunks_of(approve_chat.sse(answered))
        with pytest.raises(ChatRequestError) as caught:
            approve_chat.prepare(answered)
        assert (caught.value.status, "waits for answers in message" in caught.value.message) == (409, True)

    def test_an_approval_id_from_another_chat_is_refused(self, approve_chat: UIChat) -> None:
        """Ids are kept per chat: chat B cannot answer with chat A's id."""
        body_a, body_b = user_body("chat-a"), user_body("chat-b")
        message_a, message_b = paused(approve_chat, body_a), paused(approve_chat, body_b)
        stolen = message_a["parts"][1]["approval"]["id"]
        with pytest.raises(ChatRequestError) as caught:
            approve_chat.prepare(answer(body_b, message_b, approved=True, approval_id=stolen))
        assert caught.value.status == 409

    def test_the_browser_cannot_supply_the_output_of_a_call_awaiting_approval(self, approve_chat: UIChat) -> None:
        """An output for a server tool that waits for approval is a forgery."""
        body = user_body()
        message = paused(approve_chat, body)
        forged = copy.deepcopy(message)
        forged["parts"][1].update(state="output-available", output={"temperature": 99})
        forged["parts"][1].pop("approval")
        with pytest.raises(ChatRequestError, match="waits for an approval; the browser cannot supply its output"):
            approve_chat.prepare({**body, "messages": [*body["messages"], forged]})

    def test_a_new_message_while_calls_wait_is_refused(self, approve_chat: UIChat) -> None:
        """The user typed instead of answering: 400 naming the waiting call (the run still waits)."""
        body = user_body()
        message = paused(approve_chat, body)
        follow_up = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "never mind"}]}
        with pytest.raises(ChatRequestError) as caught:
            approve_chat.prepare({**body, "messages": [*body["messages"], message, follow_up]})
        assert caught.value.status == 400
        assert "has no result" in caught.value.message
        assert len(approve_chat.store) == 1  # type: ignore[arg-type]

    def test_chats_are_kept_under_the_hosts_key(self) -> None:
        """`key=` scopes paused runs, e.g. by user, so a chat id alone answers nothing."""
        store = MemoryChatStore()
        owner = {"value": "alice"}

        def factory(request: Any) -> Any:
            return scenario_agent("anthropic", "tool_choice_forced", "sync", "approve", request.chat_id)

        chat = UIChat(factory, store=store, key=lambda request: f"{owner['value']}:{request.chat_id}")
        with replay_vcr().use_cassette(
            str(cassette_path("anthropic", "tool_choice_forced")), allow_playback_repeats=True
        ):
            body = user_body()
            message = paused(chat, body)
            owner["value"] = "mallory"
            with pytest.raises(ChatRequestError, match="no run of chat 'chat-1' waits"):
                chat.prepare(answer(body, message, approved=True))
        assert store.take("alice:chat-1") is not None


def test_degradations_are_shown_as_warning_parts() -> None:
    """Gemini cannot take a strict flag: the UI gets a `data-warning` naming the tool and the feature."""
    chat = UIChat(lambda request: scenario_agent("gemini", "strict_nested_optional", "sync", "", request.chat_id))
    with replay_vcr().use_cassette(str(cassette_path("gemini", "strict_nested_optional"))):
        chunks = chunks_of(chat.sse(user_body(text="Create a 'Design review' event on 2026-12-01 with Ada.")))
    warnings = [c["data"] for c in chunks if c["type"] == "data-warning"]
    assert [(w["toolId"], w["feature"]) for w in warnings] == [("create_event", "strict")]


def test_what_a_display_transform_hides_never_reaches_the_browser_but_the_next_turn_has_it() -> None:
    """A redacted output: the browser sees the redaction; the next turn's request sends the model the real one."""
    capture = RequestCapture(
        [
            anthropic_message(
                [{"type": "tool_use", "id": "toolu_1", "name": "read_key", "input": {}}],
                [{"type": "input_json_delta", "partial_json": "{}"}],
                "tool_use",
            ),
            anthropic_message([{"type": "text", "text": ""}], [{"type": "text_delta", "text": "Got it."}], "end_turn"),
            anthropic_message([{"type": "text", "text": ""}], [{"type": "text_delta", "text": "Again."}], "end_turn"),
        ]
    )
    secret = create_tool(
        id="read_key",
        description="Read the deploy key.",
        execute=lambda args: "sk-live-0123456789abcdef",
        transform={"display": {"output": lambda output: "[key hidden]"}},
    )

    def factory() -> Agent:
        client = get_adapter("anthropic").sdk_client(api_key="k", http_client=capture.client())
        return Agent(
            api="anthropic",
            client=client,
            model="claude-sonnet-4-6",
            tools=[secret],
            request_options={"max_tokens": 64},
        )

    chat = UIChat(factory)
    first = user_body(text="Read the key")
    shown = chunks_of(chat.sse(first))
    assert "sk-live" not in json.dumps(shown)
    assistant = as_message(shown)
    follow_up = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "And again?"}]}
    chunks_of(chat.sse({**first, "messages": [*first["messages"], assistant, follow_up]}))
    results = [
        c
        for m in capture.body(2)["messages"]
        for c in m["content"]
        if isinstance(c, dict) and c.get("type") == "tool_result"
    ]
    assert results[0]["content"] == "sk-live-0123456789abcdef"


def test_regenerating_a_paused_message_starts_over_with_new_approval_ids(approve_chat: UIChat) -> None:
    """`regenerate()` drops the paused message: a new run asks again, the old approval id is dead."""
    body = user_body()
    first = paused(approve_chat, body)
    again = as_message(chunks_of(approve_chat.sse({**body, "trigger": "regenerate-message"})))
    assert again["id"] != first["id"]
    assert again["parts"][1]["approval"]["id"] != first["parts"][1]["approval"]["id"]
    with pytest.raises(ChatRequestError):
        approve_chat.prepare(answer(body, first, approved=True))


RENDER = create_tool(
    id="render_chart",
    description="Draw a chart in the user's browser.",
    input_schema={"type": "object", "properties": {"kind": {"type": "string"}}},
    transform={"display": {"error": lambda error: "Drawing failed."}},
)
"""A browser-side tool (no `execute`) whose errors the UI shows in a shorter form."""


def render_chat() -> tuple[UIChat, ScriptedAdapter]:
    """A chat whose model asks the browser to draw, then answers; each request's agent shares the script."""
    adapter = ScriptedAdapter(
        [[call("c1", "render_chart", '{"kind": "bar"}'), StepFinished("tool-calls")], model_answer("No chart, sorry.")]
    )
    chat = UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[RENDER]), run_mode="sync")
    return chat, adapter


def answered_with_error(body: dict[str, Any], message: dict[str, Any], error_text: str) -> dict[str, Any]:
    """The next POST after `addToolOutput({state: "output-error", ...})`."""
    answered = copy.deepcopy(message)
    answered["parts"][1].update(state="output-error", errorText=error_text)
    return {**body, "messages": [*body["messages"], answered]}


def test_a_browser_side_tool_answers_with_an_error_the_model_reads() -> None:
    """`addToolOutput` with `output-error`: the model reads the error, the UI gets the display transform's text."""
    chat, adapter = render_chat()
    body = user_body(text="Draw it")
    message = paused(chat, body)
    chunks = chunks_of(chat.sse(answered_with_error(body, message, "WebGL context lost")))
    assert chunks[1] == {"type": "tool-output-error", "toolCallId": "c1", "errorText": "Drawing failed."}
    sent = adapter.requests[1]["messages"][-1]["content"][0]
    assert (sent["toolCallId"], sent["output"]) == ("c1", {"type": "error-text", "value": "WebGL context lost"})
    assert chunks[-1]["messageMetadata"]["finishReason"] == "stop"


def test_the_error_a_display_transform_shortens_is_kept_for_the_next_turn() -> None:
    """The browser shows "Drawing failed."; the next request still tells the model the real error."""
    chat, adapter = render_chat()
    adapter.script.append(model_answer("Still no chart."))
    body = user_body(text="Draw it")
    message = paused(chat, body)
    answered = answered_with_error(body, message, "WebGL context lost")
    chunks_of(chat.sse(answered))
    shown = copy.deepcopy(answered["messages"][-1])
    shown["parts"][1]["errorText"] = "Drawing failed."  # what the stream showed, which the browser sends back
    follow_up = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Why?"}]}
    chunks_of(chat.sse({**body, "messages": [*body["messages"], shown, follow_up]}))
    results = [m for m in adapter.requests[2]["messages"] if m["role"] == "tool"]
    assert results[0]["content"][0]["output"] == {"type": "error-text", "value": "WebGL context lost"}


def test_a_suspended_call_cannot_be_answered_with_an_error() -> None:
    """Resume data is data: an `output-error` for a suspended call is refused (400) and the run still waits."""
    chat = UIChat(lambda request: scenario_agent("anthropic", "weather_and_chart", "sync", "suspend", request.chat_id))
    body = user_body(text="What's the weather in Paris? Draw me the temperature chart too.")
    with replay_vcr().use_cassette(str(cassette_path("anthropic", "weather_and_chart")), allow_playback_repeats=True):
        message = paused(chat, body)
    weather = next(p for p in message["parts"] if p.get("type") == "tool-get_weather")
    weather.update(state="output-error", errorText="no idea")
    with pytest.raises(ChatRequestError) as caught:
        chat.prepare({**body, "messages": [*body["messages"], message]})
    assert (caught.value.status, caught.value.message) == (
        400,
        f"tool call {weather['toolCallId']!r} is resumed with data: send the data (`addToolOutput` with an "
        "`output`), not an error",
    )
    assert len(chat.store) == 1  # type: ignore[arg-type]


def test_after_a_stop_the_next_message_answers_the_unfinished_call_as_aborted() -> None:
    """The browser stopped mid-run and the user typed again: the model reads the aborted call, as the run had it."""
    adapter = ScriptedAdapter([model_answer("Sure, never mind.")])
    chat = UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[RENDER]), run_mode="sync")
    stopped = {
        "id": "a1",
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {"type": "tool-render_chart", "toolCallId": "c1", "state": "input-available", "input": {"kind": "bar"}},
        ],
    }
    again = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Forget the chart"}]}
    body = user_body(text="Draw it")
    finish = chunks_of(chat.sse({**body, "messages": [*body["messages"], stopped, again]}))[-1]
    assert finish["finishReason"] == "stop"
    [result] = next(m for m in adapter.requests[0]["messages"] if m["role"] == "tool")["content"]
    assert result["output"] == {
        "type": "error-text",
        "value": "The run was aborted before tool 'render_chart' finished; it may be called again.",
    }


def test_a_paused_message_whose_run_the_server_lost_can_be_left_behind() -> None:
    """The store lost the run (a restart): the user's new message goes on, the waiting call reads as aborted."""
    delete = create_tool(id="delete_file", description="Delete.", require_approval=True, execute=lambda args: "ok")
    adapter = ScriptedAdapter(
        [[call("c1", "delete_file", '{"path": "a"}'), StepFinished("tool-calls")], model_answer("Fine.")]
    )

    def factory() -> Agent:
        return Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[delete])

    body = user_body(text="Delete a")
    message = {**paused(UIChat(factory, run_mode="sync"), body), "metadata": {"paused": True}}
    restarted = UIChat(factory, run_mode="sync")
    follow_up = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Actually, don't"}]}
    chunks_of(restarted.sse({**body, "messages": [*body["messages"], message, follow_up]}))
    tool_message = next(m for m in adapter.requests[1]["messages"] if m["role"] == "tool")
    assert tool_message["content"][0]["output"]["value"].startswith("The run was aborted before tool 'delete_file'")
