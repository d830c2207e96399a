"""Independent checks of a strict schema against each provider's documented rules (no toolwire code involved).

Written from the rules themselves (OpenAI's Structured Outputs "Supported schemas", Anthropic's
structured-outputs "JSON Schema limitations"), so a transform bug cannot hide behind itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_OPENAI_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$ref", "$defs",
    "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "minItems", "maxItems",
}  # fmt: skip
_OPENAI_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
_ANTHROPIC_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "minItems", "enum", "const", "anyOf",
    "allOf", "$ref", "$defs", "description", "title", "format",
}  # fmt: skip
_ANTHROPIC_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}


def _walk(node: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield path, node
    for key in ("properties", "$defs"):
        for name, sub in (node.get(key) or {}).items():
            yield from _walk(sub, f"{path}.{key}.{name}")
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], f"{path}.items")
    for key in ("anyOf", "allOf"):
        for i, sub in enumerate(node.get(key) or []):
            yield from _walk(sub, f"{path}.{key}[{i}]")


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return "properties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind)


def openai_strict_problems(schema: dict[str, Any]) -> list[str]:
    """Why OpenAI's strict mode would refuse the schema (empty when it follows every rule)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema or "$ref" in schema:
        problems.append("root: not a plain object")
    definitions = schema.get("$defs") or {}
    properties = enum_values = characters = 0
    for path, node in _walk(schema):
        for key in set(node) - _OPENAI_KEYWORDS:
            problems.append(f"keyword {key}: at {path}")
        if "$defs" in node and node is not schema:
            problems.append(f"nested $defs: at {path}")
        ref = node.get("$ref")
        if (
            ref is not None
            and ref != "#"
            and not (
                isinstance(ref, str) and ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in definitions
            )
        ):
            problems.append(f"ref outside $defs: {ref} at {path}")
        if ref is not None and len(node) > 1:
            problems.append(f"ref with siblings: at {path}")
        if "format" in node and node["format"] not in _OPENAI_FORMATS:
            problems.append(f"format: {node['format']} at {path}")
        if _is_object(node):
            names = list(node.get("properties") or {})
            properties += len(names)
            characters += sum(map(len, names))
            if node.get("additionalProperties") is not False:
                problems.append(f"open object: at {path}")
            if sorted(node.get("required", [])) != sorted(names):
                problems.append(f"required differs from properties: at {path}")
        if isinstance(node.get("enum"), list):
            enum_values += len(node["enum"])
            characters += sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in node["enum"])
    characters += sum(map(len, definitions))
    if properties > 5000 or enum_values > 1000 or characters > 120_000:
        problems.append(f"size: {properties} properties, {enum_values} enum values, {characters} characters")
    return problems


def anthropic_strict_problems(schema: dict[str, Any]) -> list[str]:
    """Why Anthropic's strict mode would refuse the schema (empty when it follows every rule)."""
    problems: list[str] = []
    definitions = schema.get("$defs") or {}
    uses: dict[str, set[str]] = {}
    for path, node in _walk(schema):
        for key in set(node) - _ANTHROPIC_KEYWORDS:
            problems.append(f"keyword {key}: at {path}")
        ref = node.get("$ref")
        if ref is not None:
            if not (
                isinstance(ref, str) and ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in definitions
            ):
                problems.append(f"ref outside $defs: {ref} at {path}")
            if len(node) > 1:
                problems.append(f"ref with siblings: at {path}")
            owner = path.split(".")[2] if path.startswith("$.$defs.") else "$"
            uses.setdefault(owner, set()).add(str(ref).removeprefix("#/$defs/"))
        if any("$ref" in branch for branch in node.get("allOf") or [] if isinstance(branch, dict)):
            problems.append(f"allOf with $ref: at {path}")
        if node.get("type") == "object":
            if node.get("additionalProperties") is not False:
                problems.append(f"open object: at {path}")
            if set(node.get("required", [])) - set(node.get("properties") or {}):
                problems.append(f"required without property: at {path}")
        if "minItems" in node and node["minItems"] not in (0, 1):
            problems.append(f"minItems: at {path}")
        if "format" in node and node["format"] not in _ANTHROPIC_FORMATS:
            problems.append(f"format: {node['format']} at {path}")
    return problems + _recursion(uses)


def _defined(ref: Any, definitions: dict[str, Any]) -> bool:
    return isinstance(ref, str) and ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in definitions


def _recursion(uses: dict[str, set[str]]) -> list[str]:
    """The definitions that reach themselves (or the root), from the references each one holds."""
    found: list[str] = []
    for start in uses:
        pending, seen = list(uses[start]), set()
        while pending:
            name = pending.pop()
            if name in (start, "#"):
                found.append(f"recursive: {start}")
                break
            if name not in seen:
                seen.add(name)
                pending.extend(uses.get(name, ()))
    return found
