"""The responses of each chat still being produced, so that a chat's next request can wait for them.

A stopped response saves what the next request needs (tasks it cut short, hidden values) only
once the server has seen the browser leave and the run has wound down, which can be after the
browser already sent its next message. The next request of the same chat therefore waits for
the response before it to end, for at most a bound, before it reads the store. This holds
within one process: several processes need each chat's requests routed to one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading


class _Response:
    """One response in progress: set once it has ended; wakes the coroutines waiting for it."""

    __slots__ = ("ended", "waiters")

    def __init__(self) -> None:
        self.ended = threading.Event()
        self.waiters: list[asyncio.Future[None]] = []


class RunningResponses:
    """Per chat key, the response in progress (a sync response ends in a worker thread, an async one on a loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, _Response] = {}

    def begin(self, key: str) -> object:
        """A response of `key` starts; the token it returns is given back to `end`."""
        response = _Response()
        with self._lock:
            self._running[key] = response
        return response

    def end(self, key: str, token: object) -> None:
        """That response has ended and saved what it keeps."""
        assert isinstance(token, _Response)
        with self._lock:
            token.ended.set()
            waiters, token.waiters = token.waiters, []
            if self._running.get(key) is token:
                del self._running[key]
        for waiter in waiters:
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody waits any more
                waiter.get_loop().call_soon_threadsafe(_settle, waiter)

    def wait(self, key: str, timeout: float) -> bool:
        """Block until the response of `key` in progress (if any) has ended; False if `timeout` ran out first."""
        with self._lock:
            response = self._running.get(key)
        return response is None or response.ended.wait(timeout)

    async def await_ended(self, key: str, timeout: float) -> bool:
        """`wait` without blocking the event loop or holding a thread (the response may need both to end)."""
        with self._lock:
            response = self._running.get(key)
            if response is None or response.ended.is_set():
                return True
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            response.waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return False
        finally:
            with self._lock, contextlib.suppress(ValueError):
                response.waiters.remove(waiter)
        return True


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
