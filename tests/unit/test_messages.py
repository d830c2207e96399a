"""Specification of the neutral conversation: dict forms per role, round trips, and assistant turns from events."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import (
    AssistantMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    ToolResult,
    UserMessage,
)
from toolwire.events import (
    Event,
    Finish,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    Start,
    TextDelta,
    TextEnd,
    TextStart,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputError,
)
from toolwire.exceptions import ArgumentError
from toolwire.messages import (
    UNKNOWN_TOOL_NAME,
    MediaPart,
    assistant_message,
    message_to_dict,
    system,
    to_message,
    to_messages,
    user,
)
from toolwire.results import image_data, text


class TestDictForms:
    def test_system(self) -> None:
        """`{"role": "system", "content": str}`."""
        assert to_message({"role": "system", "content": "Be brief."}) == SystemMessage(content="Be brief.")

    def test_user_with_a_string(self) -> None:
        """A string is one text part."""
        assert to_message({"role": "user", "content": "Hi"}) == UserMessage(content=(TextPart(text="Hi"),))

    def test_user_with_parts(self) -> None:
        """Text parts become TextPart; media parts are normalized (bytes to base64)."""
        message = to_message(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image-data", "data": b"ab", "mediaType": "image/png"},
                ],
            }
        )
        assert message == UserMessage(
            content=(
                TextPart(text="What is this?"),
                MediaPart(part={"type": "image-data", "data": "YWI=", "mediaType": "image/png"}),
            )
        )

    def test_assistant_with_a_string(self) -> None:
        """A string is one text part."""
        assert to_message({"role": "assistant", "content": "Hello"}) == AssistantMessage(
            content=(TextPart(text="Hello"),)
        )

    def test_assistant_with_every_part_type(self) -> None:
        """Text, reasoning, tool calls and provider results are read with their metadata."""
        message = to_message(
            {
                "role": "assistant",
                "providerMetadata": {"openai": {"id": "msg_1"}},
                "content": [
                    {"type": "reasoning", "text": "think", "providerMetadata": {"anthropic": {"signature": "s"}}},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Oslo"}},
                    {"type": "tool-call", "toolCallId": "s1", "toolName": "web_search", "providerExecuted": True},
                    {
                        "type": "tool-result",
                        "toolCallId": "s1",
                        "toolName": "web_search",
                        "output": {"type": "json", "value": []},
                    },
                ],
            }
        )
        assert message == AssistantMessage(
            content=(
                ReasoningPart(text="think", provider_metadata={"anthropic": {"signature": "s"}}),
                TextPart(text="Checking."),
                ToolCall(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
                ToolCall(tool_call_id="s1", tool_name="web_search", input={}, provider_executed=True),
                ToolResult(tool_call_id="s1", tool_name="web_search", output={"type": "json", "value": []}),
            ),
            provider_metadata={"openai": {"id": "msg_1"}},
        )

    def test_tool_results(self) -> None:
        """`role: tool` holds result parts."""
        message = to_message(
            {
                "role": "tool",
                "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "w", "output": text("21")}],
            }
        )
        assert message == ToolMessage(content=(ToolResult(tool_call_id="c1", tool_name="w", output=text("21")),))

    def test_message_objects_pass_through(self) -> None:
        """Objects and dicts can be mixed."""
        sys_message = system("x")
        assert to_messages([sys_message, {"role": "user", "content": "y"}]) == [sys_message, user("y")]

    def test_an_unknown_role_is_refused_listing_the_roles(self) -> None:
        """`developer` or typos are not guessed at."""
        with pytest.raises(
            ValueError, match=r"^unknown message role 'developer'; roles: system, user, assistant, tool$"
        ):
            to_message({"role": "developer", "content": "x"})

    def test_an_unknown_assistant_part_is_refused_listing_the_types(self) -> None:
        """A part type from another vocabulary is refused clearly."""
        with pytest.raises(
            ValueError,
            match=r"^unknown assistant part type 'tool_use'; types: text, reasoning, tool-call, tool-result, "
            r"image-data, file-data, image-url, file-url$",
        ):
            to_message({"role": "assistant", "content": [{"type": "tool_use"}]})


class TestRoundTrip:
    @pytest.mark.parametrize(
        "message",
        [
            system("Be brief."),
            user("Look:", image_data(b"\x00", "image/png", "a.png")),
            AssistantMessage(
                content=(
                    ReasoningPart(text="", provider_metadata={"anthropic": {"redactedData": "x"}}),
                    TextPart(text="Here.", provider_metadata={"google": {"thoughtSignature": "t"}}),
                    ToolCall(tool_call_id="c1", tool_name="w", input={"a": [1]}),
                    ToolCall(tool_call_id="s1", tool_name="web_search", input={"q": "x"}, provider_executed=True),
                    ToolResult(tool_call_id="s1", tool_name="web_search", output=text("found")),
                ),
                provider_metadata={"openai": {"id": "msg_1"}},
            ),
            ToolMessage(content=(ToolResult(tool_call_id="c1", tool_name="w", output={"type": "execution-denied"}),)),
        ],
        ids=["system", "user", "assistant", "tool"],
    )
    def test_message_to_dict_is_read_back_as_the_same_message(self, message: Any) -> None:
        """A transcript stored as JSON replays to the same messages."""
        assert to_message(message_to_dict(message)) == message

    def test_the_assistant_dict_form_is_exact(self) -> None:
        """Parts use AI SDK names; empty metadata is left out."""
        message = AssistantMessage(content=(TextPart(text="Hi"), ToolCall(tool_call_id="c", tool_name="w", input={})))
        assert message_to_dict(message) == {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Hi"},
                {"type": "tool-call", "toolCallId": "c", "toolName": "w", "input": {}},
            ],
        }

    def test_tool_calls_excludes_provider_executed_calls(self) -> None:
        """Only the calls toolwire must run are listed."""
        mine = ToolCall(tool_call_id="c", tool_name="w", input={})
        theirs = ToolCall(tool_call_id="s", tool_name="web_search", input={}, provider_executed=True)
        assert AssistantMessage(content=(theirs, TextPart(text="x"), mine)).tool_calls == [mine]


class TestAssistantFromEvents:
    def test_text_reasoning_and_calls_keep_their_order(self) -> None:
        """Each part appears where it started; deltas are joined; metadata comes from the end event."""
        events: list[Event] = [
            Start(),
            ReasoningStart(id="r"),
            ReasoningDelta(id="r", delta="Let me "),
            ReasoningDelta(id="r", delta="check."),
            ReasoningEnd(id="r", provider_metadata={"anthropic": {"signature": "sig"}}),
            TextStart(id="t"),
            TextDelta(id="t", delta="One "),
            TextDelta(id="t", delta="moment."),
            TextEnd(id="t"),
            ToolInputStart(tool_call_id="c1", tool_name="weather"),
            ToolInputDelta(tool_call_id="c1", input_text_delta='{"city":"Oslo"}'),
            ToolInputAvailable(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
            Finish(finish_reason="tool-calls"),
        ]
        assert assistant_message(events) == AssistantMessage(
            content=(
                ReasoningPart(text="Let me check.", provider_metadata={"anthropic": {"signature": "sig"}}),
                TextPart(text="One moment."),
                ToolCall(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
            )
        )

    def test_a_call_whose_input_failed_keeps_its_raw_input(self) -> None:
        """The next request shows the model its own broken call next to the error result."""
        events: list[Event] = [
            ToolInputError(tool_call_id="c1", tool_name="weather", input='{"city": ', error_text="not JSON")
        ]
        assert assistant_message(events).content == (
            ToolCall(tool_call_id="c1", tool_name="weather", input='{"city": '),
        )

    def test_provider_results_follow_their_calls_with_the_call_name(self) -> None:
        """Provider-executed outputs become results named after their call; errors become error-text."""
        events: list[Event] = [
            ToolInputAvailable(tool_call_id="s1", tool_name="web_search", input={"q": "x"}, provider_executed=True),
            ToolOutputAvailable(tool_call_id="s1", output=[{"url": "u"}], provider_executed=True),
            ToolOutputError(tool_call_id="s2", error_text="timeout", provider_executed=True),
            ToolOutputAvailable(tool_call_id="c9", output="ours"),
        ]
        assert assistant_message(events).content == (
            ToolCall(tool_call_id="s1", tool_name="web_search", input={"q": "x"}, provider_executed=True),
            ToolResult(tool_call_id="s1", tool_name="web_search", output={"type": "json", "value": [{"url": "u"}]}),
            ToolResult(tool_call_id="s2", tool_name="unknown", output={"type": "error-text", "value": "timeout"}),
        )

    def test_signature_only_reasoning_is_kept(self) -> None:
        """Redacted thinking has no text but its metadata must round-trip."""
        events: list[Event] = [ReasoningEnd(id="r", provider_metadata={"anthropic": {"redactedData": "abc"}})]
        assert assistant_message(events).content == (
            ReasoningPart(text="", provider_metadata={"anthropic": {"redactedData": "abc"}}),
        )

    def test_an_empty_text_part_carrying_a_signature_is_kept(self) -> None:
        """Gemini can sign an empty text part; the signature must go back on that part."""
        events: list[Event] = [TextEnd(id="t", provider_metadata={"google": {"thoughtSignature": "c2ln"}})]
        assert assistant_message(events).content == (
            TextPart(text="", provider_metadata={"google": {"thoughtSignature": "c2ln"}}),
        )

    def test_a_part_without_deltas_is_left_out(self) -> None:
        """An empty text part adds nothing to the transcript."""
        assert assistant_message([TextStart(id="t"), TextEnd(id="t")]).content == ()


def _server_call(call_id: str, name: str) -> ToolCall:
    return ToolCall(tool_call_id=call_id, tool_name=name, input={"q": "x"}, provider_executed=True)


class TestProviderResultNames:
    """A provider-executed result is named after its call, wherever the call is."""

    def test_a_result_in_the_same_response_as_its_call_takes_the_call_name(self) -> None:
        """The call met earlier in the same events names the result, before any history."""
        history = [user("search"), AssistantMessage(content=(_server_call("s1", "code_execution"),))]
        events: list[Event] = [
            ToolInputAvailable(tool_call_id="s1", tool_name="web_search", input={"q": "x"}, provider_executed=True),
            ToolOutputAvailable(tool_call_id="s1", output={"hits": 1}, provider_executed=True),
        ]
        assert assistant_message(events, history).content == (
            _server_call("s1", "web_search"),
            ToolResult(tool_call_id="s1", tool_name="web_search", output={"type": "json", "value": {"hits": 1}}),
        )

    def test_a_result_in_a_later_response_takes_the_name_of_the_call_in_an_earlier_message(self) -> None:
        """A call in an earlier assistant message (e.g. before an Anthropic `pause_turn`) names its later result."""
        history = [
            user("search"),
            AssistantMessage(content=(_server_call("s0", "web_fetch"),)),
            AssistantMessage(content=(TextPart(text="Searching."), _server_call("s1", "web_search"))),
        ]
        events: list[Event] = [
            ToolOutputError(tool_call_id="s1", error_text="too_many_requests", provider_executed=True),
            ToolOutputAvailable(tool_call_id="s0", output="page", provider_executed=True),
        ]
        assert assistant_message(events, history).content == (
            ToolResult(
                tool_call_id="s1", tool_name="web_search", output={"type": "error-text", "value": "too_many_requests"}
            ),
            ToolResult(tool_call_id="s0", tool_name="web_fetch", output={"type": "json", "value": "page"}),
        )

    def test_history_in_dict_form_names_a_later_result(self) -> None:
        """A saved conversation (message dicts) serves as history as well as Message objects do."""
        history = [
            {"role": "user", "content": "search"},
            {"role": "assistant", "content": [_server_call("s1", "web_search").to_dict()]},
        ]
        events: list[Event] = [ToolOutputAvailable(tool_call_id="s1", output=[], provider_executed=True)]
        assert assistant_message(events, history).content == (
            ToolResult(tool_call_id="s1", tool_name="web_search", output={"type": "json", "value": []}),
        )

    def test_a_result_whose_call_is_nowhere_is_named_unknown(self) -> None:
        """With no call of that id in the response or the history, the name says it is not known."""
        history = [user("search"), AssistantMessage(content=(_server_call("s1", "web_search"),))]
        events: list[Event] = [ToolOutputAvailable(tool_call_id="s9", output="x", provider_executed=True)]
        assert UNKNOWN_TOOL_NAME == "unknown"
        assert assistant_message(events, history).content == (
            ToolResult(tool_call_id="s9", tool_name=UNKNOWN_TOOL_NAME, output={"type": "json", "value": "x"}),
        )

    def test_history_that_is_not_a_list_of_messages_is_refused(self) -> None:
        """A bad `history` argument is an ArgumentError naming it, not a silent miss."""
        events: list[Event] = [ToolOutputAvailable(tool_call_id="s1", output="x", provider_executed=True)]
        with pytest.raises(ArgumentError, match="history"):
            assistant_message(events, "not a conversation")  # type: ignore[arg-type]
