"""Calling `execute`: sync functions in a thread, async ones as tasks, both under the abort signal and timeout."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from typing import Any

from toolwire._callbacks import count_positional
from toolwire.tools import Tool

from .abort import AbortSignal
from .context import ToolContext


async def call_execute(tool: Tool, value: Any, context: ToolContext, timeout: float | None) -> Any:
    execute = tool.execute
    assert execute is not None
    takes_context = _takes_context(execute)
    args = (value, context) if takes_context else (value,)
    if inspect.iscoroutinefunction(execute) or inspect.iscoroutinefunction(getattr(execute, "__call__", None)):  # noqa: B004
        return await _guarded(asyncio.ensure_future(execute(*args)), context.abort_signal, timeout)
    task = asyncio.ensure_future(asyncio.to_thread(execute, *args))
    result = await _guarded(task, context.abort_signal, timeout)
    if inspect.isawaitable(result):
        return await _guarded(asyncio.ensure_future(result), context.abort_signal, timeout)
    return result


@functools.lru_cache(maxsize=4096)
def _takes_context(execute: Any) -> bool:
    """Whether `execute` accepts `(input, context)`; cached, signatures are slow to read."""
    return count_positional(execute)[1] >= 2


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
