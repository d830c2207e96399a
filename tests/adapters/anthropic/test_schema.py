"""Anthropic's strict schema subset: each rule of the transform, what makes strict impossible, and properties."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from toolwire import compile_schema
from toolwire.adapters.anthropic._schema import STRING_FORMATS, StrictSchema, strict_schema


def strict(schema: dict[str, Any]) -> Any:
    result = strict_schema(schema)
    assert result.problem is None, result.problem
    return result.schema


def impossible(schema: dict[str, Any]) -> str | None:
    result = strict_schema(schema)
    assert result.schema is None
    return result.problem


class TestRules:
    """The SDK transformer's rules (`anthropic/lib/_parse/_transform.py`)."""

    def test_every_object_is_closed(self) -> None:
        schema = {
            "type": "object",
            "properties": {"inner": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        }
        assert strict(schema) == {
            "type": "object",
            "properties": {
                "inner": {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}
            },
            "additionalProperties": False,
        }

    def test_required_is_kept_as_given(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]}
        assert strict(schema)["required"] == ["a"]

    def test_one_of_becomes_any_of(self) -> None:
        schema = {"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
        assert strict(schema)["properties"]["v"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}

    def test_a_supported_string_format_is_kept(self) -> None:
        schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}
        assert strict(schema)["properties"]["when"] == {"type": "string", "format": "date-time"}

    def test_an_unsupported_string_format_moves_into_the_description(self) -> None:
        schema = {
            "type": "object",
            "properties": {"ip": {"type": "string", "format": "idn-email", "description": "Who"}},
        }
        assert strict(schema)["properties"]["ip"] == {"type": "string", "description": 'Who\n\n{format: "idn-email"}'}

    def test_min_items_zero_or_one_is_kept(self) -> None:
        schema = {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "minItems": 1}}}
        assert strict(schema)["properties"]["l"] == {"type": "array", "items": {"type": "string"}, "minItems": 1}

    def test_other_array_bounds_move_into_the_description(self) -> None:
        array = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 5, "uniqueItems": True}
        assert strict({"type": "object", "properties": {"l": array}})["properties"]["l"] == {
            "type": "array",
            "items": {"type": "string"},
            "description": "{minItems: 2, maxItems: 5, uniqueItems: true}",
        }

    def test_numeric_and_string_constraints_move_into_the_description_as_json(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 10, "description": "A number"},
                "s": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 3},
            },
        }
        assert strict(schema)["properties"] == {
            "n": {"type": "integer", "description": "A number\n\n{minimum: 1, maximum: 10}"},
            "s": {"type": "string", "description": '{pattern: "^[a-z]+$", maxLength: 3}'},
        }

    def test_moved_constraints_are_listed_with_their_location(self) -> None:
        schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "default": 3}}}
        assert strict_schema(schema).moved == ("minimum at `properties.n`",)

    def test_an_enum_replaces_the_type(self) -> None:
        schema = {"type": "object", "properties": {"c": {"type": "string", "enum": ["red", "blue"]}}}
        assert strict(schema)["properties"]["c"] == {"enum": ["red", "blue"]}

    def test_a_const_replaces_the_type(self) -> None:
        schema = {"type": "object", "properties": {"k": {"type": "string", "const": "fixed"}}}
        assert strict(schema)["properties"]["k"] == {"const": "fixed"}

    def test_a_type_list_becomes_any_of_with_each_types_keywords(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"type": ["string", "null"], "maxLength": 4, "description": "Maybe"}},
        }
        assert strict(schema)["properties"]["v"] == {
            "anyOf": [{"type": "string", "description": "{maxLength: 4}"}, {"type": "null"}],
            "description": "Maybe",
        }

    def test_a_type_list_with_an_enum_keeps_only_the_enum(self) -> None:
        schema = {"type": "object", "properties": {"v": {"type": ["string", "null"], "enum": ["a", None]}}}
        assert strict(schema)["properties"]["v"] == {"enum": ["a", None]}

    def test_a_bare_ref_is_kept(self) -> None:
        schema = {
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "object", "properties": {}}},
        }
        assert strict(schema) == {
            "$defs": {"P": {"type": "object", "properties": {}, "additionalProperties": False}},
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "additionalProperties": False,
        }

    def test_a_ref_with_a_description_is_sent_bare_and_the_description_moves_to_the_object(self) -> None:
        """`strict.ref_siblings` / `strict.all_of_ref`: no allOf around a $ref; the object names the field."""
        schema = {
            "type": "object",
            "description": "Args.",
            "properties": {"p": {"$ref": "#/$defs/P", "description": "The P"}},
            "$defs": {"P": {"type": "string"}},
        }
        result = strict(schema)
        assert result["properties"]["p"] == {"$ref": "#/$defs/P"}
        assert result["description"] == "Args.\n\n`p`: The P"

    def test_draft_07_definitions_become_defs(self) -> None:
        schema = {
            "type": "object",
            "properties": {"p": {"$ref": "#/definitions/P"}},
            "definitions": {"P": {"type": "string"}},
        }
        assert strict(schema) == {
            "$defs": {"P": {"type": "string"}},
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "additionalProperties": False,
        }

    def test_schema_bookkeeping_and_the_root_title_are_dropped(self) -> None:
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {"a": {"type": "string", "title": "A", "$comment": "internal"}},
        }
        assert strict(schema) == {
            "type": "object",
            "properties": {"a": {"type": "string", "title": "A"}},
            "additionalProperties": False,
        }

    def test_a_root_without_properties_takes_no_arguments(self) -> None:
        assert strict({"type": "object"}) == {"type": "object", "properties": {}, "additionalProperties": False}

    def test_the_input_schema_is_not_mutated(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"type": ["string", "null"], "maxLength": 4}, "p": {"$ref": "#/definitions/P"}},
            "definitions": {"P": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 0}}}},
        }
        before = copy.deepcopy(schema)
        strict_schema(schema)
        assert schema == before


class TestImpossible:
    """Constructs that closing objects would change: strict is refused, with the reason and the location."""

    def test_an_open_dictionary(self) -> None:
        schema = {
            "type": "object",
            "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}},
        }
        assert impossible(schema) == "the open object (additionalProperties) at `properties.m` cannot be strict"

    def test_additional_properties_true(self) -> None:
        assert impossible({"type": "object", "properties": {}, "additionalProperties": True}) == (
            "the open object (additionalProperties) at the root cannot be strict"
        )

    def test_a_nested_object_without_properties(self) -> None:
        schema = {"type": "object", "properties": {"m": {"type": "object"}}}
        assert impossible(schema) == "the object without `properties` at `properties.m` accepts any keys"

    def test_an_array_without_items(self) -> None:
        schema = {"type": "object", "properties": {"l": {"type": "array"}}}
        assert impossible(schema) == "the array without `items` at `properties.l` accepts any items"

    def test_a_value_of_any_type(self) -> None:
        schema = {"type": "object", "properties": {"x": {}}}
        assert impossible(schema) == "the schema at `properties.x` has no `type`, so it allows any value"

    def test_pattern_properties(self) -> None:
        schema = {"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "string"}}}
        assert impossible(schema) == "pattern properties at the root cannot be expressed in strict mode"

    def test_a_tuple(self) -> None:
        class Point(BaseModel):
            xy: tuple[int, int]

        assert impossible(Point.model_json_schema()) == (
            "tuple items (prefixItems) at `properties.xy` cannot be expressed in strict mode"
        )

    def test_all_of_with_several_branches(self) -> None:
        schema = {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}}
        assert impossible(schema) == (
            "`allOf` with several branches at `properties.x` cannot be closed without changing it"
        )

    def test_an_enum_of_objects(self) -> None:
        schema = {"type": "object", "properties": {"x": {"enum": [{"a": 1}]}}}
        assert impossible(schema) == (
            "the enum at `properties.x` has values that are not strings, numbers, booleans or null"
        )

    def test_a_type_beside_any_of(self) -> None:
        schema = {"type": "object", "properties": {"x": {"type": "string", "anyOf": [{"maxLength": 1}]}}}
        assert impossible(schema) == "the schema at `properties.x` has both `type` and `anyOf`"

    def test_a_boolean_schema(self) -> None:
        schema = {"type": "object", "properties": {"x": True}}
        assert impossible(schema) == "the schema at `properties.x` is true, not an object schema"

    def test_a_recursive_model(self) -> None:
        """`strict.recursive`: Anthropic's strict mode does not support recursive schemas."""

        class Node(BaseModel):
            name: str
            children: list[Node] = []

        schema = compile_schema(Node).json_schema  # the root $ref inlined, as for every tool
        assert impossible(schema) == (
            "the definition 'Node' refers to itself: recursive schemas are not supported "
            "(https://platform.claude.com/docs/en/build-with-claude/structured-outputs, JSON Schema limitations "
            "(Not supported: recursive schemas))"
        )

    def test_the_result_carries_no_schema(self) -> None:
        assert strict_schema({"type": "object", "properties": {"x": {}}}) == StrictSchema(
            None, "the schema at `properties.x` has no `type`, so it allows any value"
        )


# -- properties over generated schemas -------------------------------------------------------------

Node = tuple[dict[str, Any], st.SearchStrategy[Any]]
"""A generated schema and a strategy for values it accepts."""

_NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=5)


@st.composite
def _string(draw: st.DrawFn) -> Node:
    low = draw(st.integers(0, 3))
    high = draw(st.integers(low, 6))
    schema: dict[str, Any] = {"type": "string", "minLength": low, "maxLength": high}
    if draw(st.booleans()):
        schema["description"] = draw(st.text(max_size=10))
    return schema, st.text(min_size=low, max_size=high)


@st.composite
def _integer(draw: st.DrawFn) -> Node:
    low = draw(st.integers(-50, 50))
    high = draw(st.integers(low, low + 100))
    return {"type": "integer", "minimum": low, "maximum": high}, st.integers(low, high)


def _leaves() -> st.SearchStrategy[Node]:
    return st.one_of(
        _string(),
        _integer(),
        st.just(({"type": "number"}, st.floats(allow_nan=False, allow_infinity=False))),
        st.just(({"type": "boolean"}, st.booleans())),
        st.just(({"type": "null"}, st.none())),
        st.lists(st.text(max_size=4), min_size=1, max_size=4, unique=True).map(
            lambda values: ({"type": "string", "enum": values}, st.sampled_from(values))
        ),
        st.sampled_from(
            sorted(STRING_FORMATS - {"date-time", "time", "date", "duration", "hostname", "ipv4", "ipv6"})
        ).map(lambda fmt: ({"type": "string", "format": fmt}, st.just("x"))),
    )


def _extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.one_of(_object(children), _array(children), _nullable(children), _one_of(children))


@st.composite
def _object(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    fields = draw(st.dictionaries(_NAMES, children, max_size=4))
    required = sorted(draw(st.sets(st.sampled_from(sorted(fields)))) if fields else set())
    schema: dict[str, Any] = {"type": "object", "properties": {k: s for k, (s, _) in fields.items()}}
    if required:
        schema["required"] = required
    optional = {k: v for k, (_, v) in fields.items() if k not in required}
    values = st.fixed_dictionaries({k: fields[k][1] for k in required}, optional=optional)
    return schema, values


@st.composite
def _array(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    items, values = draw(children)
    low = draw(st.integers(0, 2))
    high = draw(st.integers(low, 3))
    return {"type": "array", "items": items, "minItems": low, "maxItems": high}, st.lists(
        values, min_size=low, max_size=high
    )


@st.composite
def _nullable(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    schema, values = draw(children)
    if (
        draw(st.booleans())
        and isinstance(schema.get("type"), str)
        and schema["type"] != "null"
        and "enum" not in schema
    ):
        return {**schema, "type": [schema["type"], "null"]}, st.one_of(values, st.none())
    return {"anyOf": [schema, {"type": "null"}]}, st.one_of(values, st.none())


@st.composite
def _one_of(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    first = draw(st.sampled_from([({"type": "boolean"}, st.booleans()), ({"type": "null"}, st.none())]))
    second = draw(
        children.filter(lambda node: node[0].get("type") in ("string", "integer", "number", "object", "array"))
    )
    return {"oneOf": [first[0], second[0]]}, st.one_of(first[1], second[1])


@st.composite
def _roots(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    schema, values = draw(_object(st.recursive(_leaves(), _extend, max_leaves=8)))
    if draw(st.booleans()):
        # move one property's schema into $defs behind a $ref, as pydantic does for models
        name = next(iter(schema["properties"]), None)
        if name is not None:
            schema["$defs"] = {"Shared": schema["properties"][name]}
            schema["properties"][name] = {"$ref": "#/$defs/Shared"}
    return schema, draw(values)


_ALLOWED = {
    "type", "properties", "required", "additionalProperties", "items", "minItems", "enum", "const",
    "anyOf", "allOf", "$ref", "$defs", "description", "title", "format",
}  # fmt: skip


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for child in value.values():
                    yield from _subschemas(child)
            elif key in ("items",):
                yield from _subschemas(value)
            elif key in ("anyOf", "allOf"):
                for child in value:
                    yield from _subschemas(child)


class TestProperties:
    """For generated strict-compatible schemas and values they accept."""

    @settings(max_examples=75, deadline=None)
    @given(_roots())
    def test_the_strict_schema_follows_anthropics_rules(self, case: tuple[dict[str, Any], Any]) -> None:
        schema, _ = case
        result = strict(schema)
        jsonschema.Draft202012Validator.check_schema(result)
        for node in _subschemas(result):
            assert set(node) <= _ALLOWED, node
            if node.get("type") == "object":
                assert node["additionalProperties"] is False
                assert isinstance(node["properties"], dict)
            if "minItems" in node:
                assert node["minItems"] in (0, 1)
            if "format" in node:
                assert node["format"] in STRING_FORMATS

    @settings(max_examples=75, deadline=None)
    @given(_roots())
    def test_every_value_the_schema_accepts_the_strict_schema_accepts(self, case: tuple[dict[str, Any], Any]) -> None:
        schema, value = case
        jsonschema.Draft202012Validator(schema).validate(value)
        jsonschema.Draft202012Validator(strict(schema)).validate(value)

    @settings(max_examples=40, deadline=None)
    @given(_roots())
    def test_an_undeclared_property_is_refused_by_the_strict_schema(self, case: tuple[dict[str, Any], Any]) -> None:
        schema, value = case
        extra = {**value, "undeclared_key": 1}
        assert jsonschema.Draft202012Validator(schema).is_valid(extra)
        assert not jsonschema.Draft202012Validator(strict(schema)).is_valid(extra)

    @settings(max_examples=40, deadline=None)
    @given(_roots())
    def test_the_input_is_never_mutated(self, case: tuple[dict[str, Any], Any]) -> None:
        schema, _ = case
        before = copy.deepcopy(schema)
        strict_schema(schema)
        assert schema == before
