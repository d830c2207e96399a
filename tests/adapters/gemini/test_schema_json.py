"""Input and output schemas as `parameters_json_schema`: Gemini's JSON Schema subset, and what was moved or dropped."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.adapters.gemini._schema import ANNOTATIONS, SUPPORTED, SchemaNotes, json_schema_for_gemini

from .schema_strategies import schemas_with_instances

_STRUCTURE = {
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "additionalProperties",
}


def encode(adapter: Adapter, schema: dict[str, Any], **tool: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    encoded = adapter.encode_tools([create_tool(id="t", description="d", input_schema=schema, **tool)])
    declaration = encoded["tools"][0]["functionDeclarations"][0]
    return declaration["parameters_json_schema"], [(d.feature, d.action) for d in encoded.warnings]


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


class TestKeptAsIs:
    def test_keywords_in_gemini_subset_are_kept(self, adapter: Adapter) -> None:
        schema = obj(
            name={"type": "string", "minLength": 1, "maxLength": 9, "pattern": "^[a-z]+$", "format": "email"},
            count={"type": "integer", "minimum": 0, "maximum": 9, "default": 1},
            tags={"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": True},
            pair={"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
            extra={"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1},
            nullable={"type": ["string", "null"]},
        ) | {"required": ["name"], "propertyOrdering": ["name", "count"], "additionalProperties": False}
        assert encode(adapter, schema) == (schema, [])

    def test_annotations_are_dropped_without_a_report(self, adapter: Adapter) -> None:
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "$comment": "internal",
            **obj(kind={"type": "string", "title": "Kind"}),
        }
        assert encode(adapter, schema) == (obj(kind={"type": "string"}), [])

    def test_a_pydantic_discriminator_is_dropped_and_the_union_kept(self, adapter: Adapter) -> None:
        union = {
            "oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}}, {"type": "object"}],
            "discriminator": {"propertyName": "k"},
        }
        schema, notes = encode(adapter, obj(shape=union))
        assert (schema["properties"]["shape"], notes) == (
            {"anyOf": [{"type": "object", "properties": {"k": {"type": "string", "enum": ["a"]}}}, {"type": "object"}]},
            [],
        )


class TestRewritten:
    def test_one_of_is_sent_as_any_of_which_is_how_gemini_reads_it(self, adapter: Adapter) -> None:
        assert encode(adapter, obj(id={"oneOf": [{"type": "string"}, {"type": "integer"}]})) == (
            obj(id={"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            [],
        )

    def test_one_of_beside_any_of_is_described_and_reported(self, adapter: Adapter) -> None:
        schema, notes = encode(adapter, obj(id={"anyOf": [{"type": "string"}], "oneOf": [{"minLength": 2}]}))
        assert schema == obj(id={"anyOf": [{"type": "string"}], "description": '(oneOf: [{"minLength":2}])'})
        assert [feature for feature, _ in notes] == ["schema.oneOf"]

    def test_a_string_const_becomes_a_one_value_enum_with_its_type(self, adapter: Adapter) -> None:
        assert encode(adapter, obj(k={"const": "a"})) == (obj(k={"type": "string", "enum": ["a"]}), [])

    def test_a_number_const_keeps_a_stated_type(self, adapter: Adapter) -> None:
        assert encode(adapter, obj(k={"type": "number", "const": 2})) == (obj(k={"type": "number", "enum": [2]}), [])

    def test_a_boolean_const_is_described_and_reported(self, adapter: Adapter) -> None:
        schema, notes = encode(adapter, obj(flag={"const": True}))
        assert schema == obj(flag={"type": "boolean", "description": "(const: true)"})
        assert [feature for feature, _ in notes] == ["schema.const"]

    def test_a_ref_with_a_description_is_inlined_and_unused_defs_dropped(self, adapter: Adapter) -> None:
        schema = obj(home={"$ref": "#/$defs/Address", "description": "Home"}) | {
            "$defs": {"Address": {"title": "Address", "type": "object", "properties": {"city": {"type": "string"}}}}
        }
        assert encode(adapter, schema) == (
            obj(home={"type": "object", "properties": {"city": {"type": "string"}}, "description": "Home"}),
            [],
        )

    def test_a_plain_ref_stays_a_ref_with_its_defs(self, adapter: Adapter) -> None:
        schema = obj(a={"$ref": "#/$defs/A"}, b={"$ref": "#/$defs/A"}) | {"$defs": {"A": {"type": "string"}}}
        assert encode(adapter, schema) == (schema, [])

    def test_defs_still_referenced_after_inlining_are_kept(self, adapter: Adapter) -> None:
        schema = obj(a={"$ref": "#/$defs/A", "description": "first"}, b={"$ref": "#/$defs/A"}) | {
            "$defs": {"A": {"type": "string"}}
        }
        assert encode(adapter, schema) == (
            obj(a={"type": "string", "description": "first"}, b={"$ref": "#/$defs/A"})
            | {"$defs": {"A": {"type": "string"}}},
            [],
        )

    def test_a_recursive_ref_keeps_its_ref_and_the_dropped_siblings_are_reported(self, adapter: Adapter) -> None:
        node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
        schema = obj(root={"$ref": "#/$defs/Node", "description": "Tree root"}) | {"$defs": {"Node": node}}
        sent, notes = encode(adapter, schema)
        assert sent == obj(root={"$ref": "#/$defs/Node"}) | {"$defs": {"Node": node}}
        assert notes == [
            (
                "schema.ref_siblings",
                "Gemini allows no keywords beside a recursive or unresolvable `$ref`: the siblings at "
                "`input_schema.properties.root` were dropped (toolwire still validates them)",
            )
        ]

    def test_all_of_without_conflicts_is_merged(self, adapter: Adapter) -> None:
        schema = obj(
            both={
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
                ]
            }
        )
        assert encode(adapter, schema) == (
            obj(
                both={
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                }
            ),
            [],
        )

    def test_all_of_constraining_one_property_twice_is_not_merged(self, adapter: Adapter) -> None:
        branches = [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"maxLength": 3}}}]
        schema, notes = encode(adapter, obj(x={"type": "object", "allOf": branches}))
        assert schema["properties"]["x"]["type"] == "object"
        assert "properties" not in schema["properties"]["x"]
        assert [feature for feature, _ in notes] == ["schema.allOf"]

    def test_conflicting_all_of_is_described_and_reported(self, adapter: Adapter) -> None:
        conflicting = [{"type": "string"}, {"type": "integer"}]
        schema, notes = encode(adapter, obj(x={"allOf": conflicting}))
        assert schema == obj(x={"description": '(allOf: [{"type":"string"},{"type":"integer"}])'})
        assert notes == [
            (
                "schema.allOf",
                "Gemini has no `allOf` and the branches at `input_schema.properties.x` conflict: written into the "
                "description",
            )
        ]

    def test_keywords_outside_the_subset_are_written_into_the_description_and_reported_once_each(
        self, adapter: Adapter
    ) -> None:
        schema = obj(
            age={"type": "integer", "description": "Age", "exclusiveMinimum": 0, "multipleOf": 1},
            score={"type": "number", "exclusiveMinimum": 0},
            meta={"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
        )
        sent, notes = encode(adapter, schema)
        assert sent == obj(
            age={"type": "integer", "description": "Age (exclusiveMinimum: 0, multipleOf: 1)"},
            score={"type": "number", "description": "(exclusiveMinimum: 0)"},
            meta={"type": "object", "description": '(patternProperties: {"^x-":{"type":"string"}})'},
        )
        assert [feature for feature, _ in notes] == [
            "schema.exclusiveMinimum",
            "schema.multipleOf",
            "schema.patternProperties",
        ]
        assert notes[0][1] == (
            "`exclusiveMinimum` is outside Gemini's JSON Schema subset: written into the description at "
            "`input_schema.properties.age`, `input_schema.properties.score` (toolwire still validates it)"
        )

    def test_a_report_lists_three_places_and_counts_the_rest(self) -> None:
        notes = SchemaNotes()
        for i in range(5):
            notes.add("schema.not", f"p{i}", "at {where}")
        assert notes.actions() == [("schema.not", "at `p0`, `p1`, `p2` and 2 more")]

    def test_output_schema_places_are_named_as_such(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="t",
            description="d",
            output_schema={"type": "object", "properties": {"n": {"type": "integer", "not": {}}}},
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["functionDeclarations"][0]["response_json_schema"] == {
            "type": "object",
            "properties": {"n": {"type": "integer", "description": "(not: {})"}},
        }
        assert "`output_schema.properties.n`" in encoded.warnings[0].action


class TestProperties:
    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )
    @given(st.data())
    def test_the_transform_only_loosens_every_instance_of_the_original_stays_valid(self, data: st.DataObject) -> None:
        schema, instances = data.draw(schemas_with_instances())
        sent = json_schema_for_gemini(schema, SchemaNotes(), "input_schema")
        jsonschema.Draft202012Validator.check_schema(sent)
        validator = jsonschema.Draft202012Validator(sent)
        for instance in instances:
            assert validator.is_valid(instance), (sent, instance)

    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )
    @given(st.data())
    def test_only_keywords_gemini_reads_reach_the_wire(self, data: st.DataObject) -> None:
        schema, _ = data.draw(schemas_with_instances())
        sent = json_schema_for_gemini(schema, SchemaNotes(), "input_schema")
        assert _keywords(sent) <= SUPPORTED | _STRUCTURE
        assert not _keywords(sent) & ANNOTATIONS

    @settings(max_examples=100, deadline=None)
    @given(st.data())
    def test_the_input_is_never_modified(self, data: st.DataObject) -> None:
        schema, _ = data.draw(schemas_with_instances())
        before = repr(schema)
        json_schema_for_gemini(schema, SchemaNotes(), "input_schema")
        assert repr(schema) == before


def _keywords(schema: Any) -> set[str]:
    """Every keyword used at a schema position (not property names or def names)."""
    found: set[str] = set()
    if not isinstance(schema, dict):
        return found
    for key, value in schema.items():
        found.add(key)
        if key in ("properties", "$defs", "definitions"):
            for sub in value.values():
                found |= _keywords(sub)
        elif key in ("anyOf", "oneOf", "prefixItems"):
            for sub in value:
                found |= _keywords(sub)
        elif key in ("items", "additionalProperties"):
            found |= _keywords(value)
    return found
