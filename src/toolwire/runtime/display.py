"""UI events of a call, computed from its raw payloads through the tool's `display` transforms.

Two sources: the model's stream (input start, deltas, the complete input) and the runtime's
records (approval, output, error, suspension, resume). Every payload an event carries went
through `toolwire.runtime.transforms`, so a value a display transform hides never reaches a UI.
"""

from __future__ import annotations

import dataclasses
from typing import Any, assert_never

import pydantic_core

from toolwire.events import (
    Event,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolResumed,
    ToolResumeError,
    ToolSuspended,
)
from toolwire.results import output_text
from toolwire.tools import Tool

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
from .transforms import (
    INPUT_PHASES,
    shown_approval,
    shown_error,
    shown_input,
    shown_input_delta,
    shown_output,
    shown_resume,
)


def display_event(tool: Tool | None, record: Record) -> Event:
    """The UI event for one runtime record."""
    call_id = record.tool_call_id
    match record:
        case ApprovalAsked(request=request):
            descriptor = shown_approval(tool, "display", request.call.input, call_id)
            return ToolApprovalRequest(
                approval_id=request.approval_id, tool_call_id=call_id, approval_descriptor=jsonable(descriptor)
            )
        case ApprovalAnswered(request=request, decision=decision):
            return ToolApprovalResponse(
                approval_id=request.approval_id, approved=decision.approved, reason=decision.reason
            )
        case Suspended(suspension=suspension):
            return ToolSuspended(tool_call_id=call_id, payload=suspension.display_payload)
        case Resumed(resume_data=data):
            return ToolResumed(tool_call_id=call_id, payload=jsonable(shown_resume(tool, "display", data, call_id)))
        case ResumeInvalid(error_text=text):
            shown = shown_error(tool, "display", text, call_id, quoting=("resume",))
            return ToolResumeError(tool_call_id=call_id, error_text=shown)
        case Finished(result=result):
            if result.output.get("type") == "execution-denied":
                return ToolOutputDenied(tool_call_id=call_id)
            if result.is_error:
                text = shown_error(tool, "display", output_text(result.output), call_id)
                return ToolOutputError(tool_call_id=call_id, error_text=text)
            shown = jsonable(shown_output(tool, "display", result.raw, call_id))
            return ToolOutputAvailable(tool_call_id=call_id, output=shown)
        case BackgroundStarted(result=result):
            return ToolOutputAvailable(tool_call_id=call_id, output=jsonable(result.raw))
        case _:
            assert_never(record)


def display_stream_event(tool: Tool | None, event: Event) -> Event | None:
    """A model stream event as a UI may see it; None when it must not be shown (a hidden delta)."""
    if tool is None or tool.transform is None:
        return event
    if isinstance(event, ToolInputDelta):
        shown = shown_input_delta(tool, "display", event.input_text_delta, event.tool_call_id)
        if shown is None:
            return None
        if shown == event.input_text_delta and tool.transform.display.input is None:
            return event  # nothing hidden: a partial input may stay
        return ToolInputDelta(tool_call_id=event.tool_call_id, input_text_delta=shown)
    if isinstance(event, ToolInputAvailable):
        shown_value = jsonable(shown_input(tool, "display", event.input, event.tool_call_id))
        return dataclasses.replace(event, input=shown_value, validated_input=None)
    if isinstance(event, ToolInputError):
        return dataclasses.replace(
            event,
            input=jsonable(shown_input(tool, "display", event.input, event.tool_call_id)),
            error_text=shown_error(tool, "display", event.error_text, event.tool_call_id, quoting=INPUT_PHASES),
        )
    return event


def jsonable(value: Any) -> Any:
    """A UI event carries JSON: models dumped, bytes as base64, unknown objects as their repr."""
    return pydantic_core.to_jsonable_python(value, bytes_mode="base64", serialize_unknown=True)
