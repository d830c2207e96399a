"""Specification of the runtime's less travelled paths on every api, through each official SDK client.

Offline: each SDK sends through a mock transport answering canned whole responses. Approvals
answered in another process, aborts inside a running tool, denials and provider switches must
leave a conversation every api accepts: each call answered, the secrets a transform hides nowhere
a user reads.
"""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from typing import Any

import httpx2
import pytest

from toolwire import Agent, create_tool
from toolwire.compat import CompatibilityWarning
from toolwire.conformance.wire import request_has_result_for
from toolwire.events import Event
from toolwire.runtime import ToolContext
from toolwire.testing.capture import RequestCapture
from toolwire.tools import Tool

from ._four_apis import APIS, MODELS, OPTIONS, calls_reply, client, text_reply

SECRET = "sk-live-SECRET"
MODES = ("sync", "async")


def _agent(api: str, capture: RequestCapture, tools: list[Tool], mode: str = "sync") -> Agent:
    return Agent(
        api=api,
        client=client(api, capture, asynchronous=mode == "async"),
        model=MODELS[api],
        tools=tools,
        request_options=OPTIONS.get(api),
        stream=False,
    )


def _stream(agent: Agent, mode: str, prompt: str | None = None) -> list[Event]:
    if mode == "sync":
        return list(agent.stream(prompt))

    async def collect() -> list[Event]:
        return [event async for event in agent.astream(prompt)]

    return asyncio.run(collect())


def _customer_lookup(ran: list[str]) -> Tool:
    def lookup(value: dict[str, Any]) -> dict[str, Any]:
        ran.append(value["customerId"])
        return {"displayName": "Acme", "apiKey": SECRET}

    shown = {
        "input": lambda input: {"customerId": input.get("customerId")},
        "output": lambda output: {"displayName": output.get("displayName")},
    }
    return create_tool(
        id="lookup_customer",
        description="Look up a customer.",
        input_schema={
            "type": "object",
            "properties": {"customerId": {"type": "string"}, "internalPath": {"type": "string"}},
            "required": ["customerId"],
        },
        execute=lookup,
        require_approval=True,
        transform={"display": shown, "transcript": shown},
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_an_approval_answered_in_another_agent_runs_the_call_once_and_hides_the_secrets(api: str, mode: str) -> None:
    """Pause, export, import into a new agent, approve, continue: the seed's customer tool end to end."""
    ran: list[str] = []
    asked = calls_reply(api, [("call_1", "lookup_customer", {"customerId": "c-7", "internalPath": SECRET})])
    capture = RequestCapture([asked, text_reply(api, "The customer is Acme.")])
    first = _agent(api, capture, [_customer_lookup(ran)], mode)
    events = _stream(first, mode, "Who is customer c-7?")
    (request,) = first.result().pending_approvals
    saved = json.loads(json.dumps(first.export_state()))
    second = _agent(api, capture, [_customer_lookup(ran)], mode)
    second.import_state(saved)
    second.approve(request.approval_id)
    events += _stream(second, mode)
    assert (ran, second.result().text) == (["c-7"], "The customer is Acme.")
    assert request_has_result_for(api, capture.body(), "call_1")
    assert "Acme" in json.dumps(capture.body())  # the model reads the raw output
    for shown in ([e.to_dict() for e in events], first.transcript, second.transcript):
        assert SECRET not in json.dumps(shown)


@pytest.mark.parametrize("api", APIS)
def test_a_denial_of_one_of_two_parallel_calls_reaches_the_model_with_its_reason(api: str) -> None:
    """One approved, one denied: the approved call runs once, the model reads the reason for the other."""
    ran: list[str] = []
    asked = calls_reply(
        api, [("call_1", "lookup_customer", {"customerId": "a"}), ("call_2", "lookup_customer", {"customerId": "b"})]
    )
    capture = RequestCapture([asked, text_reply(api, "Only a.")])
    agent = _agent(api, capture, [_customer_lookup(ran)])
    approvals = {r.call.tool_call_id: r.approval_id for r in agent.run("Look up a and b").pending_approvals}
    agent.approve(approvals["call_1"])
    assert agent.run().paused
    agent.deny(approvals["call_2"], "Customer b opted out")
    assert agent.run().text == "Only a."
    assert ran == ["a"]
    assert request_has_result_for(api, capture.body(), "call_1")
    assert request_has_result_for(api, capture.body(), "call_2")
    assert "Customer b opted out" in json.dumps(capture.body())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_an_abort_inside_a_running_tool_leaves_a_conversation_that_continues(api: str, mode: str) -> None:
    """The sync tool sees its signal; both parallel calls are answered; the next prompt is a valid request."""
    seen: list[str | None] = []
    agents: list[Agent] = []
    finished = threading.Event()  # the run does not wait for a sync tool's thread to end

    def slow(value: Any, context: ToolContext) -> str:
        agents[0].abort("user stop")
        seen.append(context.abort_signal.reason if context.abort_signal.wait(timeout=30) else None)
        finished.set()
        return "too late"

    tools = [
        create_tool(id="fast", description="Fast.", execute=lambda value: "fast done"),
        create_tool(id="slow", description="Slow.", execute=slow),
    ]
    asked = calls_reply(api, [("call_1", "fast", {}), ("call_2", "slow", {})])
    capture = RequestCapture([asked, text_reply(api, "Next.")])
    agents.append(_agent(api, capture, tools, mode))
    events = _stream(agents[0], mode, "Go")
    assert finished.wait(30)
    assert (events[-1].type, agents[0].result().aborted, seen) == ("abort", True, ["user stop"])
    again = agents[0].run("Again") if mode == "sync" else asyncio.run(agents[0].arun("Again"))
    assert again.text == "Next."
    assert request_has_result_for(api, capture.body(), "call_1")
    assert request_has_result_for(api, capture.body(), "call_2")
    assert "Tool 'slow' was aborted (user stop)." in json.dumps(capture.body())


def _with_reasoning(api: str, response: httpx2.Response) -> httpx2.Response:
    """The response with the provider's own reasoning (and its signature) before the call."""
    body = json.loads(response.content)
    if api == "anthropic":
        body["content"].insert(0, {"type": "thinking", "thinking": "hmm", "signature": "SIGNATURE"})
    elif api == "openai-responses":
        summary = [{"type": "summary_text", "text": "hmm"}]
        body["output"].insert(0, {"type": "reasoning", "id": "rs_1", "summary": summary, "encrypted_content": "SIG"})
    elif api == "gemini":
        parts = body["candidates"][0]["content"]["parts"]
        parts.insert(0, {"text": "hmm", "thought": True, "thoughtSignature": "U0lHTkFUVVJF"})
        parts[1]["thoughtSignature"] = "U0lHTkFUVVJF"
    return httpx2.Response(200, json=body)


SWITCHES = [(old, new) for old in APIS for new in APIS if old != new]


@pytest.mark.parametrize(("old", "new"), SWITCHES, ids=[f"{old}-to-{new}" for old, new in SWITCHES])
def test_a_switch_reports_what_the_history_loses_once(old: str, new: str) -> None:
    """The degradations come back from `switch` and as warnings once; later runs warn of nothing again."""
    weather = create_tool(id="weather", description="Weather.", execute=lambda value: "sunny")
    asked = _with_reasoning(old, calls_reply(old, [("call_1", "weather", {})]))
    agent = _agent(old, RequestCapture([asked, text_reply(old, "Sunny.")]), [weather])
    agent.run("Weather?")
    capture = RequestCapture([text_reply(new, "Still sunny."), text_reply(new, "Yes.")])
    with warnings.catch_warnings(record=True) as at_switch:
        warnings.simplefilter("always")
        lost = agent.switch(api=new, client=client(new, capture), model=MODELS[new], request_options=OPTIONS.get(new))
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        results = [agent.run("Again?"), agent.run("Sure?")]
    assert len([w for w in at_switch if issubclass(w.category, CompatibilityWarning)]) == len(lost)
    assert [w for w in later if issubclass(w.category, CompatibilityWarning)] == []
    assert lost or old == "openai-chat"  # chat's history holds no reasoning of its own to lose
    assert all(result.warnings.count(degradation) == 1 for result in results for degradation in lost)
    assert results[0].text == "Still sunny."
    assert not any(signature in capture.raw_body(0).decode() for signature in ("SIGNATURE", "U0lHTkFUVVJF", '"SIG"'))
    assert request_has_result_for(new, capture.body(0), "call_1")
