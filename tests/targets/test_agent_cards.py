"""Specification of action cards inside an agent run: a press through `agent.toolbox` resumes the run's call."""

from __future__ import annotations

from typing import Any

from toolwire import Agent
from toolwire.deltas import StepFinished
from toolwire.targets import dismiss, press
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call

THREAD = {"thread_id": "thread-1"}
GMAIL = {"type": "app", "component": "api", "path": "/tools/gmail-search", "method": "POST"}


def _agent(make_tool: Any, make_host: Any) -> tuple[Agent, ScriptedAdapter]:
    tool = make_tool(GMAIL, make_host(), tool_id="gmail_search")
    adapter = ScriptedAdapter(
        [[call("c1", "gmail_search", "{}"), StepFinished("tool-calls")], answer("Gmail is connected.")]
    )
    return Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[tool], request_context=THREAD), adapter


async def test_a_card_press_resumes_the_call_in_the_run_and_the_target_runs_once(
    make_tool: Any, make_host: Any, handler: Any
) -> None:
    """The handler is asked once, the button's target once; the model reads the press's result."""
    agent, adapter = _agent(make_tool, make_host)
    paused = await agent.arun("search my mail")
    (suspension,) = paused.suspended
    outcome = await press(agent.toolbox, "c1", "connect", card_id=suspension.payload["cardId"], request_context=THREAD)
    events = [e.to_dict() async for e in agent.astream()]
    result = agent.result()
    assert [s.path for s in handler.seen] == ["/tools/gmail-search", "/oauth/start"]
    assert (result.text, result.paused, result.suspended) == ("Gmail is connected.", False, [])
    connected = {"type": "text", "value": "Connected with gmail.readonly in thread thread-1"}
    assert adapter.requests[1]["messages"][-1]["content"][0]["output"] == connected
    assert outcome.output == connected  # type: ignore[union-attr]
    assert events[:2] == [
        {"type": "tool-resumed", "toolCallId": "c1"},
        {
            "type": "tool-output-available",
            "toolCallId": "c1",
            "output": {"content": "Connected with gmail.readonly in thread thread-1"},
        },
    ]


async def test_a_dismissed_card_closes_the_call_in_the_run(make_tool: Any, make_host: Any, handler: Any) -> None:
    """Dismissal is an answer too: the run goes on without asking the handler again."""
    agent, adapter = _agent(make_tool, make_host)
    (suspension,) = (await agent.arun("search my mail")).suspended
    await dismiss(agent.toolbox, "c1", card_id=suspension.payload["cardId"], request_context=THREAD)
    result = await agent.arun()
    assert [s.path for s in handler.seen] == ["/tools/gmail-search"]
    assert result.text == "Gmail is connected."
    assert len(adapter.requests) == 2


async def test_resume_data_that_is_not_a_press_keeps_the_card_and_the_run_paused(
    make_tool: Any, make_host: Any, handler: Any
) -> None:
    """`agent.resume` cannot stand in for a press: a resume error is shown and the card still works."""
    agent, adapter = _agent(make_tool, make_host)
    (suspension,) = (await agent.arun("search my mail")).suspended
    agent.resume("c1", {"buttonId": "connect"})
    events = [e.to_dict() async for e in agent.astream()]
    assert [e["type"] for e in events] == ["tool-resume-error"]
    assert events[0]["errorText"].startswith("this call waits for a press of its card")
    assert agent.result().paused
    await press(agent.toolbox, "c1", "connect", card_id=suspension.payload["cardId"], request_context=THREAD)
    assert (await agent.arun()).text == "Gmail is connected."
    assert [s.path for s in handler.seen] == ["/tools/gmail-search", "/oauth/start"]
    assert len(adapter.requests) == 2
