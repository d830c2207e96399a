"""JSON Schema rendered as Python type stubs: TypedDicts for objects, `Literal` for enums.

Objects become `class X(TypedDict)` when every key is a plain identifier, else the functional
`X = TypedDict("X", {...})` form (keys such as `user-id`, `from` or `__x`, which the class form
would reject or mangle). `$ref`s become named types and may be recursive; names that two tools
define differently are prefixed with the tool's stem. Anything the mapping cannot express, or
nesting deeper than `MAX_DEPTH`, becomes `Any`. The output always parses and executes, and
the work is bounded: each schema gets `WORK_PER_SCHEMA` nodes (a hostile schema can branch
exponentially through `allOf`/`anyOf` of recursive `$ref`s), and a `$ref` already being
expanded inline is not expanded again.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from toolwire.schema import resolve_ref

from ._names import is_free_type_name, pascal, sanitize
from ._pytext import comment, docstring, literal

MAX_DEPTH = 20
WORK_PER_SCHEMA = 5000
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Schema = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class _Field:
    key: str
    annotation: str
    required: bool
    doc: str


@dataclass(slots=True)
class _Definition:
    name: str
    doc: str
    fields: tuple[_Field, ...] = ()
    emitted: bool = False
    alias_of: str | None = None
    first_nested: int = 0
    """Index in the emission order from which definitions created while rendering this one start."""

    @property
    def functional(self) -> bool:
        return any(not _class_key(f.key) for f in self.fields)


@dataclass(slots=True)
class _Scope:
    """Where a schema sits: its root (for `$ref`), the tool owning it and the nesting depth."""

    root: Schema
    owner: str
    depth: int = 0

    def deeper(self) -> _Scope:
        return _Scope(self.root, self.owner, self.depth + 1)


@dataclass(slots=True)
class StubWriter:
    """Collects the TypedDicts that the type expressions it returns refer to."""

    _defs: dict[str, _Definition] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)
    _refs: dict[tuple[int, str], str] = field(default_factory=dict)
    _shapes: dict[tuple[str, Any], str] = field(default_factory=dict)
    _any_shape: dict[Any, str] = field(default_factory=dict)
    _expanding: set[tuple[int, str]] = field(default_factory=set)
    _work: int = 0

    def type_of(self, schema: Any, *, root: Schema, owner: str, name: str) -> str:
        """The type expression for a tool's whole input or output schema; its object is called `name`."""
        scope = _Scope(root, owner)
        self._work = WORK_PER_SCHEMA
        if not isinstance(schema, Mapping):
            return "Any"
        if _refers_to(schema, "#"):
            return self._ref("#", scope, name, forced=True)
        plain = {k: v for k, v in schema.items() if k != "title"}
        if isinstance(plain.get("properties"), Mapping) and plain["properties"] and not _combines(plain):
            return self._object(plain, scope, name, alias=True)
        return self._render(plain, scope, name)

    def definitions(self) -> list[str]:
        """Source lines of every TypedDict, each defined before anything that needs it unquoted."""
        lines: list[str] = []
        pending = set(self._defs)
        for name in self._order:
            lines.extend(["", *self._source(self._defs[name], pending), ""])
            pending.discard(name)
        return lines

    # -- dispatch ------------------------------------------------------------------------------

    def _render(self, schema: Any, scope: _Scope, hint: str) -> str:
        self._work -= 1
        if self._work < 0 or scope.depth > MAX_DEPTH or not isinstance(schema, Mapping) or not schema:
            return "Any"
        if isinstance(schema.get("$ref"), str):
            return self._ref(schema["$ref"], scope, hint)
        if "const" in schema:
            return self._literal([schema["const"]])
        if isinstance(schema.get("enum"), list):
            return self._literal(cast(list[Any], schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return self._union([self._render(s, scope.deeper(), hint) for s in schema[key]], schema)
        if isinstance(schema.get("allOf"), list):
            return self._all_of(cast(list[Any], schema["allOf"]), scope, hint)
        kind = schema.get("type")
        if isinstance(kind, list):
            return self._union([self._typed(schema, str(k), scope, hint) for k in kind], schema)
        if isinstance(kind, str):
            return self._union([self._typed(schema, kind, scope, hint)], schema)
        if isinstance(schema.get("properties"), Mapping):
            return self._typed(schema, "object", scope, hint)
        return "Any"

    def _typed(self, schema: Schema, kind: str, scope: _Scope, hint: str) -> str:
        if kind == "object":
            return self._object(schema, scope, hint)
        if kind == "array":
            return self._array(schema, scope, hint)
        return _SCALARS.get(kind, "Any")

    def _union(self, members: list[str], schema: Schema) -> str:
        if schema.get("nullable") is True:
            members.append("None")
        unique: list[str] = []
        for member in members:
            if member == "Any":
                return "Any"
            if member not in unique:
                unique.append(member)
        unique.sort(key=lambda m: m == "None")
        return " | ".join(unique) if unique else "Any"

    def _literal(self, values: list[Any]) -> str:
        if values and all(v is None or isinstance(v, (str, int, bool)) for v in values):
            return "Literal[" + ", ".join(literal(v) for v in values) + "]"
        kinds = {"None" if v is None else _python_scalar(v) for v in values}
        return self._union(sorted(kinds), {})

    def _array(self, schema: Schema, scope: _Scope, hint: str) -> str:
        tuple_items = schema.get("prefixItems", schema.get("items"))
        if isinstance(tuple_items, list):
            items = [self._render(s, scope.deeper(), f"{hint}Item{i}") for i, s in enumerate(tuple_items)]
            return "tuple[" + ", ".join(items) + "]" if items else "tuple[()]"
        return f"list[{self._render(schema.get('items'), scope.deeper(), hint + 'Item')}]"

    def _all_of(self, members: list[Any], scope: _Scope, hint: str) -> str:
        if len(members) == 1:
            return self._render(members[0], scope.deeper(), hint)
        refs = {(id(scope.root), m["$ref"]) for m in members if isinstance(m, Mapping) and "$ref" in m}
        refs = {key for key in refs if isinstance(key[1], str)}
        if refs & self._expanding:
            return "dict[str, Any]"
        self._expanding |= refs
        try:
            return self._merge(members, scope, hint)
        finally:
            self._expanding -= refs

    def _merge(self, members: list[Any], scope: _Scope, hint: str) -> str:
        resolved = [self._resolve(m, scope.root) for m in members]
        if not all(isinstance(m, Mapping) and isinstance(m.get("properties"), Mapping) for m in resolved):
            return "Any"
        merged: dict[str, Any] = {}
        required: list[str] = []
        for member in cast(list[Schema], resolved):
            for key, sub in member["properties"].items():
                if key in merged and merged[key] != sub:
                    return "dict[str, Any]"
                merged[key] = sub
            required.extend(r for r in member.get("required", ()) if isinstance(r, str))
        return self._object({"properties": merged, "required": required}, scope, hint)

    # -- named types -----------------------------------------------------------------------------

    def _ref(self, ref: str, scope: _Scope, hint: str, *, forced: bool = False) -> str:
        key = (id(scope.root), ref)
        known = self._refs.get(key)
        if known is not None:
            return known
        target = resolve_ref(scope.root, ref)
        if target is None:
            return "Any"
        if not _is_named_object(target):
            if key in self._expanding:
                return "Any"
            self._expanding.add(key)
            try:
                return self._render(target, scope.deeper(), hint)
            finally:
                self._expanding.discard(key)
        base = hint if forced else _title(target) or _ref_stem(ref) or hint
        name = self._unique(base, scope.owner)
        self._refs[key] = name
        definition = _Definition(name, "", first_nested=len(self._order))
        self._defs[name] = definition
        definition.doc, definition.fields = self._body(target, scope.deeper(), name)
        return self._finish(definition, base, alias=forced)

    def _object(self, schema: Schema, scope: _Scope, hint: str, *, alias: bool = False) -> str:
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            extra = schema.get("additionalProperties")
            value = self._render(extra, scope.deeper(), hint + "Value") if isinstance(extra, Mapping) else "Any"
            return f"dict[str, {value}]"
        base = hint if alias else _title(schema) or hint
        first_nested = len(self._order)
        doc, fields = self._body(schema, scope.deeper(), base)
        definition = _Definition(self._unique(base, scope.owner), doc, fields, first_nested=first_nested)
        self._defs[definition.name] = definition
        return self._finish(definition, base, alias=alias)

    def _finish(self, definition: _Definition, base: str, *, alias: bool) -> str:
        """Emit a definition, or reuse an identical one defined earlier under the same base name.

        A tool's own input or output name must exist (its signature uses it): it becomes an
        alias of any identical earlier type. A recursive type compares with its own name
        blanked out, unless a type nested inside it already refers to it by name.
        """
        own = re.compile(rf"\b{re.escape(definition.name)}\b")
        fields = tuple((f.key, own.sub("\x00", f.annotation), f.required, f.doc) for f in definition.fields)
        shape = (definition.doc, fields)
        nested = self._order[definition.first_nested :]
        foldable = not any(own.search(f.annotation) for n in nested for f in self._defs[n].fields)
        existing = (self._any_shape if alias else self._shapes).get(shape if alias else (base, shape))
        if existing is not None and foldable:
            if not alias:
                del self._defs[definition.name]
                self._refs = {k: existing if v == definition.name else v for k, v in self._refs.items()}
                return existing
            definition.alias_of, definition.fields = existing, ()
        else:
            self._shapes.setdefault((base, shape), definition.name)
            self._any_shape.setdefault(shape, definition.name)
        definition.emitted = True
        self._order.append(definition.name)
        return definition.name

    def _body(self, schema: Schema, scope: _Scope, name: str) -> tuple[str, tuple[_Field, ...]]:
        required = {r for r in schema.get("required", ()) if isinstance(r, str)}
        fields: list[_Field] = []
        for key, sub in cast(Mapping[str, Any], schema.get("properties", {})).items():
            annotation = self._render(sub, scope, name + pascal(sanitize(str(key))))
            fields.append(_Field(str(key), annotation, key in required, _field_doc(sub)))
        return (str(schema.get("description") or ""), tuple(fields))

    def _unique(self, base: str, owner: str) -> str:
        base = base if is_free_type_name(base) else pascal(sanitize(base)) + "Type"
        for candidate in (base, owner + base):
            if is_free_type_name(candidate) and candidate not in self._defs:
                return candidate
        number = 2
        while f"{owner}{base}{number}" in self._defs:
            number += 1
        return f"{owner}{base}{number}"

    @staticmethod
    def _resolve(schema: Any, root: Schema) -> Any:
        if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            return resolve_ref(root, schema["$ref"])
        return schema

    # -- source -----------------------------------------------------------------------------------

    def _source(self, definition: _Definition, pending: set[str]) -> list[str]:
        """Source of one definition; `pending` names are not defined yet (it included)."""
        if definition.alias_of is not None:
            return [f"{definition.name} = {definition.alias_of}"]
        if definition.functional:
            return self._functional_source(definition, pending)
        lines = [f"class {definition.name}(TypedDict):", *docstring(definition.doc, "    ")]
        for item in definition.fields:
            annotation = item.annotation if item.required else f"NotRequired[{item.annotation}]"
            lines.append(f"    {item.key}: {annotation}")
            lines.extend(docstring(item.doc, "    "))
        return lines

    def _functional_source(self, definition: _Definition, pending: set[str]) -> list[str]:
        lines = [comment(definition.doc)] if definition.doc.strip() else []
        lines.extend(comment(f"{literal(f.key)}: {f.doc}") for f in definition.fields if f.doc.strip())
        lines.append(f"{definition.name} = TypedDict({literal(definition.name)}, {{")
        for item in definition.fields:
            annotation = item.annotation if item.required else f"NotRequired[{item.annotation}]"
            forward = not pending.isdisjoint(_IDENT.findall(annotation))
            lines.append(f"    {literal(item.key)}: {literal(annotation) if forward else annotation},")
        lines.append("})")
        return lines


def _class_key(key: str) -> bool:
    """Whether `key` can be a field of the class form (mangled `__x` names cannot)."""
    return key.isidentifier() and key.isascii() and not keyword.iskeyword(key) and not key.startswith("__")


def _combines(schema: Schema) -> bool:
    """Whether a schema mixes its properties with `anyOf`/`oneOf`/`allOf`/`$ref`, which `_render` handles."""
    return any(key in schema for key in ("anyOf", "oneOf", "allOf", "$ref", "enum", "const"))


def _refers_to(node: Any, ref: str) -> bool:
    if isinstance(node, Mapping):
        return node.get("$ref") == ref or any(_refers_to(v, ref) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, ref) for v in node)
    return False


def _is_named_object(schema: Schema) -> bool:
    return isinstance(schema.get("properties"), Mapping) and bool(schema["properties"])


def _title(schema: Schema) -> str | None:
    title = schema.get("title")
    return title if isinstance(title, str) and is_free_type_name(title) else None


def _ref_stem(ref: str) -> str | None:
    last = ref.rsplit("/", 1)[-1]
    return pascal(sanitize(last)) if last and last != "#" else None


def _python_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float" if isinstance(value, float) else "int"
    if isinstance(value, str):
        return "str"
    return "Any"


def _field_doc(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return ""
    parts = [str(schema.get("description") or "").strip()]
    if isinstance(schema.get("format"), str):
        parts.append(f"Format: {schema['format']}.")
    if "default" in schema and isinstance(schema["default"], (str, int, float, bool, type(None))):
        parts.append(f"Default: {schema['default']!r}.")
    return " ".join(p for p in parts if p)
