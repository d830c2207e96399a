"""Hypothesis strategies: JSON Schemas of the kinds tool schemas use, with instances valid for each.

Instances are drawn from the schema's shape and kept only when the original schema accepts
them, so a property can check that a transform never rejects what the user's schema allows.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import strategies as st

from toolwire.schema import resolve_ref

_ANNOTATIONS = st.fixed_dictionaries(
    {},
    optional={
        "description": st.sampled_from(["A value", "Some thing"]),
        "title": st.just("Title"),
        "$comment": st.just("note"),
        "examples": st.just(["x"]),
    },
)


def _with(base: dict[str, Any], extra: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(extra, _ANNOTATIONS).map(lambda pair: {**base, **pair[0], **pair[1]})


_STRING = _with(
    {"type": "string"},
    st.fixed_dictionaries(
        {},
        optional={
            "minLength": st.integers(0, 2),
            "maxLength": st.integers(3, 8),
            "pattern": st.just("^[a-c]*$"),
            "format": st.sampled_from(["date", "uuid", "date-time"]),
            "default": st.just("a"),
        },
    ),
)
_INTEGER = _with(
    {"type": "integer"},
    st.fixed_dictionaries(
        {},
        optional={
            "minimum": st.integers(-2, 0),
            "maximum": st.integers(5, 10),
            "exclusiveMinimum": st.integers(-3, -1),
            "exclusiveMaximum": st.integers(11, 12),
            "multipleOf": st.sampled_from([1, 2]),
        },
    ),
)
_NUMBER = _with(
    {"type": "number"}, st.fixed_dictionaries({}, optional={"minimum": st.just(-1.5), "format": st.just("double")})
)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "c"]))
LEAVES = st.one_of(
    _STRING,
    _INTEGER,
    _NUMBER,
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    _SCALARS.map(lambda value: {"const": value}),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True).map(
        lambda values: {"type": "string", "enum": values}
    ),
    st.lists(st.integers(1, 4), min_size=1, max_size=3, unique=True).map(lambda values: {"enum": values}),
    st.just({"type": ["string", "null"]}),
)


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    names = st.sampled_from(["a", "b", "c", "d"])
    objects = st.dictionaries(names, children, min_size=1, max_size=3).flatmap(
        lambda props: st.tuples(
            st.just(props),
            st.lists(st.sampled_from(sorted(props)), unique=True),
            st.sampled_from([None, False, True]),
            _ANNOTATIONS,
        ).map(
            lambda parts: {
                "type": "object",
                "properties": parts[0],
                **({"required": parts[1]} if parts[1] else {}),
                **({} if parts[2] is None else {"additionalProperties": parts[2]}),
                **parts[3],
            }
        )
    )
    arrays = st.tuples(children, st.integers(0, 2)).map(
        lambda pair: {"type": "array", "items": pair[0], **({"minItems": pair[1]} if pair[1] else {})}
    )
    unions = st.lists(children, min_size=2, max_size=3).map(lambda branches: {"anyOf": branches})
    exclusive = st.lists(children, min_size=2, max_size=2).map(lambda branches: {"oneOf": branches})
    nullable = children.map(lambda child: {"anyOf": [child, {"type": "null"}], "default": None})
    merged = st.tuples(objects, objects).map(lambda pair: {"allOf": [pair[0], pair[1]]})
    negated = children.map(lambda child: {"type": "object", "not": {"required": ["zz"]}, "properties": {"x": child}})
    return st.one_of(objects, arrays, unions, exclusive, nullable, merged, negated)


SCHEMAS = st.recursive(LEAVES, _extend, max_leaves=8)


@st.composite
def root_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema, sometimes with `$defs` referenced plainly or with sibling keywords."""
    properties = draw(st.dictionaries(st.sampled_from(["p", "q", "r"]), SCHEMAS, min_size=1, max_size=3))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        schema["$defs"] = {"Shared": draw(SCHEMAS)}
        reference: dict[str, Any] = {"$ref": "#/$defs/Shared"}
        if draw(st.booleans()):
            reference["description"] = "Shared thing"
        properties["s"] = reference
    if draw(st.booleans()):
        schema["required"] = sorted(properties)[:1]
    return schema


def candidates(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like the schema (not all valid: callers filter with a validator)."""
    if depth > 6 or not isinstance(schema, dict):
        return _SCALARS
    if "$ref" in schema:
        target = resolve_ref(root, schema["$ref"])
        return candidates(target, root, depth + 1) if target is not None else _SCALARS
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([candidates(branch, root, depth + 1) for branch in schema[key]])
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for branch in schema["allOf"]:
            merged.update(branch.get("properties", {}))
        return _object(merged, root, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([candidates({**schema, "type": k}, root, depth) for k in kind])
    if kind == "object":
        return _object(schema.get("properties", {}), root, depth)
    if kind == "array":
        return st.lists(candidates(schema.get("items", {}), root, depth + 1), max_size=3)
    return {
        "string": st.one_of(st.text(alphabet="abc", max_size=6), st.just("2024-01-31")),
        "integer": st.integers(-4, 12),
        "number": st.one_of(st.integers(-4, 12), st.floats(-4, 12, allow_nan=False)),
        "boolean": st.booleans(),
        "null": st.none(),
    }.get(str(kind), _SCALARS)


def _object(properties: dict[str, Any], root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({}, optional={k: candidates(v, root, depth + 1) for k, v in properties.items()})


@st.composite
def schemas_with_instances(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any]]:
    """A root schema and up to five instances it accepts."""
    schema = draw(root_schemas())
    validator = jsonschema.Draft202012Validator(schema)
    drawn = draw(st.lists(candidates(schema, schema), max_size=5))
    return schema, [value for value in drawn if validator.is_valid(value)]
