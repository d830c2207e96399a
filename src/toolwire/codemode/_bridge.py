"""The program's `external_*` calls run on the host exactly as direct tool calls do.

Each call goes through `toolwire.runtime.execute_tool` with the code-mode call's request
context, messages and an abort signal that fires when the run ends, so input validation,
hooks, request-context checks, output validation and tracing are the ones a direct call gets.

The program gets what the model would get, never more: the model-facing output (after
`to_model_output`), so whatever a tool keeps from the model (a target's `markdown` and
`embedUrl`, fields a `to_model_output` drops) never reaches the program and, through its
result, the model. Text comes back as `str`, JSON as its value, content as its list of parts.
An approval callback decides on the validated input, which is then exactly what runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolwire.results import ToolCall, ToolResult, output_text
from toolwire.runtime.abort import AbortSignal
from toolwire.runtime.context import ToolContext
from toolwire.runtime.execute import execute_tool, validate_input
from toolwire.runtime.suspension import Suspension
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

from ._session import CallOutcome

logger = logging.getLogger("toolwire")

Approve = Callable[[ToolCall], bool | Awaitable[bool]]
"""Decides a call to a tool with `require_approval`: True runs it, False denies it."""


class Bridge:
    """Dispatch for one run: allowed tools by name, the run's context and its abort signal."""

    def __init__(
        self, tools: Mapping[str, Tool], context: ToolContext, signal: AbortSignal, approve: Approve | None
    ) -> None:
        self._tools = tools
        self._context = context
        self._signal = signal
        self._approve = approve

    async def __call__(self, name: str, value: Any, sequence: int) -> CallOutcome:
        tool = self._tools[name]
        call = ToolCall(tool_call_id=f"{self._context.tool_call_id}:{sequence}", tool_name=tool.id, input=value)
        if tool.require_approval:
            validated = validate_input(tool, call)
            if isinstance(validated, ToolResult):
                return _outcome(tool, validated)  # nobody is asked to approve a call that cannot run
            call = dataclasses.replace(call, input=tool.input_schema.to_json(validated))
            refusal = await self._ask(call)
            if refusal is not None:
                return refusal
        observe = self._context.observe
        span = observe.span("code_mode.call", tool=name, sequence=sequence) if observe else contextlib.nullcontext()
        with span:
            outcome = await execute_tool(
                tool,
                call,
                request_context=self._context.request_context,
                abort=self._signal,
                messages=self._context.messages,
                approved=True,  # `_ask` decided above
            )
        return _outcome(tool, outcome)

    async def _ask(self, call: ToolCall) -> CallOutcome | None:
        assert self._approve is not None
        try:
            decision = self._approve(call)
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception:
            logger.exception("code mode: the approval check for %r failed; the call is denied", call.tool_name)
            decision = False
        if decision is True:
            return None
        message = f"the call to {call.tool_name!r} was denied"
        return CallOutcome(False, error_name="ExecutionDenied", error_message=message)


def _outcome(tool: Tool, outcome: ToolResult | Suspension) -> CallOutcome:
    if isinstance(outcome, Suspension):
        message = (
            f"tool {tool.id!r} paused to wait for outside input (suspend), which a code-mode program cannot do; "
            "call it directly instead"
        )
        return CallOutcome(False, error_name="SuspensionNotSupported", error_message=message)
    if outcome.is_error:
        return CallOutcome(False, error_name=_error_name(outcome), error_message=output_text(outcome.output))
    # `text`, `json` and `content` outputs all carry the model's view in `value`.
    return CallOutcome(True, outcome.output["value"])


def _error_name(result: ToolResult) -> str:
    if result.output.get("type") == "execution-denied":
        return "ExecutionDenied"
    error = result.error
    if error is None:
        return "ToolError"
    if isinstance(error, SchemaValidationError):
        return "ValidationError"
    return type(error).__name__
