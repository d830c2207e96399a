"""The contract for custom (free-form) tool calls, shared by Chat (`custom`) and Responses (`custom_tool_call`).

A custom call carries raw text, not JSON. Decoders report its input as `{"input": <text>}`
(`STRING_INPUT_KEY`) with `providerMetadata.openai.custom = true`, so every `tool-input-*`
event of a tool declared with an object schema still holds an object. A tool whose input
schema is a string receives the text itself: the assembler unwraps the object for it.
`encode_messages` sends the raw text back either way.
"""

from __future__ import annotations

from typing import Any

from toolwire.tools import STRING_INPUT_KEY


def custom_input(text: str) -> dict[str, Any]:
    """The neutral input of a custom call whose raw text is `text`."""
    return {STRING_INPUT_KEY: text}
