"""A neutral conversation as `system` + `messages`, proven through the real SDK client."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import ConfigurationError, ToolResult, assistant_message
from toolwire import results as out
from toolwire.adapter import Adapter
from toolwire.compat import CompatibilityWarning, Degradation
from toolwire.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    user,
)
from toolwire.results import ToolCall

WireBody = Callable[..., dict[str, Any]]
PNG = "iVBORw0KGgo="


def encode(adapter: Adapter, messages: list[Any]) -> tuple[dict[str, Any], list[Degradation]]:
    """The request fields, and the degradations reported through `warnings`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        fields = adapter.encode_messages(messages)
    return fields, [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]


def on_the_wire(wire_body: WireBody, fields: dict[str, Any]) -> dict[str, Any]:
    body = wire_body(**fields)
    return {key: body[key] for key in fields}


def call(call_id: str = "toolu_1", name: str = "get_weather", **options: Any) -> ToolCall:
    return ToolCall(tool_call_id=call_id, tool_name=name, input=options.pop("input", {"city": "Paris"}), **options)


def done(call_id: str = "toolu_1", value: str = "21C", name: str = "get_weather") -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name=name, output=out.text(value))


class TestSystem:
    def test_a_leading_system_message_is_the_top_level_system(self, adapter: Adapter, wire_body: WireBody) -> None:
        fields, _ = encode(adapter, [SystemMessage(content="Be brief."), user("Hi")])
        assert fields == {"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]}
        assert on_the_wire(wire_body, fields) == fields

    def test_several_leading_system_messages_become_text_blocks(self, adapter: Adapter, wire_body: WireBody) -> None:
        fields, _ = encode(
            adapter, [SystemMessage(content="Be brief."), SystemMessage(content="Use metric."), user("Hi")]
        )
        assert fields["system"] == [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use metric."}]
        assert on_the_wire(wire_body, fields) == fields

    def test_a_later_system_message_stays_in_place(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages: list[Message] = [
            user("Hi"),
            AssistantMessage(content=(TextPart(text="Hello!"),)),
            SystemMessage(content="Now answer in French."),
            user("Weather?"),
        ]
        fields, _ = encode(adapter, messages)
        assert fields == {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "system", "content": "Now answer in French."},
                {"role": "user", "content": "Weather?"},
            ]
        }
        assert on_the_wire(wire_body, fields) == fields


class TestUser:
    def test_text_and_media_parts(self, adapter: Adapter, wire_body: WireBody) -> None:
        message = user("What is in these?", out.image_data(PNG, "image/png"), out.file_url("https://example.com/a.pdf"))
        fields, found = encode(adapter, [message])
        assert fields == {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is in these?"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
                    ],
                }
            ]
        }
        assert on_the_wire(wire_body, fields) == fields
        assert found == []

    def test_a_part_anthropic_cannot_take_is_a_reported_note(self, adapter: Adapter) -> None:
        fields, found = encode(adapter, [user("Look", out.image_data("Qk0=", "image/bmp"))])
        assert fields["messages"][0]["content"][1] == {
            "type": "text",
            "text": "[image omitted (image/bmp): Anthropic takes images only as JPEG, PNG, GIF or WebP]",
        }
        assert [d.feature for d in found] == ["message.image"]

    def test_consecutive_user_messages_are_merged(self, adapter: Adapter) -> None:
        fields, _ = encode(adapter, [user("One"), user("Two")])
        assert fields["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "One"}, {"type": "text", "text": "Two"}]}
        ]

    def test_dict_forms_are_accepted(self, adapter: Adapter) -> None:
        fields, _ = encode(adapter, [{"role": "system", "content": "S"}, {"role": "user", "content": "Hi"}])
        assert fields == {"system": "S", "messages": [{"role": "user", "content": "Hi"}]}


class TestAssistant:
    def test_thinking_text_and_calls_keep_their_order(self, adapter: Adapter, wire_body: WireBody) -> None:
        assistant = AssistantMessage(
            content=(
                ReasoningPart(text="Two cities.", provider_metadata={"anthropic": {"signature": "sig-1"}}),
                ReasoningPart(text="", provider_metadata={"anthropic": {"redactedData": "blob"}}),
                TextPart(text="Checking."),
                call("toolu_1", input={"city": "Paris"}),
                call("toolu_2", input={"city": "Oslo"}),
            )
        )
        fields, found = encode(
            adapter, [user("Weather?"), assistant, ToolMessage(content=(done("toolu_1"), done("toolu_2", "5C")))]
        )
        assert fields["messages"][1:] == [
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Two cities.", "signature": "sig-1"},
                    {"type": "redacted_thinking", "data": "blob"},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Oslo"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "5C"},
                ],
            },
        ]
        assert on_the_wire(wire_body, fields) == fields
        assert found == []

    def test_thinking_without_a_signature_is_dropped_and_reported(self, adapter: Adapter) -> None:
        assistant = AssistantMessage(content=(ReasoningPart(text="hmm"), TextPart(text="Hi.")))
        fields, found = encode(adapter, [user("Hi"), assistant])
        assert fields["messages"][1] == {"role": "assistant", "content": "Hi."}
        assert found == [
            Degradation(
                api="anthropic",
                feature="reasoning",
                action="dropped a reasoning part: Anthropic takes thinking back only with the signature it issued",
            )
        ]

    def test_tool_names_are_sent_in_anthropics_alphabet(self, adapter: Adapter) -> None:
        fields, _ = encode(adapter, [user("x"), AssistantMessage(content=(call(name="weather.get"),))])
        assert fields["messages"][1]["content"][0]["name"] == "weather_get"

    def test_the_caller_and_toolset_of_a_call_round_trip(self, adapter: Adapter, wire_body: WireBody) -> None:
        caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
        metadata = {"anthropic": {"caller": caller, "toolsetName": "tools"}}
        fields, _ = encode(adapter, [user("x"), AssistantMessage(content=(call(provider_metadata=metadata),))])
        assert fields["messages"][1]["content"] == [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
                "toolset_name": "tools",
                "caller": caller,
            }
        ]
        assert on_the_wire(wire_body, fields) == fields

    def test_unparseable_input_is_replayed_so_the_model_sees_its_mistake(self, adapter: Adapter) -> None:
        broken = call(input='{"city": "Par')
        fields, found = encode(adapter, [user("x"), AssistantMessage(content=(broken,))])
        assert fields["messages"][1]["content"][0]["input"] == {"INVALID_JSON": '{"city": "Par'}
        assert [(d.feature, d.tool_id) for d in found] == [("tool_call.input", "get_weather")]

    def test_an_assistant_message_with_nothing_anthropic_can_take_is_left_out(self, adapter: Adapter) -> None:
        fields, _ = encode(adapter, [user("Hi"), AssistantMessage(content=(TextPart(text=""),)), user("Again")])
        assert fields["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "Again"}]}
        ]


class TestToolResults:
    def test_results_follow_the_order_of_the_calls(self, adapter: Adapter) -> None:
        assistant = AssistantMessage(content=(call("toolu_1"), call("toolu_2")))
        fields, _ = encode(adapter, [user("x"), assistant, ToolMessage(content=(done("toolu_2"), done("toolu_1")))])
        assert [b["tool_use_id"] for b in fields["messages"][2]["content"]] == ["toolu_1", "toolu_2"]

    def test_user_text_after_results_joins_their_message_after_every_result(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        messages: list[Any] = [
            user("x"),
            AssistantMessage(content=(call("toolu_1"),)),
            ToolMessage(content=(done("toolu_1"),)),
            user("Also check Oslo."),
        ]
        fields, _ = encode(adapter, messages)
        assert fields["messages"][2] == {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"},
                {"type": "text", "text": "Also check Oslo."},
            ],
        }
        assert on_the_wire(wire_body, fields) == fields

    def test_user_text_before_results_is_moved_behind_them(self, adapter: Adapter) -> None:
        messages: list[Any] = [
            user("x"),
            AssistantMessage(content=(call("toolu_1"),)),
            user("Hurry."),
            ToolMessage(content=(done("toolu_1"),)),
        ]
        fields, _ = encode(adapter, messages)
        assert [b["type"] for b in fields["messages"][2]["content"]] == ["tool_result", "text"]

    def test_call_ids_of_other_providers_are_mapped_on_both_sides(self, adapter: Adapter) -> None:
        messages: list[Any] = [
            user("x"),
            AssistantMessage(content=(call("functions.get_weather:0"),)),
            ToolMessage(content=(done("functions.get_weather:0"),)),
        ]
        fields, _ = encode(adapter, messages)
        assert fields["messages"][1]["content"][0]["id"] == "functions_get_weather_0"
        assert fields["messages"][2]["content"][0]["tool_use_id"] == "functions_get_weather_0"


class TestRoundTrip:
    """A decoded Anthropic response replays exactly, server tools included."""

    def test_a_decoded_response_replays_its_blocks(self, adapter: Adapter, wire_body: WireBody) -> None:
        results = [{"type": "web_search_result", "url": "https://a.example", "title": "A", "encrypted_content": "e1"}]
        caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_2"}
        response = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [
                {"type": "thinking", "thinking": "Search first.", "signature": "sig-9"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_3",
                    "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
                },
                {"type": "text", "text": "Found it."},
                {"type": "tool_use", "id": "toolu_1", "name": "roll", "input": {"n": 2}, "caller": caller},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        turn = assistant_message(adapter.normalize(response))
        fields, found = encode(adapter, [user("go"), turn])
        expected_content = [
            {"type": "thinking", "thinking": "Search first.", "signature": "sig-9"},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_3",
                "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
            },
            {"type": "text", "text": "Found it."},
            {"type": "tool_use", "id": "toolu_1", "name": "roll", "input": {"n": 2}, "caller": caller},
        ]
        assert fields["messages"][1] == {"role": "assistant", "content": expected_content}
        assert on_the_wire(wire_body, fields) == fields
        assert found == []

    def test_an_mcp_call_and_its_failed_result_replay(self, adapter: Adapter) -> None:
        response = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [
                {
                    "type": "mcp_tool_use",
                    "id": "mcptoolu_1",
                    "name": "ask",
                    "server_name": "wiki",
                    "input": {"q": "hi"},
                },
                {
                    "type": "mcp_tool_result",
                    "tool_use_id": "mcptoolu_1",
                    "is_error": True,
                    "content": [{"type": "text", "text": "server down"}],
                },
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        fields, _ = encode(adapter, [user("go"), assistant_message(adapter.normalize(response))])
        assert fields["messages"][1]["content"] == [
            {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask", "input": {"q": "hi"}, "server_name": "wiki"},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": "server down", "is_error": True},
        ]


class TestOtherProviders:
    """A transcript made with another API: what only its origin understands is dropped and reported."""

    def test_openai_reasoning_is_dropped_and_reported(self, adapter: Adapter) -> None:
        reasoning = ReasoningPart(
            text="thought", provider_metadata={"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "enc"}}
        )
        fields, found = encode(adapter, [user("x"), AssistantMessage(content=(reasoning, TextPart(text="Done.")))])
        assert fields["messages"][1] == {"role": "assistant", "content": "Done."}
        assert [d.action for d in found] == [
            "dropped a reasoning part from the OpenAI APIs: "
            "Anthropic takes thinking back only with the signature it issued"
        ]

    def test_a_gemini_thought_signature_on_a_call_is_dropped_and_reported(self, adapter: Adapter) -> None:
        gemini_call = call("call_1", provider_metadata={"google": {"thoughtSignature": "c2ln"}})
        fields, found = encode(adapter, [user("x"), AssistantMessage(content=(gemini_call,))])
        assert fields["messages"][1]["content"] == [
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
        ]
        assert found == [
            Degradation(
                api="anthropic",
                feature="history.metadata",
                action="dropped google metadata (thoughtSignature) of a tool call: only Gemini understands it",
                tool_id="get_weather",
            )
        ]

    def test_a_repeated_degradation_is_reported_once(self, adapter: Adapter) -> None:
        parts = tuple(TextPart(text=f"t{i}", provider_metadata={"openai": {"itemId": f"msg_{i}"}}) for i in range(3))
        _, found = encode(adapter, [user("x"), AssistantMessage(content=parts)])
        assert [d.feature for d in found] == ["history.metadata"]

    def test_another_providers_server_tool_is_dropped_with_its_result(self, adapter: Adapter) -> None:
        metadata = {"openai": {"itemId": "ws_1"}}
        search = call("ws_1", "web_search", provider_executed=True, provider_metadata=metadata, input={"query": "x"})
        found_result = ToolResult(
            tool_call_id="ws_1", tool_name="web_search", output=out.json_output({"ok": 1}), provider_metadata=metadata
        )
        fields, found = encode(
            adapter, [user("x"), AssistantMessage(content=(search, found_result, TextPart(text="Hi")))]
        )
        assert fields["messages"][1] == {"role": "assistant", "content": "Hi"}
        assert [(d.feature, d.tool_id) for d in found] == [("history.provider_tool", "web_search")]


def test_a_message_that_cannot_be_read_is_an_error_naming_it(adapter: Adapter) -> None:
    with pytest.raises(ConfigurationError, match=r"message 1 cannot be read: unknown message role 'robot'"):
        adapter.encode_messages([user("x"), {"role": "robot", "content": "beep"}])


def test_unknown_options_are_refused(adapter: Adapter) -> None:
    with pytest.raises(ConfigurationError, match=r"anthropic encode_messages takes no options, got \['cache'\]"):
        adapter.encode_messages([user("x")], cache=True)
