"""Specification of `context.agent` and `context.workflow`: what a tool knows of its run, and state it keeps."""

from __future__ import annotations

import json
from typing import Any

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.messages import AssistantMessage, UserMessage
from toolwire.results import ToolResult
from toolwire.runtime import RunState, Toolbox, ToolContext, execute_tool
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool


def _one_call(name: str, *more: list[Any]) -> ScriptedAdapter:
    return ScriptedAdapter([[call("c1", name, "{}"), StepFinished("tool-calls")], answer("ok"), *more])


def _counter() -> Tool:
    def execute(value: Any, context: ToolContext) -> int:
        assert context.workflow is not None
        count = context.workflow.state.get("count", 0) + 1
        context.workflow.set_state({**context.workflow.state, "count": count})
        return count

    return create_tool(id="count", description="Count calls.", execute=execute)


class TestAgentContext:
    def test_a_tool_run_by_an_agent_knows_its_call_thread_resource_and_conversation(self) -> None:
        """The seed's `execute.context.agent`."""
        seen: dict[str, Any] = {}

        def execute(value: Any, context: ToolContext) -> str:
            assert context.agent is not None
            seen.update(
                tool_call_id=context.agent.tool_call_id,
                thread_id=context.agent.thread_id,
                resource_id=context.agent.resource_id,
                roles=[type(m) for m in context.agent.messages],
            )
            return "ok"

        tool = create_tool(id="probe", description="Probe.", execute=execute)
        Agent(
            api=_one_call("probe"),
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[tool],
            thread_id="thread-7",
            resource_id="user-42",
        ).run("go")
        assert seen == {
            "tool_call_id": "c1",
            "thread_id": "thread-7",
            "resource_id": "user-42",
            "roles": [UserMessage, AssistantMessage],
        }

    def test_context_agent_suspend_pauses_the_call_like_context_suspend(self) -> None:
        """`context.agent.suspend(payload)` is the seed's agent-side suspend."""

        def execute(value: Any, context: ToolContext) -> str:
            assert context.agent is not None
            if not context.resumed:
                context.agent.suspend({"question": "sure?"})
            return f"answered {context.resume_data}"

        agent = Agent(
            api=_one_call("ask"),
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[create_tool(id="ask", description="Ask.", execute=execute)],
        )
        assert [s.payload for s in agent.run("go").suspended] == [{"question": "sure?"}]
        agent.resume("c1", "yes")
        assert agent.run().text == "ok"


class TestWorkflowState:
    def test_tools_read_and_set_state_that_lasts_across_runs(self) -> None:
        """Each call sees what the previous one set."""
        adapter = ScriptedAdapter(
            [
                [call("c1", "count", "{}"), StepFinished("x")],
                answer("1"),
                [call("c2", "count", "{}"), StepFinished("x")],
                answer("2"),
            ]
        )
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_counter()], state={"count": 10})
        agent.run("count")
        agent.run("again")
        assert agent.run_state.values == {"count": 12}

    def test_the_state_is_saved_with_export_state(self) -> None:
        """A new process continues with the same state, thread and resource."""
        first = Agent(
            api=_one_call("count"),
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[_counter()],
            thread_id="t",
            resource_id="r",
        )
        first.run("count")
        state = json.loads(json.dumps(first.export_state()))
        assert state["run"] == {"threadId": "t", "resourceId": "r", "values": {"count": 1}}
        second = Agent(
            api=ScriptedAdapter([[call("c2", "count", "{}"), StepFinished("x")], answer("2")]),
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[_counter()],
        )
        second.import_state(state)
        second.run("again")
        assert (second.run_state.thread_id, second.run_state.resource_id, second.run_state.values) == (
            "t",
            "r",
            {"count": 2},
        )

    def test_state_that_is_not_a_json_object_fails_the_call_with_the_reason(self) -> None:
        """The model reads why; the state is unchanged."""

        def execute(value: Any, context: ToolContext) -> str:
            assert context.workflow is not None
            context.workflow.set_state(["not", "an", "object"])  # type: ignore[arg-type]
            return "unreachable"

        adapter = _one_call("bad")
        agent = Agent(
            api=adapter,
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[create_tool(id="bad", description="B.", execute=execute)],
        )
        agent.run("go")
        assert adapter.requests[1]["messages"][-1]["content"][0]["output"] == {
            "type": "error-text",
            "value": "Tool 'bad' failed: ArgumentError: `state` must be a JSON object (a dict); "
            "got builtins.list ['not', 'an', 'object']",
        }
        assert agent.run_state.values == {}


class TestOutsideAnAgent:
    async def test_execute_tool_without_a_run_gives_no_agent_or_workflow_context(self) -> None:
        """Like the seed: `context.agent` exists only when an agent runs the tool."""
        seen: list[Any] = []
        tool = create_tool(
            id="t", description="T.", execute=lambda v, context: seen.append((context.agent, context.workflow))
        )
        await execute_tool(tool, {"toolCallId": "c", "toolName": "t", "input": {}})
        assert seen == [(None, None)]

    async def test_a_toolbox_given_a_run_state_shares_it_between_calls(self) -> None:
        """Any host can keep run state, not only the agent."""
        run = RunState(thread_id="t1")
        box = Toolbox([_counter()], run=run, max_concurrency=1)  # read-modify-write: one call at a time
        results = await box.run([{"toolCallId": f"c{i}", "toolName": "count", "input": {}} for i in range(3)])
        assert sorted(r.raw for r in results if isinstance(r, ToolResult)) == [1, 2, 3]
        assert run.values == {"count": 3}
