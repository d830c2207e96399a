"""Strict-mode null repair: a `null` the model sent for an optional property becomes "absent" again.

OpenAI's strict mode makes every property required and spells "optional" as "nullable"; the model
then sends `null` for what it would have left out. This module walks a value against the schema
the user wrote and drops each `null` that stands for an optional property whose schema refuses
null, so validation sees what the user's schema defined. The walk follows what the strict
transforms emit: `$ref`s (also inside `allOf` wrappers and discriminator mappings), every `allOf`
branch at once, the `anyOf`/`oneOf` branch the value was written for, array items and tuples.

Choosing a union branch is the only guess. Candidates are narrowed by JSON type, by pydantic's
`discriminator.mapping`, by `const`/`enum` tags, by required and closed keys, then by the keys a
strict emission carries (all of the branch's properties); a tie left after that is settled by
validating the repaired value against each branch (with jsonschema, only then imported).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, cast

Schema = dict[str, Any]
BranchCheck = Callable[[Schema, Any], bool]
"""Whether a value is valid against one subschema of the root (used only to settle ties)."""

_MAX_DEPTH: Final = 64
"""Values nested deeper are returned as they are (a guard against hostile nesting)."""
_MAX_SCHEMA_HOPS: Final = 32
"""`$ref`/`allOf`/union hops followed for one value (a guard against reference cycles)."""
_MAX_TRIALS: Final = 64
"""Union ties settled by trial repairs in one walk (recursive unions could otherwise branch without end)."""
_UNSET: Final = object()
_JSON_TYPES: Final[dict[type, tuple[str, ...]]] = {
    dict: ("object",),
    list: ("array",),
    str: ("string",),
    bool: ("boolean",),
    int: ("integer", "number"),
    float: ("number",),
    type(None): ("null",),
}


def resolve_ref(root: Mapping[str, Any], ref: str) -> dict[str, Any] | None:
    """Resolve a local `#/...` JSON pointer or `#name` anchor against the root; None when it does not resolve."""
    if not ref.startswith("#"):
        return None
    if len(ref) > 1 and ref[1] != "/":
        return _anchor(root, ref[1:], 0)
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return cast(dict[str, Any], node) if isinstance(node, Mapping) else None


def _anchor(node: Any, name: str, depth: int) -> dict[str, Any] | None:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, Mapping):
        if node.get("$anchor") == name:
            return cast(dict[str, Any], node)
        children: Any = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _anchor(child, name, depth + 1)
        if found is not None:
            return found
    return None


def accepts_null(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int = 0) -> bool:
    """Whether a (sub)schema accepts JSON null; unknown constructs count as accepting it.

    Every keyword that constrains the type must accept null (`$ref` siblings apply as well).
    """
    if depth > _MAX_SCHEMA_HOPS:
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(root, ref)
        if target is not None and not accepts_null(target, root, depth + 1):
            return False
    if "const" in schema and schema["const"] is not None:
        return False
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        return False
    kind = schema.get("type")
    if (isinstance(kind, str) and kind != "null") or (isinstance(kind, list) and "null" not in kind):
        return False
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and not any(
            accepts_null(s, root, depth + 1) for s in branches if isinstance(s, dict)
        ):
            return False
    branches = schema.get("allOf")
    if isinstance(branches, list):
        return all(accepts_null(s, root, depth + 1) for s in branches if isinstance(s, dict))
    return True


def needs_null_repair(root: Mapping[str, Any]) -> bool:
    """Whether any object in the schema has an optional property that refuses null (else repair is a no-op)."""
    return _has_optional_non_nullable(root, root, 0)


def _has_optional_non_nullable(schema: Any, root: Mapping[str, Any], depth: int) -> bool:
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return False
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        for name, sub in properties.items():
            if isinstance(sub, dict) and name not in required and not accepts_null(sub, root):
                return True
    return any(_has_optional_non_nullable(sub, root, depth + 1) for sub in _subschemas(schema))


def _subschemas(schema: Mapping[str, Any]) -> list[Any]:
    """The schemas directly inside a schema (maps of schemas, lists of schemas, single schemas)."""
    found: list[Any] = []
    for key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
        value = schema.get(key)
        if isinstance(value, dict):
            found.extend(value.values())
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        value = schema.get(key)
        if isinstance(value, list):
            found.extend(value)
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
        value = schema.get(key)
        if isinstance(value, dict):
            found.append(value)
        elif key == "items" and isinstance(value, list):
            found.extend(value)
    return found


class NullRepair:
    """One repair walk: the root for `$ref`s and, for ties between union branches, a validity check."""

    __slots__ = ("_check", "_nullable", "_trials", "root")

    def __init__(
        self, root: Mapping[str, Any], check: Callable[[], BranchCheck], nullable: dict[int, bool] | None = None
    ) -> None:
        self.root = root
        self._check = check
        self._nullable = {} if nullable is None else nullable
        """`accepts_null` by subschema id; the owner may keep it across walks (its schema is read-only)."""
        self._trials = _MAX_TRIALS

    def _accepts_null(self, schema: Schema) -> bool:
        known = self._nullable.get(id(schema))
        if known is None:
            known = self._nullable[id(schema)] = accepts_null(schema, self.root)
        return known

    def value(self, value: Any, schemas: list[Schema], depth: int) -> Any:
        """`value` with the disallowed nulls dropped, under every schema in `schemas` (allOf semantics)."""
        if depth > _MAX_DEPTH or not schemas:
            return value
        if type(value) is dict:
            return self._object(cast(dict[str, Any], value), schemas, depth)
        if type(value) is list:
            return self._array(value, schemas, depth)
        return value

    def _object(self, value: dict[str, Any], schemas: list[Schema], depth: int) -> dict[str, Any]:
        flat = self._flatten(schemas, value, depth)
        declared: dict[str, list[Schema]] = {}
        extra: list[Schema] = []
        required: set[Any] = set()
        for schema in flat:
            properties = schema.get("properties")
            if isinstance(properties, dict):
                for name, sub in properties.items():
                    if isinstance(sub, dict):
                        declared.setdefault(name, []).append(sub)
            names = schema.get("required")
            if isinstance(names, list):
                required.update(n for n in names if isinstance(n, str))
            more = schema.get("additionalProperties")
            if isinstance(more, dict):
                extra.append(more)
        if not declared and not extra:
            return value
        repaired: dict[str, Any] = {}
        for key, item in value.items():
            subs = declared.get(key)
            if subs is None:
                repaired[key] = self.value(item, extra, depth + 1) if extra else item
            elif item is None:
                if key in required or all(self._accepts_null(sub) for sub in subs):
                    repaired[key] = None
            else:
                repaired[key] = self.value(item, subs, depth + 1)
        return repaired

    def _array(self, value: list[Any], schemas: list[Schema], depth: int) -> list[Any]:
        flat = self._flatten(schemas, value, depth)
        rest: list[Schema] = []
        positional: list[list[Schema]] = []
        for schema in flat:
            prefix = schema.get("prefixItems")
            items = schema.get("items")
            if isinstance(items, list):  # draft-07 tuples
                prefix, items = items, schema.get("additionalItems")
            if isinstance(prefix, list):
                for position, sub in enumerate(prefix):
                    if isinstance(sub, dict):
                        while len(positional) <= position:
                            positional.append([])
                        positional[position].append(sub)
            if isinstance(items, dict):
                rest.append(items)
        if not rest and not positional:
            return value
        return [
            self.value(item, positional[i] + rest if i < len(positional) else rest, depth + 1)
            for i, item in enumerate(value)
        ]

    def _flatten(self, schemas: list[Schema], value: Any, depth: int) -> list[Schema]:
        """Every schema that applies to `value`: `$ref`s resolved, `allOf` expanded, the union branch chosen."""
        flat: list[Schema] = []
        pending = list(schemas)
        while pending and len(flat) < _MAX_SCHEMA_HOPS:
            schema = pending.pop()
            flat.append(schema)
            ref = schema.get("$ref")
            if isinstance(ref, str):
                target = resolve_ref(self.root, ref)
                if target is not None:
                    pending.append(target)
            branches = schema.get("allOf")
            if isinstance(branches, list):
                pending.extend(b for b in branches if isinstance(b, dict))
            for key in ("anyOf", "oneOf"):
                if isinstance(schema.get(key), list):
                    chosen = self._branch(schema, key, value, depth)
                    if chosen is not None:
                        pending.append(chosen)
        return flat

    def _branch(self, schema: Schema, key: str, value: Any, depth: int) -> Schema | None:
        """The branch of a union `value` was written for; None when it cannot be told."""
        candidates = [b for b in schema[key] if isinstance(b, dict) and self._admits(b, value, 0)]
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        if type(value) is dict:
            tagged = self._by_discriminator(schema, candidates, cast(dict[str, Any], value))
            if tagged is not None:
                return tagged
            candidates = self._by_keys(candidates, cast(dict[str, Any], value))
            if len(candidates) <= 1:
                return candidates[0] if candidates else None
        if self._trials < len(candidates):
            return None
        self._trials -= len(candidates)
        repaired = [self.value(value, [b], depth + 1) for b in candidates]
        if all(r == repaired[0] for r in repaired[1:]):
            return candidates[0]
        check = self._check()
        valid = [b for b, r in zip(candidates, repaired, strict=True) if check(b, r)]
        return valid[0] if len(valid) == 1 else None

    def _by_discriminator(self, schema: Schema, candidates: list[Schema], value: dict[str, Any]) -> Schema | None:
        """pydantic's `discriminator: {propertyName, mapping}` (OpenAPI's form): the tag names the branch."""
        discriminator = schema.get("discriminator")
        if not isinstance(discriminator, dict):
            return None
        mapping = discriminator.get("mapping")
        name = discriminator.get("propertyName")
        tag = value.get(name) if isinstance(name, str) else None
        if not isinstance(mapping, dict) or not isinstance(tag, str) or not isinstance(mapping.get(tag), str):
            return None
        target: str = mapping[tag]
        for branch in candidates:
            if branch.get("$ref") == target:
                return branch
        return resolve_ref(self.root, target)

    def _by_keys(self, candidates: list[Schema], value: dict[str, Any]) -> list[Schema]:
        """The candidates whose tags, required and closed keys fit; narrowed to an exact key match if one.

        A strict emission carries every property of its branch, so an exact match is decisive.
        """
        fitting: list[tuple[Schema, set[str]]] = []
        for branch in candidates:
            names = self._fits(branch, value)
            if names is not None:
                fitting.append((branch, names))
        keys = set(value)
        for narrower in ([b for b, n in fitting if n == keys], [b for b, n in fitting if keys <= n]):
            if len(narrower) == 1:
                return narrower
        return [b for b, _ in fitting]

    def _fits(self, branch: Schema, value: dict[str, Any]) -> set[str] | None:
        """The property names of a branch when `value` may belong to it (tags agree, no key missing or extra)."""
        names: set[str] = set()
        for schema in self._conjuncts(branch):
            properties = schema.get("properties")
            properties = properties if isinstance(properties, dict) else {}
            names.update(properties)
            required = schema.get("required")
            required = required if isinstance(required, list) else []
            if any(n not in value for n in required):
                return None
            closed = schema.get("additionalProperties") is False and "patternProperties" not in schema
            if closed and any(k not in properties for k in value):
                return None
            for name, sub in properties.items():
                if name not in value or not isinstance(sub, dict):
                    continue
                stands_for_absent = value[name] is None and name not in required
                if not stands_for_absent and not _tag_agrees(sub, value[name], self.root):
                    return None
        return names

    def _conjuncts(self, schema: Schema) -> list[Schema]:
        """The schema with its `$ref` targets and `allOf` branches (nested unions are not chosen here)."""
        found: list[Schema] = []
        pending = [schema]
        while pending and len(found) < _MAX_SCHEMA_HOPS:
            node = pending.pop()
            found.append(node)
            ref = node.get("$ref")
            target = resolve_ref(self.root, ref) if isinstance(ref, str) else None
            if target is not None:
                pending.append(target)
            branches = node.get("allOf")
            if isinstance(branches, list):
                pending.extend(b for b in branches if isinstance(b, dict))
        return found

    def _admits(self, schema: Schema, value: Any, hops: int) -> bool:
        """Whether the schema's type, `const` and `enum` admit the value (shallow; refs and unions followed)."""
        if hops > _MAX_SCHEMA_HOPS:
            return True
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = resolve_ref(self.root, ref)
            if target is not None and not self._admits(target, value, hops + 1):
                return False
        if "const" in schema and not _same_json(schema["const"], value):
            return False
        enum = schema.get("enum")
        if isinstance(enum, list) and not any(_same_json(option, value) for option in enum):
            return False
        kind = schema.get("type")
        names = _JSON_TYPES.get(type(value), ())
        if isinstance(kind, str) and kind not in names:
            return False
        if isinstance(kind, list) and not any(k in names for k in kind):
            return False
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and not any(
                self._admits(b, value, hops + 1) for b in branches if isinstance(b, dict)
            ):
                return False
        branches = schema.get("allOf")
        if isinstance(branches, list):
            return all(self._admits(b, value, hops + 1) for b in branches if isinstance(b, dict))
        return True


def _tag_agrees(schema: Schema, value: Any, root: Mapping[str, Any]) -> bool:
    """False when the property is a fixed tag (`const`, one-value `enum`) that the value does not carry."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(root, ref)
        schema = target if target is not None else schema
    fixed = schema.get("const", _UNSET)
    enum = schema.get("enum")
    if fixed is _UNSET and isinstance(enum, list) and len(enum) == 1:
        fixed = enum[0]
    return fixed is _UNSET or _same_json(fixed, value)


def _same_json(expected: Any, value: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(expected) is type(value) and expected == value
    return bool(expected == value)
