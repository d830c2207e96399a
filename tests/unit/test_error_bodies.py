"""Every adapter turns the provider's error body or error event into one `error` event with its code and message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import get_adapter

OPENAI_BODY = {
    "error": {
        "message": "Incorrect API key provided: sk-test. You can find your API key at ...",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}
OPENAI_TEXT = (
    "(invalid_api_key, invalid_request_error): Incorrect API key provided: sk-test. You can find your API key at ..."
)
ANTHROPIC_BODY = {
    "type": "error",
    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    "request_id": "req_1",
}
GEMINI_BODY = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}


def decode(api: str, source: Any) -> list[dict[str, Any]]:
    return [event.to_dict() for event in get_adapter(api).normalize(source)]


def failed_with(text: str) -> list[dict[str, Any]]:
    return [{"type": "start"}, {"type": "error", "errorText": text}, {"type": "finish", "finishReason": "error"}]


class TestHttpErrorBodies:
    @pytest.mark.parametrize(
        ("api", "body", "text"),
        [
            ("openai-chat", OPENAI_BODY, f"openai-chat error {OPENAI_TEXT}"),
            ("openai-responses", OPENAI_BODY, f"openai-responses error {OPENAI_TEXT}"),
            ("anthropic", ANTHROPIC_BODY, "anthropic error (authentication_error): invalid x-api-key"),
            ("gemini", GEMINI_BODY, "gemini error (400, INVALID_ARGUMENT): API key not valid."),
        ],
    )
    def test_the_error_body_is_one_error_event_with_the_provider_code_and_message(
        self, api: str, body: dict[str, Any], text: str
    ) -> None:
        assert decode(api, json.dumps(body).encode()) == failed_with(text)

    @pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic", "gemini"])
    def test_the_async_path_gives_the_same_error(self, api: str) -> None:
        body = json.dumps(GEMINI_BODY if api == "gemini" else OPENAI_BODY).encode()

        async def chunks() -> AsyncIterator[bytes]:
            yield body

        async def collect() -> list[dict[str, Any]]:
            return [event.to_dict() async for event in get_adapter(api).anormalize(chunks())]

        assert asyncio.run(collect()) == decode(api, body)

    def test_a_gemini_error_in_a_json_array_stream(self) -> None:
        body = json.dumps([GEMINI_BODY]).encode()
        assert decode("gemini", body) == failed_with("gemini error (400, INVALID_ARGUMENT): API key not valid.")

    def test_an_openai_shaped_error_body_from_a_proxy_in_front_of_anthropic(self) -> None:
        assert decode("anthropic", OPENAI_BODY) == failed_with(f"anthropic error {OPENAI_TEXT}")

    def test_an_error_that_is_only_a_string(self) -> None:
        assert decode("openai-chat", {"error": "upstream timed out"}) == failed_with(
            "openai-chat error: upstream timed out"
        )


class TestErrorEvents:
    def test_a_responses_error_event_in_the_sdk_shape(self) -> None:
        frames = [{"type": "error", "code": "rate_limit_exceeded", "message": "slow down", "param": None}]
        assert decode("openai-responses", frames) == failed_with(
            "openai-responses error (rate_limit_exceeded): slow down"
        )

    def test_a_responses_error_event_with_a_nested_error_object(self) -> None:
        frames = [{"type": "error", "error": {"type": "server_error", "code": "overloaded", "message": "busy"}}]
        assert decode("openai-responses", frames) == failed_with(
            "openai-responses error (overloaded, server_error): busy"
        )

    def test_a_failed_response_without_details_still_says_it_failed(self) -> None:
        frames = [{"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": None}}]
        events = decode("openai-responses", frames)
        assert events[1] == {"type": "error", "errorText": "openai-responses error: the response failed (no details)"}
        assert events[-1]["finishReason"] == "error"

    def test_an_anthropic_error_event_mid_stream(self) -> None:
        body = (
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","content":[]}}\n\n'
            b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
        )
        errors = [e["errorText"] for e in decode("anthropic", body) if e["type"] == "error"]
        assert errors[0] == "anthropic error (overloaded_error): Overloaded"
