"""Specification of how MCP `CallToolResult` content becomes toolwire model-output parts."""

from __future__ import annotations

from typing import Any

from toolwire.compat import Degradation
from toolwire.mcp import McpCallOutput, call_output


def mapped(*blocks: dict[str, Any], **fields: Any) -> McpCallOutput:
    return call_output({"content": list(blocks), **fields}, "remote")


class TestBlocks:
    def test_text_block_is_a_text_part(self) -> None:
        """Text is text everywhere."""
        assert mapped({"type": "text", "text": "hi"}).content == ({"type": "text", "text": "hi"},)

    def test_image_block_is_image_data(self) -> None:
        """Base64 image content keeps its media type."""
        assert mapped({"type": "image", "data": "iVBO", "mimeType": "image/png"}).content == (
            {"type": "image-data", "data": "iVBO", "mediaType": "image/png"},
        )

    def test_audio_block_is_file_data_with_its_audio_type(self) -> None:
        """toolwire has no audio part; adapters decide per provider what to do with audio file data."""
        assert mapped({"type": "audio", "data": "UklG", "mimeType": "audio/wav"}).content == (
            {"type": "file-data", "data": "UklG", "mediaType": "audio/wav"},
        )

    def test_embedded_text_resource_is_its_text(self) -> None:
        """Every provider takes text; the URI and type are dropped."""
        block = {
            "type": "resource",
            "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# hi"},
        }
        assert mapped(block).content == ({"type": "text", "text": "# hi"},)

    def test_embedded_blob_resource_is_file_data_named_after_its_uri(self) -> None:
        """A PDF stays a file, with the file name from the URI."""
        block = {
            "type": "resource",
            "resource": {"uri": "file:///srv/report%202.pdf", "mimeType": "application/pdf", "blob": "JVBE"},
        }
        assert mapped(block).content == (
            {"type": "file-data", "data": "JVBE", "mediaType": "application/pdf", "filename": "report 2.pdf"},
        )

    def test_embedded_image_blob_is_image_data(self) -> None:
        """An image resource is an image."""
        block = {"type": "resource", "resource": {"uri": "mem://1", "mimeType": "image/jpeg", "blob": "/9j/"}}
        assert mapped(block).content == ({"type": "image-data", "data": "/9j/", "mediaType": "image/jpeg"},)

    def test_embedded_blob_without_a_type_is_an_octet_stream(self) -> None:
        """Unknown bytes are declared as such."""
        block = {"type": "resource", "resource": {"uri": "mem://store/blob", "blob": "AAEC"}}
        assert mapped(block).content == (
            {"type": "file-data", "data": "AAEC", "mediaType": "application/octet-stream", "filename": "blob"},
        )

    def test_toolwire_resource_uri_gives_back_the_original_filename(self) -> None:
        """`toolwire://result/N/name` round-trips the name; `toolwire://result/N` has none."""
        named = {"type": "resource", "resource": {"uri": "toolwire://result/1/a%20b.pdf", "blob": "AA=="}}
        unnamed = {"type": "resource", "resource": {"uri": "toolwire://result/1", "blob": "AA=="}}
        assert mapped(named, unnamed).content == (
            {"type": "file-data", "data": "AA==", "mediaType": "application/octet-stream", "filename": "a b.pdf"},
            {"type": "file-data", "data": "AA==", "mediaType": "application/octet-stream"},
        )

    def test_https_image_link_is_an_image_url(self) -> None:
        """Providers fetch http(s) URLs themselves."""
        block = {"type": "resource_link", "uri": "https://x.test/c.png", "name": "c.png", "mimeType": "image/png"}
        assert mapped(block).content == (
            {"type": "image-url", "url": "https://x.test/c.png", "mediaType": "image/png"},
        )

    def test_https_file_link_is_a_file_url_with_a_guessed_type(self) -> None:
        """The media type comes from the URL when the link has none; the name becomes the filename."""
        block = {"type": "resource_link", "uri": "https://x.test/r/report.pdf", "name": "Q3 report"}
        assert mapped(block).content == (
            {
                "type": "file-url",
                "url": "https://x.test/r/report.pdf",
                "mediaType": "application/pdf",
                "filename": "Q3 report",
            },
        )

    def test_data_link_is_inline_data(self) -> None:
        """A `data:` link carries its content."""
        block = {"type": "resource_link", "uri": "data:image/gif;base64,R0lG", "name": "g"}
        assert mapped(block).content == ({"type": "image-data", "data": "R0lG", "mediaType": "image/gif"},)

    def test_link_no_provider_can_fetch_is_described_in_text_and_reported(self) -> None:
        """`file:` and custom schemes reach the model as text naming the link."""
        block = {
            "type": "resource_link",
            "uri": "file:///var/log/app.log",
            "name": "app.log",
            "title": "Application log",
            "mimeType": "text/plain",
            "description": "last 100 lines",
        }
        output = mapped(block)
        assert output.content == (
            {"type": "text", "text": "Resource Application log <file:///var/log/app.log> (text/plain): last 100 lines"},
        )
        assert output.degradations == (
            Degradation(
                api="mcp",
                feature="tool_result.resource_link",
                action="sent the link 'file:///var/log/app.log' as text: no provider can fetch that URI",
                tool_id="remote",
            ),
        )

    def test_unknown_block_type_is_named_in_text_and_reported(self) -> None:
        """Content from a newer protocol is never silently lost."""
        output = mapped({"type": "hologram", "data": "?"})
        assert output.content == ({"type": "text", "text": "[unsupported MCP content of type 'hologram']"},)
        assert [d.feature for d in output.degradations] == ["tool_result.unknown"]

    def test_block_for_the_user_only_is_left_out_of_the_model_output(self) -> None:
        """`annotations.audience` without "assistant" means the model must not see it."""
        output = mapped(
            {"type": "text", "text": "for you", "annotations": {"audience": ["user"]}},
            {"type": "text", "text": "for the model", "annotations": {"audience": ["assistant", "user"]}},
        )
        assert output.content == ({"type": "text", "text": "for the model"},)
        assert output.wire["content"][0]["text"] == "for you"


class TestModelOutput:
    def test_single_text_block_is_a_text_output(self) -> None:
        """The common case reads as plain text."""
        assert mapped({"type": "text", "text": "21"}).model_output() == {"type": "text", "value": "21"}

    def test_several_blocks_are_a_content_output(self) -> None:
        """Mixed content keeps its order."""
        output = mapped({"type": "text", "text": "a"}, {"type": "image", "data": "iVBO", "mimeType": "image/png"})
        assert output.model_output() == {
            "type": "content",
            "value": [{"type": "text", "text": "a"}, {"type": "image-data", "data": "iVBO", "mediaType": "image/png"}],
        }

    def test_structured_content_without_blocks_is_a_json_output(self) -> None:
        """Servers that send only `structuredContent` still reach the model."""
        assert mapped(structuredContent={"t": 21}).model_output() == {"type": "json", "value": {"t": 21}}

    def test_empty_result_is_empty_text(self) -> None:
        """Nothing to show is shown as nothing."""
        assert mapped().model_output() == {"type": "text", "value": ""}

    def test_error_text_joins_the_text_blocks(self) -> None:
        """What the server said, verbatim."""
        output = mapped({"type": "text", "text": "bad city"}, {"type": "text", "text": "try again"}, isError=True)
        assert (output.is_error, output.error_text()) == (True, "bad city\ntry again")

    def test_error_without_text_falls_back_to_structured_content_then_a_generic_message(self) -> None:
        """An error always has words."""
        assert mapped(structuredContent={"code": 7}, isError=True).error_text() == '{"code": 7}'
        assert mapped(isError=True).error_text() == "the MCP server reported an error without details"
