"""The ASGI response of a UI message stream, for Starlette and FastAPI (needs `toolwire[ui]`).

The body is sent as it is produced (no buffering headers, no caching). The response listens
for the client going away the whole time, not only when a write fails: a closed tab or
`useChat`'s stop ends the run at once. An async body is cancelled where it waits (the
provider stream and running tools see the cancellation); a sync body runs in a worker thread
and is closed at its next step.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from typing import Any

import anyio
from starlette.background import BackgroundTask
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .protocol import UI_MESSAGE_STREAM_HEADERS


class UIMessageStreamResponse(Response):
    """Streams SSE bytes (`toolwire.ui.sse`) with the protocol's headers; `on_disconnect` runs if the client leaves."""

    media_type = "text/event-stream"

    def __init__(
        self,
        content: Iterable[bytes] | AsyncIterable[bytes],
        *,
        on_disconnect: Callable[[], Any] | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        self.content = content
        self.on_disconnect = on_disconnect
        self.status_code = status_code
        self.background = background
        self.init_headers({**UI_MESSAGE_STREAM_HEADERS, **(headers or {})})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stop = threading.Event()
        body = self.content if isinstance(self.content, AsyncIterable) else _in_thread(self.content, stop)
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                try:
                    await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
                    async for chunk in body:
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                except OSError:  # the client is gone (ASGI 2.4 servers raise on send)
                    self._left(stop)
                finally:
                    with anyio.CancelScope(shield=True):
                        await _close(body)
                    group.cancel_scope.cancel()

            async def listen() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                self._left(stop)
                group.cancel_scope.cancel()

            group.start_soon(stream)
            group.start_soon(listen)
        if self.background is not None:
            await self.background()

    def _left(self, stop: threading.Event) -> None:
        stop.set()
        if self.on_disconnect is not None:
            self.on_disconnect()


async def _close(body: AsyncIterable[bytes]) -> None:
    close = getattr(body, "aclose", None)
    if close is not None:
        await close()


_END = object()


class _Producer:
    """A worker thread iterating a sync body into a queue the event loop reads, at most 64 items ahead."""

    def __init__(self, content: Iterable[bytes], stop: threading.Event) -> None:
        self.content = content
        self.stop = stop
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.room = threading.Semaphore(64)
        """Released by the reader for each item taken: the producer waits while the reader is behind."""

    def put(self, item: Any) -> bool:
        """Hand one item to the reader; False once nobody reads (stopped, or the loop is gone)."""
        while not self.room.acquire(timeout=0.5):
            if self.stop.is_set() or self.loop.is_closed():
                return False
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed
            return False
        return True

    def run(self) -> None:
        """Iterate the body (in the worker thread), then close it and mark the end."""
        iterator = iter(self.content)
        try:
            for item in iterator:
                if self.stop.is_set() or not self.put(item):
                    break
        except BaseException as exc:  # handed to the reader, raised there
            self.put(exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
            self.put(_END)


async def _in_thread(content: Iterable[bytes], stop: threading.Event) -> AsyncIterator[bytes]:
    """Iterate a sync body in a worker thread; once `stop` is set the thread closes it at its next item."""
    producer = _Producer(content, stop)
    threading.Thread(target=producer.run, name="toolwire-ui-stream", daemon=True).start()
    try:
        while (item := await producer.queue.get()) is not _END:
            producer.room.release()
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        producer.room.release()  # a producer waiting for room sees `stop` at once
