"""Free-form (string-input) tools on providers that need an object: the `{"input": text}` wrapping both ways."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ._tool_checks import compile_field

if TYPE_CHECKING:
    from .tools import Tool

STRING_INPUT_KEY = "input"
"""The one property wrapping a free-form (string) input where a provider needs an object:
custom tool calls decoded as `{"input": text}`, and string-input tools sent to providers
without free-form tools. Tools whose input schema is a string get the text itself."""


def object_view(tool: Tool) -> Tool:
    """A free-form tool as an object tool with one required string property `input` (cached).

    For providers without free-form tools; `free_form_input` turns the call's object back into the text.
    """
    view = tool._wire_cache.get("object_view")
    if view is None:
        wrapper = {
            "type": "object",
            "properties": {STRING_INPUT_KEY: tool.input_schema.json_schema},
            "required": [STRING_INPUT_KEY],
            "additionalProperties": False,
        }
        view = tool._wire_cache["object_view"] = replace(
            tool, input_schema=compile_field(tool.id, "input_schema", wrapper), _wire_cache={}
        )
    return cast("Tool", view)


def free_form_input(value: Any) -> Any:
    """The text of a free-form call: `{"input": text}` (a custom call, a wrapped tool) unwrapped."""
    if isinstance(value, Mapping) and len(value) == 1:  # pyright: ignore[reportUnknownArgumentType]
        text = value.get(STRING_INPUT_KEY)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(text, str):
            return text
    return value


def object_input(value: Any) -> Any:
    """A call's input for a provider that needs an object: free text wrapped as `{"input": text}`."""
    return {STRING_INPUT_KEY: value} if isinstance(value, str) else value
