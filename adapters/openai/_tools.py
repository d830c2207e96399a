"""Tool definitions and tool choice for both OpenAI surfaces (Chat Completions and Responses).

The two surfaces share the strict-mode decision, the description (with folded input examples)
and the tool-choice semantics; they differ only in the entry shapes, built here side by side:
Chat nests the function (`{"type": "function", "function": {...}}`,
`openai/types/chat/chat_completion_function_tool_param.py`), Responses is flat
(`openai/types/responses/function_tool_param.py`, where `parameters` and `strict` are
required keys).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire._encoding import description_with_examples
from toolwire.names import NameMap
from toolwire.tool_choice import ToolChoice

from ._strict import to_strict_schema

if TYPE_CHECKING:
    from toolwire.adapter import Adapter, EncodeOptions
    from toolwire.compat import Degradation
    from toolwire.tools import Tool


def strict_parameters(
    adapter: Adapter, tool: Tool, options: EncodeOptions, degradations: list[Degradation]
) -> tuple[bool | None, dict[str, Any]]:
    """The `strict` flag (None: unset) and the parameters schema to send with it.

    Strict asked (by the tool, else by the request) and expressible: the strict form. Asked
    but inexpressible: the schema as defined, `strict: false`, and the reasons reported.
    Unset with `auto_strict`: strict only when the rewrite loses nothing.
    """
    schema = tool.input_schema.json_schema
    wanted = tool.strict if tool.strict is not None else options.strict
    if wanted is False or (wanted is None and not options.auto_strict):
        return wanted, schema
    result = to_strict_schema(schema)
    if wanted is None:
        return (True, result.schema) if result.lossless and result.schema is not None else (None, schema)
    if result.schema is None:
        adapter.degrade(
            degradations,
            "strict",
            "sent with strict: false because strict mode cannot express the schema: " + "; ".join(result.reasons),
            tool.id,
        )
        return False, schema
    if result.relaxed:
        adapter.degrade(
            degradations,
            "strict.constraints",
            "strict mode does not enforce "
            + ", ".join(result.relaxed)
            + ": moved into the description (toolwire still validates the input against the full schema)",
            tool.id,
        )
    return True, result.schema


def strict_requested(tool: Tool, options: EncodeOptions) -> bool:
    """Whether the caller asked for strict mode for this tool."""
    return tool.strict is True or (tool.strict is None and options.strict is True)


def tool_description(adapter: Adapter, tool: Tool, options: EncodeOptions, degradations: list[Degradation]) -> str:
    """The description, with input examples folded in (OpenAI has no field for them)."""
    if not tool.input_examples:
        return tool.description
    if options.examples_in_description:
        adapter.degrade(
            degradations,
            "input_examples",
            "folded into the description as an `Examples:` section (no native field)",
            tool.id,
        )
        return description_with_examples(tool)
    adapter.degrade(
        degradations, "input_examples", "dropped: no native field and examples_in_description=False", tool.id
    )
    return tool.description


def custom_tool(
    adapter: Adapter, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
) -> dict[str, Any]:
    """The fields of a custom (free-form text) tool for a tool whose input schema is a string.

    Custom tools take no `strict` and no schema: constraints of the string (pattern, length,
    enum, ...) are not sent, and toolwire validates the text against them (both reported).
    """
    if strict_requested(tool, options):
        adapter.degrade(degradations, "strict", "not sent: custom (free-form) tools take no strict flag", tool.id)
    constraints = sorted(set(tool.input_schema.json_schema) - _TEXT_SCHEMA_KEYS)
    if constraints:
        adapter.degrade(
            degradations,
            "free_form.constraints",
            f"not sent: a custom tool takes free text ({', '.join(constraints)}); toolwire validates the text",
            tool.id,
        )
    return {
        "name": wire_name,
        "description": tool_description(adapter, tool, options, degradations),
        "format": {"type": "text"},
    }


_TEXT_SCHEMA_KEYS = frozenset({"type", "description", "title", "$schema"})


def chat_tool_choice(choice: ToolChoice, names: NameMap, free_form: frozenset[str]) -> str | dict[str, Any]:
    """`tool_choice` for Chat Completions (`chat_completion_tool_choice_option_param.py`); custom tools by `custom`."""

    def named(tool_id: str) -> dict[str, Any]:
        kind = "custom" if tool_id in free_form else "function"
        return {"type": kind, kind: {"name": names.wire(tool_id)}}

    if choice.mode == "tool":
        return named(choice.tool_ids[0])
    if choice.mode == "allowed":
        return {
            "type": "allowed_tools",
            "allowed_tools": {"mode": choice.allowed_mode, "tools": [named(t) for t in choice.tool_ids]},
        }
    return choice.mode


def responses_tool_choice(choice: ToolChoice, names: NameMap, free_form: frozenset[str]) -> str | dict[str, Any]:
    """`tool_choice` for Responses (`tool_choice_function_param.py`, `tool_choice_custom_param.py`,
    `tool_choice_allowed_param.py`)."""

    def named(tool_id: str) -> dict[str, Any]:
        return {"type": "custom" if tool_id in free_form else "function", "name": names.wire(tool_id)}

    if choice.mode == "tool":
        return named(choice.tool_ids[0])
    if choice.mode == "allowed":
        return {"type": "allowed_tools", "mode": choice.allowed_mode, "tools": [named(t) for t in choice.tool_ids]}
    return choice.mode


def choice_fields(
    adapter: Adapter,
    choice: ToolChoice | None,
    wire_choice: str | dict[str, Any] | None,
    degradations: list[Degradation],
) -> dict[str, Any]:
    """`tool_choice` and `parallel_tool_calls`, as far as they were asked for."""
    fields: dict[str, Any] = {}
    if choice is None:
        return fields
    if wire_choice is not None:
        fields["tool_choice"] = wire_choice
    if choice.parallel is not None:
        fields["parallel_tool_calls"] = choice.parallel
    if choice.validated:
        adapter.degrade(
            degradations,
            "tool_choice.validated",
            "ignored: OpenAI has no VALIDATED mode (strict tools constrain arguments instead)",
        )
    return fields


def no_tools_fragment(adapter: Adapter, choice: ToolChoice | None, degradations: list[Degradation]) -> dict[str, Any]:
    """The fragment for a request without tools: OpenAI rejects `tool_choice` and `parallel_tool_calls` then."""
    if choice is not None:
        adapter.degrade(
            degradations,
            "tool_choice",
            "not sent: the request has no tools, and OpenAI rejects tool_choice/parallel_tool_calls without tools",
        )
    return {}
