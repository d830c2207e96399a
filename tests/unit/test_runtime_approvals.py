"""Specification of approvals everywhere: the low-level API refuses to run unapproved calls; ids are single-use."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.exceptions import ApprovalError
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import ApprovalRequest, Toolbox, execute_tool, execute_tool_sync
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool

CALL = {"toolCallId": "c1", "toolName": "delete", "input": {"path": "/tmp/x"}}


def _delete(log: list[Any]) -> Tool:
    return create_tool(
        id="delete",
        description="Delete a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        require_approval=True,
        execute=lambda value: log.append(value["path"]) or "deleted",
    )


class TestExecuteTool:
    async def test_an_unapproved_call_comes_back_as_an_approval_request_and_nothing_runs(self) -> None:
        """`execute_tool` asks instead of running, like `Toolbox` and `Agent` do."""
        log: list[Any] = []
        outcome = await execute_tool(_delete(log), CALL)
        assert isinstance(outcome, ApprovalRequest)
        assert outcome.call == ToolCall(tool_call_id="c1", tool_name="delete", input={"path": "/tmp/x"})
        assert log == []

    async def test_an_explicitly_approved_call_runs(self) -> None:
        """`approved=True` says the caller asked the user."""
        log: list[Any] = []
        outcome = await execute_tool(_delete(log), CALL, approved=True)
        assert isinstance(outcome, ToolResult)
        assert (outcome.output, log) == ({"type": "text", "value": "deleted"}, ["/tmp/x"])

    def test_execute_tool_sync_refuses_too(self) -> None:
        """The sync twin has the same rule."""
        log: list[Any] = []
        assert isinstance(execute_tool_sync(_delete(log), CALL), ApprovalRequest)
        assert log == []
        assert isinstance(execute_tool_sync(_delete(log), CALL, approved=True), ToolResult)
        assert log == ["/tmp/x"]

    async def test_a_call_with_invalid_input_is_an_error_result_not_a_question(self) -> None:
        """Nobody is asked to approve what cannot run."""
        outcome = await execute_tool(_delete([]), {**CALL, "input": {"path": 3}})
        assert isinstance(outcome, ToolResult)
        assert outcome.output["value"].startswith("Invalid input for tool 'delete': at `path`: 3 is not of type")


class TestSingleUse:
    async def _parked(self) -> tuple[Toolbox, str, list[Any]]:
        log: list[Any] = []
        box = Toolbox([_delete(log)])
        (request,) = await box.run([CALL])
        assert isinstance(request, ApprovalRequest)
        return box, request.approval_id, log

    async def test_a_second_answer_to_the_same_request_is_refused(self) -> None:
        """The first answer counts; a replay (even a contrary one) is an error and changes nothing."""
        box, approval_id, log = await self._parked()
        box.approve(approval_id)
        with pytest.raises(
            ApprovalError, match=rf"^approval '{approval_id}' was already answered; an answer counts once$"
        ):
            box.deny(approval_id)
        await box.run_decided()
        assert log == ["/tmp/x"]

    async def test_replaying_an_answer_after_the_call_ran_is_refused(self) -> None:
        """A spent id never works again; the call does not run twice."""
        box, approval_id, log = await self._parked()
        box.approve(approval_id)
        await box.run_decided()
        with pytest.raises(ApprovalError, match="was already answered"):
            box.approve(approval_id)
        assert await box.run_decided() == []
        assert log == ["/tmp/x"]

    async def test_a_forged_id_is_refused_and_the_real_request_still_waits(self) -> None:
        """Guessing the old `approval_<call id>` form gets nothing."""
        box, approval_id, log = await self._parked()
        with pytest.raises(ApprovalError, match="no tool call waits for approval 'approval_c1'"):
            box.approve("approval_c1")
        assert list(box.pending_approvals) == [approval_id]
        assert log == []

    async def test_a_non_string_id_is_refused_with_its_type(self) -> None:
        """Answers come from outside: anything can arrive."""
        box, _, _ = await self._parked()
        with pytest.raises(ApprovalError, match="an approval id is a string, got dict"):
            box.approve({"approvalId": "x"})  # type: ignore[arg-type]

    async def test_single_use_survives_an_export(self) -> None:
        """A restored box refuses an answer spent before the restart."""
        box, approval_id, _ = await self._parked()
        box.approve(approval_id)
        await box.run_decided()
        restored = Toolbox([_delete([])])
        restored.import_state(box.export_state())
        with pytest.raises(ApprovalError, match="was already answered"):
            restored.approve(approval_id)

    async def test_an_answer_given_before_an_export_is_kept(self) -> None:
        """Approve, save, restore, run: the decision travels with the state."""
        box, approval_id, _ = await self._parked()
        box.approve(approval_id)
        log: list[Any] = []
        restored = Toolbox([_delete(log)])
        restored.import_state(box.export_state())
        await restored.run_decided()
        assert log == ["/tmp/x"]


class TestAgent:
    def test_the_agent_refuses_a_forged_or_replayed_answer(self) -> None:
        """What a UI bridge relies on: answers are checked against the ids the run issued."""
        log: list[Any] = []
        adapter = ScriptedAdapter(
            [[call("c1", "delete", '{"path": "/tmp/x"}'), StepFinished("tool-calls")], answer("ok")]
        )
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_delete(log)])
        (request,) = agent.run("delete it").pending_approvals
        with pytest.raises(ApprovalError, match="no tool call waits for approval 'approval_c1'"):
            agent.approve("approval_c1")
        agent.approve(request.approval_id)
        agent.run()
        with pytest.raises(ApprovalError, match="was already answered"):
            agent.approve(request.approval_id)
        assert log == ["/tmp/x"]

    def test_the_stream_shows_the_request_and_the_answer(self) -> None:
        """UI events for both sides of an approval, the input shown to the approver."""
        adapter = ScriptedAdapter(
            [[call("c1", "delete", '{"path": "/tmp/x"}'), StepFinished("tool-calls")], answer("ok")]
        )
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_delete([])])
        asked = [e.to_dict() for e in agent.stream("delete it") if e.type == "tool-approval-request"]
        approval_id = asked[0]["approvalId"]
        assert asked == [
            {
                "type": "tool-approval-request",
                "approvalId": approval_id,
                "toolCallId": "c1",
                "approvalDescriptor": {"path": "/tmp/x"},
            }
        ]
        agent.deny(approval_id, "no")
        events = [e.to_dict() for e in agent.stream()]
        assert events[:2] == [
            {"type": "tool-approval-response", "approvalId": approval_id, "approved": False, "reason": "no"},
            {"type": "tool-output-denied", "toolCallId": "c1"},
        ]
