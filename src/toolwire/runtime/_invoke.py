"""Calling `execute`: sync functions in a thread, async ones in the caller's task, under abort signal and timeout."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
from collections.abc import Awaitable
from typing import Any

from toolwire._callbacks import count_positional
from toolwire.tools import Tool

from .abort import AbortSignal, Interrupted, await_interruptible
from .context import ToolContext


async def call_execute(tool: Tool, value: Any, context: ToolContext, timeout: float | None) -> Any:
    """Run `execute`; an abort surfaces as `CancelledError`, the runtime's timeout as `TimedOut`."""
    execute = tool.execute
    assert execute is not None
    is_async, takes_context = _convention(execute)
    args = (value, context) if takes_context else (value,)
    signal = context.abort_signal
    if timeout is None:  # the common case: awaited in this task, no task per call
        if is_async:
            return await _interruptible(execute(*args), signal)
        in_thread = functools.partial(contextvars.copy_context().run, execute, *args)  # what to_thread does
        result = await _interruptible(asyncio.get_running_loop().run_in_executor(None, in_thread), signal)
    elif is_async:
        return await _guarded(asyncio.ensure_future(execute(*args)), signal, timeout)
    else:
        result = await _guarded(asyncio.ensure_future(asyncio.to_thread(execute, *args)), signal, timeout)
    if inspect.isawaitable(result):
        return await _guarded(asyncio.ensure_future(result), signal, timeout)
    return result


async def _interruptible(awaitable: Awaitable[Any], signal: AbortSignal) -> Any:
    try:
        return await await_interruptible(awaitable, signal)
    except Interrupted:
        raise asyncio.CancelledError from None  # as a cancelled execute task raised it: the caller reads the signal


@functools.lru_cache(maxsize=4096)
def _convention(execute: Any) -> tuple[bool, bool]:
    """Whether `execute` is async, and whether it takes `(input, context)`; cached, signatures are slow to read."""
    is_async = inspect.iscoroutinefunction(execute) or inspect.iscoroutinefunction(getattr(execute, "__call__", None))  # noqa: B004
    return is_async, count_positional(execute)[1] >= 2


class TimedOut(TimeoutError):
    """The runtime's timeout fired (distinct from a TimeoutError raised inside a tool)."""


async def _guarded(task: asyncio.Future[Any], signal: AbortSignal, timeout: float | None) -> Any:
    """Await `task`, cancelling it when the signal fires or the timeout passes (which also aborts)."""
    loop = asyncio.get_running_loop()

    def cancel(_reason: str | None) -> None:
        loop.call_soon_threadsafe(task.cancel)

    remove = signal.add_listener(cancel)
    try:
        if timeout is None:
            return await task
        try:
            return await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            if task.done():
                raise  # the tool's own TimeoutError, not ours
            signal.abort("timeout")
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise TimedOut from None
    finally:
        remove()
