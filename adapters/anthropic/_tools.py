"""Tool entries and tool choice for the Messages API.

Wire shapes: `anthropic/types/tool_param.py` (`ToolParam`: `name`, `description`, `input_schema`,
`strict`, `input_examples`, plus `cache_control`, `defer_loading`, `eager_input_streaming`,
`allowed_callers`, `type` that arrive through provider options) and
`anthropic/types/tool_choice_{auto,any,tool,none}_param.py`.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Sequence
from typing import Any, cast

from toolwire.adapter import EncodeOptions
from toolwire.names import NameMap
from toolwire.schema import deep_copy_json
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

from ._root_combinators import without_root_combinators
from ._rules import RULES
from ._schema import JsonSchema, StrictSchema, strict_schema

Degrade = Callable[[str, str, str | None], None]
"""Records one degradation: `(feature, action, tool_id)`."""


def tool_entry(tool: Tool, wire_name: str, options: EncodeOptions, degrade: Degrade) -> dict[str, Any]:
    """One `ToolParam` (before provider options)."""
    entry: dict[str, Any] = {"name": wire_name, "description": tool.description}
    strict = _strict_schema(tool, options, degrade)
    if strict is None:
        entry["input_schema"] = _plain_schema(tool, degrade)
    else:
        entry["input_schema"] = strict
        entry["strict"] = True
    if tool.input_examples:
        examples = _examples(tool, strict, degrade)
        if examples:
            entry["input_examples"] = examples
    if tool.output_schema is not None:
        degrade(
            "output_schema",
            "not sent: Anthropic tool definitions have no output schema field (toolwire still validates outputs)",
            tool.id,
        )
    return entry


def _plain_schema(tool: Tool, degrade: Degrade) -> JsonSchema:
    """A copy of the schema as given, except for the root combinators the API refuses (computed once per tool)."""
    cached = tool._wire_cache.get(_PLAIN_KEY)
    if cached is None:
        cached = tool._wire_cache[_PLAIN_KEY] = without_root_combinators(tool.input_schema.json_schema)
    schema, folded = cast(tuple[JsonSchema, tuple[str, ...]], cached)
    if folded:
        degrade(
            "input_schema.combinators",
            f"top-level {', '.join(folded)} folded into the root properties and the description: Anthropic "
            "refuses them at the top of input_schema (toolwire still validates them)",
            tool.id,
        )
    return cast(JsonSchema, marshal.loads(marshal.dumps(schema)))  # JSON only: the fastest deep copy


def _strict_schema(tool: Tool, options: EncodeOptions, degrade: Degrade) -> JsonSchema | None:
    """The strict schema when strict is asked for (or `auto_strict` finds it possible), else None."""
    wanted = tool.strict if tool.strict is not None else options.strict
    if wanted is False or (wanted is None and not options.auto_strict):
        return None
    result = _strict_result(tool)
    if result.schema is None:
        if wanted:
            degrade("strict", f"sent without `strict` because {result.problem}", tool.id)
        return None
    if result.moved:
        degrade(
            "strict.constraints",
            "moved into descriptions, so Anthropic's strict decoding does not enforce them "
            f"(toolwire still validates them): {', '.join(result.moved)}",
            tool.id,
        )
    return result.schema


def _strict_result(tool: Tool) -> StrictSchema:
    """The strict form of the tool's input schema, computed once per tool (the request budget reads it again)."""
    cached = tool._wire_cache.get(_STRICT_KEY)
    if cached is None:
        cached = tool._wire_cache[_STRICT_KEY] = strict_schema(tool.input_schema.json_schema)
    return cast(StrictSchema, cached)


_STRICT_KEY = ("anthropic", "strict_schema")
_PLAIN_KEY = ("anthropic", "plain_schema")
"""Keys of their own in the tool's wire cache (the base's entry keys are `(api, settings, options, name)`)."""


def within_strict_budget(entries: list[dict[str, Any]], tools: dict[str, Tool], degrade: Degrade) -> list[str]:
    """Drop `strict` from the tools that would take the request past Anthropic's complexity limits.

    The limits hold across all strict tools of a request (`strict.max_strict_tools`,
    `strict.max_optional_parameters`, `strict.max_union_parameters`); tools keep strict in
    request order while the totals fit. Returns the ids of the tools that lost it.
    """
    totals = {"strict.max_strict_tools": 0, "strict.max_optional_parameters": 0, "strict.max_union_parameters": 0}
    demoted: list[str] = []
    for entry in entries:
        tool = tools.get(entry["name"])
        if entry.get("strict") is not True or tool is None:
            continue
        result = _strict_result(tool)
        adds = {
            "strict.max_strict_tools": 1,
            "strict.max_optional_parameters": result.optional_parameters,
            "strict.max_union_parameters": result.union_parameters,
        }
        over = [key for key, count in adds.items() if totals[key] + count > (RULES[key].limit or 0)]
        if not over:
            for key, count in adds.items():
                totals[key] += count
            continue
        rule = RULES[over[0]]
        degrade(
            "strict",
            f"sent without `strict`: with this tool the request's strict tools would exceed a limit: {rule.cite()} "
            f"(this tool adds {adds[over[0]]} to {totals[over[0]]})",
            tool.id,
        )
        entry["input_schema"] = _plain_schema(tool, degrade)
        del entry["strict"]
        if tool.input_examples:
            entry["input_examples"] = _examples(tool, None, degrade)
        demoted.append(tool.id)
    return demoted


def _examples(tool: Tool, strict: JsonSchema | None, degrade: Degrade) -> list[dict[str, Any]]:
    """Native `input_examples`; under strict, only the examples the strict schema accepts."""
    examples = [deep_copy_json(dict(example.input)) for example in tool.input_examples]
    if strict is None:
        return examples
    import jsonschema  # imported when first needed: loading the adapter stays light

    validator = jsonschema.Draft202012Validator(strict)
    kept: list[dict[str, Any]] = []
    for position, example in enumerate(examples):
        error = jsonschema.exceptions.best_match(validator.iter_errors(example))
        if error is None:
            kept.append(example)
        else:
            degrade(
                "input_examples",
                f"dropped input_examples[{position}]: the strict schema (objects closed with "
                f"additionalProperties: false) rejects it: {error.message}",
                tool.id,
            )
    return kept


def tool_choice_fragment(
    entries: list[dict[str, Any]], choice: ToolChoice | None, names: NameMap, degrade: Degrade
) -> dict[str, Any]:
    """`tools` plus `tool_choice`; an allowed subset is sent as the tool list itself."""
    fragment: dict[str, Any] = {"tools": entries}
    if choice is None:
        return fragment
    if choice.validated:
        degrade(
            "tool_choice.validated",
            "ignored: VALIDATED calling is Gemini's; use strict tools for schema-exact input on Anthropic",
            None,
        )
    wire: dict[str, Any]
    if choice.mode == "allowed":
        fragment["tools"] = _allowed_entries(entries, choice.tool_ids, names, degrade)
        wire = {"type": "any" if choice.allowed_mode == "required" else "auto"}
    elif choice.mode == "tool":
        wire = {"type": "tool", "name": names.wire(choice.tool_ids[0])}
    else:
        wire = {"type": {"auto": "auto", "none": "none", "required": "any"}[choice.mode]}
    if choice.parallel is not None:
        if wire["type"] != "none":
            wire["disable_parallel_tool_use"] = not choice.parallel
        elif choice.parallel is False:
            degrade(
                "tool_choice.parallel",
                "not sent: Anthropic takes `disable_parallel_tool_use` only with auto, any or tool choices "
                "(with `none` no tool is called anyway)",
                None,
            )
    fragment["tool_choice"] = wire
    return fragment


def _allowed_entries(
    entries: list[dict[str, Any]], allowed: Sequence[str], names: NameMap, degrade: Degrade
) -> list[dict[str, Any]]:
    wire_names = {names.wire(tool_id) for tool_id in allowed}
    kept = [entry for entry in entries if entry["name"] in wire_names]
    left_out = [names.tool_id(entry["name"]) for entry in entries if entry["name"] not in wire_names]
    if left_out:
        degrade(
            "tool_choice.allowed",
            "Anthropic has no allowed-tools choice: sent only the allowed tools and left out "
            f"{', '.join(repr(t) for t in left_out)} (a changed tool list also restarts the prompt cache)",
            None,
        )
    return kept
