"""`schema_format="openapi"`: schemas as Gemini's OpenAPI-subset `Schema`, in the SDK's wire spelling."""

from __future__ import annotations

import json
from typing import Any, Literal

import jsonschema
import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolwire import SchemaError, create_tool
from toolwire.adapter import Adapter
from toolwire.adapters.gemini._openapi_schema import openapi_schema_for_gemini
from toolwire.adapters.gemini._schema import SchemaNotes

from .schema_strategies import schemas_with_instances
from .sdk_bodies import SdkBodies


def encode(adapter: Adapter, properties: dict[str, Any], **schema: Any) -> tuple[dict[str, Any], list[str]]:
    tool = create_tool(id="t", description="d", input_schema={"type": "object", "properties": properties, **schema})
    encoded = adapter.encode_tools([tool])
    return encoded["tools"][0]["functionDeclarations"][0]["parameters"], [d.feature for d in encoded.warnings]


def prop(adapter: Adapter, schema: dict[str, Any], **root: Any) -> tuple[dict[str, Any], list[str]]:
    sent, notes = encode(adapter, {"x": schema}, **root)
    return sent["properties"]["x"], notes


class Address(BaseModel):
    city: str = Field(description="City name")


class Person(BaseModel):
    name: str
    age: int | None = Field(default=None, description="Years")
    kind: Literal["friend", "colleague"] = "friend"
    address: Address


class TestWireForm:
    def test_types_are_upper_case_and_keys_are_the_sdk_field_names(
        self, openapi_adapter: Adapter, sdk: SdkBodies
    ) -> None:
        schema = {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "minItems": 1},
                "n": {"type": "integer", "minimum": 1, "format": "int64"},
            },
            "required": ["tags"],
            "propertyOrdering": ["tags", "n"],
        }
        fragment = openapi_adapter.encode_tools([create_tool(id="t", description="d", input_schema=schema)])
        parameters = fragment["tools"][0]["functionDeclarations"][0]["parameters"]
        assert parameters == {
            "type": "OBJECT",
            "properties": {
                "tags": {"type": "ARRAY", "items": {"type": "STRING", "max_length": 5}, "min_items": 1},
                "n": {"type": "INTEGER", "minimum": 1, "format": "int64"},
            },
            "required": ["tags"],
            "property_ordering": ["tags", "n"],
        }
        assert sdk.send(config=fragment)["tools"] == fragment["tools"]

    def test_a_pydantic_model_is_inlined_with_nullable_optionals_and_enums(
        self, openapi_adapter: Adapter, sdk: SdkBodies
    ) -> None:
        fragment = openapi_adapter.encode_tools([create_tool(id="add", description="Add", input_schema=Person)])
        assert fragment["tools"][0]["functionDeclarations"][0]["parameters"] == {
            "type": "OBJECT",
            "properties": {
                "name": {"type": "STRING"},
                "age": {"type": "INTEGER", "description": "Years", "nullable": True},
                "kind": {"type": "STRING", "default": "friend", "enum": ["friend", "colleague"]},
                "address": {
                    "type": "OBJECT",
                    "properties": {"city": {"type": "STRING", "description": "City name"}},
                    "required": ["city"],
                },
            },
            "required": ["name", "address"],
        }
        assert fragment.warnings == []
        assert sdk.send(config=fragment)["tools"] == fragment["tools"]

    def test_a_tool_without_parameters_sends_no_parameters(self, openapi_adapter: Adapter) -> None:
        declaration = openapi_adapter.encode_tools([create_tool(id="now", description="Time")])
        assert declaration["tools"][0]["functionDeclarations"][0] == {"name": "now", "description": "Time"}

    def test_an_output_schema_goes_out_as_response(self, openapi_adapter: Adapter) -> None:
        tool = create_tool(id="t", description="d", output_schema={"type": "array", "items": {"type": "number"}})
        declaration = openapi_adapter.encode_tools([tool])["tools"][0]["functionDeclarations"][0]
        assert declaration["response"] == {"type": "ARRAY", "items": {"type": "NUMBER"}}


class TestRefs:
    def test_a_recursive_schema_is_refused_naming_the_tool_field_and_place(self, openapi_adapter: Adapter) -> None:
        node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
        tool = create_tool(
            id="walk",
            description="d",
            input_schema={"type": "object", "properties": {"head": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}},
        )
        with pytest.raises(SchemaError, match=r"tool 'walk': `input_schema.properties.head.properties.next` refers"):
            openapi_adapter.encode_tools([tool])

    def test_recursion_through_an_optional_field_is_refused(self, openapi_adapter: Adapter) -> None:
        class Node(BaseModel):
            value: int
            next: Node | None = None

        with pytest.raises(
            SchemaError, match=r"`input_schema.properties.next.properties.next` refers to '#/\$defs/Node'"
        ):
            openapi_adapter.encode_tools([create_tool(id="walk", description="d", input_schema=Node)])

    def test_one_definition_used_optional_and_required_converts_independently(self, openapi_adapter: Adapter) -> None:
        class Shipping(BaseModel):
            home: Address
            work: Address | None = None

        fragment = openapi_adapter.encode_tools([create_tool(id="ship", description="d", input_schema=Shipping)])
        properties = fragment["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]
        address = {
            "type": "OBJECT",
            "properties": {"city": {"type": "STRING", "description": "City name"}},
            "required": ["city"],
        }
        assert properties == {"home": address, "work": {**address, "nullable": True}}

    def test_a_ref_that_does_not_resolve_is_refused(self) -> None:
        with pytest.raises(SchemaError, match="'#/\\$defs/Missing' that does not resolve"):
            openapi_schema_for_gemini(
                {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}},
                SchemaNotes(),
                tool_id="t",
                field="f",
            )

    def test_a_ref_sibling_description_overrides_the_target(self, openapi_adapter: Adapter) -> None:
        sent, _ = prop(
            openapi_adapter,
            {"$ref": "#/$defs/A", "description": "Mine"},
            **{"$defs": {"A": {"type": "string", "description": "Theirs"}}},
        )
        assert sent == {"type": "STRING", "description": "Mine"}


class TestUnions:
    def test_a_type_list_with_null_becomes_nullable(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"type": ["string", "null"]}) == ({"type": "STRING", "nullable": True}, [])

    def test_a_type_list_becomes_any_of_with_the_keywords_of_each_type(self, openapi_adapter: Adapter) -> None:
        sent, notes = prop(openapi_adapter, {"type": ["string", "integer"], "minLength": 2, "minimum": 0})
        assert (sent, notes) == (
            {"any_of": [{"type": "STRING", "min_length": 2}, {"type": "INTEGER", "minimum": 0}]},
            [],
        )

    def test_any_of_branches_get_the_description_and_nothing_sits_beside_any_of(self, openapi_adapter: Adapter) -> None:
        sent, _ = prop(
            openapi_adapter, {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "Id"}
        )
        assert sent == {
            "any_of": [{"type": "STRING", "description": "Id"}, {"type": "INTEGER", "description": "Id"}],
            "nullable": True,
        }

    def test_one_of_is_sent_as_any_of_and_reported(self, openapi_adapter: Adapter) -> None:
        sent, notes = prop(openapi_adapter, {"oneOf": [{"type": "string"}, {"type": "boolean"}]})
        assert (sent, notes) == ({"any_of": [{"type": "STRING"}, {"type": "BOOLEAN"}]}, ["schema.oneOf"])

    def test_all_of_is_merged(self, openapi_adapter: Adapter) -> None:
        sent, _ = prop(
            openapi_adapter,
            {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}},
                    {"properties": {"b": {"type": "number"}}},
                ]
            },
        )
        assert sent == {"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "NUMBER"}}}


class TestEnumsAndConst:
    def test_a_string_const_is_a_one_value_enum(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"const": "on"}) == ({"type": "STRING", "enum": ["on"]}, [])

    def test_integer_enums_use_the_documented_format_enum_form(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"enum": [1, 2, 3]}) == (
            {"type": "INTEGER", "format": "enum", "enum": ["1", "2", "3"]},
            [],
        )

    def test_a_null_in_an_enum_makes_it_nullable(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"type": "string", "enum": ["a", None]}) == (
            {"type": "STRING", "enum": ["a"], "nullable": True},
            [],
        )

    def test_a_boolean_const_is_described_and_reported(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"const": True}) == (
            {"type": "BOOLEAN", "description": "(enum: [true])"},
            ["schema.enum"],
        )


class TestDroppedAndDescribed:
    def test_string_formats_gemini_rejects_are_described_and_reported(self, openapi_adapter: Adapter) -> None:
        sent, notes = encode(
            openapi_adapter,
            {"when": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"}},
        )
        assert sent["properties"] == {
            "when": {"type": "STRING", "format": "date-time"},
            "mail": {"type": "STRING", "description": '(format: "email")'},
        }
        assert notes == ["schema.format"]

    def test_keywords_outside_the_schema_type_are_described_and_reported(self, openapi_adapter: Adapter) -> None:
        sent, notes = prop(openapi_adapter, {"type": "array", "items": {"type": "integer"}, "uniqueItems": True})
        assert (sent, notes) == (
            {"type": "ARRAY", "items": {"type": "INTEGER"}, "description": "(uniqueItems: true)"},
            ["schema.uniqueItems"],
        )

    def test_titles_and_identifiers_are_dropped_silently(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"type": "string", "title": "X", "$comment": "c"}) == ({"type": "STRING"}, [])

    def test_examples_become_the_single_example(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"type": "string", "examples": ["a", "b"]}) == (
            {"type": "STRING", "example": "a"},
            ["schema.examples"],
        )

    def test_an_untyped_schema_is_sent_as_a_string_and_reported(self, openapi_adapter: Adapter) -> None:
        assert prop(openapi_adapter, {"description": "Anything"}) == (
            {"type": "STRING", "description": "Anything"},
            ["schema.untyped"],
        )

    def test_a_tuple_becomes_one_item_type_and_is_reported(self, openapi_adapter: Adapter) -> None:
        sent, notes = prop(
            openapi_adapter, {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": False}
        )
        assert (sent, notes) == (
            {"type": "ARRAY", "items": {"any_of": [{"type": "STRING"}, {"type": "NUMBER"}]}, "max_items": 2},
            ["schema.prefixItems"],
        )


_TYPED = schemas_with_instances()


class TestProperties:
    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )
    @given(st.data())
    def test_the_sdk_schema_type_accepts_every_conversion(self, data: st.DataObject) -> None:
        schema, _ = data.draw(_TYPED)
        sent = openapi_schema_for_gemini(schema, SchemaNotes(), tool_id="t", field="input_schema")
        types.Schema.model_validate(sent)
        assert all("type" in node or "any_of" in node for node in _nodes(sent))

    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
    )
    @given(st.data())
    def test_every_instance_of_the_original_satisfies_the_conversion(self, data: st.DataObject) -> None:
        schema, instances = data.draw(_TYPED)
        sent = openapi_schema_for_gemini(schema, SchemaNotes(), tool_id="t", field="input_schema")
        validator = jsonschema.Draft202012Validator(_as_json_schema(sent))
        for instance in instances:
            assert validator.is_valid(instance), (sent, instance)


def _nodes(schema: dict[str, Any]) -> list[dict[str, Any]]:
    found = [schema]
    for sub in schema.get("properties", {}).values():
        found += _nodes(sub)
    for sub in schema.get("any_of", []):
        found += _nodes(sub)
    for key in ("items", "additional_properties"):
        if isinstance(schema.get(key), dict):
            found += _nodes(schema[key])
    return found


_BACK = {
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_items": "minItems",
    "max_items": "maxItems",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
}


def _as_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Read an OpenAPI-subset `Schema` dict back as the JSON Schema it means."""
    if "any_of" in schema:
        out: dict[str, Any] = {"anyOf": [_as_json_schema(b) for b in schema["any_of"]]}
    else:
        kind = schema["type"].lower()
        out = {"type": kind}
        for key in ("minimum", "maximum", "pattern", "required"):
            if key in schema:
                out[key] = schema[key]
        out.update({_BACK[k]: v for k, v in schema.items() if k in _BACK})
        if "enum" in schema:
            out["enum"] = [json.loads(v) for v in schema["enum"]] if schema.get("format") == "enum" else schema["enum"]
        if "properties" in schema:
            out["properties"] = {k: _as_json_schema(v) for k, v in schema["properties"].items()}
        if "items" in schema:
            out["items"] = _as_json_schema(schema["items"])
        extra = schema.get("additional_properties")
        if extra is not None:
            out["additionalProperties"] = extra if isinstance(extra, bool) else _as_json_schema(extra)
    return {"anyOf": [out, {"type": "null"}]} if schema.get("nullable") else out
