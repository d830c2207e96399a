"""How a Gemini response ended, in toolwire's words: finish reasons, their explanations, usage.

Finish reasons are `Candidate.finishReason` (google/genai/types.py `FinishReason`); reasons not
listed map to `other`. Usage: `input = promptTokenCount + toolUsePromptTokenCount`;
`output = candidatesTokenCount + thoughtsTokenCount` (toolwire counts reasoning inside output,
Gemini reports it apart); `reasoning = thoughtsTokenCount`; `cached = cachedContentTokenCount`;
`total = totalTokenCount`.
"""

from __future__ import annotations

from typing import Any, Final

from toolwire.events import FinishReason, Usage

from .._frames import count_of

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
