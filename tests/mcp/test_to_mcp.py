"""Specification of how toolwire model outputs become MCP `CallToolResult` content."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types
import pytest
from pydantic import BaseModel

from toolwire import create_tool, results
from toolwire.compat import Degradation
from toolwire.mcp import call_tool_result
from toolwire.results import ToolResult

PNG = base64.b64encode(b"\x89PNG fake").decode()


class Point(BaseModel):
    x: int
    y: int


PLAIN = create_tool(id="plain", description="d", execute=lambda value: value)
POINTS = create_tool(id="points", description="d", output_schema=Point, execute=lambda value: value)
NUMBERS = create_tool(id="numbers", description="d", output_schema=list[int], execute=lambda value: value)


def wire(output: dict[str, Any], *, tool: Any = PLAIN, raw: Any = None, version: str | None = None) -> dict[str, Any]:
    result = ToolResult(tool_call_id="c1", tool_name=tool.id, output=output, raw=raw)
    converted, degradations = call_tool_result(tool, result, version)
    assert degradations == []
    mcp_types.CallToolResult.model_validate(converted)
    return converted


def content(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content", "value": list(parts)}


class TestOutputForms:
    def test_text_output_is_one_text_block(self) -> None:
        """The simplest form."""
        assert wire(results.text("21 degrees")) == {
            "content": [{"type": "text", "text": "21 degrees"}],
            "isError": False,
        }

    def test_json_output_is_serialized_into_one_text_block(self) -> None:
        """Non-ASCII stays readable."""
        assert wire(results.json_output({"city": "Zürich", "t": 21})) == {
            "content": [{"type": "text", "text": '{"city": "Zürich", "t": 21}'}],
            "isError": False,
        }

    def test_error_text_sets_is_error(self) -> None:
        """Tool failures are results the model can read, not protocol errors."""
        assert wire(results.error_text("unknown city")) == {
            "content": [{"type": "text", "text": "unknown city"}],
            "isError": True,
        }

    def test_error_json_is_serialized_and_sets_is_error(self) -> None:
        """Structured errors become text too."""
        assert wire(results.error_json({"code": 404})) == {
            "content": [{"type": "text", "text": '{"code": 404}'}],
            "isError": True,
        }

    def test_execution_denied_is_an_error_naming_the_reason(self) -> None:
        """A denied approval reads as a failure with the reason."""
        assert wire(results.execution_denied("not now")) == {
            "content": [{"type": "text", "text": "The user denied this tool call: not now"}],
            "isError": True,
        }


class TestParts:
    def test_image_data_is_an_image_block(self) -> None:
        """Base64 data and media type carry over."""
        output = content(results.text_part("chart:"), results.image_data(PNG, "image/png"))
        assert wire(output)["content"] == [
            {"type": "text", "text": "chart:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
        ]

    def test_file_data_with_an_image_type_is_an_image_block(self) -> None:
        """MCP shows images as images whatever toolwire part carried them."""
        assert wire(content(results.file_data(PNG, "image/png")))["content"] == [
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ]

    def test_audio_file_data_is_an_audio_block(self) -> None:
        """MCP has audio content; toolwire carries audio as file data."""
        assert wire(content(results.file_data(b"RIFF", "audio/wav")))["content"] == [
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
        ]

    def test_text_file_data_is_an_embedded_text_resource(self) -> None:
        """A text file arrives as text, with its name in the resource URI."""
        part = results.file_data(b"a,b\n1,2\n", "text/csv", filename="table.csv")
        assert wire(content(part))["content"] == [
            {
                "type": "resource",
                "resource": {"uri": "toolwire://result/0/table.csv", "mimeType": "text/csv", "text": "a,b\n1,2\n"},
            }
        ]

    def test_json_file_data_counts_as_text(self) -> None:
        """`application/json` (and `+json` types) are text."""
        part = results.file_data(b'{"a": 1}', "application/ld+json")
        assert wire(content(part))["content"][0]["resource"] == {
            "uri": "toolwire://result/0",
            "mimeType": "application/ld+json",
            "text": '{"a": 1}',
        }

    def test_binary_file_data_is_an_embedded_blob_resource(self) -> None:
        """PDFs and other binaries stay base64."""
        part = results.file_data(b"%PDF-1.4", "application/pdf", filename="report 1.pdf")
        assert wire(content(results.text_part("see"), part))["content"][1] == {
            "type": "resource",
            "resource": {
                "uri": "toolwire://result/1/report%201.pdf",
                "mimeType": "application/pdf",
                "blob": "JVBERi0xLjQ=",
            },
        }

    def test_text_typed_file_data_that_is_not_utf8_stays_a_blob(self) -> None:
        """Undecodable bytes are never mangled into text."""
        part = results.file_data(b"\xff\xfe", "text/plain")
        assert wire(content(part))["content"][0]["resource"] == {
            "uri": "toolwire://result/0",
            "mimeType": "text/plain",
            "blob": "//4=",
        }

    def test_image_url_is_a_resource_link_with_a_guessed_type(self) -> None:
        """The client can fetch or show the link; the name is the file name in the URL."""
        assert wire(content(results.image_url("https://example.com/charts/q3.png")))["content"] == [
            {
                "type": "resource_link",
                "uri": "https://example.com/charts/q3.png",
                "name": "q3.png",
                "mimeType": "image/png",
            }
        ]

    def test_file_url_is_a_resource_link_named_by_its_filename(self) -> None:
        """A given filename and media type win over guesses."""
        part = results.file_url("https://example.com/r?id=1", media_type="application/pdf", filename="report.pdf")
        assert wire(content(part))["content"] == [
            {
                "type": "resource_link",
                "uri": "https://example.com/r?id=1",
                "name": "report.pdf",
                "mimeType": "application/pdf",
            }
        ]

    def test_data_url_image_is_decoded_into_an_image_block(self) -> None:
        """A `data:` URL is content, not a link."""
        assert wire(content(results.image_url(f"data:image/png;base64,{PNG}")))["content"] == [
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ]

    def test_percent_encoded_data_url_becomes_a_text_resource(self) -> None:
        """Non-base64 `data:` URLs are decoded too."""
        part = results.file_url("data:text/plain,hello%20world")
        assert wire(content(part))["content"][0]["resource"] == {
            "uri": "toolwire://result/0",
            "mimeType": "text/plain",
            "text": "hello world",
        }

    def test_custom_part_with_an_mcp_block_is_sent_as_given(self) -> None:
        """The escape hatch for MCP-only content (annotations, `_meta`, ...)."""
        block = {"type": "text", "text": "for the user", "annotations": {"audience": ["user"]}}
        assert wire(content(results.custom({"mcp": block})))["content"] == [block]


class TestDegradations:
    def test_file_id_becomes_a_text_mention_and_is_reported(self) -> None:
        """MCP has no provider file references."""
        result = ToolResult(tool_call_id="c1", tool_name="plain", output=content(results.file_id("file-abc")))
        converted, degradations = call_tool_result(PLAIN, result, None)
        assert converted["content"] == [{"type": "text", "text": "[file file-abc]"}]
        assert degradations == [
            Degradation(
                api="mcp",
                feature="tool_result.file-id",
                action="sent the text `[file file-abc]`: MCP has no provider file references",
                tool_id="plain",
            )
        ]

    def test_custom_part_for_other_providers_is_dropped_and_reported(self) -> None:
        """Provider-specific blocks mean nothing to an MCP client."""
        output = content(results.text_part("x"), results.custom({"anthropic": {"type": "search_result"}}))
        result = ToolResult(tool_call_id="c1", tool_name="plain", output=output)
        converted, degradations = call_tool_result(PLAIN, result, None)
        assert converted["content"] == [{"type": "text", "text": "x"}]
        assert [d.feature for d in degradations] == ["tool_result.custom"]


class TestStructuredContent:
    def test_tool_with_an_output_schema_sends_its_raw_output_as_structured_content(self) -> None:
        """The content shows the model output; `structuredContent` the validated raw value in JSON form."""
        converted = wire(results.json_output({"x": 1, "y": 2}), tool=POINTS, raw=Point(x=1, y=2))
        assert converted == {
            "content": [{"type": "text", "text": '{"x": 1, "y": 2}'}],
            "structuredContent": {"x": 1, "y": 2},
            "isError": False,
        }

    def test_tool_without_an_output_schema_sends_no_structured_content(self) -> None:
        """Structured content is a promise the output schema makes."""
        assert "structuredContent" not in wire(results.json_output({"x": 1}), raw={"x": 1})

    def test_error_results_carry_no_structured_content(self) -> None:
        """The schema describes successes only."""
        assert "structuredContent" not in wire(results.error_text("no"), tool=POINTS, raw=None)

    def test_array_output_is_structured_from_2026_07_28(self) -> None:
        """Any JSON value may be structured content on the newest revision."""
        converted = wire(results.json_output([1, 2]), tool=NUMBERS, raw=[1, 2], version="2026-07-28")
        assert converted["structuredContent"] == [1, 2]

    @pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
    def test_array_output_is_not_structured_before_2026_07_28(self, version: str) -> None:
        """Older revisions take objects only (and the listing left the schema out)."""
        converted = wire(results.json_output([1, 2]), tool=NUMBERS, raw=[1, 2], version=version)
        assert "structuredContent" not in converted
