"""Tool schemas as Gemini's OpenAPI-subset `Schema` (`parameters` / `response`), for endpoints that need it.

The target is `google.genai.types.Schema` (google/genai/types.py), written the way the SDK puts
it on the request body: snake_case keys (`any_of`, `max_items`, `property_ordering`) and
upper-case types (`OBJECT`, `STRING`). The conversion:

- inlines every `$ref` (a recursive schema is a `SchemaError`: this form cannot express it);
- turns `type` lists and `anyOf`/`oneOf` with a null branch into `nullable`, a single remaining
  branch into the node itself, and several into `any_of` (each branch keeps the description,
  as the SDK's own `Schema.from_json_schema` does: Vertex refuses fields beside `any_of`);
- turns `const` into a one-value `enum`; numeric enums use the documented
  `{type: INTEGER, format: enum, enum: ["1", "2"]}` form; other enums are described instead;
- merges `allOf`, turns tuples (`prefixItems`) into an `any_of` item type;
- gives untyped nodes a type (Gemini rejects a schema without one);
- keeps string formats Gemini accepts (`enum`, `date-time`) and numeric ones
  (`int32`, `int64`, `float`, `double`);
- drops `title` (https://github.com/googleapis/python-genai/issues/1732) and identifiers;
- writes every other keyword into the description and reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.exceptions import SchemaError
from toolwire.schema import resolve_ref

from ._rules import RULES
from ._schema import SchemaNotes, describe
from ._schema_shapes import any_value, for_type, is_null, is_ref, json_type

_RENAMED = {
    "description": "description",
    "default": "default",
    "minimum": "minimum",
    "maximum": "maximum",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
    "required": "required",
    "propertyOrdering": "property_ordering",
}
_DROPPED = frozenset({"title", "$schema", "$comment", "$id", "$anchor", "$defs", "definitions", "discriminator"})
_HANDLED = frozenset(
    {"type", "anyOf", "oneOf", "allOf", "const", "enum", "format", "properties", "items", "prefixItems"}
    | {"additionalProperties", "examples", "$ref", "nullable"}
)
_PLAIN_SIBLINGS = frozenset({"description", "default", "title"})
"""Keywords beside `anyOf: [{$ref}, null]` that carry over as they are (pydantic's `Optional[Model]`)."""
_FORMATS = {
    "STRING": frozenset({"enum", "date-time"}),
    "INTEGER": frozenset({"int32", "int64", "enum"}),
    "NUMBER": frozenset({"float", "double", "enum"}),
}


def openapi_schema_for_gemini(
    schema: Mapping[str, Any], notes: SchemaNotes, *, tool_id: str, field: str, vertex: bool = False
) -> dict[str, Any]:
    """A new `Schema` dict in the SDK's wire spelling; `vertex` for Vertex AI, which also takes additionalProperties.

    Raises:
        SchemaError: a `$ref` that is recursive or does not resolve.
    """
    return _OpenApiWalker(schema, notes, tool_id, field, vertex=vertex).node(schema, field, ())


class _OpenApiWalker:
    """One conversion, with the root at hand for `$ref` lookups."""

    def __init__(self, root: Mapping[str, Any], notes: SchemaNotes, tool_id: str, field: str, *, vertex: bool) -> None:
        self.root = root
        self.notes = notes
        self.tool_id = tool_id
        self.field = field
        self.vertex = vertex
        self._converted: dict[str, dict[str, Any]] = {}
        """Definitions already converted, by `$ref` (a definition converts the same everywhere)."""

    def node(self, node: Any, where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        if node is True or not node:
            return self._untyped(where)
        if not isinstance(node, dict):
            raise SchemaError(f"tool {self.tool_id!r}: `{where}` is not a schema object ({node!r})")
        ref = node.get("$ref")
        if isinstance(ref, str):
            if len(node) == 1:
                return self._definition(ref, where, refs)
            return self.node(self._resolve(node, ref, where, refs), where, (*refs, ref))
        branches = node.get("anyOf", node.get("oneOf"))
        if isinstance(branches, list):
            return self._union(node, branches, where, refs)
        if isinstance(node.get("allOf"), list):
            return self.node(self._merge_all_of(node, where, refs), where, refs)
        kind = node.get("type")
        if isinstance(kind, list):
            return self._type_list(node, kind, where, refs)
        return self._plain(node, where, refs)

    def _definition(self, ref: str, where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        """A bare `$ref` converted once per schema (a copy: callers may add `nullable`)."""
        converted = self._converted.get(ref)
        if converted is None:
            converted = self._converted[ref] = self.node(self._resolve({}, ref, where, refs), where, (*refs, ref))
        return dict(converted)

    def _resolve(self, node: Mapping[str, Any], ref: str, where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        if ref in refs:
            raise SchemaError(
                f"tool {self.tool_id!r}: `{where}` refers to {ref!r} inside itself; Gemini's OpenAPI schema cannot "
                "express recursion: use the default schema_format='json' (parameters_json_schema)"
            )
        target = resolve_ref(self.root, ref)
        if target is None:
            raise SchemaError(f"tool {self.tool_id!r}: `{where}` has a $ref {ref!r} that does not resolve")
        return {**target, **{k: v for k, v in node.items() if k != "$ref"}}

    def _union(self, node: Mapping[str, Any], branches: list[Any], where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        key = "anyOf" if "anyOf" in node else "oneOf"
        if key == "oneOf":
            self.notes.add(
                "schema.oneOf",
                where,
                "Gemini's OpenAPI schema has no `oneOf`: sent as `any_of` at {where} "
                "(toolwire still checks exclusivity)",
            )
        siblings = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
        real = [b for b in branches if not is_null(self._resolve(b, b["$ref"], where, refs) if is_ref(b) else b)]
        nullable = len(real) < len(branches)
        if len(real) == 1 and is_ref(real[0]) and len(real[0]) == 1 and set(siblings) <= _PLAIN_SIBLINGS:
            converted = self._definition(real[0]["$ref"], where, refs)
            for name, value in siblings.items():
                if value is not None and name in _RENAMED:
                    converted[_RENAMED[name]] = value
        elif len(real) == 1 and is_ref(real[0]):
            ref = real[0]["$ref"]
            converted = self.node({**self._resolve(real[0], ref, where, refs), **siblings}, where, (*refs, ref))
        elif len(real) == 1:
            converted = self.node({**real[0], **siblings}, where, refs)
        elif not real:
            converted = self._plain({**siblings, "type": "null"}, where, refs)
        else:
            description = self._sibling_description(siblings, where)
            converted = {
                "any_of": [
                    self.node(_with_description(b, description), f"{where}.{key}[{i}]", refs)
                    for i, b in enumerate(real)
                ]
            }
        if nullable:
            converted["nullable"] = True
        return converted

    def _type_list(
        self, node: Mapping[str, Any], kinds: list[Any], where: str, refs: tuple[str, ...]
    ) -> dict[str, Any]:
        real = [k for k in kinds if k != "null"]
        nullable = len(real) < len(kinds)
        if len(real) == 1:
            converted = self._plain({**node, "type": real[0]}, where, refs)
        elif not real:
            converted = self._plain({**node, "type": "null"}, where, refs)
        else:
            converted = {
                "any_of": [self._plain(for_type(node, str(k)), f"{where}.type[{i}]", refs) for i, k in enumerate(real)]
            }
        if nullable:
            converted["nullable"] = True
        return converted

    def _plain(self, node: Mapping[str, Any], where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        extras: list[tuple[str, Any]] = []
        kind = json_type(node)
        if kind is None:
            return self._untyped(where, node)
        if kind == "null":
            out["type"] = "NULL"
        else:
            out["type"] = kind.upper()
        for key, value in node.items():
            if key in _RENAMED:
                if value is not None:
                    out[_RENAMED[key]] = list(value) if isinstance(value, list) else value
            elif key in _DROPPED or key in _HANDLED:
                continue
            else:
                extras.append((key, value))
                self._unsupported(key, where)
        if node.get("nullable") is True:
            out["nullable"] = True
        self._enum(node, out, extras, where)
        self._format(node, out, extras, where)
        self._children(node, out, extras, where, refs)
        if "examples" in node and isinstance(node["examples"], list) and node["examples"]:
            out["example"] = node["examples"][0]
            if len(node["examples"]) > 1:
                self.notes.add(
                    "schema.examples", where, "Gemini's `example` takes one value: kept the first at {where}"
                )
        if extras:
            out["description"] = describe(out.get("description"), extras)
        return out

    def _enum(self, node: Mapping[str, Any], out: dict[str, Any], extras: list[Any], where: str) -> None:
        values = node["enum"] if isinstance(node.get("enum"), list) else None
        if values is None and "const" in node:
            values = [node["const"]]
        if values is None:
            return
        if None in values:
            out["nullable"] = True
            values = [v for v in values if v is not None]
        if all(isinstance(v, str) for v in values):
            out["enum"] = list(values)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            out["format"] = "enum"
            out["enum"] = [_number_text(v) for v in values]
        else:
            extras.append(("enum", values))
            self.notes.add(
                "schema.enum",
                where,
                "Gemini's OpenAPI `enum` takes strings or numbers only: the values at {where} are in the description",
            )

    def _format(self, node: Mapping[str, Any], out: dict[str, Any], extras: list[Any], where: str) -> None:
        value = node.get("format")
        if value is None or "format" in out:
            return
        if value in _FORMATS.get(out["type"], ()):
            out["format"] = value
            return
        extras.append(("format", value))
        self.notes.add(
            "schema.format",
            where,
            "Gemini accepts only the formats enum/date-time (strings) and int32/int64/float/double (numbers): "
            "the format at {where} is in the description",
        )

    def _children(
        self, node: Mapping[str, Any], out: dict[str, Any], extras: list[Any], where: str, refs: tuple[str, ...]
    ) -> None:
        properties = node.get("properties")
        if isinstance(properties, dict):
            out["properties"] = {
                name: self.node(sub, f"{where}.properties.{name}", refs) for name, sub in properties.items()
            }
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            self._tuple(node, prefix, out, where, refs)
        elif "items" in node and node["items"] is not False:
            out["items"] = self.node(node["items"], f"{where}.items", refs)
        extra = node.get("additionalProperties")
        if extra is not None and not isinstance(extra, (bool, dict)):
            return
        if extra is not None and not self.vertex:
            rule = RULES["openapi.additional_properties"]
            self.notes.add(
                "schema.additionalProperties",
                where,
                f"dropped at {{where}} for the Gemini API: {rule.cite()} (toolwire still validates it; "
                "schema_format='json' keeps it)",
            )
        elif isinstance(extra, bool) or any_value(extra):
            out["additional_properties"] = extra if isinstance(extra, bool) else True
        elif isinstance(extra, dict):
            out["additional_properties"] = self.node(extra, f"{where}.additionalProperties", refs)

    def _tuple(
        self, node: Mapping[str, Any], prefix: list[Any], out: dict[str, Any], where: str, refs: tuple[str, ...]
    ) -> None:
        items = [self.node(sub, f"{where}.prefixItems[{i}]", refs) for i, sub in enumerate(prefix)]
        if isinstance(node.get("items"), dict):
            items.append(self.node(node["items"], f"{where}.items", refs))
        unique: list[dict[str, Any]] = []
        for item in items:
            if item not in unique:
                unique.append(item)
        out["items"] = unique[0] if len(unique) == 1 else {"any_of": unique}
        if node.get("items") is False:
            out.setdefault("max_items", len(prefix))
        self.notes.add(
            "schema.prefixItems",
            where,
            "Gemini's OpenAPI schema has no tuples: the positions at {where} became one item type",
        )

    def _merge_all_of(self, node: Mapping[str, Any], where: str, refs: tuple[str, ...]) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
        for branch in node["allOf"]:
            part = self._resolve(branch, branch["$ref"], where, refs) if is_ref(branch) else branch
            if not isinstance(part, dict):
                continue
            for key, value in part.items():
                if key == "properties" and isinstance(merged.get(key), dict):
                    if any(name in merged[key] and merged[key][name] != sub for name, sub in value.items()):
                        self._all_of_conflict(where)
                    merged[key] = {**value, **merged[key]}
                elif key == "required" and isinstance(merged.get(key), list):
                    merged[key] = merged[key] + [r for r in value if r not in merged[key]]
                elif key not in merged:
                    merged[key] = value
                elif merged[key] != value and key not in _DROPPED:
                    self._all_of_conflict(where)
        return merged

    def _all_of_conflict(self, where: str) -> None:
        self.notes.add(
            "schema.allOf",
            where,
            "Gemini has no `allOf`: the branches at {where} were merged and conflicting keywords kept from the first",
        )

    def _untyped(self, where: str, node: Mapping[str, Any] | None = None) -> dict[str, Any]:
        self.notes.add(
            "schema.untyped",
            where,
            "Gemini's OpenAPI schema requires a type: the untyped schema at {where} was sent as STRING "
            "(use schema_format='json' to keep it open)",
        )
        out: dict[str, Any] = {"type": "STRING"}
        if node and isinstance(node.get("description"), str):
            out["description"] = node["description"]
        return out

    def _unsupported(self, key: str, where: str) -> None:
        self.notes.add(
            f"schema.{key}",
            where,
            f"`{key}` is not in Gemini's OpenAPI schema: written into the description at {{where}} "
            "(toolwire still validates it)",
        )

    def _sibling_description(self, siblings: Mapping[str, Any], where: str) -> str | None:
        """The description every `any_of` branch gets: Vertex refuses other fields beside `any_of`."""
        extras = [(k, v) for k, v in siblings.items() if k not in _DROPPED and k not in ("description", "nullable")]
        for key, _ in extras:
            self._unsupported(key, where)
        description = siblings.get("description")
        return describe(description, extras) if extras else description if isinstance(description, str) else None


def _with_description(branch: Any, description: str | None) -> Any:
    if isinstance(branch, dict) and description is not None and "description" not in branch:
        return {**branch, "description": description}
    return branch


def _number_text(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
