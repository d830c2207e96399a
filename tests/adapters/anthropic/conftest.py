"""Fixtures for the Anthropic adapter tests: SSE bodies, and the real SDK client over a capturing transport."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import anthropic
import httpx2
import pytest

from toolwire import get_adapter
from toolwire.adapter import Adapter
from toolwire.testing.capture import RequestCapture

MODEL = "claude-sonnet-4-6"


def _sse(frames: Iterable[Mapping[str, Any]]) -> bytes:
    """Anthropic's SSE framing: an `event:` line naming the type, then the JSON (`anthropic/_streaming.py`)."""
    return b"".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode() for f in frames)


def _stream_response(body: bytes) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


@pytest.fixture
def adapter() -> Adapter:
    """The registered adapter, found through the entry point like any user would."""
    return get_adapter("anthropic")


@pytest.fixture
def sse() -> Callable[[Iterable[Mapping[str, Any]]], bytes]:
    """Frames (dicts) to raw SSE bytes."""
    return _sse


@pytest.fixture
def sdk_events() -> Callable[[bytes], list[Any]]:
    """SSE bytes replayed through `client.messages.create(stream=True)`: the SDK's own event objects."""

    def replay(body: bytes) -> list[Any]:
        capture = RequestCapture([_stream_response(body)])
        client = anthropic.Anthropic(api_key="test", http_client=capture.client(), max_retries=0)
        stream = client.messages.create(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
        )
        return list(stream)

    return replay


@pytest.fixture
def sdk_helper_events() -> Callable[[bytes], list[Any]]:
    """SSE bytes replayed through `client.messages.stream()`, which adds synthesized events."""

    def replay(body: bytes) -> list[Any]:
        capture = RequestCapture([_stream_response(body)])
        client = anthropic.Anthropic(api_key="test", http_client=capture.client(), max_retries=0)
        with client.messages.stream(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as s:
            return list(s)

    return replay


@pytest.fixture
def sdk_message() -> Callable[[Mapping[str, Any]], Any]:
    """A whole JSON response replayed through `client.messages.create()`: the SDK's `Message`."""

    def replay(body: Mapping[str, Any]) -> Any:
        capture = RequestCapture([httpx2.Response(200, json=dict(body))])
        client = anthropic.Anthropic(api_key="test", http_client=capture.client(), max_retries=0)
        return client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}])

    return replay


@pytest.fixture
def wire_body() -> Callable[..., dict[str, Any]]:
    """The JSON body the real SDK sends for `messages.create(**fields)` (model and max_tokens added)."""

    def send(**fields: Any) -> dict[str, Any]:
        capture = RequestCapture([httpx2.Response(200, json=_EMPTY_MESSAGE)])
        client = anthropic.Anthropic(api_key="test", http_client=capture.client(), max_retries=0)
        fields.setdefault("messages", [{"role": "user", "content": "hi"}])
        client.messages.create(model=MODEL, max_tokens=64, **fields)
        body: dict[str, Any] = capture.body()
        return body

    return send


_EMPTY_MESSAGE = {
    "id": "msg_0",
    "type": "message",
    "role": "assistant",
    "model": MODEL,
    "content": [],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
