"""Checks before a call runs: the call's form, its input, its request context, resume data.

Each failure the model can fix becomes an error `ToolResult` worded for it; a caller's mistake
(a call that is not a call) raises `ArgumentError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolwire.exceptions import ArgumentError
from toolwire.results import ToolCall, ToolResult, execution_denied
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool, free_form_input

from .abort import AbortSignal

_CALL_FORM = 'a ToolCall or its dict form {"toolCallId": str, "toolName": str, "input": {...}}'


def as_call(call: ToolCall | Mapping[str, Any], argument: str = "call") -> ToolCall:
    """A `ToolCall` from itself or its dict form (`toolCallId`, `toolName`, `input`).

    Raises:
        ArgumentError: neither, or a dict without a string `toolCallId` or `toolName`.
    """
    if isinstance(call, ToolCall):
        return call
    if not isinstance(call, Mapping):
        raise ArgumentError(argument, _CALL_FORM, call)
    for key in ("toolCallId", "toolName"):
        if not isinstance(call.get(key), str) or not call[key]:
            problem = f"{key!r} is missing" if key not in call else f"{key!r} is {call[key]!r}, not a non-empty string"
            raise ArgumentError(argument, _CALL_FORM, detail=f"{problem} (keys: {sorted(map(str, call))})")
    return ToolCall(
        tool_call_id=call["toolCallId"],
        tool_name=call["toolName"],
        input=call.get("input", {}),
        provider_metadata=call.get("providerMetadata"),
    )


def input_problem(tool: Tool, call: ToolCall) -> ToolResult | None:
    """The error result of a call whose input the tool cannot take (not JSON, or failing the schema)."""
    validated = validate_input(tool, call)
    return validated if isinstance(validated, ToolResult) else None


def resume_problem(tool: Tool, resume_data: Any) -> SchemaValidationError | None:
    """Why `resume_data` cannot resume a call of this tool (it fails the resume schema), or None."""
    if tool.resume_schema is None:
        return None
    try:
        tool.resume_schema.validate(resume_data)
    except SchemaValidationError as exc:
        return exc
    return None


def resume_error_text(tool: Tool, problem: SchemaValidationError) -> str:
    """The error naming what is wrong with resume data."""
    return f"Resume data for tool {tool.id!r} is invalid: {problem}."


def check_request_context(tool: Tool, call: ToolCall, request_context: Any) -> Any:
    schema = tool.request_context_schema
    if schema is None:
        return request_context
    try:
        return schema.validate(request_context if request_context is not None else {})
    except SchemaValidationError as exc:
        return error_result(call, f"Tool {tool.id!r} cannot run: the request context is invalid: {exc}.", exc)


def validate_input(tool: Tool, call: ToolCall) -> Any:
    """The call's input as `execute` would get it (JSON text parsed, nulls repaired), or the error result."""
    value = call.input
    if tool.free_form:
        value = free_form_input(value)  # the text itself; `{"input": text}` from a custom or wrapped call
    elif isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError as exc:
            return error_result(
                call, f"The input for tool {tool.id!r} is not valid JSON ({exc}); send a JSON object.", exc
            )
    if isinstance(value, Mapping):
        value = tool.input_schema.drop_disallowed_nulls(dict(value))
    try:
        return tool.input_schema.validate(value)
    except SchemaValidationError as exc:
        schema = json.dumps(tool.input_schema.json_schema, separators=(",", ":"))
        return error_result(
            call, f"Invalid input for tool {tool.id!r}: {exc}. Call it again with input matching {schema}", exc
        )


def error_result(call: ToolCall, message: str, exc: BaseException | None = None) -> ToolResult:
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        provider_metadata=call.provider_metadata,
        output={"type": "error-text", "value": message},
        error=exc,
    )


def unknown_tool(call: ToolCall, tools: Iterable[str]) -> ToolResult:
    """The answer to a call naming none of the tools: the model reads which exist."""
    known = ", ".join(sorted(tools)) or "none"
    message = f"There is no tool named {call.tool_name!r}. Tools: {known}."
    return ToolResult(
        tool_call_id=call.tool_call_id, tool_name=call.tool_name, output={"type": "error-text", "value": message}
    )


def denied(tool: Tool, call: ToolCall, reason: str | None) -> ToolResult:
    """The answer to a call someone refused: the model reads that it was not run, and why."""
    return ToolResult(tool_call_id=call.tool_call_id, tool_name=tool.id, output=execution_denied(reason))


def aborted_before_run(tool: Tool, call: ToolCall, signal: AbortSignal | None) -> ToolResult | None:
    """The answer to a call whose run was aborted before it started (None while not aborted)."""
    if signal is None or not signal.aborted:
        return None
    return error_result(call, f"Tool {tool.id!r} was aborted before it ran ({signal.reason or 'no reason given'}).")
