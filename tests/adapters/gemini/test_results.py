"""Tool results as one Gemini `user` content of `functionResponse` parts, proven through google-genai."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from toolwire import ConfigurationError, ToolResult, get_adapter
from toolwire import results as out
from toolwire.adapter import Adapter
from toolwire.compat import CompatibilityWarning

from .sdk_bodies import SdkBodies

PNG = b"\x89PNG\r\n\x1a\n\xfb\xff"
PNG_WIRE = "iVBORw0KGgr7_w=="
"""`PNG` as google-genai puts bytes on the body: URL-safe base64 (standard would be `iVBORw0KGgr7/w==`)."""


def result(output: dict[str, Any], call_id: str = "fc_1", tool: str = "get_weather") -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name=tool, output=output)


def encoded(adapter: Adapter, *results: ToolResult) -> tuple[list[dict[str, Any]], list[tuple[str | None, str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        contents = adapter.encode_tool_results(list(results))
    found = [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]
    return contents, [(d.tool_id, d.feature) for d in found]


def response(adapter: Adapter, output: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    contents, _ = encoded(adapter, result(output, **kwargs))
    body: dict[str, Any] = contents[0]["parts"][0]["functionResponse"]
    return body


class TestOutputForms:
    def test_text_is_the_output_of_the_response_with_the_call_id_and_name(self, adapter: Adapter) -> None:
        assert encoded(adapter, result(out.text("Sunny, 21°C"))) == (
            [
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "fc_1",
                                "name": "get_weather",
                                "response": {"output": "Sunny, 21°C"},
                            }
                        }
                    ],
                }
            ],
            [],
        )

    @pytest.mark.parametrize("value", [{"temp": 21, "sky": "clear"}, [1, 2], 3.5, None, "plain"])
    def test_json_is_the_output_as_json(self, adapter: Adapter, value: Any) -> None:
        assert response(adapter, out.json_output(value))["response"] == {"output": value}

    def test_error_text_is_the_error_field(self, adapter: Adapter) -> None:
        assert response(adapter, out.error_text("unknown city"))["response"] == {"error": "unknown city"}

    def test_error_json_is_the_error_field_as_json(self, adapter: Adapter) -> None:
        assert response(adapter, out.error_json({"code": 404}))["response"] == {"error": {"code": 404}}

    @pytest.mark.parametrize(
        ("reason", "text"),
        [("too costly", "The user denied this tool call: too costly"), (None, "The user denied this tool call.")],
    )
    def test_a_denial_is_an_error_the_model_reads(self, adapter: Adapter, reason: str | None, text: str) -> None:
        assert response(adapter, out.execution_denied(reason))["response"] == {"error": text}

    def test_the_tool_id_is_sent_as_its_gemini_name(self, adapter: Adapter) -> None:
        assert response(adapter, out.text("x"), tool="get weather")["name"] == "get_weather"

    def test_an_id_toolwire_made_up_is_not_echoed(self, adapter: Adapter) -> None:
        assert response(adapter, out.text("x"), call_id="gemini-call-resp-1-1") == {
            "name": "get_weather",
            "response": {"output": "x"},
        }

    def test_json_holding_a_ref_key_is_sent_as_text_and_reported(self, adapter: Adapter) -> None:
        contents, notes = encoded(adapter, result(out.json_output({"schema": {"$ref": "#/$defs/A"}})))
        assert contents[0]["parts"][0]["functionResponse"]["response"] == {
            "output": '{"schema": {"$ref": "#/$defs/A"}}'
        }
        assert notes == [("get_weather", "tool_result.json_ref")]

    def test_an_output_that_is_not_a_model_output_is_refused_naming_the_call(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match=r"gemini: the result of call 'fc_1' \(tool 'get_weather'\)"):
            adapter.encode_tool_results([result({"type": "image", "value": 1})])

    def test_no_results_are_no_content(self, adapter: Adapter) -> None:
        assert adapter.encode_tool_results([]) == []


class TestContent:
    def test_images_and_pdfs_go_inside_the_response_with_the_text_as_output(self, adapter: Adapter) -> None:
        output = out.content(
            "Chart attached",
            out.image_data(PNG, "image/png", "chart.png"),
            out.file_data(b"%PDF-1.4", "application/pdf"),
        )
        assert encoded(adapter, result(output)) == (
            [
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "fc_1",
                                "name": "get_weather",
                                "response": {"output": "Chart attached"},
                                "parts": [
                                    {
                                        "inline_data": {
                                            "mime_type": "image/png",
                                            "data": PNG_WIRE,
                                            "display_name": "chart.png",
                                        }
                                    },
                                    {"inline_data": {"mime_type": "application/pdf", "data": "JVBERi0xLjQ="}},
                                ],
                            }
                        }
                    ],
                }
            ],
            [],
        )

    def test_media_without_text_leaves_the_response_empty(self, adapter: Adapter) -> None:
        assert response(adapter, out.content(out.image_data(PNG, "image/jpeg")))["response"] == {}

    def test_cloud_storage_urls_and_file_ids_are_file_data(self, adapter: Adapter) -> None:
        output = out.content(out.image_url("gs://bucket/chart.png"), out.file_id("files/abc123"))
        contents, notes = encoded(adapter, result(output))
        assert contents[0]["parts"][0]["functionResponse"]["parts"] == [
            {"file_data": {"file_uri": "gs://bucket/chart.png", "mime_type": "image/png"}},
            {"file_data": {"file_uri": "https://generativelanguage.googleapis.com/v1beta/files/abc123"}},
        ]
        assert notes == []

    def test_a_web_url_is_file_data_and_reported_as_possibly_unfetched(self, adapter: Adapter) -> None:
        contents, notes = encoded(adapter, result(out.content(out.file_url("https://example.com/r.pdf"))))
        assert contents[0]["parts"][0]["functionResponse"]["parts"] == [
            {"file_data": {"file_uri": "https://example.com/r.pdf", "mime_type": "application/pdf"}}
        ]
        assert notes == [("get_weather", "tool_result.url")]

    def test_a_url_without_a_known_type_is_sent_without_one_and_reported(self, adapter: Adapter) -> None:
        contents, notes = encoded(adapter, result(out.content(out.image_url("gs://bucket/blob"))))
        assert contents[0]["parts"][0]["functionResponse"]["parts"] == [{"file_data": {"file_uri": "gs://bucket/blob"}}]
        assert notes == [("get_weather", "tool_result.mime_type")]

    def test_a_type_gemini_takes_only_outside_a_response_follows_the_responses(self, adapter: Adapter) -> None:
        output = out.content("Recording:", out.file_data(b"RIFF", "audio/wav", "a.wav"))
        contents, notes = encoded(adapter, result(output), result(out.text("ok"), call_id="fc_2"))
        assert contents[0]["parts"] == [
            {
                "functionResponse": {
                    "id": "fc_1",
                    "name": "get_weather",
                    "response": {"output": "Recording:\n[attachment 1 (a.wav) follows the function responses]"},
                }
            },
            {"functionResponse": {"id": "fc_2", "name": "get_weather", "response": {"output": "ok"}}},
            {"inlineData": {"mime_type": "audio/wav", "data": "UklGRg==", "display_name": "a.wav"}},
        ]
        assert notes == [("get_weather", "tool_result.media_type")]

    def test_for_gemini_2_every_image_follows_the_responses(self) -> None:
        adapter = get_adapter("gemini", function_response_parts=False)
        contents, notes = encoded(adapter, result(out.content(out.image_data(PNG, "image/png"))))
        assert contents[0]["parts"] == [
            {
                "functionResponse": {
                    "id": "fc_1",
                    "name": "get_weather",
                    "response": {"output": "[attachment 1 (image/png) follows the function responses]"},
                }
            },
            {"inlineData": {"mime_type": "image/png", "data": PNG_WIRE}},
        ]
        assert notes == [("get_weather", "tool_result.media")]

    def test_a_custom_part_is_passed_through_for_google_and_dropped_for_others(self, adapter: Adapter) -> None:
        google = out.custom({"google": {"file_data": {"file_uri": "gs://b/v.mp4", "mime_type": "video/mp4"}}})
        other = out.custom({"anthropic": {"type": "search_result"}})
        contents, notes = encoded(adapter, result(out.content(google, other)))
        assert contents[0]["parts"][0]["functionResponse"]["parts"] == [
            {"file_data": {"file_uri": "gs://b/v.mp4", "mime_type": "video/mp4"}}
        ]
        assert notes == [("get_weather", "tool_result.custom")]

    def test_data_that_is_not_base64_is_refused_naming_the_call_and_part(self, adapter: Adapter) -> None:
        bad = {"type": "content", "value": [{"type": "image-data", "data": "not base64!", "mediaType": "image/png"}]}
        with pytest.raises(
            ConfigurationError, match=r"call 'fc_1' \(tool 'get_weather'\): content part 0 \(image-data\)"
        ):
            adapter.encode_tool_results([result(bad)])


class TestOneTurn:
    def test_parallel_results_are_one_user_content_in_the_given_order(self, adapter: Adapter) -> None:
        contents, _ = encoded(
            adapter,
            result(out.text("Paris: sun"), call_id="a"),
            result(out.error_text("no such city"), call_id="b"),
            result(out.json_output({"t": 3}), call_id="c", tool="get_time"),
        )
        assert len(contents) == 1
        assert [(p["functionResponse"]["id"], p["functionResponse"]["name"]) for p in contents[0]["parts"]] == [
            ("a", "get_weather"),
            ("b", "get_weather"),
            ("c", "get_time"),
        ]

    def test_the_sdk_sends_the_results_exactly_as_encoded(self, adapter: Adapter, sdk: SdkBodies) -> None:
        contents, _ = encoded(
            adapter,
            result(
                out.content("Chart", out.image_data(PNG, "image/png", "c.png"), out.file_id("files/x1")), call_id="a"
            ),
            result(out.error_json({"code": 1}), call_id="b"),
            result(out.content(out.file_data(b"RIFF", "audio/wav")), call_id="c"),
        )
        assert sdk.send(contents=contents)["contents"] == contents
