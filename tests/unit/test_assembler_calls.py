"""Specification of the stream assembler for tool calls: buffering, finalization, validation, ids and names."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import create_tool
from toolwire._assembler import StreamAssembler
from toolwire.deltas import (
    Delta,
    StepFinished,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
)
from toolwire.events import Event, ToolInputAvailable, ToolInputDelta
from toolwire.names import NameMap
from toolwire.tools import Tool

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
WEATHER = create_tool(id="weather", description="Weather.", input_schema=WEATHER_SCHEMA)
SEARCH = create_tool(id="search", description="Search.")


def _assembler(tools: list[Tool] | None = None, names: NameMap | None = None, partial: bool = False) -> StreamAssembler:
    by_id = None if tools is None else {t.id: t for t in tools}
    return StreamAssembler(names=names or NameMap("test"), tools=by_id, partial=partial)


def _events(*deltas: Delta, tools: list[Tool] | None = None, names: NameMap | None = None) -> list[Event]:
    assembler = _assembler(tools, names)
    out: list[Event] = []
    for delta in deltas:
        assembler.feed(delta, out)
    assembler.close(out)
    return out


def _dicts(*deltas: Delta, tools: list[Tool] | None = None, names: NameMap | None = None) -> list[dict[str, Any]]:
    return [event.to_dict() for event in _events(*deltas, tools=tools, names=names)]


def _last_call_event(*deltas: Delta, tools: list[Tool] | None = None) -> dict[str, Any]:
    return [e for e in _dicts(*deltas, tools=tools) if e["type"].startswith("tool-input-")][-1]


def _call(arguments: str, name: str = "weather") -> tuple[Delta, ...]:
    return ToolCallStarted(0, "c1", name), ToolArgsPiece(0, arguments), ToolCallFinished(0)


class TestLifecycle:
    def test_a_streamed_call_emits_start_deltas_then_available(self) -> None:
        """The seed's lifecycle: input start, one delta per fragment, then the parsed input."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": '),
            ToolArgsPiece(0, '"Oslo"}'),
            ToolCallFinished(0),
            StepFinished("tool-calls"),
            tools=[WEATHER],
        )
        assert events[1:] == [
            {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
            {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city": '},
            {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '"Oslo"}'},
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Oslo"}},
            {"type": "finish", "finishReason": "tool-calls"},
        ]

    def test_a_call_is_finalized_only_on_call_finished_never_on_a_parsable_prefix(self) -> None:
        """`{"city": "Oslo"}` parses, but more keys may follow until the provider says the call is done."""
        assembler = _assembler([WEATHER])
        seen: list[list[str]] = []
        for delta in (
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Oslo"}'),
            ToolArgsPiece(0, ""),
            ToolCallFinished(0),
        ):
            out: list[Event] = []
            assembler.feed(delta, out)
            seen.append([e.type for e in out])
        assert seen == [["start", "tool-input-start"], ["tool-input-delta"], [], ["tool-input-available"]]

    def test_a_whole_call_emits_start_delta_and_available(self) -> None:
        """Non-streamed calls get the same three events as streamed ones."""
        events = _dicts(ToolCallComplete(0, "c1", "weather", arguments='{"city":"Rome"}'), tools=[WEATHER])
        assert events[1:4] == [
            {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
            {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city":"Rome"}'},
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Rome"}},
        ]

    def test_a_whole_call_with_a_parsed_input_streams_its_compact_json(self) -> None:
        """Gemini sends objects, not text; the delta is the compact JSON of the object."""
        events = _dicts(ToolCallComplete(0, "c1", "weather", input={"city": "Köln"}, has_input=True))
        assert events[2] == {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city":"Köln"}'}
        assert events[3]["input"] == {"city": "Köln"}

    def test_metadata_from_the_start_and_the_end_of_a_call_is_merged(self) -> None:
        """A thought signature on the start and an item id at the end both stay with the call."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather", provider_metadata={"google": {"thoughtSignature": "t"}}),
            ToolCallFinished(0, arguments='{"city": "A"}', provider_metadata={"openai": {"itemId": "fc_1"}}),
        )
        assert events[-2]["providerMetadata"] == {"google": {"thoughtSignature": "t"}, "openai": {"itemId": "fc_1"}}

    def test_a_second_start_for_an_open_call_is_ignored(self) -> None:
        """Providers that repeat the call header do not open a second call."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolCallStarted(0, "c1", "weather"),
            ToolCallFinished(0, arguments='{"city": "A"}'),
        )
        assert [e["type"] for e in events] == [
            "start",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-available",
            "finish",
        ]


class TestArguments:
    def test_empty_arguments_are_an_empty_object(self) -> None:
        """A call without arguments has input `{}` and no delta."""
        events = _dicts(ToolCallStarted(0, "c1", "search"), ToolCallFinished(0), tools=[SEARCH])
        assert events[1:3] == [
            {"type": "tool-input-start", "toolCallId": "c1", "toolName": "search"},
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "search", "input": {}},
        ]

    def test_whitespace_arguments_are_an_empty_object(self) -> None:
        """Some models send a space or newline for no arguments."""
        assert _last_call_event(*_call(" \n", name="search"), tools=[SEARCH]) == {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "search",
            "input": {},
        }

    def test_invalid_json_is_an_input_error_with_the_raw_text_and_what_to_do(self) -> None:
        """The model sees its own text and is told to send one JSON object."""
        assert _last_call_event(*_call('{"city": "Oslo"')) == {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": '{"city": "Oslo"',
            "errorText": "The input for tool 'weather' is not valid JSON (Expecting ',' delimiter: line 1 column 16"
            " (char 15)). Call the tool again with a single JSON object as its input.",
        }

    def test_json_that_is_not_an_object_is_an_input_error(self) -> None:
        """Tool inputs are objects; an array is refused with the parsed value kept."""
        assert _last_call_event(*_call("[1, 2]")) == {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": [1, 2],
            "errorText": "The input for tool 'weather' must be a JSON object.",
        }

    def test_arguments_restated_at_the_end_complete_the_buffered_text(self) -> None:
        """When the final text extends what was streamed, only the rest is sent as a delta."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Os'),
            ToolCallFinished(0, arguments='{"city": "Oslo"}'),
        )
        assert events[3:5] == [
            {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": 'lo"}'},
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Oslo"}},
        ]

    def test_arguments_restated_differently_at_the_end_win(self) -> None:
        """The provider's final statement of the call is the truth, even if the fragments disagree."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Osl'),
            ToolCallFinished(0, arguments='{"city": "Bergen"}'),
        )
        assert events[3] == {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": {"city": "Bergen"},
        }

    def test_a_parsed_input_at_the_end_wins_over_buffered_text(self) -> None:
        """An object stated at the end is used as is."""
        events = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, "garbage"),
            ToolCallFinished(0, input={"city": "Lima"}, has_input=True),
        )
        assert events[3]["input"] == {"city": "Lima"}

    def test_arguments_before_the_name_are_held_then_sent_as_one_delta(self) -> None:
        """Fragments for a key without a name yet wait; the call starts when the name arrives."""
        events = _dicts(
            ToolArgsPiece(0, '{"city":'),
            ToolArgsPiece(0, ' "Oslo"}'),
            ToolCallStarted(0, "c1", "weather"),
            ToolCallFinished(0),
        )
        assert events[1:4] == [
            {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
            {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city": "Oslo"}'},
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Oslo"}},
        ]

    def test_arguments_for_a_call_that_never_gets_a_name_are_an_error_at_the_end(self) -> None:
        """Nothing can be done with nameless arguments; the stream says so."""
        events = _dicts(ToolCallStarted(3, "c1", None), ToolArgsPiece(3, "{}"), ToolCallFinished(3))
        assert events[1:] == [
            {"type": "error", "errorText": "tool call 3 sent arguments but never a tool name"},
            {"type": "finish", "finishReason": "error"},
        ]

    def test_a_call_cut_off_by_the_end_of_the_response_is_an_input_error(self) -> None:
        """A truncated call is never executed; the model is told to call again."""
        events = _dicts(ToolCallStarted(0, "c1", "weather"), ToolArgsPiece(0, '{"city": "Os'))
        assert events[-2:] == [
            {
                "type": "tool-input-error",
                "toolCallId": "c1",
                "toolName": "weather",
                "input": '{"city": "Os',
                "errorText": "The response ended before the input of tool 'weather' was complete "
                "(received 12 characters); call the tool again with the complete input.",
            },
            {"type": "finish", "finishReason": "other"},
        ]

    def test_a_call_cut_by_the_output_limit_says_so_whenever_the_finish_arrives(self) -> None:
        """Open at the `length` finish, or closed unparsable before it: the model learns the limit cut it."""
        open_at_finish = _dicts(
            ToolCallStarted(0, "c1", "weather"), ToolArgsPiece(0, '{"city": "Os'), StepFinished("length")
        )
        closed_before = _dicts(
            ToolCallStarted(0, "c1", "weather"),
            ToolArgsPiece(0, '{"city": "Os'),
            ToolCallFinished(0),
            StepFinished("length"),
        )
        expected = {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": '{"city": "Os',
            "errorText": "The output limit cut the input of tool 'weather' short (12 characters arrived). "
            "Call the tool again with shorter input, or split the work into several calls.",
        }
        assert open_at_finish[-2:] == [expected, {"type": "finish", "finishReason": "length"}]
        assert closed_before[-2:] == [expected, {"type": "finish", "finishReason": "length"}]


_json_objects = st.dictionaries(
    st.text(max_size=4),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=8,
    ),
    max_size=4,
)


class TestAnyFragmentation:
    @settings(max_examples=200, deadline=None)
    @given(value=_json_objects, ensure_ascii=st.booleans(), cuts=st.lists(st.integers(0, 500), max_size=20))
    def test_any_split_of_the_arguments_gives_the_same_input_and_deltas_that_rebuild_the_text(
        self, value: dict[str, Any], ensure_ascii: bool, cuts: list[int]
    ) -> None:
        """Fragment boundaries never change the parsed input, and the deltas concatenate to the sent text."""
        text = json.dumps(value, ensure_ascii=ensure_ascii)
        bounds = [0, *sorted(c % (len(text) + 1) for c in cuts), len(text)]
        pieces: list[Delta] = [ToolArgsPiece(0, text[a:b]) for a, b in itertools.pairwise(bounds)]
        assembler = _assembler(partial=True)
        out: list[Event] = []
        for delta in [ToolCallStarted(0, "c1", "any"), *pieces, ToolCallFinished(0)]:
            assembler.feed(delta, out)
        deltas = [e for e in out if isinstance(e, ToolInputDelta)]
        (available,) = [e for e in out if isinstance(e, ToolInputAvailable)]
        assert "".join(d.input_text_delta for d in deltas) == text
        assert available.input == value
        if deltas:
            assert deltas[-1].partial_input == value
