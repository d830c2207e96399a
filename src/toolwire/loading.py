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
    return tools_from_module(spec)


def tools_from_module(spec: str, *, purpose: str = "load") -> list[Tool]:
    """The tools `module:attribute` names (the working directory is importable, as for `python -m`).

    Raises:
        ConfigurationError: a malformed spec, a module or attribute that does not exist, or an
            attribute that is not a Tool, a list of Tools or a dict of Tools.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ConfigurationError(f"expected `module:attribute`, got {spec!r}")
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ConfigurationError(f"cannot {purpose} {spec!r}: no module named {exc.name!r}") from exc
        raise  # the module exists but one of its own imports failed: show that traceback
    value: Any = module
    for name in attribute.split("."):
        if not hasattr(value, name):
            raise ConfigurationError(f"cannot {purpose} {spec!r}: {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, name)
    if isinstance(value, Tool):
        return [value]
    items = list(value.values()) if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else None
    if not items or not all(isinstance(item, Tool) for item in items):
        raise ConfigurationError(
            f"cannot {purpose} {spec!r}: it is a {type(value).__name__}, not a Tool, a list of Tools or a dict of Tools"
        )
    return list(items)


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
