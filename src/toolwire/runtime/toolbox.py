"""A set of tools that runs many calls concurrently, with approvals and suspended calls.

Approvals come in two modes: `"wait"` (a call requiring approval waits until someone calls
`approve`/`deny`, e.g. a UI handler in another task) and `"pause"` (the call is parked and
returned as an `ApprovalRequest`; `run_decided()` runs it once decided — what an agent loop
that stops and resumes wants). Parked approvals and suspended calls export to JSON.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pydantic_core

from toolwire.adapter import tool_mapping
from toolwire.events import (
    Event,
    ToolApprovalRequest,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolSuspended,
)
from toolwire.results import ToolCall, ToolResult, execution_denied, output_text
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

from .abort import AbortSignal
from .execute import ExecutionSettings, Outcome, as_call, execute_tool, refuse_running_loop, resume_tool
from .suspension import ResumeRefused, Suspension
from .transforms import transformed

ApprovalMode = Literal["wait", "pause"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequest:
    """A call parked until the user approves or denies it."""

    approval_id: str
    call: ToolCall

    def to_dict(self) -> dict[str, Any]:
        """JSON form (resumable after a restart)."""
        return {"type": "tool-approval-request", "approvalId": self.approval_id, "call": self.call.to_dict()}


@dataclass(frozen=True, slots=True)
class _Decision:
    approved: bool
    reason: str | None = None


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
    ) -> None:
        self.tools = tool_mapping(tools) or {}
        self.request_context = request_context
        self.settings = settings or ExecutionSettings()
        self.approvals = approvals
        self.on_event = on_event
        self.pending_approvals: dict[str, ApprovalRequest] = {}
        self.suspended: dict[str, Suspension] = {}
        self._decisions: dict[str, _Decision] = {}
        self._waiters: dict[str, asyncio.Future[_Decision]] = {}
        self._max_concurrency = max_concurrency
        self._limit: asyncio.Semaphore | None = None
        self._limit_loop: asyncio.AbstractEventLoop | None = None

    # -- running -----------------------------------------------------------------------------

    async def run(
        self,
        calls: Sequence[ToolCall | Mapping[str, Any]],
        *,
        messages: Sequence[Any] | None = None,
        abort: AbortSignal | None = None,
    ) -> list[Outcome | ApprovalRequest]:
        """Run the calls concurrently; results come back in call order."""
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
        """Run one call (asking for approval first when its tool requires it)."""
        call = as_call(call)
        tool = self.tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return self._emit_result(
                None,
                ToolResult(
                    tool_call_id=call.tool_call_id,
                    tool_name=call.tool_name,
                    output={
                        "type": "error-text",
                        "value": f"There is no tool named {call.tool_name!r}. Tools: {known}.",
                    },
                ),
            )
        if tool.require_approval:
            decision = await self._approval(call)
            if decision is None:
                return self.pending_approvals[self._approval_id(call)]
            if not decision.approved:
                return self._denied(tool, call, decision.reason)
        return await self._execute(tool, call, messages, abort)

    async def _execute(
        self, tool: Tool, call: ToolCall, messages: Sequence[Any] | None, abort: AbortSignal | None
    ) -> Outcome:
        async with self._semaphore():
            outcome = await execute_tool(
                tool, call, request_context=self.request_context, abort=abort, messages=messages, settings=self.settings
            )
        return self._record(tool, outcome)

    def _semaphore(self) -> asyncio.Semaphore:
        """The concurrency limit of the running loop (a semaphore is bound to one loop)."""
        loop = asyncio.get_running_loop()
        if self._limit is None or self._limit_loop is not loop:
            self._limit = asyncio.Semaphore(max(self._max_concurrency, 1))
            self._limit_loop = loop
        return self._limit

    def _record(self, tool: Tool, outcome: Outcome) -> Outcome:
        if isinstance(outcome, Suspension):
            self.suspended[outcome.tool_call_id] = outcome
            if self.on_event is not None:
                self.on_event(ToolSuspended(tool_call_id=outcome.tool_call_id, payload=outcome.display_payload))
            return outcome
        return self._emit_result(tool, outcome)

    def _emit_result(self, tool: Tool | None, result: ToolResult) -> ToolResult:
        if self.on_event is not None:
            if result.is_error:
                shown = transformed(
                    tool, "display", "error", output_text(result.output), tool_call_id=result.tool_call_id
                )
                text = shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False, default=str)
                self.on_event(ToolOutputError(tool_call_id=result.tool_call_id, error_text=text))
            else:
                shown = transformed(tool, "display", "output", result.raw, tool_call_id=result.tool_call_id)
                self.on_event(ToolOutputAvailable(tool_call_id=result.tool_call_id, output=_jsonable(shown)))
        return result

    # -- approvals -----------------------------------------------------------------------------

    @staticmethod
    def _approval_id(call: ToolCall) -> str:
        return f"approval_{call.tool_call_id}"

    async def _approval(self, call: ToolCall) -> _Decision | None:
        approval_id = self._approval_id(call)
        decided = self._decisions.pop(approval_id, None)
        if decided is not None:
            self.pending_approvals.pop(approval_id, None)
            return decided
        self.pending_approvals[approval_id] = ApprovalRequest(approval_id=approval_id, call=call)
        if self.on_event is not None:
            self.on_event(ToolApprovalRequest(approval_id=approval_id, tool_call_id=call.tool_call_id))
        if self.approvals == "pause":
            return None
        waiter: asyncio.Future[_Decision] = asyncio.get_running_loop().create_future()
        self._waiters[approval_id] = waiter
        try:
            return await waiter
        finally:
            self._waiters.pop(approval_id, None)
            self.pending_approvals.pop(approval_id, None)

    def approve(self, approval_id: str) -> None:
        """Approve a parked or waiting call.

        Raises:
            KeyError: no call waits under this id.
        """
        self._decide(approval_id, _Decision(True))

    def deny(self, approval_id: str, reason: str | None = None) -> None:
        """Deny a parked or waiting call; the model sees an `execution-denied` result.

        Raises:
            KeyError: no call waits under this id.
        """
        self._decide(approval_id, _Decision(False, reason))

    def _decide(self, approval_id: str, decision: _Decision) -> None:
        if approval_id not in self.pending_approvals:
            raise KeyError(f"no tool call waits for approval {approval_id!r}")
        waiter = self._waiters.get(approval_id)
        if waiter is not None:
            waiter.get_loop().call_soon_threadsafe(_resolve, waiter, decision)
        else:
            self._decisions[approval_id] = decision

    async def run_decided(
        self, *, messages: Sequence[Any] | None = None, abort: AbortSignal | None = None
    ) -> list[Outcome]:
        """Run (or deny) every parked call that has a decision; undecided ones stay parked."""
        ready = [self.pending_approvals[a].call for a in list(self._decisions) if a in self.pending_approvals]
        outcomes = await asyncio.gather(*(self.run_one(c, messages=messages, abort=abort) for c in ready))
        return [o for o in outcomes if not isinstance(o, ApprovalRequest)]

    def _denied(self, tool: Tool, call: ToolCall, reason: str | None) -> ToolResult:
        if self.on_event is not None:
            self.on_event(ToolOutputDenied(tool_call_id=call.tool_call_id))
        return ToolResult(tool_call_id=call.tool_call_id, tool_name=tool.id, output=execution_denied(reason))

    # -- suspension ------------------------------------------------------------------------------

    async def resume(
        self,
        tool_call_id: str,
        resume_data: Any,
        *,
        messages: Sequence[Any] | None = None,
        abort: AbortSignal | None = None,
    ) -> Outcome:
        """Continue a suspended call with `resume_data` (validated against the tool's resume schema).

        Raises:
            KeyError: no call is suspended under this id.
            ResumeRefused: the tool refused the data before doing anything; the call is still suspended.
        """
        suspension = self.suspended.get(tool_call_id)
        if suspension is None:
            raise KeyError(f"no suspended tool call {tool_call_id!r}")
        tool = self.tools[suspension.tool_name]
        if tool.resume_schema is not None:
            try:
                tool.resume_schema.validate(resume_data)
            except SchemaValidationError as exc:
                return ToolResult(
                    tool_call_id=tool_call_id,
                    tool_name=tool.id,
                    output={"type": "error-text", "value": f"Resume data for tool {tool.id!r} is invalid: {exc}."},
                    error=exc,
                )
        self.suspended.pop(tool_call_id)
        outcome = await resume_tool(
            tool,
            suspension,
            resume_data,
            request_context=self.request_context,
            abort=abort,
            messages=messages,
            settings=self.settings,
        )
        if isinstance(outcome, ToolResult) and isinstance(outcome.error, ResumeRefused):
            self.suspended.setdefault(tool_call_id, suspension)
            raise outcome.error
        return self._record(tool, outcome)

    # -- persistence ---------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        """Parked approvals and suspended calls as JSON (resume after a process restart)."""
        return {
            "pendingApprovals": [
                r.to_dict() for r in self.pending_approvals.values() if r.approval_id not in self._waiters
            ],
            "suspended": [s.to_dict() for s in self.suspended.values()],
        }

    def import_state(self, state: Mapping[str, Any]) -> None:
        """Restore what `export_state` saved."""
        for item in state.get("pendingApprovals", []):
            call = item["call"]
            self.pending_approvals[item["approvalId"]] = ApprovalRequest(
                approval_id=item["approvalId"],
                call=ToolCall(
                    tool_call_id=call["toolCallId"],
                    tool_name=call["toolName"],
                    input=call.get("input", {}),
                    provider_metadata=call.get("providerMetadata"),
                ),
            )
        for item in state.get("suspended", []):
            suspension = Suspension.from_dict(item)
            self.suspended[suspension.tool_call_id] = suspension

    @staticmethod
    def new_approval_id() -> str:
        """A fresh opaque id (for hosts that create approvals themselves)."""
        return f"approval_{uuid.uuid4().hex}"


def _resolve(waiter: asyncio.Future[_Decision], decision: _Decision) -> None:
    if not waiter.done():
        waiter.set_result(decision)


def _jsonable(value: Any) -> Any:
    """A UI event carries JSON: models dumped, bytes as base64, unknown objects as their repr."""
    return pydantic_core.to_jsonable_python(value, bytes_mode="base64", serialize_unknown=True)
