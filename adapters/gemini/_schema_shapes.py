"""What a JSON Schema node is, read before converting it: its stated or implied type, a `$ref`, a null branch.

Gemini's OpenAPI `Schema` needs a type on every node, so the converter asks here which type a
node's keywords imply (`properties`: object, `items`: array, `pattern`: string, enum values...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._schema import const_type

_TYPE_KEYS: dict[str, frozenset[str]] = {
    "string": frozenset({"description", "enum", "format", "maxLength", "minLength", "pattern", "const"}),
    "number": frozenset({"description", "enum", "format", "maximum", "minimum", "const"}),
    "integer": frozenset({"description", "enum", "format", "maximum", "minimum", "const"}),
    "boolean": frozenset({"description", "const"}),
    "array": frozenset({"description", "items", "prefixItems", "maxItems", "minItems"}),
    "object": frozenset(
        {"description", "properties", "required", "additionalProperties", "maxProperties", "minProperties"}
    ),
}
"""The keywords that apply to each type (how a `type` list is split into `any_of` branches)."""
_TYPED = frozenset({"anyOf", "oneOf", "allOf", "$ref", "not", "if"})
"""Keywords that constrain a node without `type`: such a node is not 'any value'."""


def any_value(node: Any) -> bool:
    """A schema without a type-bearing keyword (`{}`, a description only): any value, as `true` says."""
    return isinstance(node, dict) and json_type(node) is None and not _TYPED.intersection(node)


def is_ref(node: Any) -> bool:
    """A node with a `$ref` (other keywords may sit beside it)."""
    return isinstance(node, dict) and isinstance(node.get("$ref"), str)


def is_null(node: Any) -> bool:
    """A node that allows only null (`type: null` or `const: null`): a union's nullable branch."""
    return isinstance(node, dict) and (node.get("type") == "null" or ("const" in node and node["const"] is None))


def for_type(node: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The part of a node with a `type` list that applies to one of its types."""
    keys = _TYPE_KEYS.get(kind, frozenset({"description"}))
    return {"type": kind, **{k: v for k, v in node.items() if k in keys}}


def json_type(node: Mapping[str, Any]) -> str | None:
    """The JSON type a node states or its keywords imply (None: any value)."""
    kind = node.get("type")
    if isinstance(kind, str):
        return kind
    if "properties" in node or "additionalProperties" in node or "required" in node:
        return "object"
    if "items" in node or "prefixItems" in node:
        return "array"
    values = node["enum"] if isinstance(node.get("enum"), list) else [node["const"]] if "const" in node else None
    if values:
        kinds = {const_type(v) for v in values if v is not None}
        if not kinds:
            return "null"
        if kinds == {"integer", "number"}:
            return "number"
        if len(kinds) == 1:
            return kinds.pop()
    if "pattern" in node or "minLength" in node or "maxLength" in node:
        return "string"
    if "minimum" in node or "maximum" in node:
        return "number"
    return None
