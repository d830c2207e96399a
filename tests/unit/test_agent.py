"""The agent loop, driven by a scripted adapter whose 'SDK' replays canned deltas."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import Agent, create_tool
from toolwire.deltas import Delta, StepFinished, TextPiece, ToolCallComplete, ToolOutput
from toolwire.messages import AssistantMessage, ToolMessage
from toolwire.results import ToolResult
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter
from toolwire.tools import Tool


def _call(call_id: str, name: str, arguments: str) -> ToolCallComplete:
    return ToolCallComplete(key=call_id, tool_call_id=call_id, name=name, arguments=arguments)


def _weather(log: list[Any]) -> Tool:
    def execute(value: dict[str, Any]) -> dict[str, Any]:
        log.append(value)
        return {"city": value["city"], "temperature": 18, "api_key": "secret-value"}

    return create_tool(
        id="get_weather",
        description="Weather",
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        execute=execute,
        transform={
            "display": {"output": lambda output: {"city": output["city"]}},
            "transcript": {"output": lambda output: {"type": "text", "value": "weather fetched"}},
        },
    )


def _answer(text: str) -> list[Delta]:
    return [TextPiece("t", text), StepFinished("stop")]


def test_a_call_then_an_answer_takes_two_model_calls_and_runs_the_tool_once() -> None:
    """The loop sends the result back and stops when the model answers in text."""
    log: list[Any] = []
    adapter = ScriptedAdapter([[_call("c1", "get_weather", '{"city":"Paris"}'), StepFinished("stop")], _answer("18C")])
    result = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather(log)]).run("Weather in Paris?")
    assert log == [{"city": "Paris"}]
    assert result.text == "18C"
    assert result.steps == 2
    assert result.finish_reason == "stop"
    assert [m["role"] for m in adapter.requests[1]["messages"]] == ["user", "assistant", "tool"]


def test_the_stream_shows_display_transformed_outputs_and_one_finish() -> None:
    """Tool outputs reach the UI stream through the display transform; raw values stay in history."""
    adapter = ScriptedAdapter([[_call("c1", "get_weather", '{"city":"Paris"}'), StepFinished("stop")], _answer("ok")])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather([])])
    events = [e.to_dict() for e in agent.stream("go")]
    outputs = [e for e in events if e["type"] == "tool-output-available"]
    assert outputs == [{"type": "tool-output-available", "toolCallId": "c1", "output": {"city": "Paris"}}]
    assert [e["type"] for e in events].count("finish") == 1
    tool_message = next(m for m in agent.messages if isinstance(m, ToolMessage))
    assert tool_message.content[0].output["value"]["api_key"] == "secret-value"


def test_the_transcript_gets_the_transcript_transform() -> None:
    """The saved transcript shows what the transcript transform allows, never the raw output."""
    adapter = ScriptedAdapter([[_call("c1", "get_weather", '{"city":"Paris"}'), StepFinished("stop")], _answer("ok")])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather([])])
    agent.run("go")
    results = [p for m in agent.transcript if m["role"] == "tool" for p in m["content"]]
    assert results[0]["output"] == {"type": "text", "value": "weather fetched"}


def test_invalid_arguments_are_answered_with_an_error_result_without_running_the_tool() -> None:
    """A call whose input is not JSON gets an error result the model can act on."""
    log: list[Any] = []
    adapter = ScriptedAdapter([[_call("c1", "get_weather", '{"city": '), StepFinished("stop")], _answer("sorry")])
    Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather(log)]).run("go")
    assert log == []
    tool_messages = [m for m in adapter.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"][0]["output"]["type"] == "error-text"
    assert "not valid JSON" in tool_messages[0]["content"][0]["output"]["value"]


def test_max_steps_bounds_the_loop() -> None:
    """A model that keeps calling tools is stopped after max_steps model calls."""
    script = [[_call(f"c{i}", "get_weather", '{"city":"Paris"}'), StepFinished("stop")] for i in range(5)]
    adapter = ScriptedAdapter(script)
    result = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather([])], max_steps=2).run("go")
    assert result.steps == 2
    assert len(adapter.requests) == 2


def _guarded(log: list[str]) -> Tool:
    return create_tool(
        id="delete_file",
        description="Delete a file",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        require_approval=True,
        execute=lambda value: log.append(value["path"]) or "deleted",
    )


def test_a_call_requiring_approval_pauses_the_run_until_approved() -> None:
    """The run stops with a pending approval; approving and running again executes and continues."""
    log: list[str] = []
    adapter = ScriptedAdapter(
        [[_call("c1", "delete_file", '{"path":"/tmp/x"}'), StepFinished("stop")], _answer("done")]
    )
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_guarded(log)])
    paused = agent.run("delete it")
    assert paused.paused
    (request,) = paused.pending_approvals
    assert request.call.tool_call_id == "c1"
    assert log == []
    agent.approve(request.approval_id)
    finished = agent.run()
    assert log == ["/tmp/x"]
    assert finished.text == "done"
    assert not finished.paused


def test_a_denied_call_sends_execution_denied_to_the_model() -> None:
    """Denying gives the model an execution-denied result and the tool never runs."""
    log: list[str] = []
    adapter = ScriptedAdapter([[_call("c1", "delete_file", '{"path":"/tmp/x"}'), StepFinished("stop")], _answer("ok")])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_guarded(log)])
    (request,) = agent.run("delete it").pending_approvals
    agent.deny(request.approval_id, "not today")
    agent.run()
    assert log == []
    sent = [p for m in adapter.requests[1]["messages"] if m["role"] == "tool" for p in m["content"]]
    assert sent[0]["output"] == {"type": "execution-denied", "reason": "not today"}


def test_a_suspended_call_survives_an_export_and_resumes_in_a_new_agent() -> None:
    """Suspension state is JSON: a new agent imports it and resumes the call."""

    def execute(value: dict[str, Any], context: Any) -> str:
        if context.resumed:
            return f"booked with {context.resume_data['choice']}"
        context.suspend({"question": "which room?"})

    booking = create_tool(id="book_room", description="Book", execute=execute)
    first = ScriptedAdapter([[_call("c1", "book_room", "{}"), StepFinished("stop")]])
    agent = Agent(api=first, client=SCRIPTED_CLIENT, model="m", tools=[booking])
    paused = agent.run("book")
    assert [s.payload for s in paused.suspended] == [{"question": "which room?"}]
    state = json.loads(json.dumps(agent.export_state()))

    second = ScriptedAdapter([_answer("booked")])
    restored = Agent(api=second, client=SCRIPTED_CLIENT, model="m", tools=[booking])
    restored.import_state(state)
    restored.resume("c1", {"choice": "B"})
    result = restored.run()
    assert result.text == "booked"
    sent = [p for m in second.requests[0]["messages"] if m["role"] == "tool" for p in m["content"]]
    assert sent[0]["output"] == {"type": "text", "value": "booked with B"}


def test_a_prompt_while_paused_is_refused() -> None:
    """New input cannot be added while calls wait; the error says what to do."""
    adapter = ScriptedAdapter([[_call("c1", "delete_file", '{"path":"/x"}'), StepFinished("stop")]])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_guarded([])])
    agent.run("delete")
    with pytest.raises(ValueError, match="paused on tool calls"):
        agent.run("something else")


async def test_the_async_loop_runs_the_same_conversation() -> None:
    """`arun` goes through `ainvoke` and `anormalize` with the same result."""
    log: list[Any] = []
    adapter = ScriptedAdapter([[_call("c1", "get_weather", '{"city":"Paris"}'), StepFinished("stop")], _answer("18C")])
    result = await Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_weather(log)]).arun("go")
    assert log == [{"city": "Paris"}]
    assert result.text == "18C"
    assert isinstance(result.messages[-1], AssistantMessage)


def test_a_provider_result_arriving_a_response_after_its_call_is_named_after_that_call() -> None:
    """The loop gives `assistant_message` the conversation, so a server tool's late result keeps its tool's name."""
    server_call = ToolCallComplete(
        key="s1", tool_call_id="s1", name="web_search", input={"q": "x"}, has_input=True, provider_executed=True
    )
    adapter = ScriptedAdapter(
        [
            [TextPiece("t", "Searching."), server_call, StepFinished("other")],
            [ToolOutput(tool_call_id="s1", output={"hits": 1}), *_answer("Found it.")],
        ]
    )
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m")
    agent.run("search")
    agent.run()  # continue the turn the provider paused
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.content[0] == ToolResult(
        tool_call_id="s1", tool_name="web_search", output={"type": "json", "value": {"hits": 1}}
    )
