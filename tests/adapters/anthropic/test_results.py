"""Tool results as ONE user message of `tool_result` blocks, proven through the real SDK client."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import ConfigurationError, ToolResult
from toolwire import results as out
from toolwire.adapter import Adapter
from toolwire.compat import CompatibilityWarning

WireBody = Callable[..., dict[str, Any]]
PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQ="


def result(output: dict[str, Any], call_id: str = "toolu_1", name: str = "make_chart") -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name=name, output=output)


def sent(wire_body: WireBody, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The encoded messages as the SDK put them on the wire, after the turn that made the calls."""
    ids = [
        b["tool_use_id"]
        for m in messages
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    calls = [{"type": "tool_use", "id": i, "name": "make_chart", "input": {}} for i in ids]
    prefix = [{"role": "user", "content": "go"}, {"role": "assistant", "content": calls}]
    body = wire_body(messages=prefix + messages)
    sent_messages: list[dict[str, Any]] = body["messages"][2:]
    return sent_messages


def encode(adapter: Adapter, *results: ToolResult) -> tuple[list[dict[str, Any]], list[Any]]:
    """The messages, and the degradations reported through `warnings`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        messages = adapter.encode_tool_results(list(results))
    return messages, [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]


def blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert len(messages) == 1
    assert messages[0]["role"] == "user"
    content: list[dict[str, Any]] = messages[0]["content"]
    return content


class TestOutputForms:
    def test_text_is_sent_as_the_plain_string_content(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages, found = encode(adapter, result(out.text("chart ready")))
        assert messages == [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "chart ready"}]}
        ]
        assert sent(wire_body, messages) == messages
        assert found == []

    def test_json_is_sent_as_json_text(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages, _ = encode(adapter, result(out.json_output({"celsius": 21, "sky": "clear"})))
        assert blocks(messages) == [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"celsius": 21, "sky": "clear"}'}
        ]
        assert sent(wire_body, messages) == messages

    def test_error_text_sets_is_error(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages, _ = encode(adapter, result(out.error_text("unknown city 'Nowhere'")))
        assert blocks(messages) == [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "unknown city 'Nowhere'", "is_error": True}
        ]
        assert sent(wire_body, messages) == messages

    def test_error_json_sets_is_error(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages, _ = encode(adapter, result(out.error_json({"code": 404})))
        assert blocks(messages) == [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"code": 404}', "is_error": True}
        ]
        assert sent(wire_body, messages) == messages

    def test_a_denial_is_an_error_result_with_a_clear_sentence(self, adapter: Adapter, wire_body: WireBody) -> None:
        messages, _ = encode(
            adapter, result(out.execution_denied("the user is away")), result(out.execution_denied(), "toolu_2")
        )
        assert blocks(messages) == [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": "The user denied this tool call: the user is away",
                "is_error": True,
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "The user denied this tool call.",
                "is_error": True,
            },
        ]
        assert sent(wire_body, messages) == messages

    def test_an_empty_text_result_sends_no_content(self, adapter: Adapter) -> None:
        messages, _ = encode(adapter, result(out.text("")))
        assert blocks(messages) == [{"type": "tool_result", "tool_use_id": "toolu_1"}]

    def test_dict_forms_are_accepted(self, adapter: Adapter) -> None:
        value = {"toolCallId": "toolu_1", "toolName": "make_chart", "output": {"type": "text", "value": "ok"}}
        assert adapter.encode_tool_results([value]) == encode(adapter, result(out.text("ok")))[0]

    def test_no_results_give_no_message(self, adapter: Adapter) -> None:
        assert adapter.encode_tool_results([]) == []

    def test_an_output_that_is_not_a_model_output_form_is_an_error_naming_the_call(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match=r"the result of call 'toolu_1' \(make_chart\): a model output"):
            adapter.encode_tool_results([result({"type": "picture", "value": "x"})])


class TestContent:
    """`content` parts map to text, image and document blocks (`tool_result_block_param.py`)."""

    def test_every_part_anthropic_takes_natively(self, adapter: Adapter, wire_body: WireBody) -> None:
        output = out.content(
            "chart attached",
            out.image_data(PNG, "image/png"),
            out.image_url("https://example.com/c.png"),
            out.image_file_id("file_img"),
            out.file_data(PDF, "application/pdf", "report.pdf"),
            out.file_url("https://example.com/r.pdf", "application/pdf"),
            out.file_id("file_doc", "application/pdf", "spec.pdf"),
            out.file_data("cGxhaW4gdGV4dA==", "text/plain", "notes.txt"),
            out.file_id("file_png", "image/png"),
        )
        messages, found = encode(adapter, result(output))
        assert blocks(messages)[0]["content"] == [
            {"type": "text", "text": "chart attached"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/c.png"}},
            {"type": "image", "source": {"type": "file", "file_id": "file_img"}},
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                "title": "report.pdf",
            },
            {"type": "document", "source": {"type": "url", "url": "https://example.com/r.pdf"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_doc"}, "title": "spec.pdf"},
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "plain text"},
                "title": "notes.txt",
            },
            {"type": "image", "source": {"type": "file", "file_id": "file_png"}},
        ]
        assert sent(wire_body, messages) == messages
        assert found == []

    def test_an_image_given_as_a_file_is_sent_as_an_image(self, adapter: Adapter) -> None:
        messages, _ = encode(adapter, result(out.content(out.file_data(PNG, "image/png", "chart.png"))))
        assert blocks(messages)[0]["content"] == [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        ]

    def test_the_common_image_jpg_spelling_is_sent_as_image_jpeg(self, adapter: Adapter) -> None:
        messages, found = encode(adapter, result(out.content(out.image_data(PNG, "image/jpg"))))
        assert blocks(messages)[0]["content"] == [
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG}}
        ]
        assert found == []

    def test_a_pdf_url_without_a_media_type_is_recognized_by_its_name(self, adapter: Adapter) -> None:
        messages, _ = encode(adapter, result(out.content(out.file_url("https://example.com/r.pdf"))))
        assert blocks(messages)[0]["content"] == [
            {"type": "document", "source": {"type": "url", "url": "https://example.com/r.pdf"}}
        ]

    def test_an_image_media_type_anthropic_cannot_take_becomes_a_reported_note(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        messages, found = encode(adapter, result(out.content(out.image_data("Qk0=", "image/bmp", "chart.bmp"))))
        assert blocks(messages)[0]["content"] == [
            {
                "type": "text",
                "text": "[image omitted (image/bmp 'chart.bmp'): "
                "Anthropic takes images only as JPEG, PNG, GIF or WebP]",
            }
        ]
        assert [(d.feature, d.tool_id) for d in found] == [("tool_result.image", "make_chart")]
        assert sent(wire_body, messages) == messages

    def test_a_file_type_anthropic_cannot_take_becomes_a_reported_note(self, adapter: Adapter) -> None:
        part = out.file_data("UEsDBA==", "application/zip", "data.zip")
        messages, found = encode(adapter, result(out.content(part)))
        assert blocks(messages)[0]["content"] == [
            {
                "type": "text",
                "text": "[file omitted (application/zip 'data.zip'): "
                "Anthropic takes files only as PDF or plain-text documents]",
            }
        ]
        assert [(d.feature, d.action) for d in found] == [
            (
                "tool_result.file",
                "the file-data part (application/zip 'data.zip') was replaced by a text note: Anthropic takes files "
                "only as PDF or plain-text documents",
            )
        ]

    def test_a_url_to_a_file_that_is_neither_pdf_nor_image_becomes_a_note_with_the_url(self, adapter: Adapter) -> None:
        messages, found = encode(adapter, result(out.content(out.file_url("https://example.com/a.csv", "text/csv"))))
        assert blocks(messages)[0]["content"] == [
            {
                "type": "text",
                "text": "[file omitted (text/csv): Anthropic fetches only PDFs and images by URL; the file is at "
                "https://example.com/a.csv]",
            }
        ]
        assert [d.feature for d in found] == ["tool_result.file"]

    def test_a_custom_part_is_the_anthropic_block_it_carries(self, adapter: Adapter, wire_body: WireBody) -> None:
        search = {
            "type": "search_result",
            "source": "https://example.com/a",
            "title": "A",
            "content": [{"type": "text", "text": "snippet"}],
            "citations": {"enabled": True},
        }
        messages, found = encode(adapter, result(out.content(out.custom({"anthropic": search, "openai": {"x": 1}}))))
        assert blocks(messages)[0]["content"] == [search]
        assert sent(wire_body, messages) == messages
        assert found == []

    def test_a_custom_part_for_other_providers_only_is_left_out_and_reported(self, adapter: Adapter) -> None:
        messages, found = encode(adapter, result(out.content("kept", out.custom({"openai": {"type": "input_text"}}))))
        assert blocks(messages)[0]["content"] == [{"type": "text", "text": "kept"}]
        assert [(d.feature, d.action) for d in found] == [
            (
                "tool_result.custom",
                "a custom part without an `anthropic` block was left out (it has options for: openai)",
            )
        ]

    def test_part_provider_options_are_merged_into_the_block(self, adapter: Adapter, wire_body: WireBody) -> None:
        part = {**out.text_part("cache me"), "providerOptions": {"anthropic": {"cache_control": {"type": "ephemeral"}}}}
        messages, _ = encode(adapter, result(out.content(part)))
        assert blocks(messages)[0]["content"] == [
            {"type": "text", "text": "cache me", "cache_control": {"type": "ephemeral"}}
        ]
        assert sent(wire_body, messages) == messages

    def test_part_provider_options_may_not_replace_the_source(self, adapter: Adapter) -> None:
        part = {**out.image_url("https://example.com/c.png"), "providerOptions": {"anthropic": {"source": {}}}}
        with pytest.raises(ConfigurationError, match=r"providerOptions.anthropic sets \['source'\]"):
            adapter.encode_tool_results([result(out.content(part))])


class TestGrouping:
    def test_parallel_results_share_one_user_message_in_the_order_given(
        self, adapter: Adapter, wire_body: WireBody
    ) -> None:
        messages, _ = encode(
            adapter,
            result(out.text("Paris: 21C"), "toolu_a", "get_weather"),
            result(out.error_text("unknown city"), "toolu_b", "get_weather"),
            result(out.content(out.image_url("https://example.com/m.png")), "toolu_c", "map"),
        )
        assert messages == [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "Paris: 21C"},
                    {"type": "tool_result", "tool_use_id": "toolu_b", "content": "unknown city", "is_error": True},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_c",
                        "content": [{"type": "image", "source": {"type": "url", "url": "https://example.com/m.png"}}],
                    },
                ],
            }
        ]
        assert sent(wire_body, messages) == messages

    def test_call_ids_from_other_providers_are_mapped_into_anthropics_alphabet(self, adapter: Adapter) -> None:
        messages, _ = encode(adapter, result(out.text("ok"), "functions.get_weather:0"))
        assert blocks(messages)[0]["tool_use_id"] == "functions_get_weather_0"
