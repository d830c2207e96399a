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


async def _in_thread(content: Iterable[bytes], stop: threading.Event) -> AsyncIterator[bytes]:
    """Iterate a sync body in a worker thread; once `stop` is set the thread closes it at its next item."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=64)

    def put(item: Any) -> bool:
        try:
            asyncio.run_coroutine_threadsafe(queue.put(item), loop).result()
        except RuntimeError:  # the loop is closed: nobody reads any more
            return False
        return True

    def produce() -> None:
        iterator = iter(content)
        try:
            for item in iterator:
                if stop.is_set() or not put(item):
                    break
        except BaseException as exc:  # handed to the reader, raised there
            put(exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
            put(_END)

    threading.Thread(target=produce, name="toolwire-ui-stream", daemon=True).start()
    try:
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while not queue.empty():  # free a producer blocked on a full queue so it can see `stop`
            queue.get_nowait()
