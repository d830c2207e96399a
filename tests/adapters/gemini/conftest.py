"""Fixtures for the Gemini adapter tests: the adapter, SSE bodies, and google-genai replaying them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import types

from toolwire import get_adapter
from toolwire.adapter import Adapter
from toolwire.events import Event
from toolwire.testing.capture import RequestCapture

from .sdk_bodies import MODEL, SdkBodies, sse_bytes


@pytest.fixture
def adapter() -> Adapter:
    """The registered adapter, found through the entry point like any user would."""
    return get_adapter("gemini")


@pytest.fixture
def openapi_adapter() -> Adapter:
    """The adapter writing OpenAPI-subset `parameters`."""
    return get_adapter("gemini", schema_format="openapi")


@pytest.fixture
def sdk() -> SdkBodies:
    """google-genai in Gemini API mode (`v1beta`) over a capturing transport."""
    return SdkBodies()


@pytest.fixture
def vertex_sdk() -> SdkBodies:
    """google-genai in Vertex express mode (`vertexai=True` with an API key)."""
    return SdkBodies(vertex=True)


@pytest.fixture
def sse() -> Callable[[Iterable[Mapping[str, Any]]], bytes]:
    """Frames (dicts) to raw SSE bytes."""
    return sse_bytes


@pytest.fixture
def sdk_chunks() -> Callable[..., list[Any]]:
    """SSE bytes replayed through `generate_content_stream`: the SDK's own `GenerateContentResponse`s."""
    clients: list[Any] = []

    def replay(body: bytes, *, vertex: bool = False) -> list[Any]:
        capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)])
        options = types.HttpOptions(httpx_client=capture.client(), **({} if vertex else {"api_version": "v1beta"}))
        client = genai.Client(vertexai=vertex, api_key="test-key", http_options=options)
        clients.append(client)
        return list(client.models.generate_content_stream(model=MODEL, contents="hi"))

    return replay


@pytest.fixture
def sdk_response() -> Callable[[Mapping[str, Any]], Any]:
    """A whole response body parsed by `generate_content`: the SDK's `GenerateContentResponse`."""
    clients: list[Any] = []

    def parse(body: Mapping[str, Any]) -> Any:
        capture = RequestCapture([httpx2.Response(200, json=dict(body))])
        options = types.HttpOptions(httpx_client=capture.client(), api_version="v1beta")
        client = genai.Client(api_key="test-key", http_options=options)
        clients.append(client)
        return client.models.generate_content(model=MODEL, contents="hi")

    return parse


@pytest.fixture
def decode(adapter: Adapter) -> Callable[..., list[dict[str, Any]]]:
    """`adapter.normalize(source, **kwargs)` as the events' JSON forms."""

    def run(source: Any, **kwargs: Any) -> list[dict[str, Any]]:
        events: list[Event] = list(adapter.normalize(source, **kwargs))
        return [event.to_dict() for event in events]

    return run
