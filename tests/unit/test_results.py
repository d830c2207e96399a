"""Specification of tool calls, tool results and the model-output forms of the seed's `toModelOutput`."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolwire import (
    ToolCall,
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
from toolwire.events import ToolInputAvailable
from toolwire.results import default_output, normalize_output, normalize_part, output_text, part_kind


class TestOutputHelpers:
    @pytest.mark.parametrize(
        ("built", "expected"),
        [
            (text("21°C"), {"type": "text", "value": "21°C"}),
            (json_output({"c": 21}), {"type": "json", "value": {"c": 21}}),
            (error_text("down"), {"type": "error-text", "value": "down"}),
            (error_json({"code": 503}), {"type": "error-json", "value": {"code": 503}}),
            (execution_denied(), {"type": "execution-denied"}),
            (execution_denied("not today"), {"type": "execution-denied", "reason": "not today"}),
            (
                content("Oslo: 21°C", image_url("https://x/radar.png")),
                {
                    "type": "content",
                    "value": [
                        {"type": "text", "text": "Oslo: 21°C"},
                        {"type": "image-url", "url": "https://x/radar.png"},
                    ],
                },
            ),
        ],
    )
    def test_each_helper_builds_its_dict_form(self, built: dict[str, Any], expected: dict[str, Any]) -> None:
        """The helpers only build the documented dict forms."""
        assert built == expected

    @pytest.mark.parametrize(
        ("built", "expected"),
        [
            (text_part("hi"), {"type": "text", "text": "hi"}),
            (
                image_url("https://x/a.png", "image/png"),
                {"type": "image-url", "url": "https://x/a.png", "mediaType": "image/png"},
            ),
            (image_data(b"\x89PNG", "image/png"), {"type": "image-data", "data": "iVBORw==", "mediaType": "image/png"}),
            (
                image_data("aGk=", "image/gif", "a.gif"),
                {"type": "image-data", "data": "aGk=", "mediaType": "image/gif", "filename": "a.gif"},
            ),
            (file_url("https://x/a.pdf"), {"type": "file-url", "url": "https://x/a.pdf"}),
            (
                file_url("https://x/a.pdf", "application/pdf", "a.pdf"),
                {"type": "file-url", "url": "https://x/a.pdf", "mediaType": "application/pdf", "filename": "a.pdf"},
            ),
            (
                file_data(b"%PDF", "application/pdf", "r.pdf"),
                {"type": "file-data", "data": "JVBERg==", "mediaType": "application/pdf", "filename": "r.pdf"},
            ),
            (file_id("file-1"), {"type": "file-id", "fileId": "file-1"}),
            (
                image_file_id("file-2", "image/jpeg"),
                {"type": "image-file-id", "fileId": "file-2", "mediaType": "image/jpeg"},
            ),
            (
                custom({"anthropic": {"type": "document"}}),
                {"type": "custom", "providerOptions": {"anthropic": {"type": "document"}}},
            ),
        ],
    )
    def test_each_part_helper_builds_its_dict_form_with_bytes_in_base64(
        self, built: dict[str, Any], expected: dict[str, Any]
    ) -> None:
        """Unset optional fields are left out; bytes become base64 text."""
        assert built == expected


class TestNormalize:
    def test_the_seed_to_model_output_example_is_accepted(self) -> None:
        """A content output with a text part and an image-url part passes unchanged."""
        output = {
            "type": "content",
            "value": [
                {"type": "text", "text": "Seattle: 21°C and sunny"},
                {"type": "image-url", "url": "https://e/r.png"},
            ],
        }
        assert normalize_output(output) == output

    def test_memoryview_data_in_a_content_part_is_base64_encoded(self) -> None:
        """Any bytes-like data is accepted."""
        output = normalize_output(
            {"type": "content", "value": [{"type": "image-data", "data": memoryview(b"ab"), "mediaType": "image/png"}]}
        )
        assert output["value"][0]["data"] == "YWI="

    def test_extra_keys_are_dropped(self) -> None:
        """Only documented fields survive normalization."""
        assert normalize_output({"type": "text", "value": "x", "debug": True}) == {"type": "text", "value": "x"}
        assert normalize_part({"type": "file-id", "fileId": "f", "size": 3}) == {"type": "file-id", "fileId": "f"}

    @pytest.mark.parametrize(
        ("value", "message"),
        [
            (
                "hello",
                "a model output must be a dict with type in ['text', 'json', 'content', 'error-text', 'error-json', "
                "'execution-denied'], got 'hello'",
            ),
            ({"type": "image"}, "a model output must be a dict with type in"),
            ({"type": "text", "value": 3}, "a 'text' output needs a string `value`"),
            ({"type": "error-text"}, "a 'error-text' output needs a string `value`"),
            ({"type": "json"}, "a 'json' output needs a `value`"),
            ({"type": "json", "value": {1, 2}}, "a 'json' output value must be JSON-serializable: Object of type set"),
            ({"type": "execution-denied", "reason": 1}, "an 'execution-denied' reason must be a string"),
            ({"type": "content", "value": "text"}, "a 'content' output needs a list of parts as `value`"),
            ({"type": "content", "value": [{"type": "video", "url": "u"}]}, "content part 0 must have type in"),
            (
                {"type": "content", "value": [{"type": "text", "text": "a"}, {"type": "image-data", "data": "x"}]},
                "content part 1 (image-data) needs 'mediaType'",
            ),
            (
                {"type": "content", "value": [{"type": "image-data", "data": 5, "mediaType": "image/png"}]},
                "content part 0 (image-data) `data` must be base64 text or bytes",
            ),
            (
                {"type": "content", "value": [{"type": "image-url", "url": 5}]},
                "content part 0 (image-url) `url` must be a string",
            ),
            (
                {"type": "content", "value": [{"type": "custom", "providerOptions": []}]},
                "content part 0 (custom) `providerOptions` must be a dict",
            ),
        ],
    )
    def test_a_malformed_output_says_what_is_wrong_and_where(self, value: Any, message: str) -> None:
        """Errors name the output type or the part position and field."""
        with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
            normalize_output(value)

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("ok", {"type": "text", "value": "ok"}),
            ({"a": 1}, {"type": "json", "value": {"a": 1}}),
            (None, {"type": "json", "value": None}),
        ],
    )
    def test_default_output_is_text_for_strings_and_json_otherwise(self, raw: Any, expected: dict[str, Any]) -> None:
        """Without `to_model_output`, the model sees a string as text and anything else as JSON."""
        assert default_output(raw) == expected


class TestOutputText:
    @pytest.mark.parametrize(
        ("output", "rendered"),
        [
            (text("plain"), "plain"),
            (error_text("bad"), "bad"),
            (json_output({"city": "Zürich"}), '{"city": "Zürich"}'),
            (error_json([1]), "[1]"),
            (execution_denied(), "The user denied this tool call."),
            (execution_denied("too costly"), "The user denied this tool call: too costly"),
            (content("a", image_url("u"), "b"), "a\nb"),
        ],
    )
    def test_output_text_renders_every_form_as_plain_text(self, output: dict[str, Any], rendered: str) -> None:
        """Text-only consumers get a faithful rendering; media parts are left out."""
        assert output_text(output) == rendered


class TestPartKind:
    @pytest.mark.parametrize(
        ("part", "kind"),
        [
            (text_part("x"), "text"),
            (image_url("u"), "image"),
            (image_file_id("f"), "image"),
            (file_data(b"x", "image/png"), "image"),
            (file_url("u"), "file"),
            (file_id("f", "application/pdf"), "file"),
        ],
    )
    def test_images_given_as_files_count_as_images(self, part: dict[str, Any], kind: str) -> None:
        """Adapters route images by media type, whatever part type carried them."""
        assert part_kind(part) == kind


class TestCallsAndResults:
    def test_a_call_from_an_event_records_that_its_input_hook_fired(self) -> None:
        """The stream already fired `on_input_available`, so the runtime must not fire it again."""
        event = ToolInputAvailable(
            tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}, provider_metadata={"openai": {"i": 1}}
        )
        assert ToolCall.from_event(event) == ToolCall(
            tool_call_id="c1",
            tool_name="weather",
            input={"city": "Oslo"},
            provider_metadata={"openai": {"i": 1}},
            input_hook_fired=True,
        )

    def test_a_call_serializes_as_a_tool_call_part(self) -> None:
        """AI SDK `tool-call` part, with provider fields only when set."""
        assert ToolCall(tool_call_id="c1", tool_name="w", input={}).to_dict() == {
            "type": "tool-call",
            "toolCallId": "c1",
            "toolName": "w",
            "input": {},
        }
        assert ToolCall(
            tool_call_id="s", tool_name="web_search", input={}, provider_executed=True, provider_metadata={"x": {}}
        ).to_dict() == {
            "type": "tool-call",
            "toolCallId": "s",
            "toolName": "web_search",
            "input": {},
            "providerMetadata": {"x": {}},
            "providerExecuted": True,
        }

    def test_a_result_round_trips_without_raw_or_error(self) -> None:
        """`raw` and `error` stay in process; the JSON form rebuilds an equal result."""
        result = ToolResult(
            tool_call_id="c1",
            tool_name="w",
            output=error_text("boom"),
            raw={"secret": 1},
            provider_metadata={"google": {"id": "x"}},
            error=RuntimeError("boom"),
        )
        data = result.to_dict()
        assert data == {
            "type": "tool-result",
            "toolCallId": "c1",
            "toolName": "w",
            "output": {"type": "error-text", "value": "boom"},
            "providerMetadata": {"google": {"id": "x"}},
        }
        assert ToolResult.from_dict(data) == ToolResult(
            tool_call_id="c1", tool_name="w", output=error_text("boom"), provider_metadata={"google": {"id": "x"}}
        )

    @pytest.mark.parametrize(
        ("output", "is_error"),
        [
            (text("x"), False),
            (json_output(1), False),
            (error_text("x"), True),
            (error_json(1), True),
            (execution_denied(), True),
        ],
    )
    def test_is_error_covers_every_error_form(self, output: dict[str, Any], is_error: bool) -> None:
        """Denials count as errors for the model."""
        assert ToolResult(tool_call_id="c", tool_name="t", output=output).is_error is is_error

    def test_reading_a_result_without_an_output_names_the_missing_field(self) -> None:
        """A stored transcript with a broken part is refused clearly."""
        with pytest.raises(ValueError, match=r"^tool-result is missing 'output'$"):
            ToolResult.from_dict({"toolCallId": "c", "toolName": "t"})

    def test_reading_a_result_with_a_bad_output_is_refused(self) -> None:
        """Outputs are normalized when read."""
        with pytest.raises(ValueError, match=r"^a 'text' output needs a string `value`$"):
            ToolResult.from_dict({"toolCallId": "c", "toolName": "t", "output": {"type": "text"}})
