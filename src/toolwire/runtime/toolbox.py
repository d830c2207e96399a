"""A set of tools that runs many calls concurrently, with approvals and suspended calls.

Approvals come in two modes: `"wait"` (the call waits until someone calls `approve`/`deny`, e.g.
a UI handler in another task, or the run is aborted) and `"pause"` (the call is parked and returned
as an `ApprovalRequest`; `run_decided()` runs it once decided — what an agent loop that stops and
resumes wants). Approval ids are unguessable and single-use; parked ones export to JSON.

Every step of a call is noted as a `Record` with its raw payloads for `on_record` (an agent keeps its
turn and transcript from them), and as a UI event through the display transforms for `on_event`.

With a `background` runner, a call to a `background` tool starts as a task, answered at once with an
acknowledgement (`toolwire.runtime.background`); without one it runs like any other call.

Whatever runs a tool's own code — `execute`, a resumed `execute`, the checks of an output
supplied from elsewhere — goes through `unit()`, the one place a durable engine wraps as a step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from toolwire.adapter import tool_mapping
from toolwire.events import Event
from toolwire.exceptions import ArgumentError, ResumeError, ToolError
from toolwire.results import ToolCall, ToolResult
from toolwire.tools import Tool

from ._approval_waits import ApprovalWaits
from ._checks import aborted_before_run, as_call, denied, input_problem, resume_error_text, resume_problem, unknown_tool
from .abort import AbortSignal
from .approvals import ApprovalRequest, Approvals, Decision, new_approval_id
from .background import acknowledgement, runs_in_background
from .background_tasks import BackgroundTasks
from .display import display_event
from .execute import ExecutionSettings, Outcome, execute_tool, refuse_running_loop, result_from_output, resume_tool
from .records import (
    ApprovalAnswered,
    ApprovalAsked,
    BackgroundStarted,
    Finished,
    Record,
    Resumed,
    ResumeInvalid,
    Suspended,
)
from .run_state import RunState
from .suspension import ResumeRefused, Suspension, suspended_tool

ApprovalMode = Literal["wait", "pause"]
UnitKind = Literal["execute", "resume", "output"]
"""What a unit of work runs: `execute`, a resumed `execute`, or the checks of a supplied output."""

__all__ = ["ApprovalMode", "ApprovalRequest", "Toolbox"]


class Toolbox:
    """Runs calls against a set of tools with a concurrency limit."""

    def __init__(
        self,
        tools: Sequence[Tool] | Mapping[str, Tool],
        *,
        max_concurrency: int = 8,
        request_context: Any = None,
        settings: ExecutionSettings | None = None,
        approvals: ApprovalMode = "pause",
        on_event: Callable[[Event], Any] | None = None,
        on_record: Callable[[Record], Any] | None = None,
        run: RunState | None = None,
        background: BackgroundTasks | None = None,
    ) -> None:
        self.tools = tool_mapping(tools) or {}
        self.request_context = request_context
        self.settings = settings or ExecutionSettings()
        self.approvals = approvals
        self.on_event = on_event
        """Receives the UI event of each record (display transforms applied)."""
        self.on_record = on_record
        """Receives each record, with raw payloads (for the host's own views and bookkeeping)."""
        self.run_state = run
        """Given to every call as `context.agent` / `context.workflow`."""
        self.background = background
        """Runs calls to background tools as tasks; None: they run like any other call."""
        self.suspended: dict[str, Suspension] = {}
        self._approvals = Approvals(new_id=self.new_approval_id)
        self._waits = ApprovalWaits()
        self._max_concurrency = max_concurrency
        self._limit: asyncio.Semaphore | None = None
        self._limit_loop: asyncio.AbstractEventLoop | None = None

    @property
    def pending_approvals(self) -> dict[str, ApprovalRequest]:
        """Calls waiting for an answer, by approval id."""
        return self._approvals.pending

    # -- running -----------------------------------------------------------------------------

    async def run(
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        *,
        messages: Sequence[Any] | None = None,
        abort: AbortSignal | None = None,
    ) -> list[Outcome | ApprovalRequest]:
        """Run the calls concurrently; results come back in call order."""
        if len(calls) == 1:  # nothing to run beside it: no task for it
            return [await self.run_one(calls[0], messages=messages, abort=abort)]
        return list(await asyncio.gather(*(self.run_one(c, messages=messages, abort=abort) for c in calls)))

    def run_sync(self, calls: Sequence[ToolCall | Mapping[str, Any]], **kwargs: Any) -> list[Outcome | ApprovalRequest]:
        """`run` for synchronous code.

        Raises:
            RuntimeError: called from inside a running event loop (use `await toolbox.run(...)`).
        """
        refuse_running_loop("Toolbox.run_sync", "await toolbox.run(...)")
        return asyncio.run(self.run(calls, **kwargs))

    async def run_one(
        self,
        call: ToolCall | Mapping[str, Any],
        *,
        messages: Sequence[Any] | None = None,
        abort: AbortSignal | None = None,
    ) -> Outcome | ApprovalRequest:
        """Run one call (asking for approval first when its tool requires it).

        Raises:
            ArgumentError: `call` is not a call or its dict form.
        """
        call = as_call(call)
        tool = self.tools.get(call.tool_name)
        if tool is None:
            return self._finished(None, unknown_tool(call, self.tools))
        if tool.require_approval:
            invalid = input_problem(tool, call)  # nobody is asked to approve a call that cannot run
            if invalid is not None:
                return self._finished(tool, invalid)
            decision = await self._approval(tool, call, abort)
            if decision is None:
                return self._approvals.request(call)[0]
            if isinstance(decision, ToolResult):  # the run was aborted while the call waited
                return self._finished(tool, decision)
            if not decision.approved:
                return self._finished(tool, denied(tool, call, decision.reason))
        if self.background is not None and runs_in_background(tool):
            return await self._launch(tool, call, messages)
        return await self.execute_call(tool, call, messages=messages, abort=abort)

    async def _launch(self, tool: Tool, call: ToolCall, messages: Sequence[Any] | None) -> ToolResult:
        assert self.background is not None
        invalid = input_problem(tool, call)  # a call that cannot run is answered now, not in a later turn
        if invalid is not None:
            return self._finished(tool, invalid)
        task = await self.background.launch(self, tool, call, messages=messages)
        result = acknowledgement(tool, task)
        self._note(tool, BackgroundStarted(task.task_id, result))
        return result

    async def execute_call(
        self, tool: Tool, call: ToolCall, *, messages: Sequence[Any] | None = None, abort: AbortSignal | None = None
    ) -> Outcome:
        """Run one approved call and note its outcome: the unit a durable engine wraps as a step.

        A `ToolCall` in, a `ToolResult` or `Suspension` out (both have a JSON form).
        """

        async def work() -> Outcome:
            async with self._semaphore():
                outcome = await execute_tool(
                    tool,
                    call,
                    request_context=self.request_context,
                    abort=abort,
                    messages=messages,
                    settings=self.settings,
                    approved=True,  # run_one asked
                    run=self.run_state,
                )
            return outcome

        return self._settled(tool, await self.unit("execute", tool, call.tool_call_id, work))

    async def unit(
        self, kind: UnitKind, tool: Tool, tool_call_id: str, work: Callable[[], Awaitable[Outcome]]
    ) -> Outcome:
        """Run one unit of a tool's own code; what it returns is noted by the caller (records, events).

        The default just awaits `work`. A durable engine overrides this to run it as a step whose
        outcome is recorded, so a restarted run gets the recorded outcome instead of running it again.
        """
        return await work()

    def _semaphore(self) -> asyncio.Semaphore:
        """The concurrency limit of the running loop (a semaphore is bound to one loop)."""
        loop = asyncio.get_running_loop()
        if self._limit is None or self._limit_loop is not loop:
            self._limit = asyncio.Semaphore(max(self._max_concurrency, 1))
            self._limit_loop = loop
        return self._limit

    def _settled(self, tool: Tool, outcome: Outcome) -> Outcome:
        if isinstance(outcome, Suspension):
            self.suspended[outcome.tool_call_id] = outcome
            self._note(tool, Suspended(outcome))
            return outcome
        return self._finished(tool, outcome)

    def _finished(self, tool: Tool | None, result: ToolResult) -> ToolResult:
        self._note(tool, Finished(result))
        return result

    def _note(self, tool: Tool | None, record: Record) -> None:
        if self.on_record is not None:
            self.on_record(record)
        if self.on_event is not None:
            self.on_event(display_event(tool, record))

    # -- approvals -----------------------------------------------------------------------------

    async def _approval(self, tool: Tool, call: ToolCall, abort: AbortSignal | None) -> Decision | ToolResult | None:
        decided = self._approvals.take(call)
        if decided is not None:
            return decided
        aborted = aborted_before_run(tool, call, abort)
        if aborted is not None:  # nobody is asked to approve a call of an aborted run
            self._approvals.forget_calls({call.tool_call_id})
            return aborted
        request, new = self._approvals.request(call)
        if new:
            self._note(tool, ApprovalAsked(request))
        if self.approvals == "pause":
            return None
        answered = await self._waits.wait(request.approval_id, abort)
        decision = self._approvals.spend(request.approval_id)  # an abort spends the id: a late answer is refused
        return decision if answered else aborted_before_run(tool, call, abort)

    def approve(self, approval_id: str) -> None:
        """Approve a parked or waiting call (once).

        Raises:
            ApprovalError: no call waits under this id (forged or stale), or it was already answered.
        """
        self._decide(approval_id, Decision(True))

    def deny(self, approval_id: str, reason: str | None = None) -> None:
        """Deny a parked or waiting call (once); the model sees an `execution-denied` result.

        Raises:
            ApprovalError: no call waits under this id (forged or stale), or it was already answered.
        """
        self._decide(approval_id, Decision(False, reason))

    def _decide(self, approval_id: str, decision: Decision) -> None:
        request = self._approvals.decide(approval_id, decision)
        self._note(self.tools.get(request.call.tool_name), ApprovalAnswered(request, decision))
        self._waits.wake(approval_id, decision)

    async def run_decided(
        self, *, messages: Sequence[Any] | None = None, abort: AbortSignal | None = None
    ) -> list[Outcome]:
        """Run (or deny) every parked call that has a decision; undecided ones stay parked."""
        ready = [r.call for r in self._approvals.decided() if r.approval_id not in self._waits]
        outcomes = await asyncio.gather(*(self.run_one(c, messages=messages, abort=abort) for c in ready))
        return [o for o in outcomes if not isinstance(o, ApprovalRequest)]

    # -- suspension and outputs from elsewhere -----------------------------------------------------

    async def resume(
        self,
        tool_call_id: str,
        resume_data: Any,
        *,
        messages: Sequence[Any] | None = None,
        abort: AbortSignal | None = None,
    ) -> Outcome:
        """Continue a suspended call with `resume_data` (validated against the tool's resume schema).

        Data failing the schema is refused: a `tool-resume-error` event names the problem, the
        call stays suspended (resume it again with corrected data), and the error comes back as
        an error result (which is not the call's result). Data the tool itself refuses before
        doing anything (`ResumeRefused`, e.g. a card resumed without a press) gets the same event,
        keeps the call suspended, and raises.

        Raises:
            ResumeError: no call is suspended under this id, or its tool is not in this box.
            ResumeRefused: the tool refused the data before doing anything.
        """
        suspension = self.suspended.get(tool_call_id)
        if suspension is None:
            raise ResumeError(tool_call_id, f"no suspended tool call {tool_call_id!r}")
        tool = suspended_tool(self.tools, tool_call_id, suspension.tool_name, "toolbox")
        problem = resume_problem(tool, resume_data)
        if problem is not None:
            text = resume_error_text(tool, problem)
            self._note(tool, ResumeInvalid(suspension, text))
            output = {"type": "error-text", "value": text}
            return ToolResult(tool_call_id=tool_call_id, tool_name=tool.id, output=output, error=problem)
        self.suspended.pop(tool_call_id)

        async def work() -> Outcome:
            return await resume_tool(
                tool,
                suspension,
                resume_data,
                request_context=self.request_context,
                abort=abort,
                messages=messages,
                settings=self.settings,
                run=self.run_state,
            )

        outcome = await self.unit("resume", tool, tool_call_id, work)
        if isinstance(outcome, ToolResult) and isinstance(outcome.error, ResumeRefused):
            self.suspended.setdefault(tool_call_id, suspension)
            self._note(tool, ResumeInvalid(suspension, str(outcome.error)))
            raise outcome.error
        self._note(tool, Resumed(suspension, resume_data))
        return self._settled(tool, outcome)

    async def supply_output(self, call: ToolCall | Mapping[str, Any], output: Any) -> ToolResult:
        """The result of a call run elsewhere (a tool without `execute`, e.g. run by the front end).

        The output is checked like `execute`'s (`output_schema`, `on_output`, `to_model_output`).

        Raises:
            ArgumentError: `call` is not a call or its dict form.
            ResumeError: the call names a tool this box does not hold.
        """
        call = as_call(call)
        tool = self.tools.get(call.tool_name)
        if tool is None:
            raise ResumeError(call.tool_call_id, f"tool call {call.tool_call_id!r} names no tool of this box")

        async def work() -> Outcome:
            return await result_from_output(tool, call, output, settings=self.settings)

        result = await self.unit("output", tool, call.tool_call_id, work)
        assert isinstance(result, ToolResult)
        return self._finished(tool, result)

    def forget(self, tool_call_ids: set[str]) -> None:
        """Drop the parked approvals and suspensions of these calls (their turn was aborted)."""
        self._approvals.forget_calls(tool_call_ids)
        for tool_call_id in tool_call_ids:
            self.suspended.pop(tool_call_id, None)

    async def supply_error(self, call: ToolCall | Mapping[str, Any], error_text: str) -> ToolResult:
        """The error a call run elsewhere ended with (a front end's tool failed): the model reads it as an error.

        The text reaches the model as it is; what UIs and transcripts show of it goes through the
        tool's `error` transforms, as for any failed call.

        Raises:
            ArgumentError: `call` is not a call or its dict form, or `error_text` is not a string.
            ResumeError: the call names a tool this box does not hold.
        """
        call = as_call(call)
        if not isinstance(error_text, str):
            raise ArgumentError("error_text", "a string (the error the model reads)", error_text)
        tool = self.tools.get(call.tool_name)
        if tool is None:
            raise ResumeError(call.tool_call_id, f"tool call {call.tool_call_id!r} names no tool of this box")
        result = ToolResult(
            tool_call_id=call.tool_call_id,
            tool_name=tool.id,
            output={"type": "error-text", "value": error_text},
            provider_metadata=call.provider_metadata,
            error=ToolError(error_text),
        )
        return self._finished(tool, result)

    # -- persistence ---------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        """Parked approvals, their answers and suspended calls as JSON (resume after a restart)."""
        state = self._approvals.export_state(exclude=self._waits.ids())
        state["suspended"] = [s.to_dict() for s in self.suspended.values()]
        return state

    def import_state(self, state: Mapping[str, Any]) -> None:
        """Restore what `export_state` saved."""
        self._approvals.import_state(state)
        for item in state.get("suspended", []):
            suspension = Suspension.from_dict(item)
            self.suspended[suspension.tool_call_id] = suspension

    @staticmethod
    def new_approval_id() -> str:
        """A fresh unguessable id (for hosts that create approvals themselves)."""
        return new_approval_id()
