"""Anthropic's strict tool schemas: the JSON Schema subset `strict: true` accepts, built without mutating the input.

The rules are those of the SDK's own transformer (`anthropic/lib/_parse/_transform.py::transform_schema`):
every object gets `additionalProperties: false`, `required` is kept as given, `oneOf` becomes
`anyOf`, `enum`/`const` of primitives replace `type`, string `format`s outside a fixed set and
array `minItems` other than 0 or 1 are unsupported, and every other constraint is removed and
appended to the description so the model still reads it. Differences from the SDK, each made to
keep the schema's meaning: constructs that closing objects would change (open dictionaries,
`patternProperties`, tuples, several `allOf` branches, values of any type) make strict impossible
instead of being silently narrowed; `type` lists become `anyOf`; a `$ref` with a description keeps
it through a one-branch `allOf`; draft-07 `definitions` become `$defs`; the root `title` is
dropped; moved constraints are rendered with JSON values (`{minLength: 1, pattern: "^a"}`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolwire.schema import resolve_ref

from .._schema_refs import RefHoister
from ._rules import RULES

JsonSchema = dict[str, Any]

STRING_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
"""String formats strict mode keeps (`SupportedStringFormats` in the SDK transformer)."""

_DROPPED: Final = frozenset({"$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary"})
"""Bookkeeping keywords with no meaning for the model; removed without a trace."""

_NOT_STRICT: Final = {
    "patternProperties": "pattern properties",
    "propertyNames": "property-name constraints",
    "unevaluatedProperties": "unevaluated properties",
    "dependentSchemas": "dependent schemas",
    "dependencies": "dependencies",
    "prefixItems": "tuple items (prefixItems)",
    "additionalItems": "tuple items (additionalItems)",
    "unevaluatedItems": "unevaluated items",
    "contains": "`contains`",
    "not": "`not`",
    "if": "if/then/else",
    "then": "if/then/else",
    "else": "if/then/else",
}
"""Structural keywords whose meaning strict decoding cannot keep."""

_NUMBER_KEYWORDS: Final = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_TYPE_KEYWORDS: Final[dict[str, frozenset[str]]] = {
    "object": frozenset(
        {"properties", "required", "additionalProperties", "minProperties", "maxProperties", "dependentRequired"}
        | {"patternProperties", "propertyNames", "unevaluatedProperties", "dependentSchemas", "dependencies"}
    ),
    "array": frozenset(
        {"items", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains"}
        | {"prefixItems", "additionalItems", "unevaluatedItems", "contains"}
    ),
    "string": frozenset({"format", "pattern", "minLength", "maxLength", "contentEncoding", "contentMediaType"}),
    "number": _NUMBER_KEYWORDS,
    "integer": _NUMBER_KEYWORDS,
}
"""Keywords that apply to one type only (how a `type` list is split into `anyOf` branches)."""
_TYPED_KEYWORDS: Final = frozenset().union(*_TYPE_KEYWORDS.values())
_TYPES: Final = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
_CONSTRAINTS: Final = (_TYPED_KEYWORDS - {"properties", "required", "additionalProperties", "items"}) | {"uniqueItems"}
"""Moved keywords that validate (reported as no longer enforced); annotations such as `default` are not."""
_STRUCTURAL: Final = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "oneOf", "allOf"}
    | set(_NOT_STRICT)
)
"""Keywords beside a `$ref` that change what it accepts: strict keeps only the `$ref`, so they block it."""


@dataclass(frozen=True, slots=True)
class StrictSchema:
    """The outcome of making a schema strict."""

    schema: JsonSchema | None
    """The strict schema; None when the schema cannot be strict without changing its meaning."""
    problem: str | None = None
    """Why strict is impossible, naming the location."""
    moved: tuple[str, ...] = ()
    """Constraints moved into descriptions (`minLength at properties.name`): described, not enforced."""
    optional_parameters: int = 0
    """Properties left out of `required`, over every object (counted against the per-request limit)."""
    union_parameters: int = 0
    """Schemas with `anyOf` (type lists become `anyOf`), counted against the per-request limit."""


class _NotStrict(Exception):
    """A construct strict mode cannot express."""


def strict_schema(schema: Mapping[str, Any]) -> StrictSchema:
    """Anthropic's strict form of a root object schema, or why there is none."""
    walker = _Walker(schema)
    try:
        result = walker.root(schema)
        uses, optional, unions = _survey(result)
        _refuse_recursion(uses, list(result.get("$defs", ())))
    except _NotStrict as exc:
        return StrictSchema(None, str(exc))
    for key, count in (("strict.max_optional_parameters", optional), ("strict.max_union_parameters", unions)):
        rule = RULES[key]
        if rule.limit is not None and count > rule.limit:
            return StrictSchema(None, f"the schema alone counts {count} where {rule.cite()}")
    return StrictSchema(result, None, tuple(walker.moved), optional, unions)


class _Walker:
    """One transformation; collects the constraints it moved into descriptions."""

    __slots__ = ("lifted", "moved", "refs")

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.moved: list[str] = []
        self.lifted: list[list[tuple[str, str]]] = [[]]
        """Per object being walked: annotations of bare `$ref`s inside it, `(path, text)`, for its description."""
        definitions = root.get("$defs")
        self.refs = RefHoister(root, definitions if isinstance(definitions, Mapping) else ())

    def root(self, schema: Mapping[str, Any]) -> JsonSchema:
        rest = {k: v for k, v in schema.items() if k not in ("title", "definitions")}
        if rest.get("type") == "object" and "properties" not in rest:
            rest["properties"] = {}  # the root is a tool's arguments: no properties means no arguments
        result = self.node(rest, "", root=True)
        hoisted: JsonSchema = {}
        while self.refs.pending:
            name, target = self.refs.pending.pop(0)
            hoisted[name] = self.node(target, _join("$defs", name))
        if hoisted:
            result = {
                "$defs": {**result.get("$defs", {}), **hoisted},
                **{k: v for k, v in result.items() if k != "$defs"},
            }
        self._attach(result, self.lifted.pop(), "")
        return result

    def node(self, schema: Any, path: str, *, root: bool = False) -> JsonSchema:
        if not isinstance(schema, Mapping):
            raise _NotStrict(f"the schema at {_where(path)} is {json.dumps(schema)[:40]}, not an object schema")
        rest = {k: v for k, v in schema.items() if k not in _DROPPED}
        defs = rest.pop("$defs", None)  # below the root, what references use is hoisted to the root
        self.lifted.append([])
        body = self._body(rest, path)
        lifted = self.lifted.pop()
        if body.get("type") == "object":
            self._attach(body, lifted, path)
        else:
            self.lifted[-1].extend(lifted)
        if not root or not isinstance(defs, Mapping):
            return body
        return {"$defs": {name: self.node(sub, _join("$defs", name)) for name, sub in defs.items()}, **body}

    def _body(self, rest: dict[str, Any], path: str) -> JsonSchema:
        out: JsonSchema = {}
        if _single_all_of(rest):
            rest = self._merged_all_of(rest, path)
        if "$ref" in rest:
            return self._bare_ref(rest, path)
        if isinstance(rest.get("type"), list):
            return self._body(self._split_types(rest), path)
        for keyword, what in _NOT_STRICT.items():
            if keyword in rest:
                raise _NotStrict(f"{what} at {_where(path)} cannot be expressed in strict mode")
        literals = self._literals(out, rest, path)
        combined = self._combinators(out, rest, path)
        kind = rest.pop("type", None)
        if not literals and not combined:
            self._typed(out, kind, rest, path)
        self._annotations(out, rest, path)
        return out

    def _bare_ref(self, rest: dict[str, Any], path: str) -> JsonSchema:
        """`{"$ref"}` alone: its annotations go to the enclosing object's description (`strict.ref_siblings`)."""
        ref = rest.pop("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _NotStrict(f"the $ref {ref!r} at {_where(path)} is not local: {RULES['strict.external_ref'].cite()}")
        local = self.refs.local(ref)
        if local is None:
            raise _NotStrict(f"the $ref {ref!r} at {_where(path)} does not resolve")
        target = resolve_ref(self.refs.root, ref)
        if target is not None and "type" in rest and rest["type"] == target.get("type"):
            del rest["type"]  # says again what the target says
        structural = sorted(rest.keys() & _STRUCTURAL)
        if structural:
            raise _NotStrict(
                f"the $ref at {_where(path)} has {', '.join(structural)} beside it, which strict mode cannot keep "
                f"({RULES['strict.ref_siblings'].cite()})"
            )
        if rest:
            annotations: JsonSchema = {}
            self._annotations(annotations, rest, path)
            text = annotations.get("description", annotations.get("title"))
            if text is not None:
                self.lifted[-1].append((path, str(text)))
        return {"$ref": local}

    def _merged_all_of(self, rest: dict[str, Any], path: str) -> dict[str, Any]:
        """A one-branch `allOf` merged into its node (`strict.all_of_ref`: no `$ref` may sit in an allOf)."""
        branch = rest.pop("allOf")[0]
        if not isinstance(branch, Mapping):
            raise _NotStrict(f"the allOf branch at {_where(path)} is not an object schema")
        merged = {k: v for k, v in branch.items() if k not in _DROPPED and k != "$defs"}
        for key, value in rest.items():
            if key in merged and merged[key] != value and key not in ("description", "title"):
                raise _NotStrict(f"the allOf at {_where(path)} conflicts with its own `{key}`")
            merged[key] = value
        return merged

    def _attach(self, out: JsonSchema, lifted: list[tuple[str, str]], path: str) -> None:
        """Append the annotations of bare `$ref`s below an object to its description, each with its place."""
        if not lifted:
            return
        notes = "\n".join(f"`{_relative(where, path)}`: {text}" for where, text in lifted)
        description = out.get("description")
        out["description"] = f"{description}\n\n{notes}" if description else notes

    def _split_types(self, rest: dict[str, Any]) -> dict[str, Any]:
        kinds = list(dict.fromkeys(rest.pop("type")))
        if len(kinds) == 1 or "enum" in rest or "const" in rest:
            return {**rest, "type": kinds[0]} if len(kinds) == 1 else rest
        branches = [
            {"type": kind, **{k: v for k, v in rest.items() if k in _TYPE_KEYWORDS.get(kind, ())}} for kind in kinds
        ]
        return {**{k: v for k, v in rest.items() if k not in _TYPED_KEYWORDS}, "anyOf": branches}

    def _literals(self, out: JsonSchema, rest: dict[str, Any], path: str) -> bool:
        if "enum" in rest:
            values = rest.pop("enum")
            if not isinstance(values, list) or not values or not all(_is_primitive(v) for v in values):
                raise _NotStrict(
                    f"the enum at {_where(path)} has values that are not strings, numbers, booleans or null"
                )
            out["enum"] = list(values)
        if "const" in rest:
            value = rest.pop("const")
            if not _is_primitive(value):
                raise _NotStrict(f"the const at {_where(path)} is not a string, number, boolean or null")
            out["const"] = value
        if "enum" in out or "const" in out:
            rest.pop("type", None)  # the literals say it all (as in the SDK transformer)
            return True
        return False

    def _combinators(self, out: JsonSchema, rest: dict[str, Any], path: str) -> bool:
        present = [k for k in ("anyOf", "oneOf", "allOf") if k in rest]
        if not present:
            return False
        if len(present) > 1:
            raise _NotStrict(f"the schema at {_where(path)} combines {' and '.join(present)}")
        if "type" in rest:
            raise _NotStrict(f"the schema at {_where(path)} has both `type` and `{present[0]}`")
        keyword = present[0]
        branches = rest.pop(keyword)
        if not isinstance(branches, list) or not branches:
            raise _NotStrict(f"`{keyword}` at {_where(path)} must be a non-empty list")
        if keyword == "allOf" and len(branches) > 1:
            raise _NotStrict(f"`allOf` with several branches at {_where(path)} cannot be closed without changing it")
        target = "allOf" if keyword == "allOf" else "anyOf"
        out[target] = [self.node(branch, _join(path, keyword, str(i))) for i, branch in enumerate(branches)]
        return True

    def _typed(self, out: JsonSchema, kind: Any, rest: dict[str, Any], path: str) -> None:
        if kind not in _TYPES:
            what = "no `type`" if kind is None else f"the unknown type {kind!r}"
            raise _NotStrict(f"the schema at {_where(path)} has {what}, so it allows any value")
        out["type"] = kind
        if kind == "object":
            self._object(out, rest, path)
        elif kind == "array":
            self._array(out, rest, path)
        elif kind == "string" and rest.get("format") in STRING_FORMATS:
            out["format"] = rest.pop("format")

    def _object(self, out: JsonSchema, rest: dict[str, Any], path: str) -> None:
        if rest.pop("additionalProperties", False) is not False:
            raise _NotStrict(f"the open object (additionalProperties) at {_where(path)} cannot be strict")
        properties = rest.pop("properties", None)
        if not isinstance(properties, Mapping):
            raise _NotStrict(f"the object without `properties` at {_where(path)} accepts any keys")
        out["properties"] = {name: self.node(sub, _join(path, "properties", name)) for name, sub in properties.items()}
        out["additionalProperties"] = False
        if "required" in rest:
            required = list(rest.pop("required"))
            undeclared = [name for name in required if name not in properties]
            if undeclared:
                raise _NotStrict(
                    f"the object at {_where(path)} requires {', '.join(map(repr, undeclared))} without declaring "
                    f"{'it' if len(undeclared) == 1 else 'them'}: {RULES['strict.required_declared'].cite()}"
                )
            out["required"] = required

    def _array(self, out: JsonSchema, rest: dict[str, Any], path: str) -> None:
        if "items" not in rest:
            raise _NotStrict(f"the array without `items` at {_where(path)} accepts any items")
        out["items"] = self.node(rest.pop("items"), _join(path, "items"))
        minimum = rest.get("minItems")
        if minimum in (0, 1) and not isinstance(minimum, bool):
            out["minItems"] = rest.pop("minItems")

    def _annotations(self, out: JsonSchema, rest: dict[str, Any], path: str) -> None:
        description = rest.pop("description", None)
        title = rest.pop("title", None)
        if description is not None:
            out["description"] = description
        if title is not None:
            out["title"] = title
        if rest:
            self.moved.extend(f"{keyword} at {_where(path)}" for keyword in rest if keyword in _CONSTRAINTS)
            rendered = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in rest.items())
            out["description"] = (f"{description}\n\n" if description is not None else "") + "{" + rendered + "}"


def _single_all_of(rest: Mapping[str, Any]) -> bool:
    branches = rest.get("allOf")
    return isinstance(branches, list) and len(branches) == 1 and "anyOf" not in rest and "oneOf" not in rest


def _relative(where: str, path: str) -> str:
    """A child's place as the enclosing object's description names it (`home`, `tags.items`)."""
    inner = where.removeprefix(f"{path}.") if path else where
    return inner.removeprefix("properties.").replace(".properties.", ".")


def _survey(schema: JsonSchema) -> tuple[dict[str | None, set[str]], int, int]:
    """One walk of a strict schema: the `$ref`s each definition holds (None: outside `$defs`), the optional
    properties and the `anyOf`s (what the request-wide limits count; definitions once each)."""
    uses: dict[str | None, set[str]] = {}
    optional = unions = 0
    pending: list[tuple[Any, str | None]] = [(schema, None)]
    while pending:
        node, owner = pending.pop()
        if type(node) is not dict:
            continue
        ref = node.get("$ref")
        if type(ref) is str:
            uses.setdefault(owner, set()).add(ref)
        properties = node.get("properties")
        if type(properties) is dict:
            required = node.get("required") or ()
            optional += sum(1 for name in properties if name not in required)
            pending.extend((sub, owner) for sub in properties.values())
        definitions = node.get("$defs")
        if type(definitions) is dict:
            pending.extend((sub, name) for name, sub in definitions.items())
        if "items" in node:
            pending.append((node["items"], owner))
        for key in ("anyOf", "allOf"):
            branches = node.get(key)
            if type(branches) is list:
                unions += key == "anyOf"
                pending.extend((sub, owner) for sub in branches)
    return uses, optional, unions


def _refuse_recursion(uses: dict[str | None, set[str]], definitions: list[str]) -> None:
    """`strict.recursive`: a definition that reaches itself (or a `#` reference) makes strict impossible."""
    if any("#" in refs for refs in uses.values()):
        raise _NotStrict(f"the schema refers to its own root: {RULES['strict.recursive'].cite()}")
    for start in definitions:
        pending, seen = list(uses.get(start, ())), set()
        while pending:
            name = pending.pop().removeprefix("#/$defs/")
            if name == start:
                raise _NotStrict(f"the definition {start!r} refers to itself: {RULES['strict.recursive'].cite()}")
            if name not in seen:
                seen.add(name)
                pending.extend(uses.get(name, ()))


def _is_primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _join(path: str, *parts: str) -> str:
    return ".".join((path, *parts)) if path else ".".join(parts)


def _where(path: str) -> str:
    return f"`{path}`" if path else "the root"
