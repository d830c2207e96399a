"""Tool definitions and tool choice for Responses, proven on the wire through the real SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pydantic
import pytest

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.exceptions import ToolDefinitionError

Wire = Callable[..., dict[str, Any]]

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city"],
}
weather = create_tool(id="get_weather", description="Get the weather.", input_schema=WEATHER_SCHEMA)
clock = create_tool(id="get_time", description="Get the time.")


class Contact(pydantic.BaseModel):
    email: str
    phone: str | None = None


class Ticket(pydantic.BaseModel):
    title: str = pydantic.Field(description="Summary")
    contact: Contact
    copy_to: Contact | None = None
    level: int = 1


class Chart(pydantic.BaseModel):
    url: str
    width: int = 800


def features(encoded: Any) -> list[tuple[str | None, str]]:
    return [(d.tool_id, d.feature) for d in encoded.warnings]


class TestDefinitions:
    def test_a_plain_tool_sends_strict_null_so_the_api_default_applies(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([weather])
        assert encoded == {
            "tools": [
                {
                    "type": "function",
                    "name": "get_weather",
                    "description": "Get the weather.",
                    "parameters": WEATHER_SCHEMA,
                    "strict": None,
                }
            ]
        }
        assert wire(**encoded) == encoded

    def test_strict_sends_the_strict_rewrite(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([weather], strict=True)
        assert encoded["tools"][0] == {
            "type": "function",
            "name": "get_weather",
            "description": "Get the weather.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]},
                },
                "required": ["city", "unit"],
                "additionalProperties": False,
            },
            "strict": True,
        }
        assert wire(**encoded) == encoded

    def test_a_strict_pydantic_model_with_nested_models_optional_fields_and_defaults(
        self, adapter: Adapter, wire: Wire
    ) -> None:
        tool = create_tool(id="open_ticket", description="Open a ticket.", input_schema=Ticket, strict=True)
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["parameters"] == {
            "$defs": {
                "Contact": {
                    "properties": {
                        "email": {"type": "string"},
                        "phone": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                    "required": ["email", "phone"],
                    "title": "Contact",
                    "type": "object",
                    "additionalProperties": False,
                }
            },
            "properties": {
                "title": {"type": "string", "description": "Summary"},
                "contact": {"$ref": "#/$defs/Contact"},
                "copy_to": {"anyOf": [{"$ref": "#/$defs/Contact"}, {"type": "null"}]},
                "level": {"type": ["integer", "null"], "description": "Default: 1."},
            },
            "required": ["title", "contact", "copy_to", "level"],
            "title": "Ticket",
            "type": "object",
            "additionalProperties": False,
        }
        assert encoded["tools"][0]["strict"] is True
        assert wire(**encoded) == encoded

    def test_strict_false_is_sent_as_false(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([weather], strict=False)["tools"][0]["strict"] is False

    def test_auto_strict_enables_strict_where_the_schema_converts_without_loss(self, adapter: Adapter) -> None:
        assert adapter.encode_tools([weather], auto_strict=True)["tools"][0]["strict"] is True

    def test_strict_that_the_schema_cannot_take_is_sent_as_false_and_reported(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="free", description="d", input_schema={"type": "object", "properties": {"x": {}}}, strict=True
        )
        encoded = adapter.encode_tools([tool])
        assert (encoded["tools"][0]["strict"], encoded["tools"][0]["parameters"]) == (
            False,
            tool.input_schema.json_schema,
        )
        assert [d.action for d in encoded.warnings] == [
            "sent with strict: false because strict mode cannot express the schema: "
            "`$.x` accepts any JSON value (it has no type)"
        ]

    def test_an_output_schema_is_sent(self, adapter: Adapter, wire: Wire) -> None:
        tool = create_tool(id="make_chart", description="Chart.", output_schema=Chart)
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["output_schema"] == {
            "properties": {"url": {"type": "string"}, "width": {"default": 800, "type": "integer"}},
            "required": ["url"],
            "title": "Chart",
            "type": "object",
        }
        assert wire(**encoded) == encoded
        assert encoded.warnings == []

    def test_input_examples_are_folded_into_the_description_and_reported(self, adapter: Adapter, wire: Wire) -> None:
        tool = create_tool(
            id="get_weather",
            description="Weather.",
            input_schema=WEATHER_SCHEMA,
            input_examples=[{"input": {"city": "Oslo"}}],
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0]["description"] == 'Weather.\n\nExamples:\n{"city": "Oslo"}'
        assert wire(**encoded) == encoded
        assert features(encoded) == [("get_weather", "input_examples")]

    def test_provider_options_are_merged_into_the_entry(self, adapter: Adapter, wire: Wire) -> None:
        tool = create_tool(
            id="lookup",
            description="d",
            provider_options={
                "openai": {"defer_loading": True, "allowed_callers": ["programmatic"]},
                "google": {"behavior": "BLOCKING"},
            },
        )
        encoded = adapter.encode_tools([tool])
        assert encoded["tools"][0] == {
            "type": "function",
            "name": "lookup",
            "description": "d",
            "parameters": {"type": "object", "properties": {}},
            "strict": None,
            "defer_loading": True,
            "allowed_callers": ["programmatic"],
        }
        assert wire(**encoded) == encoded

    @pytest.mark.parametrize("key", ["name", "parameters", "strict", "output_schema"])
    def test_an_option_that_would_overwrite_a_field_toolwire_sets_is_refused(self, adapter: Adapter, key: str) -> None:
        tool = create_tool(id="f", description="d", provider_options={"openai": {key: None}})
        with pytest.raises(
            ToolDefinitionError, match=rf"tool 'f': `provider_options.openai.{key}` would overwrite the '{key}' field"
        ):
            adapter.encode_tools([tool])

    def test_the_cached_entry_is_reused_and_stays_equal(self, adapter: Adapter) -> None:
        first = adapter.encode_tools([weather, clock], strict=True)
        second = adapter.encode_tools([weather, clock], strict=True)
        assert first == second
        assert first["tools"][0] is not second["tools"][0]


class TestToolChoice:
    @pytest.mark.parametrize(
        ("choice", "sent"),
        [
            ("auto", "auto"),
            ("none", "none"),
            ("required", "required"),
            ({"tool": "get_time"}, {"type": "function", "name": "get_time"}),
            (
                {"allowed": ["get_time"], "mode": "auto"},
                {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "get_time"}]},
            ),
            (
                {"allowed": ["get_weather", "get_time"], "mode": "required"},
                {
                    "type": "allowed_tools",
                    "mode": "required",
                    "tools": [{"type": "function", "name": "get_weather"}, {"type": "function", "name": "get_time"}],
                },
            ),
        ],
    )
    def test_every_choice_form(self, adapter: Adapter, wire: Wire, choice: Any, sent: Any) -> None:
        encoded = adapter.encode_tools([weather, clock], choice)
        assert encoded["tool_choice"] == sent
        assert wire(**encoded) == encoded

    def test_parallel_false_is_sent_as_parallel_tool_calls(self, adapter: Adapter, wire: Wire) -> None:
        encoded = adapter.encode_tools([weather], {"tool": "get_weather", "parallel": False})
        assert (encoded["tool_choice"], encoded["parallel_tool_calls"]) == (
            {"type": "function", "name": "get_weather"},
            False,
        )
        assert wire(**encoded) == encoded

    def test_a_forced_tool_is_named_by_its_wire_name(self, adapter: Adapter) -> None:
        dotted = create_tool(id="time.now", description="d")
        assert adapter.encode_tools([dotted], {"tool": "time.now"})["tool_choice"] == {
            "type": "function",
            "name": "time_now",
        }

    def test_validated_mode_is_ignored_and_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([weather], {"mode": "required", "validated": True})
        assert encoded["tool_choice"] == "required"
        assert features(encoded) == [(None, "tool_choice.validated")]

    def test_a_choice_without_tools_is_not_sent_and_is_reported(self, adapter: Adapter) -> None:
        encoded = adapter.encode_tools([], "auto", parallel=True)
        assert encoded == {}
        assert features(encoded) == [(None, "tool_choice")]
