"""Abort signals: the host's way to stop a running tool (the seed's `abortSignal`)."""

from __future__ import annotations

import threading
from collections.abc import Callable


class AbortSignal:
    """Set once by `abort()`; listeners run then. Async executes are cancelled, sync ones can poll `aborted`."""

    __slots__ = ("_event", "_listeners", "_lock", "reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str | None], None]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        """Whether `abort()` was called."""
        return self._event.is_set()

    def abort(self, reason: str | None = None) -> None:
        """Abort (idempotent) and notify listeners."""
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(reason)

    def add_listener(self, listener: Callable[[str | None], None]) -> Callable[[], None]:
        """Call `listener(reason)` on abort (at once if already aborted); returns a remover."""
        with self._lock:
            if not self._event.is_set():
                self._listeners.append(listener)
                return lambda: self._remove(listener)
        listener(self.reason)
        return lambda: None

    def _remove(self, listener: Callable[[str | None], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until aborted (for sync code); True when aborted."""
        return self._event.wait(timeout)
