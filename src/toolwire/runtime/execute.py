"""Running one call: validate, `execute`, validate the output, hooks, model output, errors as results.

Order (the seed's): input validated against `input_schema` (`on_input_available` unless the
stream already fired it), `execute(input, context)`, output validated against `output_schema`,
`on_output`. Every failure becomes an error `ToolResult` whose text tells the model what to fix;
the exception stays on `ToolResult.error` for the host.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, TypeVar, overload

from typing_extensions import Unpack

from toolwire._hooks import call_hook_async
from toolwire.exceptions import ArgumentError, ToolError
from toolwire.results import ToolCall, ToolResult
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

from ._checks import (
    aborted_before_run,
    as_call,
    check_request_context,
    error_result,
    input_problem,
    resume_error_text,
)
from ._checks import validate_input as validate_input  # re-exported: code mode validates before asking approval
from ._invoke import TimedOut, call_execute
from ._outcomes import OutputValidation, finished_result, reported_error, suspension
from .abort import AbortSignal
from .approvals import ApprovalRequest, new_request
from .context import ToolContext, mark_failed, tool_span
from .run_state import AgentContext, RunState, WorkflowContext
from .suspension import SuspendRequested, Suspension

logger = logging.getLogger("toolwire")

Outcome = ToolResult | Suspension


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionSettings:
    """How the runtime runs calls."""

    timeout: float | None = None
    """Seconds before a call is aborted and reported as timed out (None: no limit)."""
    output_validation: OutputValidation = "error"
    """What an output failing `output_schema` becomes: an error result, or a logged warning."""


class RunOptions(TypedDict, total=False):
    """The keyword arguments of `execute_tool` besides `approved` (described there)."""

    request_context: Any
    abort: AbortSignal | None
    messages: Sequence[Any] | None
    settings: ExecutionSettings | None
    context_extra: Mapping[str, Any] | None
    mcp: Any
    run: RunState | None
    background: Any


_R = TypeVar("_R", bound="ToolResult | Suspension | ApprovalRequest")
_Call = ToolCall | Mapping[str, Any]


# Typed by the tool's outcome (`Tool[..., OutcomeT]`, see `toolwire.tools`): a tool that neither
# suspends nor asks for approval gives a `ToolResult`; `approved=True` rules out an `ApprovalRequest`.
@overload
async def execute_tool(
    tool: Tool[Any, Any, ToolResult | ApprovalRequest],
    call: _Call,
    *,
    approved: Literal[True],
    **options: Unpack[RunOptions],
) -> ToolResult: ...
@overload
async def execute_tool(
    tool: Tool, call: _Call, *, approved: Literal[True], **options: Unpack[RunOptions]
) -> Outcome: ...
@overload
async def execute_tool(
    tool: Tool[Any, Any, _R], call: _Call, *, approved: bool = False, **options: Unpack[RunOptions]
) -> _R: ...
async def execute_tool(
    tool: Tool,
    call: ToolCall | Mapping[str, Any],
    *,
    request_context: Any = None,
    abort: AbortSignal | None = None,
    messages: Sequence[Any] | None = None,
    settings: ExecutionSettings | None = None,
    context_extra: Mapping[str, Any] | None = None,
    mcp: Any = None,
    approved: bool = False,
    run: RunState | None = None,
    background: Any = None,
) -> Outcome | ApprovalRequest:
    """Run one call and return its result, or a `Suspension` when the tool called `suspend()`.

    For type checkers the outcome follows the tool's type: a `ToolResult` for a tool whose
    `execute` takes no context and that has no `require_approval`; with `approved=True`, never an
    `ApprovalRequest`.

    A tool with `require_approval` runs only with `approved=True` (the caller asked the user);
    otherwise the call comes back as an `ApprovalRequest` and nothing runs (a call whose input
    is invalid gets its error result at once: nobody is asked to approve what cannot run).
    `run` gives the tool `context.agent` and `context.workflow` (the shared run state);
    `background` is the `context.background` of a call running as a background task.

    Raises:
        ArgumentError: `call` is not a call or its dict form, or `tool` is not a Tool.
    """
    checked = as_call(call)
    if not isinstance(tool, Tool):
        raise ArgumentError("tool", "a toolwire Tool (create_tool(...) or @tool)", tool)
    if tool.require_approval and not approved:
        return input_problem(tool, checked) or new_request(checked)
    options = _Options(
        request_context, abort, messages, settings or ExecutionSettings(), context_extra, mcp, run, background
    )
    return await _run(tool, checked, options, None)


async def resume_tool(
    tool: Tool,
    suspension: Suspension,
    resume_data: Any,
    *,
    request_context: Any = None,
    abort: AbortSignal | None = None,
    messages: Sequence[Any] | None = None,
    settings: ExecutionSettings | None = None,
    context_extra: Mapping[str, Any] | None = None,
    mcp: Any = None,
    run: RunState | None = None,
) -> Outcome:
    """Continue a suspended call: `execute` runs again with `context.resume_data` set.

    Resume data failing `resume_schema` is an error result and `execute` does not run.
    """
    call = ToolCall(
        tool_call_id=suspension.tool_call_id,
        tool_name=suspension.tool_name,
        input=suspension.input,
        input_hook_fired=True,
    )
    if tool.resume_schema is not None:
        try:
            resume_data = tool.resume_schema.to_json(tool.resume_schema.validate(resume_data))
        except SchemaValidationError as exc:
            return error_result(call, resume_error_text(tool, exc), exc)
    options = _Options(request_context, abort, messages, settings or ExecutionSettings(), context_extra, mcp, run)
    return await _run(tool, call, options, _Resume(resume_data, suspension.payload))


async def result_from_output(
    tool: Tool, call: ToolCall | Mapping[str, Any], output: Any, *, settings: ExecutionSettings | None = None
) -> ToolResult:
    """The result of a call run elsewhere (a tool without `execute`, run by a front end), from its raw output.

    The output is checked like `execute`'s: `output_schema`, `on_output`, `to_model_output`.
    """
    return await finished_result(
        tool, as_call(call), output, AbortSignal(), (settings or ExecutionSettings()).output_validation
    )


@overload
def execute_tool_sync(
    tool: Tool[Any, Any, ToolResult | ApprovalRequest],
    call: _Call,
    *,
    approved: Literal[True],
    **options: Unpack[RunOptions],
) -> ToolResult: ...
@overload
def execute_tool_sync(
    tool: Tool, call: _Call, *, approved: Literal[True], **options: Unpack[RunOptions]
) -> Outcome: ...
@overload
def execute_tool_sync(
    tool: Tool[Any, Any, _R], call: _Call, *, approved: bool = False, **options: Unpack[RunOptions]
) -> _R: ...
def execute_tool_sync(tool: Tool, call: ToolCall | Mapping[str, Any], **kwargs: Any) -> Outcome | ApprovalRequest:
    """`execute_tool` for synchronous code (runs its own event loop).

    Raises:
        RuntimeError: called from inside a running event loop (use `await execute_tool` there).
    """
    refuse_running_loop("execute_tool_sync", "await execute_tool(...)")
    outcome: Outcome | ApprovalRequest = asyncio.run(execute_tool(tool, call, **kwargs))
    return outcome


def refuse_running_loop(name: str, instead: str) -> None:
    """Sync twins cannot run inside an event loop; say so before any coroutine exists.

    Raises:
        RuntimeError: a loop is running in this thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{name} cannot be called from a running event loop; use {instead}")


@dataclass(frozen=True, slots=True)
class _Resume:
    data: Any
    payload: Any


@dataclass(frozen=True, slots=True)
class _Options:
    request_context: Any
    abort: AbortSignal | None
    messages: Sequence[Any] | None
    settings: ExecutionSettings
    context_extra: Mapping[str, Any] | None
    mcp: Any
    run: RunState | None = None
    background: Any = None


async def _run(tool: Tool, call: ToolCall, options: _Options, resumed: _Resume | None) -> Outcome:
    if tool.execute is None:
        return error_result(call, f"Tool {tool.id!r} cannot be run here: it has no execute function.")
    checked_context = check_request_context(tool, call, options.request_context)
    if isinstance(checked_context, ToolResult):
        return checked_context
    validated = validate_input(tool, call)
    if isinstance(validated, ToolResult):
        return validated
    # Each call gets its own signal, linked to the caller's: a timeout aborts this call, not its siblings.
    signal = AbortSignal()
    unlink = options.abort.add_listener(signal.abort) if options.abort is not None else None
    try:
        with tool_span(tool.id, call.tool_call_id) as span:
            outcome = await _run_with_signal(tool, call, options, resumed, checked_context, validated, signal)
            if isinstance(outcome, ToolResult) and outcome.is_error:
                mark_failed(span, str(outcome.output.get("value", "")))
            return outcome
    finally:
        if unlink is not None:
            unlink()


async def _run_with_signal(
    tool: Tool,
    call: ToolCall,
    options: _Options,
    resumed: _Resume | None,
    checked_context: Any,
    validated: Any,
    signal: AbortSignal,
) -> Outcome:
    context = ToolContext(
        tool_call_id=call.tool_call_id,
        tool_name=tool.id,
        request_context=checked_context,
        abort_signal=signal,
        messages=options.messages,
        resumed=resumed is not None,
        resume_data=resumed.data if resumed else None,
        suspend_payload=resumed.payload if resumed else None,
        mcp=options.mcp,
        agent=_agent_context(call, options),
        workflow=WorkflowContext(options.run) if options.run is not None else None,
        background=options.background,
        extra=dict(options.context_extra or {}),
    )
    aborted_early = aborted_before_run(tool, call, signal)
    if aborted_early is not None:
        return aborted_early  # an aborted run fires no more hooks
    if not call.input_hook_fired and tool.on_input_available is not None:
        await call_hook_async(
            tool.id,
            "on_input_available",
            tool.on_input_available,
            input=validated,
            tool_call_id=call.tool_call_id,
            tool_name=tool.id,
            messages=options.messages,
            abort_signal=signal,
        )
    timeout = options.settings.timeout
    try:
        raw = await call_execute(tool, validated, context, timeout)
    except SuspendRequested as suspended:
        return suspension(tool, call, suspended.payload)
    except ToolError as failure:
        return reported_error(tool, call, failure)
    except TimedOut as exc:
        return error_result(call, f"Tool {tool.id!r} timed out after {timeout} seconds; try a smaller request.", exc)
    except asyncio.CancelledError as exc:
        if not signal.aborted or _cancelled_from_outside():
            signal.abort("cancelled")  # the caller's task was cancelled: a sync tool's thread must hear it too
            raise
        return error_result(call, f"Tool {tool.id!r} was aborted ({signal.reason or 'no reason given'}).", exc)
    except Exception as exc:
        logger.info("tool %r raised", tool.id, exc_info=True)
        return error_result(call, f"Tool {tool.id!r} failed: {type(exc).__name__}: {exc}", exc)
    return await finished_result(tool, call, raw, signal, options.settings.output_validation)


def _cancelled_from_outside() -> bool:
    """Whether the task itself is being cancelled (by its owner), not only the call (by its signal)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _agent_context(call: ToolCall, options: _Options) -> AgentContext | None:
    if options.run is None:
        return None
    return AgentContext(
        tool_call_id=call.tool_call_id,
        messages=list(options.messages or ()),
        thread_id=options.run.thread_id,
        resource_id=options.run.resource_id,
    )
