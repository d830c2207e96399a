"""Tool definitions and tool choice for Gemini: the fragment, and what google-genai puts on the wire for it."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from google.genai import types
from pydantic import BaseModel, Field

from toolwire import ConfigurationError, ToolDefinitionError, ToolNameCollisionError, create_tool, get_adapter
from toolwire.adapter import Adapter

from .sdk_bodies import SdkBodies

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}


def weather(**overrides: Any) -> Any:
    return create_tool(id="get_weather", description="Current weather", input_schema=WEATHER_SCHEMA, **overrides)


def clock() -> Any:
    return create_tool(id="get_time", description="Current time")


def features(encoded: Any) -> list[tuple[str | None, str]]:
    return [(d.tool_id, d.feature) for d in encoded.warnings]


class Address(BaseModel):
    street: str
    city: str = Field(description="City name")


class Person(BaseModel):
    """A person to add."""

    name: str = Field(description="Full name")
    age: int | None = None
    kind: Literal["friend", "colleague"] = "friend"
    address: Address = Field(description="Where they live")


class TestDeclarations:
    def test_a_plain_tool_is_one_declaration_with_its_json_schema(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([weather()]) == {
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "get_weather",
                            "description": "Current weather",
                            "parameters_json_schema": WEATHER_SCHEMA,
                        }
                    ]
                }
            ]
        }

    def test_the_sdk_sends_the_fragment_unchanged_when_given_as_config(self, adapter: Adapter, sdk: SdkBodies) -> None:
        fragment = adapter.encode_tools([weather(), clock()], "required")
        body = sdk.send(config=fragment)
        assert {k: body[k] for k in ("tools", "toolConfig")} == dict(fragment)

    def test_the_sdk_tool_type_accepts_the_declarations(self, adapter: Adapter, openapi_adapter: Adapter) -> None:
        for encoder in (adapter, openapi_adapter):
            tool = types.Tool.model_validate(encoder.encode_tools([weather(), clock()])["tools"][0])
            assert [d.name for d in tool.function_declarations or []] == ["get_weather", "get_time"]

    def test_a_pydantic_model_keeps_nested_models_enums_optionals_defaults_and_descriptions(
        self, adapter: Adapter
    ) -> None:
        tool = create_tool(id="add_person", description="Add a person", input_schema=Person)
        declaration = adapter.encode_tools([tool])["tools"][0]["functionDeclarations"][0]
        assert declaration["parameters_json_schema"] == {
            "description": "A person to add.",
            "type": "object",
            "properties": {
                "name": {"description": "Full name", "type": "string"},
                "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                "kind": {"default": "friend", "enum": ["friend", "colleague"], "type": "string"},
                "address": {
                    "type": "object",
                    "description": "Where they live",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"description": "City name", "type": "string"},
                    },
                    "required": ["street", "city"],
                },
            },
            "required": ["name", "address"],
        }

    def test_the_input_schema_the_tool_validates_with_is_left_untouched(self, adapter: Adapter) -> None:
        tool = create_tool(id="add_person", description="Add a person", input_schema=Person)
        before = repr(tool.input_schema.json_schema)
        adapter.encode_tools([tool])
        assert repr(tool.input_schema.json_schema) == before

    def test_an_output_schema_goes_out_as_response_json_schema(self, adapter: Adapter) -> None:
        tool = weather(output_schema={"type": "object", "properties": {"temp_c": {"type": "number"}}})
        declaration = adapter.encode_tools([tool])["tools"][0]["functionDeclarations"][0]
        assert declaration["response_json_schema"] == {"type": "object", "properties": {"temp_c": {"type": "number"}}}

    def test_a_tool_without_parameters_sends_an_empty_object_schema(self, adapter: Adapter) -> None:
        declaration = adapter.encode_tools([clock()])["tools"][0]["functionDeclarations"][0]
        assert declaration == {
            "name": "get_time",
            "description": "Current time",
            "parameters_json_schema": {"type": "object", "properties": {}},
        }

    def test_ids_outside_gemini_names_are_mapped_and_choice_uses_the_mapped_name(self, adapter: Adapter) -> None:
        tool = create_tool(id="9 lives!", description="Count lives")
        encoded = adapter.encode_tools([tool], {"tool": "9 lives!"})
        assert encoded["tools"][0]["functionDeclarations"][0]["name"] == "_9_lives_"
        assert encoded["toolConfig"] == {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["_9_lives_"]}
        }

    def test_two_ids_mapping_to_one_name_are_refused_naming_both(self, adapter: Adapter) -> None:
        first = create_tool(id="a b", description="x")
        second = create_tool(id="a!b", description="y")
        with pytest.raises(ToolNameCollisionError, match="'a b' and 'a!b'"):
            adapter.encode_tools([first, second])

    def test_more_than_512_declarations_are_refused(self, adapter: Adapter) -> None:
        tools = [create_tool(id=f"t{i}", description="x") for i in range(513)]
        with pytest.raises(ConfigurationError, match="at most 512 function declarations"):
            adapter.encode_tools(tools)

    def test_512_declarations_are_accepted(self, adapter: Adapter) -> None:
        tools = [create_tool(id=f"t{i}", description="x") for i in range(512)]
        assert len(adapter.encode_tools(tools)["tools"][0]["functionDeclarations"]) == 512

    def test_no_tools_give_an_empty_fragment(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([]) == {}


class TestStrict:
    def test_a_strict_tool_is_sent_without_a_flag_and_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather(strict=True)])
        assert "strict" not in str(encoded)
        assert [(d.tool_id, d.feature, d.action) for d in encoded.warnings] == [
            (
                "get_weather",
                "strict",
                "Gemini has no per-tool strict flag: sent without one (use tool_choice {'validated': true} for "
                "VALIDATED mode, which holds every call to its schema)",
            )
        ]

    def test_a_strict_default_from_encode_tools_is_reported_per_tool(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather(), clock()], strict=True)
        assert features(encoded) == [("get_weather", "strict"), ("get_time", "strict")]

    @pytest.mark.parametrize("strict", [None, False])
    def test_strict_unset_or_false_sends_and_reports_nothing(self, adapter: Adapter, strict: bool | None) -> None:
        encoded = adapter.encode_tools([weather(strict=strict)])
        assert (dict(encoded), encoded.warnings) == (dict(adapter.encode_tools([weather()])), [])

    def test_auto_strict_changes_nothing(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather()], auto_strict=True)
        assert (dict(encoded), encoded.warnings) == (dict(adapter.encode_tools([weather()])), [])

    @pytest.mark.parametrize("choice", [{"validated": True}, "required", {"tool": "get_weather"}])
    def test_strict_is_not_reported_when_the_mode_holds_calls_to_their_schema(
        self, adapter: Adapter, choice: Any
    ) -> None:
        assert adapter.encode_tools([weather(strict=True)], choice).warnings == []


class TestExamplesAndOptions:
    def test_input_examples_are_folded_into_the_description_and_reported(self, adapter: Adapter) -> None:
        tool = weather(input_examples=[{"input": {"city": "Paris"}}, {"input": {"city": "Oslo"}}])
        encoded = adapter.encode_tools([tool])
        declaration = encoded["tools"][0]["functionDeclarations"][0]
        assert declaration["description"] == 'Current weather\n\nExamples:\n{"city": "Paris"}\n{"city": "Oslo"}'
        assert features(encoded) == [("get_weather", "input_examples")]

    def test_input_examples_can_be_left_out_and_that_is_reported(self, adapter: Adapter) -> None:
        tool = weather(input_examples=[{"input": {"city": "Paris"}}])
        encoded = adapter.encode_tools([tool], examples_in_description=False)
        assert encoded["tools"][0]["functionDeclarations"][0]["description"] == "Current weather"
        assert [d.action for d in encoded.warnings] == [
            "Gemini has no field for input examples: dropped (examples_in_description=False)"
        ]

    def test_google_provider_options_are_merged_into_the_declaration(self, adapter: Adapter, sdk: SdkBodies) -> None:
        tool = weather(provider_options={"google": {"behavior": "NON_BLOCKING"}, "anthropic": {"cache_control": {}}})
        fragment = adapter.encode_tools([tool])
        assert fragment["tools"][0]["functionDeclarations"][0] == {
            "name": "get_weather",
            "description": "Current weather",
            "parameters_json_schema": WEATHER_SCHEMA,
            "behavior": "NON_BLOCKING",
        }
        assert sdk.send(config=fragment)["tools"] == fragment["tools"]

    @pytest.mark.parametrize("field", ["name", "parameters_json_schema", "parameters", "response_json_schema"])
    def test_a_provider_option_that_overwrites_a_toolwire_field_is_refused(self, adapter: Adapter, field: str) -> None:
        tool = weather(provider_options={"google": {field: "x"}})
        with pytest.raises(ToolDefinitionError, match=f"provider_options.google.{field}"):
            adapter.encode_tools([tool])


class TestToolChoice:
    @pytest.mark.parametrize(
        ("choice", "config"),
        [
            ("auto", {"mode": "AUTO"}),
            ("none", {"mode": "NONE"}),
            ("required", {"mode": "ANY"}),
            ({"tool": "get_time"}, {"mode": "ANY", "allowedFunctionNames": ["get_time"]}),
            (
                {"allowed": ["get_weather", "get_time"], "mode": "required"},
                {"mode": "ANY", "allowedFunctionNames": ["get_weather", "get_time"]},
            ),
            ({"allowed": ["get_time"], "mode": "auto"}, {"mode": "VALIDATED", "allowedFunctionNames": ["get_time"]}),
            ({"validated": True}, {"mode": "VALIDATED"}),
            ({"mode": "auto", "validated": True}, {"mode": "VALIDATED"}),
        ],
    )
    def test_each_form_maps_to_a_function_calling_config_the_sdk_sends(
        self, adapter: Adapter, sdk: SdkBodies, choice: Any, config: dict[str, Any]
    ) -> None:
        fragment = adapter.encode_tools([weather(), clock()], choice)
        assert fragment["toolConfig"] == {"functionCallingConfig": config}
        assert sdk.send(config=fragment)["toolConfig"] == {"functionCallingConfig": config}
        assert fragment.warnings == []

    def test_no_choice_sends_no_tool_config(self, adapter: Adapter) -> None:
        assert "toolConfig" not in adapter.encode_tools([weather()])

    def test_forbidding_parallel_calls_is_reported_as_impossible(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather()], "auto", parallel=False)
        assert encoded["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
        assert [(d.tool_id, d.feature) for d in encoded.warnings] == [(None, "tool_choice.parallel")]

    def test_allowing_parallel_calls_needs_nothing(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([weather()], {"parallel": True}).warnings == []

    def test_a_choice_without_tools_sends_no_tool_config_and_is_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([], "required")
        assert (dict(encoded), features(encoded)) == ({}, [(None, "tool_choice")])

    def test_none_without_tools_needs_no_report(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([], "none").warnings == []


class TestVertexStreamedArguments:
    def test_the_setting_adds_the_flag_in_the_spelling_the_sdk_uses_for_vertex(self, vertex_sdk: SdkBodies) -> None:
        adapter = get_adapter("gemini", stream_function_call_arguments=True)
        fragment = adapter.encode_tools([weather(), clock()], {"tool": "get_weather"})
        config = {"mode": "ANY", "allowed_function_names": ["get_weather"], "stream_function_call_arguments": True}
        assert fragment["toolConfig"] == {"functionCallingConfig": config}
        assert vertex_sdk.send(config=fragment)["toolConfig"] == {"functionCallingConfig": config}

    def test_without_a_choice_only_the_flag_is_sent(self, vertex_sdk: SdkBodies) -> None:
        fragment = get_adapter("gemini", stream_function_call_arguments=True).encode_tools([weather()])
        assert fragment["toolConfig"] == {"functionCallingConfig": {"stream_function_call_arguments": True}}
        assert vertex_sdk.send(config=fragment)["toolConfig"] == fragment["toolConfig"]


class TestCaching:
    def test_a_second_encoding_is_equal_and_reports_the_same_degradations(self, adapter: Adapter) -> None:
        tool = weather(strict=True, input_examples=[{"input": {"city": "Rome"}}])
        first = adapter.encode_tools([tool])
        second = adapter.encode_tools([tool])
        assert (dict(first), first.warnings) == (dict(second), second.warnings)

    def test_changing_a_returned_fragment_does_not_change_the_next_one(self, adapter: Adapter) -> None:
        tool = weather()
        adapter.encode_tools([tool])["tools"][0]["functionDeclarations"][0]["description"] = "changed"
        assert adapter.encode_tools([tool])["tools"][0]["functionDeclarations"][0]["description"] == "Current weather"
