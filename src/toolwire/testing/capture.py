"""Capture what an official SDK puts on the wire, without a network.

The SDKs send through `httpx2`; a `RequestCapture` is an `httpx2.MockTransport` that records
every request and answers with canned responses, so a test can prove that the SDK accepted a
fragment and sent exactly that JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from toolwire._extras import optional_imports

with optional_imports("toolwire.testing.capture", "conformance"):
    import httpx2

Responder = Callable[[httpx2.Request], httpx2.Response]


class RequestCapture:
    """Records requests; answers each with the next canned response (or `{}` with status 200)."""

    def __init__(self, responses: Sequence[httpx2.Response | Any] | Responder | None = None) -> None:
        self.requests: list[httpx2.Request] = []
        self._responder = responses if callable(responses) else None
        self._queue = [] if responses is None or callable(responses) else list(responses)

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        self.requests.append(request)
        if self._responder is not None:
            return self._responder(request)
        if self._queue:
            answer = self._queue.pop(0)
            return answer if isinstance(answer, httpx2.Response) else httpx2.Response(200, json=answer)
        return httpx2.Response(200, json={})

    async def _handle_async(self, request: httpx2.Request) -> httpx2.Response:
        return self._handle(request)

    @property
    def transport(self) -> httpx2.MockTransport:
        """A sync-and-async mock transport bound to this capture."""
        return httpx2.MockTransport(self._handle)

    def client(self) -> httpx2.Client:
        """An `httpx2.Client` to pass as the SDK's `http_client`."""
        return httpx2.Client(transport=httpx2.MockTransport(self._handle))

    def async_client(self) -> httpx2.AsyncClient:
        """An `httpx2.AsyncClient` to pass as the SDK's async `http_client`."""
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self._handle_async))

    def body(self, index: int = -1) -> Any:
        """The JSON body of a recorded request (the last one by default)."""
        return json.loads(self.requests[index].content)

    def raw_body(self, index: int = -1) -> bytes:
        """The exact bytes of a recorded request body."""
        return self.requests[index].content
