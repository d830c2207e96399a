"""Wire facts shared by the Gemini encoders and the decoder: request base64, call ids and names, degradation notes.

Bytes fields (`thoughtSignature`, `inline_data.data`) are standard base64 in responses; google-genai
puts them on the request body URL-safe (pydantic `ser_json_bytes='base64'`, google/genai/_common.py),
so the encoders do the same.
"""

from __future__ import annotations

import base64
import binascii
from typing import Protocol

from toolwire.exceptions import ConfigurationError

_TO_URLSAFE = str.maketrans("+/", "-_")

CODE_EXECUTION = "code_execution"
"""Tool name of Gemini's built-in code execution calls (`executableCode` parts)."""

GENERATED_ID_PREFIX = "gemini-call-"
"""Ids toolwire makes up for calls Gemini sent without one (before Gemini 3); never echoed back."""


def request_base64(data: str, where: str) -> str:
    """Base64 text as google-genai sends bytes on the request body: URL-safe, padded.

    Raises:
        ConfigurationError: `data` is not base64 (the message says where it came from).
    """
    translated = data.translate(_TO_URLSAFE)
    padded = translated + "=" * (-len(translated) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigurationError(f"{where} is not base64 ({exc})") from None
    return base64.urlsafe_b64encode(raw).decode("ascii")


class Note(Protocol):
    """Records one degradation."""

    def __call__(self, feature: str, action: str, tool_id: str | None = None) -> None: ...
