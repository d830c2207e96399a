"""Specification of the stream assembler's checks on calls: schemas, unknown tools, ids, names, partial input."""

from __future__ import annotations

import json
from typing import Any

import pydantic

from toolwire import create_tool
from toolwire._assembler import StreamAssembler
from toolwire.deltas import Delta, ToolArgsPiece, ToolCallComplete, ToolCallFinished, ToolCallStarted
from toolwire.events import Event, ToolInputAvailable, ToolInputDelta
from toolwire.names import OPENAI_NAMES, NameMap, build_name_map
from toolwire.tools import Tool

STRICT_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "note": {"type": ["string", "null"]},
    },
    "required": ["city"],
}
WEATHER = create_tool(id="weather", description="Weather.", input_schema=STRICT_SCHEMA)
SEARCH = create_tool(id="search", description="Search.")


class Booking(pydantic.BaseModel):
    room: str
    nights: int = 1


BOOK = create_tool(id="book", description="Book.", input_schema=Booking)


def _events(
    *deltas: Delta, tools: list[Tool] | None = None, names: NameMap | None = None, partial: bool = False
) -> list[Event]:
    assembler = StreamAssembler(
        names=names or NameMap("test"), tools=None if tools is None else {t.id: t for t in tools}, partial=partial
    )
    out: list[Event] = []
    for delta in deltas:
        assembler.feed(delta, out)
    assembler.close(out)
    return out


def _outcome(arguments: str, name: str = "weather", tools: list[Tool] | None = None, **started: Any) -> Event:
    events = _events(
        ToolCallStarted(0, "c1", name, **started), ToolArgsPiece(0, arguments), ToolCallFinished(0), tools=tools
    )
    return [e for e in events if e.type in ("tool-input-available", "tool-input-error")][-1]


class TestValidation:
    def test_a_schema_failure_names_the_field_and_shows_the_schema(self) -> None:
        """The model learns which field is wrong and the schema to follow."""
        event = _outcome('{"city": "Oslo", "unit": "k"}', tools=[WEATHER])
        assert event.to_dict() == {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": {"city": "Oslo", "unit": "k"},
            "errorText": "Invalid input for tool 'weather': at `unit`: 'k' is not one of ['c', 'f']. "
            "Call the tool again with input that matches its schema: "
            + json.dumps(STRICT_SCHEMA, separators=(",", ":")),
        }

    def test_strict_mode_nulls_for_optional_properties_are_dropped_before_validation(self) -> None:
        """Strict providers send null for "not given"; the user's schema sees the property absent."""
        event = _outcome('{"city": "Oslo", "unit": null, "note": null}', tools=[WEATHER])
        assert event.to_dict()["input"] == {"city": "Oslo", "note": None}

    def test_a_pydantic_schema_yields_the_model_instance_as_validated_input(self) -> None:
        """`input` stays JSON; `validated_input` is what execute receives."""
        event = _outcome('{"room": "12", "nights": null}', name="book", tools=[BOOK])
        assert isinstance(event, ToolInputAvailable)
        assert event.input == {"room": "12"}
        assert event.validated_input == Booking(room="12", nights=1)

    def test_an_unknown_tool_is_an_input_error_listing_the_tools(self) -> None:
        """A hallucinated tool name is answered with the names that exist."""
        event = _outcome("{}", name="wether", tools=[WEATHER, SEARCH])
        assert event.to_dict()["errorText"] == "There is no tool named 'wether'. Available tools: search, weather."

    def test_without_tools_nothing_is_validated(self) -> None:
        """tools=None decodes calls to any name and keeps the input as sent."""
        event = _outcome('{"anything": null}', name="unknown")
        assert isinstance(event, ToolInputAvailable)
        assert (event.tool_name, event.input, event.validated_input) == (
            "unknown",
            {"anything": None},
            {"anything": None},
        )

    def test_provider_executed_calls_are_never_validated(self) -> None:
        """The provider runs its own tools; their names and inputs are not ours to check."""
        event = _outcome('{"query": 3}', name="web_search", tools=[WEATHER], provider_executed=True)
        assert event.to_dict() == {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "web_search",
            "input": {"query": 3},
            "providerExecuted": True,
        }

    def test_a_provider_executed_call_with_the_name_of_one_of_ours_is_not_validated(self) -> None:
        """Even a name clash does not make a provider call ours."""
        event = _outcome('{"city": 1}', name="weather", tools=[WEATHER], provider_executed=True)
        assert event.type == "tool-input-available"


class TestIdsAndNames:
    def test_duplicate_call_ids_are_made_unique(self) -> None:
        """Two calls with one id would be indistinguishable when results come back."""
        events = _events(
            ToolCallComplete(0, "call_a", "search", arguments="{}"),
            ToolCallComplete(1, "call_a", "search", arguments="{}"),
        )
        assert [e.to_dict()["toolCallId"] for e in events if e.type == "tool-input-available"] == [
            "call_a",
            "call_a_2",
        ]

    def test_a_missing_call_id_is_generated_from_the_call_count(self) -> None:
        """Providers without ids (some Gemini versions) still get stable ids."""
        events = _events(
            ToolCallComplete(0, None, "search", arguments="{}"), ToolCallComplete(1, "", "search", arguments="{}")
        )
        assert [e.to_dict()["toolCallId"] for e in events if e.type == "tool-input-start"] == ["call_1", "call_2"]

    def test_provider_names_are_mapped_back_to_tool_ids(self) -> None:
        """`toolName` is always the tool's own id, never the sanitized wire name."""
        tool = create_tool(id="files.read", description="Read.")
        names = build_name_map("openai-chat", ["files.read"], OPENAI_NAMES)
        events = _events(ToolCallComplete(0, "c1", "files_read", arguments="{}"), tools=[tool], names=names)
        assert [e.to_dict()["toolName"] for e in events if e.type in ("tool-input-start", "tool-input-available")] == [
            "files.read",
            "files.read",
        ]

    def test_a_call_id_sent_before_the_name_is_kept(self) -> None:
        """When the id arrives first and the name later, the call keeps the provider's id."""
        events = _events(
            ToolCallStarted(0, "call_abc", None),
            ToolArgsPiece(0, '{"city": "Oslo"}'),
            ToolCallStarted(0, None, "weather"),
            ToolCallFinished(0),
        )
        assert [e.to_dict()["toolCallId"] for e in events if e.type.startswith("tool-input")] == ["call_abc"] * 3


class TestPartialInput:
    def _deltas(self) -> list[ToolInputDelta]:
        events = _events(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Os'),
            ToolArgsPiece(0, 'lo", "unit'),
            ToolArgsPiece(0, '": "c"}'),
            ToolCallFinished(0),
            partial=True,
        )
        return [e for e in events if isinstance(e, ToolInputDelta)]

    def test_a_delta_read_live_carries_the_partial_input_so_far(self) -> None:
        """Read while iterating, each delta shows the input parsed up to that fragment."""
        assembler = StreamAssembler(names=NameMap("test"), partial=True)
        live: list[Any] = []
        for delta in (
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Os'),
            ToolArgsPiece(0, 'lo", "days": [1'),
            ToolArgsPiece(0, ", 2]}"),
        ):
            out: list[Event] = []
            assembler.feed(delta, out)
            live.extend(json.loads(json.dumps(e.partial_input)) for e in out if isinstance(e, ToolInputDelta))
        assert live == [{"city": "Os"}, {"city": "Oslo", "days": [1]}, {"city": "Oslo", "days": [1, 2]}]

    def test_a_delta_read_after_the_stream_is_recomputed_as_it_stood(self) -> None:
        """A stale read gives the value at that delta, not the final one."""
        assert [d.partial_input for d in self._deltas()] == [
            {"city": "Os"},
            {"city": "Oslo"},
            {"city": "Oslo", "unit": "c"},
        ]

    def test_partial_input_is_serialized(self) -> None:
        """`partialInput` is in the JSON form when partial parsing is on."""
        assert self._deltas()[0].to_dict() == {
            "type": "tool-input-delta",
            "toolCallId": "c1",
            "inputTextDelta": '{"city": "Os',
            "partialInput": {"city": "Os"},
        }

    def test_a_whole_call_with_partial_on_carries_its_complete_input_on_the_delta(self) -> None:
        """Non-streamed calls get a partial input equal to the whole input."""
        events = _events(ToolCallComplete(0, "c1", "weather", input={"city": "Rome"}, has_input=True), partial=True)
        (delta,) = [e for e in events if isinstance(e, ToolInputDelta)]
        assert delta.partial_input == {"city": "Rome"}

    def test_without_partial_there_is_no_partial_input(self) -> None:
        """The incremental parser only runs when asked for."""
        events = _events(ToolCallComplete(0, "c1", "weather", arguments='{"city": "Rome"}'))
        (delta,) = [e for e in events if isinstance(e, ToolInputDelta)]
        assert delta.partial_input is None
