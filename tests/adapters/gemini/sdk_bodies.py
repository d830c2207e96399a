"""google-genai over a capturing transport: the request bodies the real SDK puts on the wire.

Every client pins `api_version="v1beta"` (google-genai 3.6.1 defaults the Gemini API to `v1`).
Clients are kept on their owner: `genai.Client.__del__` closes the HTTP client.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import httpx2
from google import genai
from google.genai import types

from toolwire.testing.capture import RequestCapture

MODEL = "gemini-2.5-flash"
_OK = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}


def sse_bytes(frames: Iterable[Mapping[str, Any]]) -> bytes:
    """Gemini's SSE framing: `data: <json>` and a CRLF blank line per chunk, as the API sends it."""
    return b"".join(b"data: " + json.dumps(f).encode() + b"\r\n\r\n" for f in frames)


class SdkBodies:
    """Sends requests through google-genai and returns the JSON bodies it put on the wire."""

    def __init__(self, *, vertex: bool = False) -> None:
        self.capture = RequestCapture(self._answer)
        options = types.HttpOptions(httpx_client=self.capture.client(), **({} if vertex else {"api_version": "v1beta"}))
        self.client = (
            genai.Client(vertexai=True, api_key="test-key", http_options=options)
            if vertex
            else genai.Client(api_key="test-key", http_options=options)
        )
        self._stream = vertex

    @staticmethod
    def _answer(request: httpx2.Request) -> httpx2.Response:
        if "alt=sse" in str(request.url):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse_bytes([_OK]))
        return httpx2.Response(200, json=_OK)

    def send(self, contents: Any = "hi", config: Mapping[str, Any] | None = None) -> Any:
        """The body of `generate_content(contents=..., config=...)` (streamed on Vertex)."""
        if self._stream:
            list(self.client.models.generate_content_stream(model=MODEL, contents=contents, config=config))
        else:
            self.client.models.generate_content(model=MODEL, contents=contents, config=config)
        return self.capture.body()
