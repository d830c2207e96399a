"""Gemini enums sent as protobuf numbers, by their names.

Bodies serialized from the protobuf API (`enum-encoding=int`, as the generated REST clients
ask for) carry enums as numbers. The numbering is the protobuf definitions': Gemini API from
`google.ai.generativelanguage_v1beta.types` (`Candidate.FinishReason`,
`GenerateContentResponse.PromptFeedback.BlockReason`, `CodeExecutionResult.Outcome`,
`ExecutableCode.Language`), Vertex AI from `google.cloud.aiplatform_v1.types`, whose finish and
block reasons number differently past 5. A response with `createTime` (a Vertex-only field) is
read with Vertex's numbers. `Content.role` is a string in both, never a number. A number that
no table knows keeps its number in the raw reason (`FINISH_REASON_21`) and maps to `other`.
"""

from __future__ import annotations

from typing import Final

from toolwire.exceptions import MalformedFrameError

from .._frames import json_kind

FINISH_REASON: Final = (
    "FINISH_REASON_UNSPECIFIED",
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "OTHER",
    "LANGUAGE",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_OTHER",
    "NO_IMAGE",
    "IMAGE_RECITATION",
)
"""Gemini API `Candidate.FinishReason`, by number."""

VERTEX_FINISH_REASON: Final = (
    "FINISH_REASON_UNSPECIFIED",
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "MODEL_ARMOR",
)
"""Vertex AI `Candidate.FinishReason`, by number."""

BLOCK_REASON: Final = (
    "BLOCKED_REASON_UNSPECIFIED",
    "SAFETY",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "IMAGE_SAFETY",
)
"""Gemini API `PromptFeedback.BlockReason`, by number (0 spelled as google-genai spells it)."""

VERTEX_BLOCK_REASON: Final = (
    "BLOCKED_REASON_UNSPECIFIED",
    "SAFETY",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "MODEL_ARMOR",
    "JAILBREAK",
)
"""Vertex AI `PromptFeedback.BlockedReason`, by number."""

OUTCOME: Final = ("OUTCOME_UNSPECIFIED", "OUTCOME_OK", "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED")
"""`CodeExecutionResult.Outcome`, by number (the same on both APIs)."""

LANGUAGE: Final = ("LANGUAGE_UNSPECIFIED", "PYTHON")
"""`ExecutableCode.Language`, by number (the same on both APIs)."""


def enum_name(value: object, names: tuple[str, ...], where: str, unknown: str) -> str:
    """The name of an enum sent as its name or as its protobuf number.

    Raises:
        MalformedFrameError: the value is neither a string nor an integer.
    """
    if type(value) is str:
        return value[:100]  # a name, never a document: error messages quote it
    if type(value) is int:
        return names[value] if 0 <= value < len(names) else f"{unknown}_{value}"
    raise MalformedFrameError(f"`{where}` must be an enum name or number, got {json_kind(value)}")
