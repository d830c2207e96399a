"""Fixtures for the `openai-chat` tests: SSE bodies, and the real SDK client over a capturing transport."""

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

MODEL = "gpt-4.1-mini"
USER = [{"role": "user", "content": "hi"}]


def _client(capture: RequestCapture) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)


@pytest.fixture
def adapter() -> Adapter:
    """The registered adapter, found through the entry point like any user would."""
    return get_adapter("openai-chat")


@pytest.fixture
def compatible() -> Adapter:
    """The profile for OpenAI-compatible servers."""
    return get_adapter("openai-chat", profile="compatible")


@pytest.fixture
def sse() -> Callable[[Iterable[Mapping[str, Any]]], bytes]:
    """Chunks (dicts) to a Chat Completions SSE body: `data:` lines only, then `[DONE]`."""

    def encode(chunks: Iterable[Mapping[str, Any]]) -> bytes:
        body = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks)
        return body + b"data: [DONE]\n\n"

    return encode


@pytest.fixture
def wire() -> Callable[..., dict[str, Any]]:
    """The HTTP body the SDK sends for `chat.completions.create(**fields)`, minus model (and default messages)."""

    def send(**fields: Any) -> dict[str, Any]:
        capture = RequestCapture()
        fields.setdefault("messages", USER)
        _client(capture).chat.completions.create(model=MODEL, **fields)
        body = capture.body()
        del body["model"]
        if body["messages"] == USER:
            del body["messages"]
        return body

    return send


@pytest.fixture
def sdk_chunks() -> Callable[[bytes], list[Any]]:
    """An SSE body replayed through `chat.completions.create(stream=True)`: the SDK's own chunk objects."""

    def replay(body: bytes) -> list[Any]:
        capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)])
        return list(_client(capture).chat.completions.create(model=MODEL, messages=USER, stream=True))  # type: ignore[arg-type]

    return replay


@pytest.fixture
def sdk_completion() -> Callable[[Mapping[str, Any]], Any]:
    """A JSON completion parsed by the SDK: a `ChatCompletion` object."""

    def parse(body: Mapping[str, Any]) -> Any:
        capture = RequestCapture([httpx2.Response(200, json=dict(body))])
        return _client(capture).chat.completions.create(model=MODEL, messages=USER)  # type: ignore[arg-type]

    return parse


@pytest.fixture
def events(adapter: Adapter) -> Callable[..., list[dict[str, Any]]]:
    """Normalized events of a source, as JSON dicts."""

    def decode(source: Any, **options: Any) -> list[dict[str, Any]]:
        return [event.to_dict() for event in adapter.normalize(source, **options)]

    return decode
