"""OpenAI's strict-mode subset of JSON Schema, shared by both OpenAI adapters.

Strict function calling (Structured Outputs) accepts a schema only when every object is closed
(`additionalProperties: false`) and lists every property in `required`. `to_strict_schema`
rewrites a canonical schema into that subset without touching the input:

- an optional property becomes nullable (`["string", "null"]` for scalars, else
  `anyOf: [X, {"type": "null"}]`); the core turns the `null` the model sends back into
  "absent" before validation (`CompiledSchema.drop_disallowed_nulls`);
- `oneOf` becomes `anyOf`, a single-branch `allOf` is inlined, `const` becomes a one-value
  `enum`, a `$ref` with sibling keywords is wrapped as `anyOf: [{"$ref": ...}]`;
- `default` and `examples` move into the description (lossless: they only inform the model);
- constraints strict mode rejects (`minLength`, unsupported `format`s, ...) move into the
  description too, but the model is no longer held to them (toolwire still validates them);
- every local `$ref` points into the root `$defs`: targets elsewhere (`#/properties/x`,
  draft-07 `definitions`, nested `$defs`, `$anchor`s) become root definitions; `$schema`,
  `$id`, `$anchor` and `$comment` are dropped;
- what strict mode cannot express at all (open dicts, untyped values, tuples, multi-branch
  `allOf`, remote `$ref`s, a `required` name without a property) and schemas beyond the
  documented size limits (`_limits.py`) make the result `schema=None` with the reasons.

What OpenAI accepts follows the SDK's own `openai/lib/_pydantic.py::_ensure_strict_json_schema`
and the Structured Outputs "supported schemas" list (`_rules.py`, with sources), kept conservative.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolwire.schema import accepts_null

from .._schema_refs import RefHoister
from ._limits import limit_problems
from ._rules import RULES

_STRICT_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats strict mode enforces; other formats move into the description."""

_RELAXED: Final[tuple[str, ...]] = (
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedItems",
    "unevaluatedProperties",
)
"""Constraints strict mode rejects: moved into the description, no longer enforced by the model."""

_KEPT: Final = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "anyOf",
        "$ref",
        "$defs",
        "description",
        "title",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
        "allOf",
    }
)
"""Keywords strict mode accepts as they are; any other keyword not handled below (annotations such as
`deprecated`, `readOnly`, `discriminator`, extensions) is dropped: validators ignore it too."""

_SCALAR_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})
_LEAF_KEYS: Final = frozenset(
    {
        "type",
        "enum",
        "description",
        "title",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
    }
)
"""Keywords of a scalar schema that is strict as it stands."""
_TYPED_KEYS: Final = frozenset({"type", "enum", "anyOf", "$ref", "properties", "items", "allOf", "prefixItems"})
_NULL: Final = {"type": "null"}


@dataclass(frozen=True, slots=True)
class StrictResult:
    """A schema rewritten for OpenAI strict mode, or why it cannot be."""

    schema: dict[str, Any] | None
    """The strict schema; None when strict mode cannot express the original."""
    reasons: tuple[str, ...] = ()
    """Why strict mode is impossible (non-empty exactly when `schema` is None)."""
    relaxed: tuple[str, ...] = ()
    """Constraints moved into descriptions: the model is not held to them (toolwire still validates)."""

    @property
    def lossless(self) -> bool:
        """Whether every value the model may send under strict mode maps back to a valid original value."""
        return self.schema is not None and not self.relaxed


def to_strict_schema(schema: Mapping[str, Any]) -> StrictResult:
    """The strict-mode form of an object schema (the input is never modified)."""
    transform = _StrictTransform(schema)
    result = transform.node(schema, "$", root=True)
    transform.hoisted_definitions(result)
    if "anyOf" in result or "$ref" in result or result.get("type") != "object":
        transform.blockers.append(f"`$` is not a plain object schema: {RULES['strict.root_object'].cite()}")
    if not transform.blockers:
        transform.blockers.extend(limit_problems(result))
    if transform.blockers:
        return StrictResult(None, reasons=tuple(dict.fromkeys(transform.blockers)))
    return StrictResult(result, relaxed=tuple(transform.relaxed))


class _StrictTransform:
    """One walk over a schema; collects what it relaxed and what blocks strict mode."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.blockers: list[str] = []
        self.relaxed: list[str] = []
        definitions = root.get("$defs")
        self.refs = RefHoister(root, definitions if isinstance(definitions, Mapping) else ())

    def hoisted_definitions(self, result: dict[str, Any]) -> None:
        """Walk the targets `$ref`s pointed at outside the root `$defs`, into the root `$defs`."""
        hoisted: dict[str, Any] = {}
        while self.refs.pending:
            name, target = self.refs.pending.pop(0)
            hoisted[name] = self.node(target, f"$defs.{name}")
        if hoisted:
            result["$defs"] = {**result.get("$defs", {}), **hoisted}

    def node(self, schema: Any, path: str, *, root: bool = False) -> dict[str, Any]:
        """The strict form of one (sub)schema."""
        if not isinstance(schema, dict):
            what = "accepts any JSON value (`true`)" if schema is True else f"is not a schema object ({schema!r})"
            self.blockers.append(f"`{path}` {what}")
            return {}
        if schema.keys() <= _LEAF_KEYS and _plain_scalar(schema):
            return schema  # already strict: shared, like every schema the adapters send (read-only)
        node = self._inline_single_all_of(dict(schema), path) if "allOf" in schema else dict(schema)
        notes = self._keywords(node, path)
        kind = node.get("type")
        self._children(node, path, kind, root=root)
        if "$ref" in node:
            self._local_ref(node, path)
        elif kind is None and not _TYPED_KEYS.intersection(node):
            self.blockers.append(f"`{path}` accepts any JSON value (it has no type)")
        if notes:
            node["description"] = _describe(node.get("description"), notes)
        if "$ref" in node and len(node) > 1:
            node = {"anyOf": [{"$ref": node.pop("$ref")}], **node}
        return node

    def _keywords(self, node: dict[str, Any], path: str) -> list[str]:
        """Rewrites the node's keywords into the strict subset; the notes its description gains."""
        notes: list[str] = []
        constraints: list[str] = []
        if node.keys() - _KEPT:
            self._rewrite_keywords(node, path, notes, constraints)
        format_ = node.get("format")
        if format_ is not None and not (type(format_) is str and format_ in _STRICT_FORMATS):
            constraints.append(f"format={_json(node.pop('format'))}")
        if constraints:
            self.relaxed.extend(f"`{path}` {c}" for c in constraints)
            notes.append(f"Constraints: {', '.join(constraints)}.")
        return notes

    def _children(self, node: dict[str, Any], path: str, kind: Any, *, root: bool) -> None:
        if kind == "object" or (kind is None and "properties" in node) or (type(kind) is list and "object" in kind):
            self._object(node, path, root=root)
        if kind == "array" or (kind is None and "items" in node) or (type(kind) is list and "array" in kind):
            self._array(node, path)
        branches = node.get("anyOf")
        if type(branches) is list:
            node["anyOf"] = [self.node(b, f"{path}.anyOf[{i}]") for i, b in enumerate(branches)]
        definitions = node.pop("$defs", None)
        if root and type(definitions) is dict:  # elsewhere, what refs use is hoisted to the root
            node["$defs"] = {name: self.node(sub, f"$defs.{name}") for name, sub in definitions.items()}

    def _inline_single_all_of(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        branches = node.get("allOf")
        if branches is None:
            return node
        if not isinstance(branches, list) or len(branches) != 1 or not isinstance(branches[0], dict):
            self.blockers.append(f"`{path}` combines schemas with allOf, which strict mode cannot express")
            return node
        del node["allOf"]
        merged = dict(branches[0])
        for key, value in node.items():
            if key in merged and merged[key] != value and key not in ("description", "title"):
                self.blockers.append(f"`{path}` has allOf with a conflicting `{key}`")
            merged[key] = value
        return merged

    def _rewrite_keywords(self, node: dict[str, Any], path: str, notes: list[str], constraints: list[str]) -> None:
        """Keywords outside the strict subset: rewritten, moved into `notes`, dropped, or blocking."""
        if "oneOf" in node:
            if "anyOf" in node:
                self.blockers.append(f"`{path}` has both oneOf and anyOf")
            node["anyOf"] = node.pop("oneOf")
        if "const" in node:
            node["enum"] = [node.pop("const")]
        if "default" in node:
            default = node.pop("default")
            if default is not None:
                notes.append(f"Default: {_json(default)}.")
        if "examples" in node:
            notes.append(f"Examples: {_json(node.pop('examples'))}.")
        for key in sorted(node.keys() - _KEPT):
            value = node.pop(key)
            if key in _RELAXED:
                constraints.append(f"{key}={_json(value)}")
            elif key in ("patternProperties", "propertyNames"):
                self.blockers.append(f"`{path}` constrains free-form keys ({key}), which strict mode cannot express")
            elif key == "prefixItems":
                self.blockers.append(f"`{path}` is a tuple (prefixItems), which strict mode cannot express")
        constraints.sort(key=lambda c: _RELAXED.index(c.split("=", 1)[0]))

    def _object(self, node: dict[str, Any], path: str, *, root: bool) -> None:
        extra = node.get("additionalProperties", False)
        if extra is not False:
            kind = "any extra keys" if extra is True or extra == {} else "free-form keys (a map)"
            self.blockers.append(f"`{path}` accepts {kind} through additionalProperties")
        properties = node.get("properties")
        if properties is None:
            if not root and "additionalProperties" not in node:
                self.blockers.append(f"`{path}` is an object that declares no properties (any keys allowed)")
            properties = {}
        if not isinstance(properties, dict):
            self.blockers.append(f"`{path}.properties` is not an object")
            return
        required = set(node.get("required", ()))
        undeclared = [name for name in node.get("required", ()) if name not in properties]
        if undeclared:
            self.blockers.append(
                f"`{path}` requires {', '.join(f'`{n}`' for n in undeclared)} without declaring "
                f"{'it' if len(undeclared) == 1 else 'them'}: {RULES['strict.required_declared'].cite()}"
            )
        closed: dict[str, Any] = {}
        for name, sub in properties.items():
            child = self.node(sub, f"{path}.{name}")
            if name not in required and isinstance(sub, dict) and not accepts_null(sub, self.root):
                child = _nullable(child)
            closed[name] = child
        node.setdefault("type", "object")
        node["properties"] = closed
        node["required"] = list(closed)
        node["additionalProperties"] = False

    def _array(self, node: dict[str, Any], path: str) -> None:
        if "items" not in node:
            self.blockers.append(f"`{path}` is an array whose items have no schema")
            return
        node["items"] = self.node(node["items"], f"{path}[]")

    def _local_ref(self, node: dict[str, Any], path: str) -> None:
        """Points the node's `$ref` into the root `$defs`, or records why it cannot be."""
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            self.blockers.append(f"`{path}` uses a $ref outside the schema ({ref!r})")
            return
        local = self.refs.local(ref)
        if local is None:
            self.blockers.append(f"`{path}` uses a $ref that does not resolve ({ref!r})")
        else:
            node["$ref"] = local


def _plain_scalar(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    format_ = schema.get("format")
    return (
        type(kind) is str
        and kind in _SCALAR_TYPES
        and (format_ is None or (type(format_) is str and format_ in _STRICT_FORMATS))
    )


def _types(node: Mapping[str, Any]) -> list[Any]:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind] if kind is not None else []


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """The node, also accepting null (how strict mode spells an optional property)."""
    if set(node) <= {"anyOf", "description", "title"} and isinstance(node.get("anyOf"), list):
        return {**node, "anyOf": [*node["anyOf"], dict(_NULL)]}
    types = _types(node)
    if types and all(type(t) is str and t in _SCALAR_TYPES for t in types) and "enum" not in node:
        return {**node, "type": [*types, "null"]}
    outer: dict[str, Any] = {key: node[key] for key in ("description", "title") if key in node}
    inner = {key: value for key, value in node.items() if key not in outer}
    return {"anyOf": [inner, dict(_NULL)], **outer}


def _describe(description: Any, notes: list[str]) -> str:
    """The description followed by the notes, as sentences."""
    if not isinstance(description, str) or not description.strip():
        return " ".join(notes)
    text = description.rstrip()
    return " ".join([text if text.endswith((".", "!", "?", ":")) else f"{text}.", *notes])


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _json(value: Any) -> str:
    if type(value) is str and value.isalnum():
        return f'"{value}"'
    return _ENCODER.encode(value)
