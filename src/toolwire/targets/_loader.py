"""Tool declarations from JSON or YAML: the seed's `tools.ts` entries as data.

A file holds a list of tools, or `{"tools": [...]}`. Each tool has `name` (or `id`),
`description`, `input` (a JSON Schema object), `target`, and optionally `displayName` (the
MCP title), `strict` and `inputExamples`. Every tool is built with `create_tool`, so the
same creation-time checks apply. A host created with `reject_tools_json=True` refuses a file
named `tools.json`, as the seed's app compiler does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from toolwire._extras import optional_imports
from toolwire.exceptions import ToolDefinitionError
from toolwire.tools import Tool, create_tool

from ._errors import TargetConfigError
from ._host import TargetHost, default_host

Format = Literal["json", "yaml"]
_TOOL_KEYS = {"name", "id", "displayName", "description", "input", "target", "strict", "inputExamples"}
TOOLS_JSON_MESSAGE = "`tools.json` is not supported: declare tools in code; the app compiler fails when it finds one"


def load_tools(
    path: str | os.PathLike[str], *, host: TargetHost | None = None, format: Format | None = None
) -> list[Tool]:
    """Read a declaration file (format from `format`, else the suffix) and create its tools.

    Raises:
        TargetConfigError: an unreadable or malformed file, or `tools.json` on a host that refuses it.
        ToolDefinitionError: a declaration that fails `create_tool`'s checks (names the tool and field).
    """
    file = Path(path)
    chosen = host or default_host()
    if chosen is not None and chosen.reject_tools_json and file.name.lower() == "tools.json":
        raise TargetConfigError(TOOLS_JSON_MESSAGE)
    kind = format or _format_of(file)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetConfigError(f"cannot read {file}: {exc}") from None
    return tools_from_text(text, format=kind, host=host, source=str(file))


def tools_from_text(text: str, *, format: Format, host: TargetHost | None = None, source: str = "<text>") -> list[Tool]:
    """Create the tools a JSON or YAML document declares.

    Raises:
        TargetConfigError: the document does not parse or is not a list of tools.
        ToolDefinitionError: a declaration that fails `create_tool`'s checks.
    """
    data = _parse(text, format, source)
    return tools_from_data(data, host=host, source=source)


def tools_from_data(data: Any, *, host: TargetHost | None = None, source: str = "<data>") -> list[Tool]:
    """Create the tools an already-parsed document declares.

    Raises:
        TargetConfigError: not a list of tool declarations.
        ToolDefinitionError: a declaration that fails `create_tool`'s checks.
    """
    if isinstance(data, Mapping) and set(data) == {"tools"}:
        data = data["tools"]
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        raise TargetConfigError(f'{source}: expected a list of tools or {{"tools": [...]}}')
    return [_tool(entry, index, host, source) for index, entry in enumerate(data)]


def _tool(entry: Any, index: int, host: TargetHost | None, source: str) -> Tool:
    if not isinstance(entry, Mapping):
        raise TargetConfigError(f"{source}: tool {index} must be an object")
    name = entry.get("name", entry.get("id"))
    tool_id = name if isinstance(name, str) else None
    if "name" in entry and "id" in entry:
        raise ToolDefinitionError(tool_id, "name", "and `id` are both given; use one")
    unknown = sorted(str(k) for k in set(entry) - _TOOL_KEYS)
    if unknown:
        raise ToolDefinitionError(
            tool_id, unknown[0], f"is not a field of a tool declaration; fields: {sorted(_TOOL_KEYS)}"
        )
    if "target" not in entry:
        raise ToolDefinitionError(tool_id, "target", "is required in a declaration file (there is no code to run)")
    description = entry.get("description")
    if not isinstance(description, str):
        raise ToolDefinitionError(tool_id, "description", "is required: say what the tool does")
    title = entry.get("displayName")
    if title is not None and not isinstance(title, str):
        raise ToolDefinitionError(tool_id, "displayName", "must be text")
    return create_tool(
        id=name,
        description=description,
        input_schema=entry.get("input"),
        strict=entry.get("strict"),
        input_examples=entry.get("inputExamples"),
        mcp={"annotations": {"title": title}} if title is not None else None,
        target=entry["target"],
        target_host=host,
    )


def _format_of(file: Path) -> Format:
    suffix = file.suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    raise TargetConfigError(f"cannot tell the format of {file.name!r}: use .json, .yaml or .yml, or pass format=")


def _parse(text: str, format: Format, source: str) -> Any:
    if format == "json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise TargetConfigError(f"{source}: not valid JSON ({exc})") from None
    if format != "yaml":
        raise TargetConfigError(f"unknown format {format!r}: use 'json' or 'yaml'")
    with optional_imports("reading YAML tool declarations"):
        import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TargetConfigError(f"{source}: not valid YAML ({exc})") from None
