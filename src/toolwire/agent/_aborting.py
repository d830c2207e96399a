"""Stopping what a run awaits: the model stream, an await cut short by the run's abort signal."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable
from typing import Any, TypeVar

from toolwire.runtime import AbortSignal
from toolwire.runtime.abort import Interrupted, await_interruptible

T = TypeVar("T")


class RunAborted(Exception):
    """Internal: the run's signal fired while the loop awaited the model."""


async def abortable(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Await in this task, cancelled when `signal` fires (then `RunAborted`); a cancelled caller propagates."""
    try:
        return await await_interruptible(awaitable, signal)
    except Interrupted:
        raise RunAborted from None


def close_source(source: Any) -> None:
    """Close a provider stream (SDK streams and generators have `close()`); failures do not matter now."""
    close = getattr(source, "close", None)
    if callable(close) and not inspect.iscoroutinefunction(close):
        with contextlib.suppress(Exception):
            close()


async def close_source_async(source: Any) -> None:
    """Close an async provider stream (`aclose()` or an async `close()`)."""
    for name in ("aclose", "close"):
        method = getattr(source, name, None)
        if callable(method):
            with contextlib.suppress(Exception):
                result = method()
                if inspect.isawaitable(result):
                    await result
            return
