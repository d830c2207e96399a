"""Tool schemas as Gemini's `parameters_json_schema` / `response_json_schema` (JSON Schema) take them.

Gemini reads a subset of JSON Schema: the keywords documented on
`GenerationConfig.response_json_schema` (google/genai/types.py) plus those the SDK's own
`JSONSchema` model carries (`default`, `minLength`, `maxLength`, `pattern`, `uniqueItems`,
`minProperties`, `maxProperties`). This module keeps those, and for everything else:

- `const` becomes a one-value `enum` (with the type inferred when missing);
- `$ref` with sibling keywords is inlined (Gemini allows only `$`-keywords beside `$ref`);
  a recursive one keeps its `$ref` and loses the siblings (reported);
- `oneOf` is sent as `anyOf`, which is how Gemini reads it anyway;
- `allOf` is merged into its parent when the branches do not conflict;
- `title`, `$schema`, `$comment` and pydantic's `discriminator` are dropped: they carry no
  constraint, and titles inside `$defs` make Gemini emit MALFORMED_FUNCTION_CALL
  (https://github.com/googleapis/python-genai/issues/1732);
- any other keyword is written into the description (`(exclusiveMinimum: 0)`), so the model
  still reads it, and reported. toolwire validates the returned input against the original
  schema either way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolwire.schema import resolve_ref

SUPPORTED = frozenset(
    {
        "$id",
        "$anchor",
        "type",
        "format",
        "description",
        "enum",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "required",
        "propertyOrdering",
        "default",
        "minLength",
        "maxLength",
        "pattern",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    }
)
"""Keywords sent as they are (containers of subschemas are walked separately)."""

ANNOTATIONS = frozenset({"title", "$schema", "$comment", "discriminator"})
"""Keywords dropped without a report: they constrain nothing."""

_SCHEMA_MAPS = ("properties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties")


class SchemaNotes:
    """What a schema transform could not carry, by degradation feature, with where it was."""

    def __init__(self) -> None:
        self.found: dict[str, tuple[str, list[str]]] = {}

    def add(self, feature: str, where: str, action: str) -> None:
        """Record one occurrence; `action` may use `{where}` for the list of places."""
        entry = self.found.get(feature)
        if entry is None:
            self.found[feature] = (action, [where])
        elif where not in entry[1]:
            entry[1].append(where)

    def actions(self) -> list[tuple[str, str]]:
        """`(feature, action)` pairs with the places filled in."""
        result: list[tuple[str, str]] = []
        for feature, (action, places) in self.found.items():
            shown = ", ".join(f"`{p}`" for p in places[:3])
            if len(places) > 3:
                shown += f" and {len(places) - 3} more"
            result.append((feature, action.format(where=shown)))
        return result


def describe(description: Any, extras: list[tuple[str, Any]]) -> str:
    """A description with keywords Gemini cannot take appended as `(key: value, ...)`."""
    text = ", ".join(f"{key}: {json.dumps(value, ensure_ascii=False, separators=(',', ':'))}" for key, value in extras)
    if isinstance(description, str) and description:
        return f"{description} ({text})"
    return f"({text})"


def const_type(value: Any) -> str | None:
    """The JSON type of a `const` value, for schemas that state none."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def json_schema_for_gemini(schema: Mapping[str, Any], notes: SchemaNotes, label: str) -> dict[str, Any]:
    """A new schema in Gemini's JSON Schema subset (the input is never modified)."""
    walker = _JsonWalker(schema, notes)
    result: dict[str, Any] = walker.node(schema, label)
    if walker.inlined and isinstance(result.get("$defs"), dict):
        walker.drop_unused_defs(result)
    return result


class _JsonWalker:
    """One pass over a schema, with the root at hand for `$ref` lookups."""

    def __init__(self, root: Mapping[str, Any], notes: SchemaNotes) -> None:
        self.root = root
        self.notes = notes
        self.inlined = False
        self._recursive: dict[str, bool] = {}
        self._inlining: list[str] = []
        self._owner: str | None = None
        self._refs: dict[str | None, set[str]] = {}
        """`$ref`s kept in the output, by the `$defs` entry they sit in (None: outside `$defs`)."""

    def node(self, node: Any, where: str) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and any(not key.startswith("$") and key not in ANNOTATIONS for key in node):
            return self._ref_with_siblings(node, ref, where)
        out: dict[str, Any] = {}
        extras: list[tuple[str, Any]] = []
        for key, value in node.items():
            if key in SUPPORTED:
                out[key] = list(value) if isinstance(value, list) else value
            elif key not in ANNOTATIONS and not self._structure(node, key, value, out, where):
                self._keyword(node, key, value, out, extras, where)
        if extras:
            out["description"] = describe(out.get("description", node.get("description")), extras)
        return out

    def _structure(self, node: dict[str, Any], key: str, value: Any, out: dict[str, Any], where: str) -> bool:
        """Walk a keyword that holds subschemas; False when `key` is not one."""
        if key == "$ref":
            out[key] = value
            self._refs.setdefault(self._owner, set()).add(value)
        elif key == "$defs" and isinstance(value, dict) and node is self.root:
            out[key] = {name: self._definition(name, sub, f"{where}.$defs.{name}") for name, sub in value.items()}
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: self.node(sub, f"{where}.{key}.{name}") for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list) and not (key == "oneOf" and "anyOf" in node):
            # Gemini reads `oneOf` as `anyOf` (GenerationConfig.response_json_schema docstring): say so.
            out["anyOf" if key == "oneOf" else key] = [
                self.node(sub, f"{where}.{key}[{i}]") for i, sub in enumerate(value)
            ]
        elif key in _SCHEMA_VALUES:
            out[key] = self.node(value, f"{where}.{key}")
        else:
            return False
        return True

    def _keyword(
        self, node: dict[str, Any], key: str, value: Any, out: dict[str, Any], extras: list[Any], where: str
    ) -> None:
        """`const`, `allOf`, or a keyword Gemini does not read (described and reported)."""
        if key == "const":
            self._const(node, value, out, extras, where)
            return
        if key == "allOf" and isinstance(value, list) and self._merge_all_of(value, out, where):
            return
        extras.append((key, value))
        if key == "oneOf":
            action = (
                "Gemini reads `oneOf` as `anyOf` and the node at {where} has both: `oneOf` was written into the "
                "description"
            )
        else:
            action = (
                f"`{key}` is outside Gemini's JSON Schema subset: written into the description at {{where}} "
                "(toolwire still validates it)"
            )
        self.notes.add(f"schema.{key}", where, action)

    def _definition(self, name: str, schema: Any, where: str) -> Any:
        self._owner = name
        try:
            return self.node(schema, where)
        finally:
            self._owner = None

    def drop_unused_defs(self, schema: dict[str, Any]) -> None:
        """Remove `$defs` entries that inlining left without a reference."""
        defs: dict[str, Any] = schema["$defs"]
        used: set[str] = set()
        pending = list(self._refs.get(None, ()))
        while pending:
            name = pending.pop().removeprefix("#/$defs/")
            if name in defs and name not in used:
                used.add(name)
                pending.extend(self._refs.get(name, ()))
        kept = {name: value for name, value in defs.items() if name in used}
        if kept:
            schema["$defs"] = kept
        else:
            del schema["$defs"]

    def _const(self, node: Mapping[str, Any], value: Any, out: dict[str, Any], extras: list[Any], where: str) -> None:
        inferred = const_type(value)
        if "type" not in node and inferred is not None:
            out["type"] = inferred
        elif "type" not in node and value is None:
            out["type"] = "null"
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            if "enum" not in node:
                out["enum"] = [value]
            return
        extras.append(("const", value))
        self.notes.add(
            "schema.const",
            where,
            "Gemini takes `enum` only for strings and numbers: the `const` at {where} is written into the description",
        )

    def _ref_with_siblings(self, node: Mapping[str, Any], ref: str, where: str) -> Any:
        target = resolve_ref(self.root, ref)
        if target is None or ref in self._inlining or self._is_recursive(ref):
            self.notes.add(
                "schema.ref_siblings",
                where,
                "Gemini allows no keywords beside a recursive or unresolvable `$ref`: the siblings at {where} "
                "were dropped (toolwire still validates them)",
            )
            return {"$ref": ref}
        self.inlined = True
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        self._inlining.append(ref)
        try:
            return self.node(merged, where)
        finally:
            self._inlining.pop()

    def _is_recursive(self, ref: str) -> bool:
        known = self._recursive.get(ref)
        if known is None:
            known = self._recursive[ref] = _reaches(self.root, resolve_ref(self.root, ref), ref, set())
        return known

    def _merge_all_of(self, branches: list[Any], out: dict[str, Any], where: str) -> bool:
        """Merge `allOf` branches into `out`; False (and nothing merged) when they conflict."""
        merged: dict[str, Any] = {}
        for i, branch in enumerate(branches):
            walked = self.node(branch, f"{where}.allOf[{i}]")
            if not isinstance(walked, dict) or "$ref" in walked:
                return self._all_of_failed(where)
            for key, value in walked.items():
                if key == "properties" and isinstance(merged.get(key), dict):
                    if _overlap(merged[key], value):
                        return self._all_of_failed(where)
                    merged[key] = {**merged[key], **value}
                elif key == "required" and isinstance(merged.get(key), list):
                    merged[key] = merged[key] + [r for r in value if r not in merged[key]]
                elif key in merged and merged[key] != value:
                    return self._all_of_failed(where)
                else:
                    merged[key] = value
        for key, value in merged.items():
            if key in out and out[key] != value and key not in ("properties", "required"):
                return self._all_of_failed(where)
            if key == "properties" and isinstance(out.get(key), dict) and _overlap(out[key], value):
                return self._all_of_failed(where)
        for key, value in merged.items():
            if key == "properties" and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}
            elif key == "required" and isinstance(out.get(key), list):
                out[key] = out[key] + [r for r in value if r not in out[key]]
            else:
                out[key] = value
        return True

    def _all_of_failed(self, where: str) -> bool:
        self.notes.add(
            "schema.allOf",
            where,
            "Gemini has no `allOf` and the branches at {where} conflict: written into the description",
        )
        return False


def _overlap(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether two `properties` maps constrain one name differently (merging would drop one)."""
    return any(name in first and first[name] != schema for name, schema in second.items())


def _reaches(root: Mapping[str, Any], node: Any, ref: str, seen: set[str]) -> bool:
    """Whether `node` refers (transitively) to `ref`."""
    if isinstance(node, dict):
        inner = node.get("$ref")
        if isinstance(inner, str):
            if inner == ref:
                return True
            if inner not in seen:
                seen.add(inner)
                if _reaches(root, resolve_ref(root, inner), ref, seen):
                    return True
        return any(_reaches(root, value, ref, seen) for key, value in node.items() if key != "$ref")
    if isinstance(node, list):
        return any(_reaches(root, value, ref, seen) for value in node)
    return False
