"""Abort signals: the host's way to stop a running tool (the seed's `abortSignal`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import types
from collections.abc import Awaitable, Callable, Generator
from typing import Any, TypeVar, cast

T = TypeVar("T")


class AbortSignal:
    """Set once by `abort()`; listeners run then. Async executes are cancelled, sync ones can poll `aborted`."""

    __slots__ = ("_aborted", "_event", "_listeners", "_lock", "reason")

    def __init__(self) -> None:
        self._aborted = False
        self._event: threading.Event | None = None  # made by the first `wait()`: one signal per call, few waits
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str | None], None]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        """Whether `abort()` was called."""
        return self._aborted

    def abort(self, reason: str | None = None) -> None:
        """Abort (idempotent) and notify listeners."""
        with self._lock:
            if self._aborted:
                return
            self.reason = reason
            self._aborted = True
            if self._event is not None:
                self._event.set()
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(reason)

    def add_listener(self, listener: Callable[[str | None], None]) -> Callable[[], None]:
        """Call `listener(reason)` on abort (at once if already aborted); returns a remover."""
        with self._lock:
            if not self._aborted:
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
        with self._lock:
            if self._aborted:
                return True
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        return event.wait(timeout)


class Interrupted(Exception):
    """`await_interruptible` was cut short by the signal (the awaited work was cancelled)."""


async def await_interruptible(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Await in the current task, cancelling the awaited work when `signal` fires (then `Interrupted`).

    What `asyncio.timeout` does for a deadline, for a signal: no task per await. Work that
    completes without suspending (a buffered event, a no-op tool) costs no listener either. A
    cancellation of the caller's own task still propagates as `CancelledError`.

    Raises:
        Interrupted: the signal fired (before or during the await).
    """
    if signal.aborted:
        if isinstance(awaitable, asyncio.Future):
            awaitable.cancel()
        elif hasattr(awaitable, "close"):
            awaitable.close()  # a coroutine never awaited would warn
        raise Interrupted
    steps = awaitable.__await__()
    try:
        first = steps.send(None)
    except StopIteration as done:
        return cast(T, done.value)  # finished without suspending: nothing could interrupt it
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    state = _Waiting()

    def interrupt() -> None:
        if state.waiting and not state.cancelled:
            state.cancelled = True
            task.cancel()

    def on_abort(_reason: str | None) -> None:
        loop.call_soon_threadsafe(interrupt)  # the signal may fire in any thread

    remove = signal.add_listener(on_abort)
    try:
        result = cast(T, await _resumed(steps, first))
    except asyncio.CancelledError:
        if state.cancelled and task.uncancel() == 0:
            raise Interrupted from None
        raise
    finally:
        state.waiting = False
        remove()
    if state.cancelled:
        task.uncancel()  # the awaited work swallowed the cancel and finished: its result stands
    return result


@types.coroutine
def _resumed(steps: Generator[Any, Any, Any], pending: Any) -> Generator[Any, Any, Any]:
    """Go on awaiting `steps`, whose first step already ran and yielded `pending` (what `yield from` does)."""
    while True:
        try:
            sent = yield pending
        except BaseException as exc:  # a cancellation included: it is the awaited work's to handle
            try:
                pending = steps.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                pending = steps.send(sent)
            except StopIteration as done:
                return done.value


class _Waiting:
    __slots__ = ("cancelled", "waiting")

    def __init__(self) -> None:
        self.waiting = True
        self.cancelled = False


class _SharedExecutor(concurrent.futures.ThreadPoolExecutor):
    """The threads of sync tools run from sync code; event loops come and go, the pool stays."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Ignored: a closing event loop shuts its default executor down, and this one is shared."""


SHARED_EXECUTOR = _SharedExecutor(thread_name_prefix="toolwire-tools")
"""Default executor of the event loops that run agent steps for sync code (`Agent.run`)."""
