"""Fixtures for the `openai-responses` tests: SSE bodies, and the real SDK client over a capturing transport."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx2
import openai
import pytest

from toolwire import get_adapter
from toolwire.adapter import Adapter
from toolwire.testing.capture import RequestCapture

MODEL = "gpt-5-mini"
INPUT = [{"role": "user", "content": "hi"}]


def _client(capture: RequestCapture) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)


@pytest.fixture
def adapter() -> Adapter:
    """The registered adapter, found through the entry point like any user would."""
    return get_adapter("openai-responses")


@pytest.fixture
def sse() -> Callable[[Iterable[Mapping[str, Any]]], bytes]:
    """Events (dicts) to a Responses SSE body: an `event:` line naming the type, then the JSON."""

    def encode(frames: Iterable[Mapping[str, Any]]) -> bytes:
        return b"".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode() for f in frames)

    return encode


@pytest.fixture
def wire() -> Callable[..., dict[str, Any]]:
    """The HTTP body the SDK sends for `responses.create(**fields)`, minus model (and default input)."""

    def send(**fields: Any) -> dict[str, Any]:
        capture = RequestCapture()
        fields.setdefault("input", INPUT)
        _client(capture).responses.create(model=MODEL, **fields)
        body = capture.body()
        del body["model"]
        if body["input"] == INPUT:
            del body["input"]
        return body

    return send


@pytest.fixture
def sdk_events() -> Callable[[bytes], list[Any]]:
    """An SSE body replayed through `responses.create(stream=True)`: the SDK's own event objects."""

    def replay(body: bytes) -> list[Any]:
        capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)])
        return list(_client(capture).responses.create(model=MODEL, input=INPUT, stream=True))  # type: ignore[arg-type]

    return replay


@pytest.fixture
def sdk_response() -> Callable[[Mapping[str, Any]], Any]:
    """A JSON response parsed by the SDK: a `Response` object."""

    def parse(body: Mapping[str, Any]) -> Any:
        capture = RequestCapture([httpx2.Response(200, json=dict(body))])
        return _client(capture).responses.create(model=MODEL, input=INPUT)  # type: ignore[arg-type]

    return parse


@pytest.fixture
def events(adapter: Adapter) -> Callable[..., list[dict[str, Any]]]:
    """Normalized events of a source, as JSON dicts."""

    def decode(source: Any, **options: Any) -> list[dict[str, Any]]:
        return [event.to_dict() for event in adapter.normalize(source, **options)]

    return decode
