"""How a Gemini response ended, in toolwire's words: finish reasons, blocked prompts, usage, code results.

Finish reasons are `Candidate.finishReason` (google/genai/types.py `FinishReason`); reasons not
listed map to `other`. Usage: `input = promptTokenCount + toolUsePromptTokenCount`;
`output = candidatesTokenCount + thoughtsTokenCount` (toolwire counts reasoning inside output,
Gemini reports it apart); `reasoning = thoughtsTokenCount`; `cached = cachedContentTokenCount`;
`total = totalTokenCount`.
"""

from __future__ import annotations

from typing import Any, Final

from toolwire.deltas import Delta, StepFinished, StreamFailed, ToolOutput, UsageReport
from toolwire.events import FinishReason, Usage
from toolwire.exceptions import MalformedFrameError

from .._frames import count_of, field, maybe_text, text_of
from ._enums import BLOCK_REASON, LANGUAGE, OUTCOME, VERTEX_BLOCK_REASON, enum_name

FINISH_REASONS: Final[dict[str, FinishReason]] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "CONTINUATION": "length",
    "SAFETY": "content-filter",
    "RECITATION": "content-filter",
    "BLOCKLIST": "content-filter",
    "PROHIBITED_CONTENT": "content-filter",
    "SPII": "content-filter",
    "IMAGE_SAFETY": "content-filter",
    "IMAGE_PROHIBITED_CONTENT": "content-filter",
    "IMAGE_RECITATION": "content-filter",
    "MODEL_ARMOR": "content-filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "MISSING_THOUGHT_SIGNATURE": "error",
    "TOO_MANY_TOOL_CALLS": "error",
    "MALFORMED_RESPONSE": "error",
    "PUP_LIMITED_DISABLED": "error",
}
"""`Candidate.finishReason` (google/genai/types.py `FinishReason`) to the unified reason; others: `other`."""

ERROR_EXPLANATIONS: Final[dict[str, str]] = {
    "MALFORMED_FUNCTION_CALL": "the model generated a function call Gemini could not parse",
    "UNEXPECTED_TOOL_CALL": "the model called a function that is not declared or not allowed in this request",
    "MISSING_THOUGHT_SIGNATURE": (
        "the request lacks a thought signature: echo each part's thoughtSignature "
        "(providerMetadata.google.thoughtSignature) in the history"
    ),
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls in one request",
    "MALFORMED_RESPONSE": "Gemini produced a malformed response",
    "PUP_LIMITED_DISABLED": "the account is limited or disabled under the Prohibited Use Policy",
}


def usage_of(usage: Any) -> Usage:
    """`usageMetadata` counts as toolwire's usage (reasoning counted inside output)."""
    prompt, candidates, total, thoughts, tool_prompt, cached = (
        count_of(usage, name, f"usageMetadata.{name}")
        for name in (
            "promptTokenCount",
            "candidatesTokenCount",
            "totalTokenCount",
            "thoughtsTokenCount",
            "toolUsePromptTokenCount",
            "cachedContentTokenCount",
        )
    )
    return Usage(
        input_tokens=None if prompt is None and tool_prompt is None else (prompt or 0) + (tool_prompt or 0),
        output_tokens=None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0),
        total_tokens=total,
        reasoning_tokens=thoughts,
        cached_input_tokens=cached,
    )


def finished(raw: str, message: str | None) -> list[Delta]:
    """The end of the primary candidate: its finish, after an error event for the reasons that are failures."""
    out: list[Delta] = []
    explanation = ERROR_EXPLANATIONS.get(raw)
    if explanation is not None:
        detail = f" ({message})" if message else ""
        out.append(StreamFailed(f"Gemini stopped with {raw}: {explanation}{detail}"))
    metadata: dict[str, Any] = {"finishReason": raw}
    if message:
        metadata["finishMessage"] = message
    out.append(StepFinished(FINISH_REASONS.get(raw, "other"), raw, provider_metadata={"google": metadata}))
    return out


def blocked(feedback: Any, *, vertex: bool) -> list[Delta]:
    """A prompt Gemini refused (`promptFeedback.blockReason`): an error and a content-filter finish."""
    reason = field(feedback, "blockReason")
    if reason is None:
        return []
    names = VERTEX_BLOCK_REASON if vertex else BLOCK_REASON
    raw = enum_name(reason, names, "promptFeedback.blockReason", "BLOCK_REASON")
    message = maybe_text(feedback, "blockReasonMessage", "promptFeedback.blockReasonMessage")
    return [
        StreamFailed(f"Gemini blocked the prompt ({raw})" + (f": {message}" if message else "")),
        StepFinished("content-filter", raw, provider_metadata={"google": {"blockReason": raw}}),
    ]


def usage_report(usage: Any) -> list[Delta]:
    """`usageMetadata` once it has counts; a malformed one is an error, the frame's content is kept."""
    if usage.get("totalTokenCount") is None and usage.get("promptTokenCount") is None:
        return []
    try:
        return [UsageReport(usage_of(usage))]
    except MalformedFrameError as exc:
        return [StreamFailed(f"skipped the malformed usage in one gemini frame: {exc}")]


def code_input(code: Any) -> dict[str, Any]:
    """The input of an `executableCode` part (its language named even when sent as a number)."""
    arguments: dict[str, Any] = {"code": text_of(code, "code", "executableCode.code")}
    language = field(code, "language")
    if language is not None:
        arguments["language"] = enum_name(language, LANGUAGE, "executableCode.language", "LANGUAGE")
    return arguments


def code_output(call_id: str, result: Any, signature: str | None) -> ToolOutput:
    """A `codeExecutionResult` part: the output, or an error output unless the outcome is OUTCOME_OK."""
    raw = field(result, "outcome")
    outcome = "OUTCOME_UNSPECIFIED" if raw is None else enum_name(raw, OUTCOME, "outcome", "OUTCOME")
    output = text_of(result, "output", "codeExecutionResult.output")
    metadata: dict[str, Any] = {"outcome": outcome}
    if signature is not None:
        metadata["thoughtSignature"] = signature
    if outcome == "OUTCOME_OK":
        return ToolOutput(call_id, {"outcome": outcome, "output": output}, provider_metadata={"google": metadata})
    return ToolOutput(call_id, output or outcome, is_error=True, provider_metadata={"google": metadata})
