"""Specification of the Toolbox: concurrent calls, approvals (pause and wait), suspended calls, display events."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.events import (
    Event,
    ToolApprovalRequest,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolSuspended,
)
from toolwire.exceptions import ApprovalError
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import AbortSignal, ApprovalRequest, Suspension, Toolbox, ToolContext
from toolwire.runtime import approvals as approvals_module

ECHO = create_tool(id="echo", description="Echo.", execute=lambda value: value)
DELETE = create_tool(id="delete", description="Delete a file.", require_approval=True, execute=lambda value: "deleted")


def _call(call_id: str, name: str = "echo", arguments: Any = None) -> dict[str, Any]:
    return {"toolCallId": call_id, "toolName": name, "input": arguments if arguments is not None else {}}


def _ask(value: Any, context: ToolContext) -> str:
    if not context.resumed:
        context.suspend({"question": "Which size?"})
    return f"size {context.resume_data['size']}"


ASK = create_tool(
    id="ask",
    description="Ask the user.",
    execute=_ask,
    resume_schema={"type": "object", "properties": {"size": {"type": "string"}}, "required": ["size"]},
    transform={"display": {"suspend": lambda suspend_payload: {"shown": suspend_payload["question"]}}},
)


class TestRunning:
    async def test_results_come_back_in_call_order(self) -> None:
        """Calls run concurrently but results line up with the calls."""
        box = Toolbox([ECHO])
        results = await box.run([_call("c1", arguments={"n": 1}), _call("c2", arguments={"n": 2})])
        assert [(r.tool_call_id, r.raw) for r in results if isinstance(r, ToolResult)] == [
            ("c1", {"n": 1}),
            ("c2", {"n": 2}),
        ]

    async def test_an_unknown_tool_is_an_error_result_listing_the_tools(self) -> None:
        """A call to a tool the box does not hold is answered, not raised."""
        events: list[Event] = []
        (result,) = await Toolbox([ECHO, DELETE], on_event=events.append).run([_call("c1", "translate")])
        assert result == ToolResult(
            tool_call_id="c1",
            tool_name="translate",
            output={"type": "error-text", "value": "There is no tool named 'translate'. Tools: delete, echo."},
        )
        assert events == [
            ToolOutputError(tool_call_id="c1", error_text="There is no tool named 'translate'. Tools: delete, echo.")
        ]

    async def test_the_concurrency_limit_is_respected_and_reached(self) -> None:
        """Never more calls at once than the limit, and as many as it allows."""
        active = 0
        peak = 0

        async def execute(value: dict[str, int]) -> int:
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            for _ in range(5):
                await asyncio.sleep(0)
            active -= 1
            return value["n"]

        tool = create_tool(id="work", description="Work.", execute=execute)
        box = Toolbox([tool], max_concurrency=2)
        results = await box.run([_call(f"c{i}", "work", {"n": i}) for i in range(6)])
        assert [r.raw for r in results if isinstance(r, ToolResult)] == [0, 1, 2, 3, 4, 5]
        assert peak == 2

    def test_run_sync_runs_the_calls_without_a_loop(self) -> None:
        """Synchronous hosts use run_sync."""
        (result,) = Toolbox([ECHO]).run_sync([_call("c1", arguments={"a": 1})])
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "json", "value": {"a": 1}}

    async def test_the_request_context_reaches_every_call(self) -> None:
        """The box's request context is validated and passed like execute_tool's."""
        tool = create_tool(id="who", description="Who.", execute=lambda v, context: context.request_context["user"])
        (result,) = await Toolbox([tool], request_context={"user": "ada"}).run([_call("c1", "who")])
        assert isinstance(result, ToolResult)
        assert result.raw == "ada"


def _approval_id(box: Toolbox, call_id: str) -> str:
    """The id the box issued for a call's approval request."""
    return next(a for a, r in box.pending_approvals.items() if r.call.tool_call_id == call_id)


class TestApprovalsPause:
    async def test_a_call_requiring_approval_is_parked_as_an_approval_request(self) -> None:
        """In pause mode the call comes back as a request, and a UI event announces it."""
        events: list[Event] = []
        box = Toolbox([DELETE], on_event=events.append)
        (outcome,) = await box.run([_call("c1", "delete", {"path": "a.txt"})])
        assert isinstance(outcome, ApprovalRequest)
        request = ApprovalRequest(
            approval_id=outcome.approval_id,
            call=ToolCall(tool_call_id="c1", tool_name="delete", input={"path": "a.txt"}),
        )
        assert outcome == request
        assert box.pending_approvals == {outcome.approval_id: request}
        assert events == [
            ToolApprovalRequest(
                approval_id=outcome.approval_id, tool_call_id="c1", approval_descriptor={"path": "a.txt"}
            )
        ]
        assert request.to_dict() == {
            "type": "tool-approval-request",
            "approvalId": outcome.approval_id,
            "call": {"type": "tool-call", "toolCallId": "c1", "toolName": "delete", "input": {"path": "a.txt"}},
        }

    async def test_approval_ids_are_unguessable_and_not_derived_from_the_call(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Ids are 128 bits from `secrets` in the URL-safe alphabet, fresh for the same call, never built from it."""
        drawn: list[int] = []
        real_token = approvals_module.secrets.token_urlsafe

        def recording_token(nbytes: int) -> str:
            drawn.append(nbytes)
            return real_token(nbytes)

        monkeypatch.setattr(approvals_module.secrets, "token_urlsafe", recording_token)
        # The call ids hold ':' and '.', outside the id alphabet: they cannot appear in an id by chance.
        calls = [_call("call:alpha.delete", "delete"), _call("call:beta.delete", "delete")]
        first, second = Toolbox([DELETE]), Toolbox([DELETE])
        await first.run(calls)
        await second.run(calls)
        ids = [*first.pending_approvals, *second.pending_approvals]
        assert drawn == [16, 16, 16, 16]
        assert len(set(ids)) == 4  # the same call in another box gets another id: not a function of the call
        assert all(re.fullmatch(r"approval_[A-Za-z0-9_-]{22}", i) for i in ids), ids
        assert not any(c["toolCallId"] in i for c in calls for i in ids)

    async def test_approve_then_run_decided_runs_the_call(self) -> None:
        """An approved call runs and leaves the parked list."""
        box = Toolbox([DELETE])
        await box.run([_call("c1", "delete")])
        box.approve(_approval_id(box, "c1"))
        assert [r.output for r in await box.run_decided() if isinstance(r, ToolResult)] == [
            {"type": "text", "value": "deleted"}
        ]
        assert box.pending_approvals == {}

    async def test_deny_then_run_decided_gives_an_execution_denied_result_and_event(self) -> None:
        """The model reads the denial and its reason; the UI gets tool-output-denied."""
        events: list[Event] = []
        ran: list[Any] = []
        tool = create_tool(id="delete", description="D.", require_approval=True, execute=ran.append)
        box = Toolbox([tool], on_event=events.append)
        await box.run([_call("c1", "delete")])
        box.deny(_approval_id(box, "c1"), "not that file")
        assert await box.run_decided() == [
            ToolResult(
                tool_call_id="c1", tool_name="delete", output={"type": "execution-denied", "reason": "not that file"}
            )
        ]
        assert ran == []
        assert events[-1] == ToolOutputDenied(tool_call_id="c1")

    async def test_undecided_calls_stay_parked(self) -> None:
        """run_decided only runs what has a decision."""
        box = Toolbox([DELETE])
        await box.run([_call("c1", "delete"), _call("c2", "delete")])
        first = _approval_id(box, "c1")
        box.approve(_approval_id(box, "c2"))
        assert [r.tool_call_id for r in await box.run_decided()] == ["c2"]
        assert list(box.pending_approvals) == [first]

    def test_deciding_an_unknown_approval_raises(self) -> None:
        """A stale, mistyped or forged approval id is refused with a clear error."""
        with pytest.raises(ApprovalError, match="no tool call waits for approval 'approval_x'"):
            Toolbox([DELETE]).approve("approval_x")


class TestApprovalsWait:
    async def test_a_waiting_call_runs_once_approved_from_another_task(self) -> None:
        """In wait mode the call itself waits; a UI handler approves it."""
        requested = asyncio.Event()
        box = Toolbox([DELETE], approvals="wait", on_event=lambda event: requested.set())
        running = asyncio.ensure_future(box.run_one(_call("c1", "delete")))
        await requested.wait()
        assert [r.call.tool_call_id for r in box.pending_approvals.values()] == ["c1"]
        assert box.export_state()["pendingApprovals"] == []
        box.approve(_approval_id(box, "c1"))
        result = await running
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "text", "value": "deleted"}
        assert box.pending_approvals == {}

    async def test_a_waiting_call_denied_from_another_task_is_denied(self) -> None:
        """Denial resolves the wait with an execution-denied result."""
        requested = asyncio.Event()
        box = Toolbox([DELETE], approvals="wait", on_event=lambda event: requested.set())
        running = asyncio.ensure_future(box.run_one(_call("c1", "delete")))
        await requested.wait()
        box.deny(_approval_id(box, "c1"))
        result = await running
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "execution-denied"}

    async def test_an_abort_ends_the_wait_and_spends_the_approval_id(self) -> None:
        """The waiting call is answered as aborted at once (it used to wait for an answer forever)."""
        requested = asyncio.Event()
        events: list[Event] = []
        box = Toolbox([DELETE], approvals="wait", on_event=lambda event: events.append(event) or requested.set())
        signal = AbortSignal()
        running = asyncio.ensure_future(box.run([_call("c1", "delete")], abort=signal))
        await requested.wait()
        approval_id = _approval_id(box, "c1")
        signal.abort("the user left")
        (result,) = await asyncio.wait_for(running, 30)
        aborted = "Tool 'delete' was aborted before it ran (the user left)."
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "error-text", "value": aborted}
        assert events[-1] == ToolOutputError(tool_call_id="c1", error_text=aborted)
        assert box.pending_approvals == {}
        with pytest.raises(ApprovalError, match="was already answered"):
            box.approve(approval_id)


class TestAbortedBeforeAsking:
    @pytest.mark.parametrize("mode", ["pause", "wait"])
    async def test_nobody_is_asked_to_approve_a_call_of_an_aborted_run(self, mode: str) -> None:
        """The call is answered as aborted at once: no approval request, nothing parked."""
        events: list[Event] = []
        box = Toolbox([DELETE], approvals=mode, on_event=events.append)  # type: ignore[arg-type]
        signal = AbortSignal()
        signal.abort("the user left")
        (result,) = await asyncio.wait_for(box.run([_call("c1", "delete")], abort=signal), 30)
        aborted = "Tool 'delete' was aborted before it ran (the user left)."
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "error-text", "value": aborted}
        assert events == [ToolOutputError(tool_call_id="c1", error_text=aborted)]
        assert box.pending_approvals == {}


class TestPersistenceAndResume:
    async def test_parked_approvals_survive_a_restart(self) -> None:
        """Export, build a new box, import, approve: the call runs."""
        first = Toolbox([DELETE])
        await first.run([_call("c1", "delete", {"path": "a"})])
        state = first.export_state()
        second = Toolbox([DELETE])
        second.import_state(state)
        second.approve(_approval_id(first, "c1"))
        (result,) = await second.run_decided()
        assert isinstance(result, ToolResult)
        assert (result.tool_call_id, result.raw) == ("c1", "deleted")

    async def test_a_suspended_call_is_resumed_by_its_call_id_after_a_restart(self) -> None:
        """The suspension is JSON; a new box resumes it with validated data."""
        first = Toolbox([ASK])
        (suspended,) = await first.run([_call("c1", "ask")])
        assert isinstance(suspended, Suspension)
        second = Toolbox([ASK])
        second.import_state(first.export_state())
        result = await second.resume("c1", {"size": "XL"})
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "text", "value": "size XL"}
        assert second.suspended == {}

    async def test_invalid_resume_data_is_an_error_result_and_the_call_stays_suspended(self) -> None:
        """The user can answer again."""
        box = Toolbox([ASK])
        await box.run([_call("c1", "ask")])
        result = await box.resume("c1", {"size": 3})
        assert isinstance(result, ToolResult)
        assert result.output == {
            "type": "error-text",
            "value": "Resume data for tool 'ask' is invalid: at `size`: 3 is not of type 'string'.",
        }
        assert list(box.suspended) == ["c1"]

    async def test_resuming_an_unknown_call_raises(self) -> None:
        """Only suspended calls can be resumed."""
        with pytest.raises(KeyError, match="no suspended tool call 'c9'"):
            await Toolbox([ASK]).resume("c9", {})

    async def test_a_suspension_emits_a_tool_suspended_event_with_the_display_payload(self) -> None:
        """The UI sees the transformed payload."""
        events: list[Event] = []
        await Toolbox([ASK], on_event=events.append).run([_call("c1", "ask")])
        assert events == [ToolSuspended(tool_call_id="c1", payload={"shown": "Which size?"})]


LOOKUP = create_tool(
    id="lookup-customer",
    description="Looks up a customer.",
    execute=lambda value: {"displayName": "Acme", "apiKey": "secret-value", "debugScore": 0.97},
    transform={
        "display": {
            "output": lambda output: {"displayName": output["displayName"]},
            "error": lambda: "Customer lookup failed",
        }
    },
)


class TestDisplayTransforms:
    async def test_the_display_output_transform_redacts_the_event_and_the_model_keeps_everything(self) -> None:
        """The seed's example: the apiKey never reaches the display stream."""
        events: list[Event] = []
        (result,) = await Toolbox([LOOKUP], on_event=events.append).run([_call("c1", "lookup-customer")])
        assert events == [ToolOutputAvailable(tool_call_id="c1", output={"displayName": "Acme"})]
        assert isinstance(result, ToolResult)
        assert result.output["value"]["apiKey"] == "secret-value"

    async def test_the_display_error_transform_replaces_the_error_text(self) -> None:
        """Internal failure details stay out of the UI."""

        def fail(value: Any) -> None:
            raise RuntimeError("db password wrong")

        tool = create_tool(
            id="t", description="T.", execute=fail, transform={"display": {"error": lambda error: "failed"}}
        )
        events: list[Event] = []
        await Toolbox([tool], on_event=events.append).run([_call("c1", "t")])
        assert events == [ToolOutputError(tool_call_id="c1", error_text="failed")]

    async def test_a_display_error_transform_returning_an_object_is_shown_as_json(self) -> None:
        """The seed's error transform returns `{message: ...}`; the event text is its JSON."""

        def fail(value: Any) -> None:
            raise RuntimeError("x")

        tool = create_tool(
            id="t",
            description="T.",
            execute=fail,
            transform={"display": {"error": lambda: {"message": "Customer lookup failed"}}},
        )
        events: list[Event] = []
        await Toolbox([tool], on_event=events.append).run([_call("c1", "t")])
        assert events == [ToolOutputError(tool_call_id="c1", error_text='{"message": "Customer lookup failed"}')]

    async def test_a_failing_display_transform_shows_nothing_rather_than_the_raw_value(self) -> None:
        """A broken redaction must not leak what it was meant to hide."""

        def broken(output: Any) -> Any:
            raise KeyError("displayName")

        tool = create_tool(
            id="t", description="T.", execute=lambda v: {"apiKey": "secret"}, transform={"display": {"output": broken}}
        )
        events: list[Event] = []
        await Toolbox([tool], on_event=events.append).run([_call("c1", "t")])
        assert events == [ToolOutputAvailable(tool_call_id="c1", output=None)]

    async def test_a_display_transform_may_ask_for_the_call_id(self) -> None:
        """create_tool accepts `tool_call_id` in transforms, so the runtime must offer it."""
        tool = create_tool(
            id="t",
            description="T.",
            execute=lambda v: "x",
            transform={"display": {"output": lambda output, tool_call_id: {"call": tool_call_id}}},
        )
        events: list[Event] = []
        await Toolbox([tool], on_event=events.append).run([_call("c1", "t")])
        assert events == [ToolOutputAvailable(tool_call_id="c1", output={"call": "c1"})]

    async def test_a_tool_returning_none_shows_none_on_the_display_event(self) -> None:
        """The display stream shows what execute returned, whatever it is."""
        events: list[Event] = []
        await Toolbox([create_tool(id="t", description="T.", execute=lambda v: None)], on_event=events.append).run(
            [_call("c1", "t")]
        )
        assert events == [ToolOutputAvailable(tool_call_id="c1", output=None)]
