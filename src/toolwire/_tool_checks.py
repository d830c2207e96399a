"""Checks `create_tool` runs on what it is given: each failure names the tool and the field."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ._callbacks import Callback, count_positional, make_callback, required_keyword_only
from ._tool_parts import HOOK_ARGUMENTS, InputExample
from .exceptions import SchemaError, ToolDefinitionError
from .names import has_carriable_name
from .schema import CompiledSchema, SchemaValidationError, compile_schema


def check_id(tool_id: Any) -> str:
    if not isinstance(tool_id, str) or not tool_id.strip():
        raise ToolDefinitionError(None, "id", "is required and must be a non-empty string")
    if not has_carriable_name(tool_id):
        raise ToolDefinitionError(
            tool_id, "id", "has no ASCII letter or digit, so no provider can carry it even after mapping"
        )
    return tool_id


def compile_field(
    tool_id: str, field_name: str, source: Any, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema:
    try:
        return compile_schema(source, mode=mode)
    except SchemaError as exc:
        raise ToolDefinitionError(tool_id, field_name, str(exc)) from exc


def compile_optional(
    tool_id: str, field_name: str, source: Any, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema | None:
    return None if source is None else compile_field(tool_id, field_name, source, mode)


def check_optional_bool(tool_id: str, field_name: str, value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ToolDefinitionError(tool_id, field_name, f"must be true, false or None, got {value!r}")
    return value


def check_callable(tool_id: str, field_name: str, fn: Any) -> Any:
    if fn is not None and not callable(fn):
        raise ToolDefinitionError(tool_id, field_name, f"must be a function, got {type(fn).__name__}")
    return fn


def check_execute(tool_id: str, execute: Any) -> None:
    check_callable(tool_id, "execute", execute)
    required, maximum = count_positional(execute)
    if required > 2 or maximum < 1:
        raise ToolDefinitionError(tool_id, "execute", "must accept `(input)` or `(input, context)`")
    keyword_only = required_keyword_only(execute)
    if keyword_only:
        raise ToolDefinitionError(
            tool_id,
            "execute",
            f"has required keyword-only parameters {keyword_only}, which are never passed; "
            "take `(input, context)` positionally",
        )


def check_examples(
    tool_id: str, schema: CompiledSchema, examples: Sequence[Mapping[str, Any]] | None
) -> tuple[InputExample, ...]:
    if examples is None:
        return ()
    if isinstance(examples, (str, bytes, Mapping)):
        raise ToolDefinitionError(tool_id, "input_examples", 'must be a list of {"input": {...}} objects')
    checked: list[InputExample] = []
    for position, example in enumerate(examples):
        where = f"input_examples[{position}]"
        if schema.json_schema.get("type") == "string":
            raise ToolDefinitionError(
                tool_id, "input_examples", "are for object inputs: describe a free-form tool's text in its description"
            )
        if not isinstance(example, Mapping) or set(example) != {"input"} or not isinstance(example["input"], Mapping):
            raise ToolDefinitionError(tool_id, where, 'must be {"input": {...}}')
        try:
            value = json.loads(json.dumps(example["input"]))
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(tool_id, where, f"is not JSON, so no provider can be sent it: {exc}") from None
        try:
            schema.validate(value)
        except SchemaValidationError as exc:
            raise ToolDefinitionError(tool_id, where, f"does not match the input schema: {exc}") from None
        checked.append(InputExample(input=value))
    return tuple(checked)


def check_provider_options(
    tool_id: str, options: Mapping[str, Mapping[str, Any]] | None
) -> Mapping[str, Mapping[str, Any]]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ToolDefinitionError(tool_id, "provider_options", "must map provider names to option dicts")
    for provider, values in options.items():
        if not isinstance(provider, str) or not isinstance(values, Mapping):
            raise ToolDefinitionError(tool_id, f"provider_options[{provider!r}]", "must be a dict of options")
    return {provider: dict(values) for provider, values in options.items()}


def hook(tool_id: str, name: str, fn: Callable[..., Any] | None) -> Callback | None:
    return make_callback(fn, tool_id=tool_id, field=name, offered=HOOK_ARGUMENTS[name])
