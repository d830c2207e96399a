"""Loading tools named on a command line: `module:attribute`, or a JSON file of neutral definitions."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolwire.exceptions import ConfigurationError
from toolwire.tools import Tool, create_tool

_JSON_KEYS = {
    "id": "id",
    "description": "description",
    "inputSchema": "input_schema",
    "input_schema": "input_schema",
    "parameters": "input_schema",
    "outputSchema": "output_schema",
    "output_schema": "output_schema",
    "strict": "strict",
    "inputExamples": "input_examples",
    "input_examples": "input_examples",
    "providerOptions": "provider_options",
    "provider_options": "provider_options",
    "requireApproval": "require_approval",
    "require_approval": "require_approval",
    "mcp": "mcp",
    "target": "target",
}


def load_tools(spec: str) -> list[Tool]:
    """Tools from `module:attribute` (a Tool, or a list/tuple/dict of Tools) or a `.json` file.

    Raises:
        ConfigurationError: the spec names nothing loadable, or something that is not tools.
    """
    path = Path(spec)
    if path.suffix.lower() == ".json" or (path.exists() and ":" not in spec):
        return tools_from_json(json.loads(path.read_text(encoding="utf-8")), source=str(path))
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise ConfigurationError(f"{spec!r}: expected `module:attribute` or a .json file of tool definitions")
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"{spec!r}: cannot import {module_name!r}: {exc}") from exc
    value: Any = module
    for name in attribute.split("."):
        if not hasattr(value, name):
            raise ConfigurationError(f"{spec!r}: {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, name)
    return _as_tools(value, spec)


def _as_tools(value: Any, spec: str) -> list[Tool]:
    if isinstance(value, Tool):
        return [value]
    items = list(value.values()) if isinstance(value, Mapping) else value
    if isinstance(items, (list, tuple)) and all(isinstance(t, Tool) for t in items):
        return list(items)
    raise ConfigurationError(f"{spec!r} is not a Tool or a list/dict of Tools (got {type(value).__name__})")


def tools_from_json(data: Any, *, source: str = "JSON") -> list[Tool]:
    """Tools from neutral JSON definitions (camelCase or snake_case keys).

    Raises:
        ConfigurationError: not a list of definition objects, or an unknown key.
        ToolDefinitionError: a definition create_tool refuses.
    """
    definitions = data.get("tools", data) if isinstance(data, Mapping) else data
    if isinstance(definitions, Mapping):
        definitions = [definitions]
    if not isinstance(definitions, list):
        raise ConfigurationError(f"{source}: expected a list of tool definitions")
    tools: list[Tool] = []
    for position, definition in enumerate(definitions):
        if not isinstance(definition, Mapping):
            raise ConfigurationError(f"{source}: definition {position} is not an object")
        unknown = sorted(set(definition) - set(_JSON_KEYS))
        if unknown:
            raise ConfigurationError(f"{source}: definition {position} has unknown keys {unknown}")
        tools.append(create_tool(**{_JSON_KEYS[k]: v for k, v in definition.items()}))
    return tools
