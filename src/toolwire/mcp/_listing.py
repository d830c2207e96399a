"""A tool's MCP `tools/list` entry, built from the neutral IR without importing the `mcp` SDK.

The entry carries what MCP defines (`name`, `title`, `description`, `inputSchema`,
`outputSchema`, `annotations`, `_meta`) plus, under `_meta`, the neutral fields MCP has no
slot for (`toolwire/strict`, `toolwire/inputExamples`, `toolwire/providerOptions`), so a
toolwire client that loads the tool back encodes it for every provider exactly as the
original.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolwire.exceptions import ToolDefinitionError
from toolwire.schema import deep_copy_json
from toolwire.tools import Tool, ToolAnnotations, object_view

META_STRICT = "toolwire/strict"
"""`_meta` key carrying `Tool.strict` (MCP has no strict flag)."""
META_INPUT_EXAMPLES = "toolwire/inputExamples"
"""`_meta` key carrying `Tool.input_examples` as `[{"input": {...}}, ...]`."""
META_PROVIDER_OPTIONS = "toolwire/providerOptions"
"""`_meta` key carrying `Tool.provider_options` (read back only when the client trusts the server)."""
TOOLWIRE_META_KEYS = (META_STRICT, META_INPUT_EXAMPLES, META_PROVIDER_OPTIONS)

LATEST_PROTOCOL = "2026-07-28"
"""The first MCP revision whose `outputSchema` and `structuredContent` may be any JSON Schema / value."""
_OBJECT_ONLY_OUTPUT = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

SPEC_DEFAULTS: Mapping[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""What the MCP spec says a client must assume for a hint the server leaves out."""
_WRITE_ONLY_HINTS = ("destructiveHint", "idempotentHint")
"""Hints the spec calls meaningful only when `readOnlyHint` is false."""


def tool_listing(tool: Tool, *, protocol_version: str | None = None) -> dict[str, Any]:
    """The tool's MCP `tools/list` entry as wire JSON (camelCase), valid for `protocol_version`.

    `protocol_version` (default: the latest, 2026-07-28) matters for `outputSchema` only:
    through 2025-11-25 it must be an object schema, so a tool whose output is not an object
    is listed without one there (and its results carry no `structuredContent`).

    Raises:
        ToolDefinitionError: `mcp._meta` or `provider_options` hold values JSON cannot carry.
    """
    entry: dict[str, Any] = {"name": tool.id}
    if tool.title is not None:
        entry["title"] = tool.title
    entry["description"] = tool.description
    # MCP input schemas are objects: a free-form tool is listed as one string property `input`
    listed = object_view(tool) if tool.free_form else tool
    entry["inputSchema"] = deep_copy_json(listed.input_schema.json_schema)
    output_schema = listed_output_schema(tool, protocol_version)
    if output_schema is not None:
        entry["outputSchema"] = output_schema
    entry["annotations"] = listed_annotations(tool.mcp.annotations if tool.mcp else None)
    meta = _listed_meta(tool)
    if meta:
        entry["_meta"] = meta
    return entry


def listed_output_schema(tool: Tool, protocol_version: str | None) -> dict[str, Any] | None:
    """The `outputSchema` to list, or None when the tool has none the protocol version accepts."""
    if tool.output_schema is None or not has_structured_output(tool, protocol_version):
        return None
    copied: dict[str, Any] = deep_copy_json(tool.output_schema.json_schema)
    return copied


def has_structured_output(tool: Tool, protocol_version: str | None) -> bool:
    """Whether results carry `structuredContent`: an output schema the protocol version can list."""
    if tool.output_schema is None:
        return False
    return protocol_version not in _OBJECT_ONLY_OUTPUT or tool.output_schema.json_schema.get("type") == "object"


def listed_annotations(annotations: ToolAnnotations | None) -> dict[str, Any]:
    """Annotations with the spec's defaults written out, so no client has to guess them.

    A read-only tool keeps `destructiveHint` and `idempotentHint` only when set: the spec
    gives them meaning for tools that write, and a default "destructive" badge on a
    read-only tool would mislead the user.
    """
    wire = annotations.to_mcp() if annotations is not None else {}
    read_only = wire.get("readOnlyHint") is True
    for hint, default in SPEC_DEFAULTS.items():
        if hint not in wire and not (read_only and hint in _WRITE_ONLY_HINTS):
            wire[hint] = default
    return wire


def _listed_meta(tool: Tool) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if tool.mcp is not None and tool.mcp.meta:
        meta.update(_json_value(tool, "mcp._meta", tool.mcp.meta))
    if tool.strict is not None:
        meta[META_STRICT] = tool.strict
    if tool.input_examples:
        meta[META_INPUT_EXAMPLES] = [{"input": dict(example.input)} for example in tool.input_examples]
    if tool.provider_options:
        meta[META_PROVIDER_OPTIONS] = _json_value(tool, "provider_options", tool.provider_options)
    return meta


def _json_value(tool: Tool, field: str, value: Mapping[str, Any]) -> dict[str, Any]:
    try:
        copied: dict[str, Any] = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(tool.id, field, f"cannot be listed over MCP: it is not JSON ({exc})") from None
    return copied
