"""Tool results for Chat Completions: `tool` messages, and one follow-up `user` message for their media."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolwire import CompatibilityWarning
from toolwire.adapter import Adapter
from toolwire.results import (
    ToolResult,
    content,
    custom,
    error_json,
    error_text,
    execution_denied,
    file_data,
    file_id,
    file_url,
    image_data,
    image_file_id,
    image_url,
    json_output,
    text,
    text_part,
)

Wire = Callable[..., dict[str, Any]]

PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQ="
INTRO = {"type": "text", "text": "Attachments returned by the tool calls above:"}


def result(output: dict[str, Any], call_id: str = "call_a", tool: str = "get_weather") -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name=tool, output=output)


def assistant(*call_ids: str) -> dict[str, Any]:
    """The assistant message that made the calls (Chat requires it before the tool messages)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
            for call_id in call_ids
        ],
    }


def on_the_wire(wire: Wire, messages: list[dict[str, Any]], *call_ids: str) -> list[dict[str, Any]]:
    """The messages after the assistant turn, as the SDK sent them."""
    sent = wire(messages=[{"role": "user", "content": "go"}, assistant(*(call_ids or ("call_a",))), *messages])[
        "messages"
    ]
    return sent[2:]


class TestTextOutputs:
    @pytest.mark.parametrize(
        ("output", "sent"),
        [
            (text("21°C and sunny"), "21°C and sunny"),
            (
                json_output({"temp_c": 21, "sky": "clear", "note": "ünïcode"}),
                '{"temp_c":21,"sky":"clear","note":"ünïcode"}',
            ),
            (error_text("unknown city 'Nowhere'"), "Error: unknown city 'Nowhere'"),
            (error_text("Error: rate limited"), "Error: rate limited"),
            (error_json({"code": 404}), 'Error: {"code":404}'),
            (execution_denied(), "The user denied this tool call."),
            (execution_denied("not today"), "The user denied this tool call: not today"),
        ],
    )
    def test_each_output_form_is_one_tool_message(
        self, adapter: Adapter, wire: Wire, output: dict[str, Any], sent: str
    ) -> None:
        messages = adapter.encode_tool_results([result(output)])
        assert messages == [{"role": "tool", "tool_call_id": "call_a", "content": sent}]
        assert on_the_wire(wire, messages) == messages

    def test_text_parts_are_joined_by_lines(self, adapter: Adapter) -> None:
        messages = adapter.encode_tool_results([result(content("line one", "line two"))])
        assert messages == [{"role": "tool", "tool_call_id": "call_a", "content": "line one\nline two"}]

    def test_parallel_results_are_one_message_each_in_order(self, adapter: Adapter, wire: Wire) -> None:
        messages = adapter.encode_tool_results([result(text("a"), "call_a"), result(text("b"), "call_b")])
        assert messages == [
            {"role": "tool", "tool_call_id": "call_a", "content": "a"},
            {"role": "tool", "tool_call_id": "call_b", "content": "b"},
        ]
        assert on_the_wire(wire, messages, "call_a", "call_b") == messages


class TestMedia:
    def test_an_image_gets_a_placeholder_and_travels_in_a_follow_up_user_message(
        self, adapter: Adapter, wire: Wire
    ) -> None:
        messages = adapter.encode_tool_results(
            [result(content(text_part("Chart attached."), image_data(PNG, "image/png")))]
        )
        assert messages == [
            {
                "role": "tool",
                "tool_call_id": "call_a",
                "content": "Chart attached.\n[image 1 is attached in the next message]",
            },
            {
                "role": "user",
                "content": [
                    INTRO,
                    {"type": "text", "text": "image 1 (from tool call call_a):"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
        ]
        assert on_the_wire(wire, messages) == messages

    def test_media_of_parallel_results_share_one_follow_up_message_after_all_tool_messages(
        self, adapter: Adapter, wire: Wire
    ) -> None:
        results = [
            result(content(image_url("https://example.com/a.png")), "call_a"),
            result(content(file_data(PDF, "application/pdf", filename="report.pdf")), "call_b"),
            result(content(image_data(PNG, "image/png")), "call_c"),
        ]
        messages = adapter.encode_tool_results(results)
        assert messages == [
            {"role": "tool", "tool_call_id": "call_a", "content": "[image 1 is attached in the next message]"},
            {"role": "tool", "tool_call_id": "call_b", "content": "[file 1 is attached in the next message]"},
            {"role": "tool", "tool_call_id": "call_c", "content": "[image 2 is attached in the next message]"},
            {
                "role": "user",
                "content": [
                    INTRO,
                    {"type": "text", "text": "image 1 (from tool call call_a):"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                    {"type": "text", "text": "file 1 (from tool call call_b):"},
                    {
                        "type": "file",
                        "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "report.pdf"},
                    },
                    {"type": "text", "text": "image 2 (from tool call call_c):"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
        ]
        assert on_the_wire(wire, messages, "call_a", "call_b", "call_c") == messages

    @pytest.mark.parametrize(
        ("part", "attached"),
        [
            (
                file_data(PDF, "application/pdf"),
                {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "file-1.pdf"}},
            ),
            (file_id("file-abc"), {"type": "file", "file": {"file_id": "file-abc"}}),
            (file_data(PNG, "image/png"), {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}),
            (
                file_url("https://example.com/c.png", "image/png"),
                {"type": "image_url", "image_url": {"url": "https://example.com/c.png"}},
            ),
            (
                {
                    "type": "image-url",
                    "url": "https://example.com/a.png",
                    "providerOptions": {"openai": {"detail": "low"}},
                },
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
            ),
            (
                custom({"openai": {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}}}),
                {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}},
            ),
        ],
    )
    def test_each_attachable_part(
        self, adapter: Adapter, wire: Wire, part: dict[str, Any], attached: dict[str, Any]
    ) -> None:
        messages = adapter.encode_tool_results([result(content(part))])
        assert messages[1]["content"][2] == attached
        assert on_the_wire(wire, messages) == messages

    @pytest.mark.parametrize(
        ("part", "placeholder", "feature"),
        [
            (
                file_url("https://example.com/r.pdf", "application/pdf"),
                "[file at https://example.com/r.pdf]",
                "tool_result.file_url",
            ),
            (image_file_id("file-img"), "[image file file-img (not viewable here)]", "tool_result.image_file_id"),
        ],
    )
    def test_parts_chat_cannot_attach_are_named_in_text_and_reported(
        self, adapter: Adapter, part: dict[str, Any], placeholder: str, feature: str
    ) -> None:
        with pytest.warns(CompatibilityWarning) as caught:
            messages = adapter.encode_tool_results([result(content(part))])
        assert messages == [{"role": "tool", "tool_call_id": "call_a", "content": placeholder}]
        [warning] = caught
        assert isinstance(warning.message, CompatibilityWarning)
        degradation = warning.message.degradation
        assert (degradation.api, degradation.tool_id, degradation.feature) == ("openai-chat", "get_weather", feature)

    def test_a_custom_part_without_openai_options_is_dropped_and_reported(self, adapter: Adapter) -> None:
        with pytest.warns(CompatibilityWarning) as caught:
            messages = adapter.encode_tool_results([result(content("x", custom({"anthropic": {"type": "text"}})))])
        assert messages == [{"role": "tool", "tool_call_id": "call_a", "content": "x"}]
        assert [w.message.degradation.feature for w in caught if isinstance(w.message, CompatibilityWarning)] == [
            "tool_result.custom"
        ]

    def test_the_compatible_profile_names_files_in_text_instead_of_file_parts(self, compatible: Adapter) -> None:
        with pytest.warns(CompatibilityWarning):
            messages = compatible.encode_tool_results(
                [result(content(file_data(PDF, "application/pdf", filename="r.pdf")))]
            )
        assert messages == [{"role": "tool", "tool_call_id": "call_a", "content": "[file r.pdf (not readable here)]"}]
