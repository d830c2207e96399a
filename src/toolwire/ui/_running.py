"""The responses of each chat still being produced, so that a chat's requests are taken in turn.

A stopped response saves what the next request needs (tasks it cut short, hidden values) only
once the server has seen the browser leave and the run has wound down, which can be after the
browser already sent its next message. The next request of the same chat therefore waits for
the response before it to end, for at most a bound, before it reads the store. This holds
within one process: several processes need each chat's requests routed to one of them.
"""

from __future__ import annotations

import asyncio
import threading


class RunningResponses:
    """Per chat key, an event set when that chat's response in progress has ended and saved."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, threading.Event] = {}

    def begin(self, key: str) -> threading.Event:
        """A response of `key` starts; the event it returns is given back to `end`."""
        ended = threading.Event()
        with self._lock:
            self._running[key] = ended
        return ended

    def end(self, key: str, ended: threading.Event) -> None:
        """That response has ended and saved what it keeps."""
        ended.set()
        with self._lock:
            if self._running.get(key) is ended:
                del self._running[key]

    def wait(self, key: str, timeout: float) -> bool:
        """Block until the response of `key` in progress (if any) has ended; False if `timeout` ran out first."""
        ended = self._in_progress(key)
        return ended is None or ended.wait(timeout)

    async def await_ended(self, key: str, timeout: float) -> bool:
        """`wait` without blocking the event loop (the response may end on this loop or in a worker thread)."""
        ended = self._in_progress(key)
        if ended is None or ended.is_set():
            return True
        return await asyncio.to_thread(ended.wait, timeout)

    def _in_progress(self, key: str) -> threading.Event | None:
        with self._lock:
            return self._running.get(key)
