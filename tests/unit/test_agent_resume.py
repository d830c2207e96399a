"""Specification of resuming suspended calls in a run: refused data keeps the call waiting; outputs from elsewhere."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.events import Event, ToolResumeError, ToolSuspended
from toolwire.exceptions import ArgumentError, ResumeError
from toolwire.messages import ToolMessage
from toolwire.runtime import Suspension, Toolbox, ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool

SIZE = {"type": "object", "properties": {"size": {"type": "string"}}, "required": ["size"]}
PROBLEM = "Resume data for tool 'ask' is invalid: at `size`: 3 is not of type 'string'."


def _ask(log: list[Any]) -> Tool:
    def execute(value: Any, context: ToolContext) -> str:
        log.append(context.resume_data)
        if not context.resumed:
            context.suspend({"question": "Which size?"})
        return f"size {context.resume_data['size']}"

    return create_tool(id="ask", description="Ask the user.", execute=execute, resume_schema=SIZE)


def _agent(log: list[Any], *more: list[Any]) -> tuple[Agent, ScriptedAdapter]:
    adapter = ScriptedAdapter([[call("c1", "ask", "{}"), StepFinished("tool-calls")], *more])
    return Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_ask(log)]), adapter


class TestToolboxResume:
    async def test_invalid_data_is_an_event_naming_the_problem_and_a_corrected_resume_works(self) -> None:
        """The call stays suspended; the UI is told what is wrong; the right answer then completes it."""
        events: list[Event] = []
        log: list[Any] = []
        box = Toolbox([_ask(log)], on_event=events.append)
        await box.run([{"toolCallId": "c1", "toolName": "ask", "input": {}}])
        await box.resume("c1", {"size": 3})
        assert events[-1] == ToolResumeError(tool_call_id="c1", error_text=PROBLEM)
        assert list(box.suspended) == ["c1"]
        result = await box.resume("c1", {"size": "XL"})
        assert result.output == {"type": "text", "value": "size XL"}  # type: ignore[union-attr]
        assert (log, box.suspended) == ([None, {"size": "XL"}], {})

    async def test_a_toolbox_without_the_tool_refuses_to_resume_its_call(self) -> None:
        """The same for a host driving a toolbox; the call stays suspended."""
        box = Toolbox([_ask([])])
        await box.run([{"toolCallId": "c1", "toolName": "ask", "input": {}}])
        other = Toolbox([])
        other.import_state(box.export_state())
        expected = "tool call 'c1' was suspended by tool 'ask', which this toolbox does not hold (tools: none)"
        with pytest.raises(ResumeError, match=f"^{re.escape(expected)}$"):
            await other.resume("c1", {"size": "S"})
        assert list(other.suspended) == ["c1"]


class TestAgentResume:
    def test_invalid_resume_data_keeps_the_run_paused_with_an_event_and_calls_no_model(self) -> None:
        """Nothing is closed silently: the event names the problem, the call is still listed."""
        log: list[Any] = []
        agent, adapter = _agent(log, answer("done"))
        agent.run("ask me")
        agent.resume("c1", {"size": 3})
        events = list(agent.stream())
        assert events == [ToolResumeError(tool_call_id="c1", error_text=PROBLEM)]
        result = agent.result()
        assert result.paused
        assert [s.tool_call_id for s in result.suspended] == ["c1"]
        assert (len(adapter.requests), log) == (1, [None])

    def test_a_corrected_resume_is_accepted_and_the_model_sees_only_the_result(self) -> None:
        """The refused attempt leaves no trace in the conversation."""
        log: list[Any] = []
        agent, adapter = _agent(log, answer("done"))
        agent.run("ask me")
        agent.resume("c1", {"size": 3})
        agent.run()
        agent.resume("c1", {"size": "XL"})
        events = [e.to_dict() for e in agent.stream()]
        assert events[:2] == [
            {"type": "tool-resumed", "toolCallId": "c1"},
            {"type": "tool-output-available", "toolCallId": "c1", "output": "size XL"},
        ]
        assert agent.result().text == "done"
        tool_messages = [m for m in agent.messages if isinstance(m, ToolMessage)]
        assert [r.output for m in tool_messages for r in m.content] == [{"type": "text", "value": "size XL"}]
        assert adapter.requests[-1]["messages"][-1]["content"][0]["output"] == {"type": "text", "value": "size XL"}

    def test_resuming_a_call_that_is_not_suspended_names_the_waiting_ones(self) -> None:
        """A mistyped id is a caller error, raised at once."""
        agent, _ = _agent([])
        agent.run("ask me")
        with pytest.raises(ResumeError, match=r"^no suspended tool call 'c9' \(suspended: 'c1'\)$"):
            agent.resume("c9", {"size": "S"})

    def test_resuming_a_call_of_a_tool_the_agent_does_not_hold_names_the_tool(self) -> None:
        """State imported into an agent without the tool: a ResumeError at once (was a KeyError inside the run)."""
        agent, adapter = _agent([])
        agent.run("ask me")
        other = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[])
        other.import_state(agent.export_state())
        expected = "tool call 'c1' was suspended by tool 'ask', which this agent does not hold (tools: none)"
        with pytest.raises(ResumeError, match=f"^{re.escape(expected)}$"):
            other.resume("c1", {"size": "S"})

    def test_the_suspension_is_shown_once_with_its_payload(self) -> None:
        """The UI gets the question the tool asked."""
        agent, _ = _agent([])
        assert [e for e in agent.stream("ask me") if isinstance(e, ToolSuspended)] == [
            ToolSuspended(tool_call_id="c1", payload={"question": "Which size?"})
        ]
        assert agent.result().suspended == [
            Suspension(
                tool_call_id="c1",
                tool_name="ask",
                input={},
                payload={"question": "Which size?"},
                display_payload={"question": "Which size?"},
            )
        ]


RENDER = create_tool(
    id="render_chart",
    description="Draw a chart in the user's browser.",
    input_schema={"type": "object", "properties": {"kind": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"pixels": {"type": "integer"}}, "required": ["pixels"]},
)
"""A client-side tool: no `execute`, the front end runs it."""


class TestSuppliedOutputs:
    def _paused(self) -> tuple[Agent, ScriptedAdapter]:
        adapter = ScriptedAdapter(
            [[call("c1", "render_chart", '{"kind": "bar"}'), StepFinished("tool-calls")], answer("drawn")]
        )
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[RENDER])
        result = agent.run("draw it")
        assert [c.tool_call_id for c in result.awaiting_outputs] == ["c1"]
        assert result.paused
        return agent, adapter

    def test_a_call_to_a_tool_without_execute_waits_for_its_output(self) -> None:
        """The run pauses instead of answering 'cannot be run here'."""
        _, adapter = self._paused()
        assert len(adapter.requests) == 1

    def test_a_supplied_output_continues_the_run_without_asking_the_model_first(self) -> None:
        """The output is checked, shown, sent; then the model answers."""
        agent, adapter = self._paused()
        agent.supply_output("c1", {"pixels": 640})
        events = [e.to_dict() for e in agent.stream()]
        assert events[0] == {"type": "tool-output-available", "toolCallId": "c1", "output": {"pixels": 640}}
        assert agent.result().text == "drawn"
        assert adapter.requests[1]["messages"][-1]["content"][0]["output"] == {"type": "json", "value": {"pixels": 640}}

    def test_a_supplied_output_failing_the_output_schema_is_an_error_result(self) -> None:
        """Outputs from the front end are checked like execute's."""
        agent, adapter = self._paused()
        agent.supply_output("c1", {"pixels": "many"})
        agent.run()
        sent = adapter.requests[1]["messages"][-1]["content"][0]["output"]
        assert sent["type"] == "error-text"
        assert sent["value"].startswith("Tool 'render_chart' returned output that does not match its output schema")

    def test_supplying_an_output_for_a_call_that_does_not_wait_is_refused(self) -> None:
        """Only waiting calls take outputs."""
        agent, _ = self._paused()
        with pytest.raises(ResumeError, match=r"tool call 'c2' does not wait for an output \(waiting: c1\)"):
            agent.supply_output("c2", {})


class TestSuppliedErrors:
    def _paused(self, tool: Tool = RENDER) -> tuple[Agent, ScriptedAdapter]:
        adapter = ScriptedAdapter(
            [[call("c1", "render_chart", '{"kind": "bar"}'), StepFinished("tool-calls")], answer("sorry")]
        )
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[tool])
        assert agent.run("draw it").paused
        return agent, adapter

    def test_a_supplied_error_reaches_the_model_as_an_error_result(self) -> None:
        """The front end's tool failed: the UI sees the error, the model reads it, then answers."""
        agent, adapter = self._paused()
        agent.supply_error("c1", "the canvas crashed")
        events = [e.to_dict() for e in agent.stream()]
        assert events[0] == {"type": "tool-output-error", "toolCallId": "c1", "errorText": "the canvas crashed"}
        sent = adapter.requests[1]["messages"][-1]["content"][0]
        assert (sent["toolCallId"], sent["output"]) == ("c1", {"type": "error-text", "value": "the canvas crashed"})
        assert agent.result().text == "sorry"

    def test_the_error_transforms_decide_what_uis_and_transcripts_show(self) -> None:
        """The model reads the text as given; the display and transcript get their `error` transforms."""
        redacted = create_tool(
            id="render_chart",
            description="Draw a chart in the user's browser.",
            transform={
                "display": {"error": lambda error: "Drawing failed."},
                "transcript": {"error": lambda error: "[error hidden]"},
            },
        )
        agent, adapter = self._paused(redacted)
        agent.supply_error("c1", "token sk-123 rejected")
        events = [e.to_dict() for e in agent.stream()]
        assert events[0] == {"type": "tool-output-error", "toolCallId": "c1", "errorText": "Drawing failed."}
        assert adapter.requests[1]["messages"][-1]["content"][0]["output"]["value"] == "token sk-123 rejected"
        shown = [p for m in agent.transcript if m["role"] == "tool" for p in m["content"]]
        assert shown[0]["output"] == {"type": "error-text", "value": "[error hidden]"}

    def test_a_supplied_error_survives_an_export_and_import(self) -> None:
        """Given before a restart, it is applied by the next process's run."""
        agent, adapter = self._paused()
        agent.supply_error("c1", "the canvas crashed")
        state = agent.export_state()
        assert state["suppliedErrors"] == {"c1": "the canvas crashed"}
        again = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[RENDER])
        again.import_state(state)
        again.run()
        assert adapter.requests[1]["messages"][-1]["content"][0]["output"]["type"] == "error-text"

    def test_the_last_answer_wins_between_an_output_and_an_error(self) -> None:
        """An output given after an error replaces it (and the other way round)."""
        agent, adapter = self._paused()
        agent.supply_error("c1", "the canvas crashed")
        agent.supply_output("c1", {"pixels": 640})
        agent.run()
        assert adapter.requests[1]["messages"][-1]["content"][0]["output"] == {"type": "json", "value": {"pixels": 640}}

    def test_a_call_answered_with_an_error_no_longer_waits(self) -> None:
        """`awaiting_outputs` drops the call once its error is given."""
        agent, _ = self._paused()
        agent.supply_error("c1", "the canvas crashed")
        assert agent.result().awaiting_outputs == []

    def test_an_error_for_a_call_that_does_not_wait_is_refused(self) -> None:
        """Only waiting calls take errors."""
        agent, _ = self._paused()
        with pytest.raises(ResumeError, match=r"tool call 'c2' does not wait for an output \(waiting: c1\)"):
            agent.supply_error("c2", "nope")

    def test_an_error_that_is_not_text_is_refused(self) -> None:
        """The model reads error text: anything else is a caller's mistake."""
        agent, _ = self._paused()
        with pytest.raises(ArgumentError, match=r"`error_text` must be a string \(the error the model reads\)"):
            agent.supply_error("c1", {"message": "crashed"})  # type: ignore[arg-type]


class TestToolboxSuppliedError:
    async def test_a_supplied_error_is_an_error_result_with_its_display_event(self) -> None:
        """The result carries the text for the model; the UI event went through the display transform."""
        events: list[Event] = []
        quiet = create_tool(id="draw", description="Draw.", transform={"display": {"error": lambda error: "Failed."}})
        box = Toolbox([quiet], on_event=events.append)
        result = await box.supply_error({"toolCallId": "c1", "toolName": "draw", "input": {}}, "disk full")
        assert (result.output, result.is_error, str(result.error)) == (
            {"type": "error-text", "value": "disk full"},
            True,
            "disk full",
        )
        assert [e.to_dict() for e in events] == [
            {"type": "tool-output-error", "toolCallId": "c1", "errorText": "Failed."}
        ]

    async def test_an_error_for_a_tool_the_box_does_not_hold_is_refused(self) -> None:
        """The call must name one of the box's tools."""
        with pytest.raises(ResumeError, match="tool call 'c1' names no tool of this box"):
            await Toolbox([RENDER]).supply_error({"toolCallId": "c1", "toolName": "paint", "input": {}}, "x")
