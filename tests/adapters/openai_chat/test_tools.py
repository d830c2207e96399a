"""Tool definitions and tool choice for Chat Completions, proven on the wire through the real SDK."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

import pydantic
import pytest

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.exceptions import ConfigurationError, ToolDefinitionError, ToolNameCollisionError

Wire = Callable[..., dict[str, Any]]

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["city"],
}
weather = create_tool(id="get_weather", description="Get the weather for a city.", input_schema=WEATHER_SCHEMA)
clock = create_tool(id="get_time", description="Get the current time.")


class Priority(StrEnum):
    LOW = "low"
    HIGH = "high"


class Contact(pydantic.BaseModel):
    """Who to notify."""

    email: str
    phone: str | None = None


class Ticket(pydantic.BaseModel):
    """A support ticket."""

    title: str = pydantic.Field(description="One-line summary")
    priority: Priority = Priority.LOW
    contact: Contact
    tags: list[str] = []


ticket = create_tool(id="open_ticket", description="Open a support ticket.", input_schema=Ticket)

TICKET_PARAMETERS = {
    "$defs": {
        "Contact": {
            "description": "Who to notify.",
            "properties": {
                "email": {"type": "string"},
                "phone": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["email"],
            "title": "Contact",
            "type": "object",
        },
        "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
    },
    "description": "A support ticket.",
    "properties": {
        "title": {"description": "One-line summary", "type": "string"},
        "priority": {"$ref": "#/$defs/Priority", "default": "low"},
        "contact": {"$ref": "#/$defs/Contact"},
        "tags": {"default": [], "items": {"type": "string"}, "type": "array"},
    },
    "required": ["title", "contact"],
    "title": "Ticket",
    "type": "object",
}

TICKET_STRICT_PARAMETERS = {
    "$defs": {
        "Contact": {
            "description": "Who to notify.",
            "properties": {"email": {"type": "string"}, "phone": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            "required": ["email", "phone"],
            "title": "Contact",
            "type": "object",
            "additionalProperties": False,
        },
        "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
    },
    "description": "A support ticket.",
    "properties": {
        "title": {"description": "One-line summary", "type": "string"},
        "priority": {"anyOf": [{"$ref": "#/$defs/Priority"}, {"type": "null"}], "description": 'Default: "low".'},
        "contact": {"$ref": "#/$defs/Contact"},
        "tags": {
            "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
            "description": "Default: [].",
        },
    },
    "required": ["title", "priority", "contact", "tags"],
    "title": "Ticket",
    "type": "object",
    "additionalProperties": False,
}


def features(encoded: Any) -> list[tuple[str | None, str]]:
    return [(d.tool_id, d.feature) for d in encoded.warnings]


class TestDefinitions:
    def test_a_plain_tool(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([weather])
        assert encoded == {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Get the weather for a city.",
                        "parameters": WEATHER_SCHEMA,
                    },
                }
            ]
        }
        assert wire(**encoded) == encoded
        assert encoded.warnings == []

    def test_a_tool_without_input_sends_an_empty_object_schema(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([clock])
        assert encoded["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}
        assert wire(**encoded) == encoded

    def test_a_pydantic_model_with_nested_models_enums_defaults_and_descriptions(
        self, adapter: Adapter, wire: Wire
    ) -> None:
        encoded = adapter.encode_tools([ticket])
        assert encoded["tools"][0]["function"] == {
            "name": "open_ticket",
            "description": "Open a support ticket.",
            "parameters": TICKET_PARAMETERS,
        }
        assert wire(**encoded) == encoded

    def test_a_tool_id_outside_the_alphabet_is_sent_under_its_mapped_name(self, adapter: Adapter) -> None:
        dotted = create_tool(id="weather.get", description="Weather.")
        encoded = adapter.encode_tools([dotted])
        assert encoded["tools"][0]["function"]["name"] == "weather_get"
        assert encoded.names.tool_id("weather_get") == "weather.get"

    def test_two_ids_that_map_to_one_name_are_refused(self, adapter: Adapter) -> None:
        with pytest.raises(ToolNameCollisionError, match=r"'a\.b' and 'a:b' both map to the openai-chat name 'a_b'"):
            adapter.encode_tools([create_tool(id="a.b", description="x"), create_tool(id="a:b", description="y")])

    def test_an_output_schema_is_not_sent_and_is_reported(self, adapter: Adapter) -> None:
        tool = create_tool(id="f", description="d", output_schema={"type": "object", "properties": {}})
        encoded = adapter.encode_tools([tool])
        assert "output_schema" not in str(encoded)
        assert features(encoded) == [("f", "output_schema")]

    def test_no_tools_give_an_empty_fragment(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([]) == {}


class TestStrict:
    def test_strict_tools_send_the_strict_rewrite(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([ticket], strict=True)
        assert encoded["tools"][0]["function"] == {
            "name": "open_ticket",
            "description": "Open a support ticket.",
            "parameters": TICKET_STRICT_PARAMETERS,
            "strict": True,
        }
        assert wire(**encoded) == encoded
        assert encoded.warnings == []

    def test_the_tool_s_own_strict_wins_over_the_request_default(self, adapter: Adapter) -> None:
        tool = create_tool(id="loose", description="d", input_schema=WEATHER_SCHEMA, strict=False)
        encoded = adapter.encode_tools([tool], strict=True)
        assert encoded["tools"][0]["function"] == {
            "name": "loose",
            "description": "d",
            "parameters": WEATHER_SCHEMA,
            "strict": False,
        }

    def test_unset_strict_sends_no_flag(self, adapter: Adapter) -> None:
        assert "strict" not in adapter.encode_tools([weather])["tools"][0]["function"]

    def test_auto_strict_enables_strict_where_the_schema_converts_without_loss(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather], auto_strict=True)
        assert encoded["tools"][0]["function"]["strict"] is True
        assert encoded["tools"][0]["function"]["parameters"] == {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        }

    def test_auto_strict_leaves_a_schema_whose_constraints_strict_mode_cannot_enforce(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="named",
            description="d",
            input_schema={
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 3}},
                "required": ["name"],
            },
        )
        encoded = adapter.encode_tools([tool], auto_strict=True)
        assert "strict" not in encoded["tools"][0]["function"]
        assert encoded.warnings == []

    def test_strict_that_the_schema_cannot_take_is_sent_non_strict_and_reported(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="tagger",
            description="d",
            input_schema={
                "type": "object",
                "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
            },
            strict=True,
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["function"]["strict"] is False
        assert encoded["tools"][0]["function"]["parameters"] == tool.input_schema.json_schema
        [degradation] = encoded.warnings
        assert (degradation.tool_id, degradation.feature, degradation.action) == (
            "tagger",
            "strict",
            "sent with strict: false because strict mode cannot express the schema: "
            "`$.labels` accepts free-form keys (a map) through additionalProperties",
        )

    def test_constraints_strict_mode_cannot_enforce_are_moved_and_reported(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="named",
            description="d",
            input_schema={
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 3}},
                "required": ["name"],
            },
            strict=True,
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["function"]["parameters"]["properties"] == {
            "name": {"type": "string", "description": "Constraints: minLength=3."}
        }
        assert features(encoded) == [("named", "strict.constraints")]

    def test_the_compatible_profile_never_sends_strict(self, compatible: Adapter, wire: Wire) -> None:
        encoded = compatible.encode_tools([ticket], strict=True)
        assert encoded["tools"][0]["function"] == {
            "name": "open_ticket",
            "description": "Open a support ticket.",
            "parameters": TICKET_PARAMETERS,
        }
        assert wire(**encoded) == encoded
        assert features(encoded) == [("open_ticket", "strict")]


class TestExamplesAndOptions:
    def test_input_examples_are_folded_into_the_description_and_reported(self, adapter: Adapter, wire: Wire) -> None:
        tool = create_tool(
            id="get_weather",
            description="Get the weather.",
            input_schema=WEATHER_SCHEMA,
            input_examples=[{"input": {"city": "Paris"}}, {"input": {"city": "Oslo", "unit": "c"}}],
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["function"]["description"] == (
            'Get the weather.\n\nExamples:\n{"city": "Paris"}\n{"city": "Oslo", "unit": "c"}'
        )
        assert wire(**encoded) == encoded
        assert features(encoded) == [("get_weather", "input_examples")]

    def test_input_examples_can_be_left_out_which_is_reported(self, adapter: Adapter) -> None:
        tool = create_tool(id="f", description="Do f.", input_examples=[{"input": {}}])
        encoded = adapter.encode_tools([tool], examples_in_description=False)
        assert encoded["tools"][0]["function"]["description"] == "Do f."
        assert [d.action for d in encoded.warnings] == ["dropped: no native field and examples_in_description=False"]

    def test_openai_provider_options_are_merged_into_the_entry(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="f",
            description="d",
            provider_options={"openai": {"x_vendor": {"cache": True}}, "anthropic": {"cache_control": {}}},
        )
        assert adapter.encode_tools([tool])["tools"][0] == {
            "type": "function",
            "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}},
            "x_vendor": {"cache": True},
        }

    def test_responses_only_options_are_not_sent_and_are_reported(self, adapter: Adapter, wire: Wire) -> None:
        tool = create_tool(id="f", description="d", provider_options={"openai": {"defer_loading": True}})
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0] == {
            "type": "function",
            "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}},
        }
        assert wire(**encoded) == encoded
        assert [(d.feature, d.action) for d in encoded.warnings] == [
            (
                "provider_options",
                "not sent: defer_loading (another openai api takes them; openai-chat rejects them)",
            )
        ]

    def test_an_option_that_would_overwrite_the_function_is_refused(self, adapter: Adapter) -> None:
        tool = create_tool(id="f", description="d", provider_options={"openai": {"function": {}}})
        with pytest.raises(ToolDefinitionError, match=r"tool 'f': `provider_options.openai.function` would overwrite"):
            adapter.encode_tools([tool])


class TestToolChoice:
    @pytest.mark.parametrize(
        ("choice", "sent"),
        [
            ("auto", "auto"),
            ("none", "none"),
            ("required", "required"),
            ({"tool": "get_time"}, {"type": "function", "function": {"name": "get_time"}}),
            (
                {"allowed": ["get_time"], "mode": "auto"},
                {
                    "type": "allowed_tools",
                    "allowed_tools": {
                        "mode": "auto",
                        "tools": [{"type": "function", "function": {"name": "get_time"}}],
                    },
                },
            ),
            (
                {"allowed": ["get_weather", "get_time"], "mode": "required"},
                {
                    "type": "allowed_tools",
                    "allowed_tools": {
                        "mode": "required",
                        "tools": [
                            {"type": "function", "function": {"name": "get_weather"}},
                            {"type": "function", "function": {"name": "get_time"}},
                        ],
                    },
                },
            ),
        ],
    )
    def test_every_choice_form(self, adapter: Adapter, wire: Wire, choice: Any, sent: Any) -> None:
        encoded = adapter.encode_tools([weather, clock], choice)
        assert encoded["tool_choice"] == sent
        assert wire(**encoded) == encoded

    def test_a_forced_tool_is_named_by_its_wire_name(self, adapter: Adapter) -> None:
        dotted = create_tool(id="time.now", description="d")
        assert adapter.encode_tools([dotted], {"tool": "time.now"})["tool_choice"] == {
            "type": "function",
            "function": {"name": "time_now"},
        }

    def test_parallel_false_is_sent_as_parallel_tool_calls(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([weather], "auto", parallel=False)
        assert {k: v for k, v in encoded.items() if k != "tools"} == {
            "tool_choice": "auto",
            "parallel_tool_calls": False,
        }
        assert wire(**encoded) == encoded

    def test_parallel_inside_the_choice_dict(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather], {"mode": "required", "parallel": False})
        assert (encoded["tool_choice"], encoded["parallel_tool_calls"]) == ("required", False)

    def test_no_choice_sends_neither_field(self, adapter: Adapter) -> None:
        assert set(adapter.encode_tools([weather])) == {"tools"}

    def test_validated_mode_is_ignored_and_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather], {"mode": "auto", "validated": True})
        assert encoded["tool_choice"] == "auto"
        assert features(encoded) == [(None, "tool_choice.validated")]

    def test_a_choice_without_tools_is_not_sent_and_is_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([], "none")
        assert encoded == {}
        assert features(encoded) == [(None, "tool_choice")]

    def test_a_choice_naming_an_unknown_tool_is_refused(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match="tool_choice names"):
            adapter.encode_tools([weather], {"tool": "nope"})

    def test_the_compatible_profile_sends_only_the_allowed_tools(self, compatible: Adapter, wire: Wire) -> None:
        encoded = compatible.encode_tools([weather, clock], {"allowed": ["get_time"], "mode": "required"})
        assert encoded == {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_time",
                        "description": "Get the current time.",
                        "parameters": {"type": "object", "properties": {}},
                    },
                }
            ],
            "tool_choice": "required",
        }
        assert wire(**encoded) == encoded
        assert [(d.feature, d.action) for d in encoded.warnings] == [
            (
                "tool_choice.allowed",
                "the compatible profile has no allowed_tools choice: sent only the allowed tools (get_time) "
                "with tool_choice 'required'",
            )
        ]

    def test_the_compatible_profile_sends_parallel_tool_calls_only_when_asked(self, compatible: Adapter) -> None:
        assert set(compatible.encode_tools([weather])) == {"tools"}
        assert compatible.encode_tools([weather], parallel=False)["parallel_tool_calls"] is False


class TestProfiles:
    def test_the_compatible_profile_claims_no_strict_and_no_allowed_subset(self, compatible: Adapter) -> None:
        assert (compatible.capabilities.strict_tools, compatible.capabilities.allowed_tools_subset) == (False, False)
        assert compatible.settings_key() == ("compatible",)

    def test_an_unknown_profile_is_refused(self) -> None:
        from toolwire.adapters.openai.chat import OpenAIChatAdapter

        with pytest.raises(ConfigurationError, match="openai-chat profile 'vllm' is not one of"):
            OpenAIChatAdapter(profile="vllm")  # type: ignore[arg-type]

    def test_each_profile_caches_its_own_entries(self, adapter: Adapter, compatible: Adapter) -> None:
        tool = create_tool(id="f", description="d", strict=True)
        assert "strict" in adapter.encode_tools([tool])["tools"][0]["function"]
        assert "strict" not in compatible.encode_tools([tool])["tools"][0]["function"]
        assert "strict" in adapter.encode_tools([tool])["tools"][0]["function"]
