"""Tool results for Responses: `function_call_output` items with text or input parts."""

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
)

Wire = Callable[..., dict[str, Any]]
PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQ="


def result(output: dict[str, Any], call_id: str = "call_1", **extra: Any) -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name="get_weather", output=output, **extra)


def on_the_wire(wire: Wire, items: list[dict[str, Any]], *call_ids: str) -> list[dict[str, Any]]:
    """The items after the calls, as the SDK sent them."""
    made = [
        {"type": "function_call", "call_id": c, "name": "get_weather", "arguments": "{}"}
        for c in call_ids or ("call_1",)
    ]
    return wire(input=[*made, *items])["input"][len(made) :]


class TestTextOutputs:
    @pytest.mark.parametrize(
        ("output", "sent"),
        [
            (text("21°C"), "21°C"),
            (json_output({"temp_c": 21, "sky": ["clear"]}), '{"temp_c":21,"sky":["clear"]}'),
            (error_text("unknown city"), "Error: unknown city"),
            (error_json({"code": 404}), 'Error: {"code":404}'),
            (execution_denied("not now"), "The user denied this tool call: not now"),
        ],
    )
    def test_each_output_form_is_a_string_output(
        self, adapter: Adapter, wire: Wire, output: dict[str, Any], sent: str
    ) -> None:
        items = adapter.encode_tool_results([result(output)])
        assert items == [{"type": "function_call_output", "call_id": "call_1", "output": sent}]
        assert on_the_wire(wire, items) == items

    def test_parallel_results_are_one_item_each_in_order(self, adapter: Adapter, wire: Wire) -> None:
        items = adapter.encode_tool_results([result(text("a"), "call_1"), result(text("b"), "call_2")])
        assert items == [
            {"type": "function_call_output", "call_id": "call_1", "output": "a"},
            {"type": "function_call_output", "call_id": "call_2", "output": "b"},
        ]
        assert on_the_wire(wire, items, "call_1", "call_2") == items


class TestContent:
    def test_every_part_kind_as_an_input_part(self, adapter: Adapter, wire: Wire) -> None:
        output = content(
            "Chart attached.",
            image_data(PNG, "image/png"),
            image_url("https://example.com/a.png"),
            image_file_id("file-img"),
            file_data(PDF, "application/pdf", filename="report.pdf"),
            file_data(PDF, "application/pdf"),
            file_url("https://example.com/r.pdf"),
            file_id("file-doc"),
            file_data(PNG, "image/png"),
            {
                "type": "image-url",
                "url": "https://example.com/b.png",
                "providerOptions": {"openai": {"detail": "high"}},
            },
            custom({"openai": {"type": "input_text", "text": "custom"}}),
        )
        items = adapter.encode_tool_results([result(output)])
        assert items == [
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [
                    {"type": "input_text", "text": "Chart attached."},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
                    {"type": "input_image", "image_url": "https://example.com/a.png"},
                    {"type": "input_image", "file_id": "file-img"},
                    {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF}", "filename": "report.pdf"},
                    {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF}", "filename": "file-6.pdf"},
                    {"type": "input_file", "file_url": "https://example.com/r.pdf"},
                    {"type": "input_file", "file_id": "file-doc"},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
                    {"type": "input_image", "image_url": "https://example.com/b.png", "detail": "high"},
                    {"type": "input_text", "text": "custom"},
                ],
            }
        ]
        assert on_the_wire(wire, items) == items

    def test_a_custom_part_without_openai_options_is_dropped_and_reported(self, adapter: Adapter) -> None:
        with pytest.warns(CompatibilityWarning) as caught:
            items = adapter.encode_tool_results([result(content("x", custom({"google": {"inline_data": {}}})))])
        assert items[0]["output"] == [{"type": "input_text", "text": "x"}]
        [warning] = caught
        assert isinstance(warning.message, CompatibilityWarning)
        assert (warning.message.degradation.feature, warning.message.degradation.tool_id) == (
            "tool_result.custom",
            "get_weather",
        )


class TestCallKinds:
    def test_a_custom_tool_result_is_a_custom_tool_call_output(self, adapter: Adapter, wire: Wire) -> None:
        items = adapter.encode_tool_results(
            [result(text("3 rows"), "call_c", provider_metadata={"openai": {"custom": True, "itemId": "ctc_1"}})]
        )
        assert items == [{"type": "custom_tool_call_output", "call_id": "call_c", "output": "3 rows"}]
        made = {"type": "custom_tool_call", "call_id": "call_c", "name": "run_sql", "input": "SELECT 1"}
        assert wire(input=[made, *items])["input"][1:] == items

    def test_a_result_for_a_program_s_call_names_its_caller(self, adapter: Adapter) -> None:
        caller = {"type": "program", "caller_id": "call_p"}
        items = adapter.encode_tool_results(
            [result(json_output({"units": 3}), provider_metadata={"openai": {"caller": caller}})]
        )
        assert items == [
            {"type": "function_call_output", "call_id": "call_1", "output": '{"units":3}', "caller": caller}
        ]
