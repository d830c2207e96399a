"""Specification of the stream assembler outside tool calls: text and reasoning parts, finish, usage, errors."""

from __future__ import annotations

from typing import Any

from toolwire._assembler import StreamAssembler
from toolwire.deltas import (
    Delta,
    MessageStarted,
    PartFinished,
    ReasoningPiece,
    StepFinished,
    StreamFailed,
    TextPiece,
    ToolCallComplete,
    ToolOutput,
    UsageReport,
)
from toolwire.events import Event, Usage
from toolwire.names import NameMap


def _events(*deltas: Delta) -> list[Event]:
    assembler = StreamAssembler(names=NameMap("test"))
    out: list[Event] = []
    for delta in deltas:
        assembler.feed(delta, out)
    assembler.close(out)
    return out


def _dicts(*deltas: Delta) -> list[dict[str, Any]]:
    return [event.to_dict() for event in _events(*deltas)]


class TestTextAndReasoning:
    def test_a_text_part_opens_on_its_first_piece_and_closes_on_part_finished(self) -> None:
        """start, text-start, one delta per piece, text-end, finish."""
        assert _dicts(TextPiece(0, "Hel"), TextPiece(0, "lo"), PartFinished(0), StepFinished("stop")) == [
            {"type": "start"},
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "Hel"},
            {"type": "text-delta", "id": "0", "delta": "lo"},
            {"type": "text-end", "id": "0"},
            {"type": "finish", "finishReason": "stop"},
        ]

    def test_message_started_gives_the_start_event_its_id_and_metadata(self) -> None:
        """The provider's message id and metadata go on `start`, once."""
        meta = {"openai": {"responseId": "resp_1"}}
        events = _dicts(MessageStarted("msg_1", meta), MessageStarted("msg_2"))
        assert events == [
            {"type": "start", "messageId": "msg_1", "providerMetadata": meta},
            {"type": "finish", "finishReason": "other"},
        ]

    def test_an_empty_piece_opens_a_part_without_a_delta(self) -> None:
        """Some providers announce a block before its text; no empty delta is sent."""
        assert _dicts(TextPiece("b", ""), PartFinished("b")) == [
            {"type": "start"},
            {"type": "text-start", "id": "b"},
            {"type": "text-end", "id": "b"},
            {"type": "finish", "finishReason": "other"},
        ]

    def test_parts_left_open_are_closed_at_the_end(self) -> None:
        """A response without explicit part ends still closes every part, text first."""
        assert _dicts(ReasoningPiece(1, "hm"), TextPiece(0, "ok")) == [
            {"type": "start"},
            {"type": "reasoning-start", "id": "1"},
            {"type": "reasoning-delta", "id": "1", "delta": "hm"},
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "ok"},
            {"type": "text-end", "id": "0"},
            {"type": "reasoning-end", "id": "1"},
            {"type": "finish", "finishReason": "other"},
        ]

    def test_reasoning_metadata_from_pieces_and_the_end_is_merged_onto_reasoning_end(self) -> None:
        """Signatures arrive late and in pieces; they all land on `reasoning-end`."""
        events = _dicts(
            ReasoningPiece(0, "a", {"anthropic": {"signature": "s1"}}),
            ReasoningPiece(0, "", {"anthropic": {"redacted": False}}),
            PartFinished(0, {"anthropic": {"signature": "s2"}, "google": {"thoughtSignature": "t"}}),
        )
        assert events[-2] == {
            "type": "reasoning-end",
            "id": "0",
            "providerMetadata": {
                "anthropic": {"signature": "s2", "redacted": False},
                "google": {"thoughtSignature": "t"},
            },
        }

    def test_text_end_carries_the_part_finished_metadata(self) -> None:
        """Metadata on the end of a text part is kept."""
        events = _dicts(TextPiece(0, "x"), PartFinished(0, {"openai": {"itemId": "msg_1"}}))
        assert events[3] == {"type": "text-end", "id": "0", "providerMetadata": {"openai": {"itemId": "msg_1"}}}

    def test_tuple_keys_become_dashed_part_ids(self) -> None:
        """Composite provider keys like `(choice, index)` are joined for the part id."""
        assert _dicts(TextPiece((0, "text"), "x"))[1] == {"type": "text-start", "id": "0-text"}

    def test_interleaved_parts_keep_their_own_ids(self) -> None:
        """Deltas are routed by key; each part keeps its id."""
        events = _dicts(TextPiece("a", "1"), TextPiece("b", "2"), TextPiece("a", "3"), PartFinished("a"))
        assert events[1:6] == [
            {"type": "text-start", "id": "a"},
            {"type": "text-delta", "id": "a", "delta": "1"},
            {"type": "text-start", "id": "b"},
            {"type": "text-delta", "id": "b", "delta": "2"},
            {"type": "text-delta", "id": "a", "delta": "3"},
        ]

    def test_finishing_an_unknown_part_does_nothing(self) -> None:
        """A stray end event is harmless."""
        assert _dicts(PartFinished(9)) == [{"type": "start"}, {"type": "finish", "finishReason": "other"}]


class TestFinishAndUsage:
    def test_stop_with_client_calls_becomes_tool_calls(self) -> None:
        """Some providers say `stop` after calls; the finish reason says what the caller must do."""
        events = _dicts(ToolCallComplete(0, "c1", "weather", arguments="{}"), StepFinished("stop"))
        assert events[-1] == {"type": "finish", "finishReason": "tool-calls"}

    def test_stop_with_only_provider_executed_calls_stays_stop(self) -> None:
        """Calls the provider ran itself leave nothing for the caller to do."""
        events = _dicts(
            ToolCallComplete(0, "s1", "web_search", arguments="{}", provider_executed=True), StepFinished("stop")
        )
        assert events[-1] == {"type": "finish", "finishReason": "stop"}

    def test_other_finish_reasons_are_kept_even_with_calls(self) -> None:
        """`length` with a call still says `length`: the call may be cut short."""
        events = _dicts(ToolCallComplete(0, "c1", "weather", arguments="{}"), StepFinished("length"))
        assert events[-1] == {"type": "finish", "finishReason": "length"}

    def test_usage_reports_are_merged_later_values_filling_and_winning(self) -> None:
        """Input tokens come first, output tokens last; a later count replaces an earlier one."""
        events = _dicts(
            UsageReport(Usage(input_tokens=10, output_tokens=1)),
            UsageReport(Usage(output_tokens=5, cached_input_tokens=2)),
            StepFinished("stop", usage=Usage(total_tokens=15)),
        )
        assert events[-1] == {
            "type": "finish",
            "finishReason": "stop",
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, "cachedInputTokens": 2},
        }

    def test_finish_metadata_comes_from_the_step_finished_delta(self) -> None:
        """Response-level metadata rides on `finish`."""
        events = _dicts(StepFinished("stop", provider_metadata={"anthropic": {"stopSequence": "END"}}))
        assert events[-1] == {
            "type": "finish",
            "finishReason": "stop",
            "providerMetadata": {"anthropic": {"stopSequence": "END"}},
        }

    def test_no_finish_reason_is_other(self) -> None:
        """A stream that never said why it ended finishes with `other`."""
        assert _dicts() == [{"type": "start"}, {"type": "finish", "finishReason": "other"}]


class TestErrorsAndProviderResults:
    def test_a_provider_error_is_an_error_event_and_the_finish_reason_is_error(self) -> None:
        """A failure inside the response is reported and the stream still finishes."""
        assert _dicts(TextPiece(0, "a"), StreamFailed("overloaded")) == [
            {"type": "start"},
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "a"},
            {"type": "error", "errorText": "overloaded"},
            {"type": "text-end", "id": "0"},
            {"type": "finish", "finishReason": "error"},
        ]

    def test_an_explicit_finish_reason_wins_over_an_earlier_error(self) -> None:
        """If the provider recovered and said why it stopped, that reason is kept."""
        assert _dicts(StreamFailed("hiccup"), StepFinished("stop"))[-1] == {"type": "finish", "finishReason": "stop"}

    def test_provider_results_are_output_events_marked_provider_executed(self) -> None:
        """Web search or code execution results become tool-output-available."""
        assert _dicts(ToolOutput("s1", [{"url": "https://a"}], provider_metadata={"anthropic": {"k": 1}}))[1] == {
            "type": "tool-output-available",
            "toolCallId": "s1",
            "output": [{"url": "https://a"}],
            "providerExecuted": True,
            "providerMetadata": {"anthropic": {"k": 1}},
        }

    def test_provider_errors_are_output_errors_with_json_text_for_structured_errors(self) -> None:
        """An error object is serialized as JSON; an error string is kept as is."""
        events = _dicts(
            ToolOutput("s1", {"error_code": "unavailable"}, is_error=True), ToolOutput("s2", "timeout", is_error=True)
        )
        assert events[1:3] == [
            {
                "type": "tool-output-error",
                "toolCallId": "s1",
                "errorText": '{"error_code": "unavailable"}',
                "providerExecuted": True,
            },
            {"type": "tool-output-error", "toolCallId": "s2", "errorText": "timeout", "providerExecuted": True},
        ]

    def test_an_error_reported_from_outside_the_adapter_starts_the_stream_if_needed(self) -> None:
        """`error()` (bad bytes) may be the first thing in a stream."""
        assembler = StreamAssembler(names=NameMap("test"))
        out: list[Event] = []
        assembler.error("malformed JSON at byte 3", out)
        assembler.close(out)
        assert [e.to_dict() for e in out] == [
            {"type": "start"},
            {"type": "error", "errorText": "malformed JSON at byte 3"},
            {"type": "finish", "finishReason": "error"},
        ]
