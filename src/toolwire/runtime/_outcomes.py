"""What one run of a tool's code comes to: a checked `ToolResult`, a `Suspension`, or the tool's own `ToolError`.

Every way a finished `execute` can end is turned into something the model (or the host) can
read here; `execute` decides which one applies.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import pydantic_core

from toolwire._hooks import call_hook_async
from toolwire.exceptions import ToolError
from toolwire.results import ModelOutput, ToolCall, ToolResult, default_output, normalize_output
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

from ._checks import error_result
from .abort import AbortSignal
from .suspension import Suspension
from .transforms import shown_suspend

logger = logging.getLogger("toolwire")

OutputValidation = Literal["error", "warn"]


def reported_error(tool: Tool, call: ToolCall, failure: ToolError) -> ToolResult:
    """A `ToolError` is the tool's own wording for the model: sent as it is."""
    try:
        output = normalize_output(failure.output)
    except ValueError as exc:
        return error_result(call, f"Tool {tool.id!r} raised a ToolError with an invalid output: {exc}", failure)
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=tool.id,
        output=output,
        provider_metadata=call.provider_metadata,
        error=failure,
    )


async def finished_result(
    tool: Tool, call: ToolCall, raw: Any, signal: AbortSignal, output_validation: OutputValidation
) -> ToolResult:
    """What `execute` returned, checked (`output_schema`, `on_output`) and shown to the model (`to_model_output`)."""
    if tool.output_schema is not None:
        try:
            tool.output_schema.validate(raw)
        except SchemaValidationError as exc:
            if output_validation == "error":
                return error_result(
                    call, f"Tool {tool.id!r} returned output that does not match its output schema: {exc}.", exc
                )
            logger.warning("tool %r output does not match its output schema: %s", tool.id, exc)
    if tool.on_output is not None and not signal.aborted:
        await call_hook_async(
            tool.id,
            "on_output",
            tool.on_output,
            output=raw,
            tool_call_id=call.tool_call_id,
            tool_name=tool.id,
            abort_signal=signal,
        )
    try:
        output = model_output(tool, raw)
    except Exception as exc:  # to_model_output is user code: any failure becomes an error result
        return error_result(call, f"Tool {tool.id!r} produced output the model cannot be shown: {exc}", exc)
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=tool.id,
        output=output,
        raw=raw,
        provider_metadata=call.provider_metadata,
    )


def model_output(tool: Tool, raw: Any) -> ModelOutput:
    """The raw output as the model sees it: through `to_model_output`, else as text or JSON."""
    if tool.to_model_output is not None:
        return normalize_output(tool.to_model_output(raw))
    if isinstance(raw, str):
        return default_output(raw)
    return default_output(pydantic_core.to_jsonable_python(raw))


def suspension(tool: Tool, call: ToolCall, payload: Any) -> ToolResult | Suspension:
    """The call parked by `suspend()`, its payload checked against `suspend_schema` (an error result if it fails)."""
    if tool.suspend_schema is not None:
        try:
            payload = tool.suspend_schema.to_json(tool.suspend_schema.validate(payload))
        except SchemaValidationError as exc:
            return error_result(
                call, f"Tool {tool.id!r} suspended with a payload that fails its suspend schema: {exc}.", exc
            )
    else:
        payload = pydantic_core.to_jsonable_python(payload)
    return Suspension(
        tool_call_id=call.tool_call_id,
        tool_name=tool.id,
        input=pydantic_core.to_jsonable_python(call.input),
        payload=payload,
        display_payload=shown_suspend(tool, "display", payload, call.tool_call_id),
    )
