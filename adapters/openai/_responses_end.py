"""How a Responses stream ends: its final status as a finish reason with usage, or an error."""

from __future__ import annotations

from typing import Any

from toolwire.deltas import Delta, StepFinished, StreamFailed
from toolwire.events import FinishReason

from .._frames import error_text, field, maybe_text, object_of
from ._usage import INCOMPLETE_REASONS, responses_usage

API = "openai-responses"


def response_metadata(response_id: Any) -> dict[str, Any] | None:
    """The response id, kept so a later request can refer to it."""
    return {"openai": {"responseId": response_id}} if response_id else None


def finished(response: Any, *, client_action: bool) -> list[Delta]:
    """The step's end for a final `response`: `failed` is an error, `incomplete` says why.

    `client_action`: the response holds a call toolwire's caller must run (finish reason `tool-calls`).
    """
    status = maybe_text(response, "status", "response.status")
    usage = object_of(response, "usage", "response.usage")
    deltas: list[Delta] = []
    reason: FinishReason
    if status == "failed":
        error = field(response, "error")
        text = error_text(API, error) if error is not None else f"{API} error: the response failed (no details)"
        deltas.append(StreamFailed(text))
        reason = "error"
    elif status == "incomplete":
        details = object_of(response, "incomplete_details", "response.incomplete_details")
        raw = maybe_text(details, "reason", "response.incomplete_details.reason") if details is not None else None
        reason = INCOMPLETE_REASONS.get(raw or "", "other")
        status = f"incomplete:{raw}" if raw else status
    elif status == "completed":
        reason = "tool-calls" if client_action else "stop"
    else:
        reason = "other"
    deltas.append(
        StepFinished(
            reason,
            raw_reason=status,
            usage=responses_usage(usage) if usage is not None else None,
            provider_metadata=response_metadata(maybe_text(response, "id", "response.id")),
        )
    )
    return deltas


def error_event(frame: Any) -> StreamFailed:
    """The `error` event: `code`/`message` on the event (the SDK's shape) or in a nested `error` object."""
    nested = field(frame, "error")
    if nested is None:  # the event's own `type` is "error", not the error's type
        nested = {"code": field(frame, "code"), "message": field(frame, "message")}
    return StreamFailed(error_text(API, nested))
