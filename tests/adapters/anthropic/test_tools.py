"""Tool definitions for the Messages API, each proven by sending it through the real SDK client."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire import ToolDefinitionError, ToolNameCollisionError, create_tool
from toolwire.adapter import Adapter
from toolwire.compat import Degradation

WireBody = Callable[..., dict[str, Any]]


class Priority(StrEnum):
    low = "low"
    high = "high"


class Person(BaseModel):
    """Someone involved in the ticket."""

    name: str = Field(description="Full name", min_length=1)
    email: str | None = None


class Ticket(BaseModel):
    """A support ticket."""

    title: str = Field(description="One-line summary", max_length=80)
    priority: Priority = Priority.low
    reporter: Person
    assignee: Person | None = None
    tags: list[str] = Field(default_factory=list)
    kind: Literal["bug", "question"] = "bug"


TICKET_SCHEMA = {
    "$defs": {
        "Person": {
            "description": "Someone involved in the ticket.",
            "properties": {
                "name": {"description": "Full name", "minLength": 1, "type": "string"},
                "email": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["name"],
            "title": "Person",
            "type": "object",
        },
        "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
    },
    "description": "A support ticket.",
    "properties": {
        "title": {"description": "One-line summary", "maxLength": 80, "type": "string"},
        "priority": {"$ref": "#/$defs/Priority", "default": "low"},
        "reporter": {"$ref": "#/$defs/Person"},
        "assignee": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}], "default": None},
        "tags": {"items": {"type": "string"}, "type": "array"},
        "kind": {"default": "bug", "enum": ["bug", "question"], "type": "string"},
    },
    "required": ["title", "reporter"],
    "title": "Ticket",
    "type": "object",
}

TICKET_STRICT_SCHEMA = {
    "$defs": {
        "Person": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Full name\n\n{minLength: 1}"},
                "email": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "{default: null}"},
            },
            "additionalProperties": False,
            "required": ["name"],
            "description": "Someone involved in the ticket.",
            "title": "Person",
        },
        "Priority": {"enum": ["low", "high"], "title": "Priority"},
    },
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "One-line summary\n\n{maxLength: 80}"},
        "priority": {"$ref": "#/$defs/Priority"},
        "reporter": {"$ref": "#/$defs/Person"},
        "assignee": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}], "description": "{default: null}"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "kind": {"enum": ["bug", "question"], "description": '{default: "bug"}'},
    },
    "additionalProperties": False,
    "required": ["title", "reporter"],
    "description": 'A support ticket.\n\n`priority`: {default: "low"}',
}

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}


def weather(**options: Any) -> Any:
    return create_tool(
        id="get_weather", description="Current weather for a city.", input_schema=WEATHER_SCHEMA, **options
    )


def ticket(**options: Any) -> Any:
    return create_tool(id="create_ticket", description="Open a ticket.", input_schema=Ticket, **options)


def on_the_wire(wire_body: WireBody, fragment: dict[str, Any]) -> dict[str, Any]:
    """The fragment's fields as the SDK put them on the HTTP body."""
    body = wire_body(**fragment)
    return {key: body[key] for key in fragment}


class TestToolEntries:
    """One `ToolParam` per tool, exactly as `anthropic/types/tool_param.py` spells it."""

    def test_a_plain_tool_sends_name_description_and_schema(self, adapter: Adapter, wire_body: WireBody) -> None:
        fragment = adapter.encode_tools([weather()])
        expected = {
            "tools": [
                {"name": "get_weather", "description": "Current weather for a city.", "input_schema": WEATHER_SCHEMA}
            ]
        }
        assert fragment == expected
        assert on_the_wire(wire_body, fragment) == expected
        assert fragment.warnings == []

    def test_a_pydantic_model_is_sent_as_its_json_schema_when_strict_is_unset(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        fragment = adapter.encode_tools([ticket()])
        expected = {
            "tools": [{"name": "create_ticket", "description": "Open a ticket.", "input_schema": TICKET_SCHEMA}]
        }
        assert fragment == expected
        assert on_the_wire(wire_body, fragment) == expected

    def test_strict_sends_the_strict_subset_with_constraints_in_descriptions(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        fragment = adapter.encode_tools([ticket(strict=True)])
        expected = {
            "tools": [
                {
                    "name": "create_ticket",
                    "description": "Open a ticket.",
                    "input_schema": TICKET_STRICT_SCHEMA,
                    "strict": True,
                }
            ]
        }
        assert fragment == expected
        assert on_the_wire(wire_body, fragment) == expected

    def test_strict_reports_the_constraints_it_moved_into_descriptions(self, adapter: Adapter) -> None:
        fragment = adapter.encode_tools([ticket(strict=True)])
        assert fragment.warnings == [
            Degradation(
                api="anthropic",
                feature="strict.constraints",
                action="moved into descriptions, so Anthropic's strict decoding does not enforce them (toolwire "
                "still validates them): maxLength at `properties.title`, minLength at `$defs.Person.properties.name`",
                tool_id="create_ticket",
            )
        ]

    def test_strict_false_sends_no_strict_flag(self, adapter: Adapter, wire_body: WireBody) -> None:
        fragment = adapter.encode_tools([weather(strict=False)], strict=True)
        assert fragment["tools"][0] == {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": WEATHER_SCHEMA,
        }
        assert on_the_wire(wire_body, fragment) == fragment

    def test_the_request_default_applies_to_tools_that_leave_strict_unset(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        fragment = adapter.encode_tools([weather()], strict=True)
        assert on_the_wire(wire_body, fragment) == fragment
        assert fragment["tools"][0] == {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "additionalProperties": False,
                "required": ["city"],
            },
            "strict": True,
        }

    def test_auto_strict_enables_strict_where_the_schema_allows_it(self, adapter: Adapter) -> None:
        open_dict = create_tool(
            id="tag",
            description="Tag things.",
            input_schema={"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": True}}},
        )
        fragment = adapter.encode_tools([weather(), open_dict], auto_strict=True)
        assert [entry.get("strict") for entry in fragment["tools"]] == [True, None]
        assert fragment.warnings == []

    def test_a_schema_that_cannot_be_strict_is_sent_without_strict_and_reported(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        schema = {
            "type": "object",
            "properties": {"scores": {"type": "object", "additionalProperties": {"type": "number"}}},
        }
        tool = create_tool(id="score", description="Record scores.", input_schema=schema, strict=True)
        fragment = adapter.encode_tools([tool])
        assert fragment == {"tools": [{"name": "score", "description": "Record scores.", "input_schema": schema}]}
        assert on_the_wire(wire_body, fragment) == fragment
        assert fragment.warnings == [
            Degradation(
                api="anthropic",
                feature="strict",
                action="sent without `strict` because the open object (additionalProperties) at "
                "`properties.scores` cannot be strict",
                tool_id="score",
            )
        ]

    def test_top_level_combinators_are_folded_into_the_root_and_reported(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        by_id_or_path = {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "anyOf": [{"required": ["id"]}, {"properties": {"path": {"type": "string"}}, "required": ["path"]}],
        }
        tool = create_tool(id="open_file", description="Open a file.", input_schema=by_id_or_path)
        fragment = adapter.encode_tools([tool])
        assert fragment["tools"][0]["input_schema"] == {
            "type": "object",
            "properties": {"id": {"type": "string"}, "path": {"type": "string"}},
            "description": '{anyOf: [{"required": ["id"]}, {"properties": {"path": {"type": "string"}}, '
            '"required": ["path"]}]}',
        }
        assert on_the_wire(wire_body, fragment) == fragment
        assert [(w.feature, w.tool_id) for w in fragment.warnings] == [("input_schema.combinators", "open_file")]

    def test_a_top_level_all_of_adds_its_properties_and_required_fields(self, adapter: Adapter) -> None:
        schema = {
            "type": "object",
            "$defs": {"Paging": {"type": "object", "properties": {"page": {"type": "integer"}}, "required": ["page"]}},
            "properties": {"q": {"type": "string"}},
            "required": ["q"],
            "allOf": [{"$ref": "#/$defs/Paging"}],
        }
        tool = create_tool(id="search", description="Search.", input_schema=schema)
        sent = adapter.encode_tools([tool])["tools"][0]["input_schema"]
        assert sent["properties"] == {"q": {"type": "string"}, "page": {"type": "integer"}}
        assert sent["required"] == ["q", "page"]
        assert "allOf" not in sent

    def test_the_tool_schema_is_never_mutated(self, adapter: Adapter) -> None:
        tool = ticket(strict=True)
        adapter.encode_tools([tool])
        assert tool.input_schema.json_schema == TICKET_SCHEMA

    def test_editing_the_sent_schema_in_place_is_refused_and_leaves_the_tools_schema(self, adapter: Adapter) -> None:
        tool = weather()
        fragment = adapter.encode_tools([tool])
        with pytest.raises(TypeError, match="read-only"):
            fragment["tools"][0]["input_schema"]["properties"]["city"]["type"] = "number"
        assert tool.input_schema.json_schema == WEATHER_SCHEMA
        assert adapter.encode_tools([tool])["tools"][0]["input_schema"]["properties"]["city"]["type"] == "string"

    def test_an_output_schema_is_not_sent_and_reported(self, adapter: Adapter) -> None:
        tool = create_tool(
            id="get_weather",
            description="Current weather for a city.",
            input_schema=WEATHER_SCHEMA,
            output_schema={"type": "object", "properties": {"celsius": {"type": "number"}}},
        )
        fragment = adapter.encode_tools([tool])
        assert "output_schema" not in fragment["tools"][0]
        assert [(w.feature, w.tool_id) for w in fragment.warnings] == [("output_schema", "get_weather")]


class TestInputExamples:
    """Anthropic takes examples natively as `input_examples`: a list of inputs."""

    def test_examples_are_sent_natively(self, adapter: Adapter, wire_body: WireBody) -> None:
        tool = weather(input_examples=[{"input": {"city": "Berlin"}}, {"input": {"city": "Lima"}}])
        fragment = adapter.encode_tools([tool])
        assert fragment["tools"][0]["input_examples"] == [{"city": "Berlin"}, {"city": "Lima"}]
        assert fragment["tools"][0]["description"] == "Current weather for a city."
        assert on_the_wire(wire_body, fragment) == fragment
        assert fragment.warnings == []

    def test_strict_keeps_examples_that_leave_optional_fields_out(self, adapter: Adapter) -> None:
        tool = ticket(strict=True, input_examples=[{"input": {"title": "Crash", "reporter": {"name": "Ada"}}}])
        fragment = adapter.encode_tools([tool])
        assert fragment["tools"][0]["input_examples"] == [{"title": "Crash", "reporter": {"name": "Ada"}}]

    def test_strict_keeps_examples_that_send_null_for_optional_fields(self, adapter: Adapter) -> None:
        example = {"title": "Crash", "reporter": {"name": "Ada", "email": None}, "assignee": None}
        tool = ticket(strict=True, input_examples=[{"input": example}])
        assert adapter.encode_tools([tool])["tools"][0]["input_examples"] == [example]

    def test_strict_drops_and_reports_an_example_with_undeclared_properties(self, adapter: Adapter) -> None:
        tool = weather(
            strict=True, input_examples=[{"input": {"city": "Oslo", "units": "C"}}, {"input": {"city": "Rome"}}]
        )
        fragment = adapter.encode_tools([tool])
        assert fragment["tools"][0]["input_examples"] == [{"city": "Rome"}]
        assert [(w.feature, w.tool_id) for w in fragment.warnings] == [("input_examples", "get_weather")]
        assert "input_examples[0]" in fragment.warnings[0].action
        assert "'units' was unexpected" in fragment.warnings[0].action

    def test_no_input_examples_field_when_every_example_was_dropped(self, adapter: Adapter) -> None:
        tool = weather(strict=True, input_examples=[{"input": {"city": "Oslo", "units": "C"}}])
        assert "input_examples" not in adapter.encode_tools([tool])["tools"][0]


class TestProviderOptions:
    """`provider_options["anthropic"]` is merged into the tool entry; other providers' options are ignored."""

    def test_anthropic_options_are_merged_into_the_entry(self, adapter: Adapter, wire_body: WireBody) -> None:
        tool = weather(
            provider_options={
                "anthropic": {
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    "defer_loading": True,
                    "eager_input_streaming": True,
                    "allowed_callers": ["direct", "code_execution_20250825"],
                },
                "openai": {"defer_loading": False},
                "google": {"behavior": "NON_BLOCKING"},
            }
        )
        fragment = adapter.encode_tools([tool])
        expected = {
            "tools": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "input_schema": WEATHER_SCHEMA,
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    "defer_loading": True,
                    "eager_input_streaming": True,
                    "allowed_callers": ["direct", "code_execution_20250825"],
                }
            ]
        }
        assert fragment == expected
        assert on_the_wire(wire_body, fragment) == expected

    @pytest.mark.parametrize("field", ["name", "description", "input_schema", "strict", "input_examples"])
    def test_an_option_that_overwrites_a_field_toolwire_sets_is_an_error(self, adapter: Adapter, field: str) -> None:
        tool = weather(provider_options={"anthropic": {field: "x"}})
        with pytest.raises(ToolDefinitionError, match=rf"tool 'get_weather': `provider_options.anthropic.{field}`"):
            adapter.encode_tools([tool])


class TestNames:
    """Tool ids outside `^[a-zA-Z0-9_-]{1,64}$` are mapped deterministically and reversibly."""

    def test_an_id_outside_the_alphabet_is_sent_sanitized(self, adapter: Adapter, wire_body: WireBody) -> None:
        tool = create_tool(id="weather.get", description="Weather.", input_schema=WEATHER_SCHEMA)
        fragment = adapter.encode_tools([tool], tool_choice={"tool": "weather.get"})
        assert fragment["tools"][0]["name"] == "weather_get"
        assert fragment["tool_choice"] == {"type": "tool", "name": "weather_get"}
        assert fragment.names.tool_id("weather_get") == "weather.get"
        assert on_the_wire(wire_body, fragment) == fragment

    def test_two_ids_that_map_to_one_name_are_an_error_naming_both(self, adapter: Adapter) -> None:
        first = create_tool(id="a.b", description="One.")
        second = create_tool(id="a:b", description="Two.")
        with pytest.raises(ToolNameCollisionError, match=r"'a\.b' and 'a:b' both map to the anthropic name 'a_b'"):
            adapter.encode_tools([first, second])


class TestCaching:
    """Encoded entries are cached per tool and options; cached entries are independent copies."""

    def test_a_second_encoding_returns_an_equal_entry(self, adapter: Adapter) -> None:
        tool = ticket(strict=True)
        assert adapter.encode_tools([tool]) == adapter.encode_tools([tool])

    def test_a_cached_encoding_reports_its_degradations_again(self, adapter: Adapter) -> None:
        tool = ticket(strict=True)
        adapter.encode_tools([tool])
        assert [w.feature for w in adapter.encode_tools([tool]).warnings] == ["strict.constraints"]
