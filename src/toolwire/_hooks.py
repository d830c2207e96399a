"""Fires tools' lifecycle hooks for stream events, in order, isolating their failures.

A hook may be sync or async. A failing hook is logged on the `toolwire` logger and never
breaks the stream or the call (the seed's error-handling rule). In synchronous code an async
hook runs to completion on a private event loop thread, so it works with or without a
running loop in the caller's thread.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Awaitable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from ._callbacks import Callback
from .events import Event, ToolInputAvailable, ToolInputDelta, ToolInputStart
from .tools import Tool

if TYPE_CHECKING:
    import asyncio
    import concurrent.futures

logger = logging.getLogger("toolwire")


class _LoopThread:
    """One daemon thread running an event loop, started on first use, for async hooks in sync code."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def loop(cls) -> Any:
        """The loop (an `asyncio.AbstractEventLoop`), started on first use."""
        import asyncio  # only async hooks in sync code need it: defining and encoding tools stays without

        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="toolwire-hooks", daemon=True).start()
                cls._loop = loop
            return cls._loop

    @classmethod
    def run(cls, awaitable: Awaitable[Any]) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(_await(awaitable), cls.loop()).result()


def run_detached(work: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
    """Start `work` on toolwire's own loop thread, which outlives any run (a sync run's loop ends with it)."""
    import asyncio

    return asyncio.run_coroutine_threadsafe(work, _LoopThread.loop())


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def run_sync(result: Any) -> Any:
    """Complete a callback's result in sync code (awaiting it on the hook loop if needed)."""
    if inspect.isawaitable(result):
        return _LoopThread.run(result)
    return result


def call_hook_sync(tool_id: str, name: str, hook: Callback, **kwargs: Any) -> None:
    """Call a hook from sync code; log and swallow its errors."""
    try:
        run_sync(hook(**kwargs))
    except Exception:
        logger.exception("hook %s of tool %r failed; the call goes on", name, tool_id)


async def call_hook_async(tool_id: str, name: str, hook: Callback, **kwargs: Any) -> None:
    """Call a hook from async code; log and swallow its errors."""
    try:
        result = hook(**kwargs)
        if inspect.isawaitable(result):
            await result
    except Exception:
        logger.exception("hook %s of tool %r failed; the call goes on", name, tool_id)


class StreamHooks:
    """Maps events to the hooks of the tool each call belongs to."""

    def __init__(self, tools: Mapping[str, Tool], extra: Mapping[str, Any]) -> None:
        self._tools = tools
        self._extra = dict(extra)
        self._by_call: dict[str, Tool] = {}

    @staticmethod
    def wanted(tools: Mapping[str, Tool] | None) -> bool:
        """Whether any tool has a stream hook (if not, the hot path skips hook dispatch)."""
        return bool(tools) and any(
            t.on_input_start or t.on_input_delta or t.on_input_available
            for t in tools.values()  # type: ignore[union-attr]  # guarded by bool(tools)
        )

    def _pending(self, event: Event) -> tuple[Tool, str, Callback, dict[str, Any]] | None:
        if isinstance(event, ToolInputDelta):
            tool = self._by_call.get(event.tool_call_id)
            if tool is None or tool.on_input_delta is None:
                return None
            kwargs = {"input_text_delta": event.input_text_delta, "tool_call_id": event.tool_call_id}
            return tool, "on_input_delta", tool.on_input_delta, {**kwargs, "tool_name": tool.id, **self._extra}
        if isinstance(event, ToolInputStart):
            tool = self._tools.get(event.tool_name)
            if tool is None or event.provider_executed:
                return None
            self._by_call[event.tool_call_id] = tool
            if tool.on_input_start is None:
                return None
            kwargs = {"tool_call_id": event.tool_call_id, "tool_name": tool.id}
            return tool, "on_input_start", tool.on_input_start, {**kwargs, **self._extra}
        if isinstance(event, ToolInputAvailable):
            tool = self._by_call.pop(event.tool_call_id, None)
            if tool is None or tool.on_input_available is None:
                return None
            kwargs = {"input": event.validated_input, "tool_call_id": event.tool_call_id, "tool_name": tool.id}
            return tool, "on_input_available", tool.on_input_available, {**kwargs, **self._extra}
        return None

    def fire_sync(self, events: list[Event]) -> None:
        """Fire the hooks for `events` in order (sync code)."""
        for event in events:
            pending = self._pending(event)
            if pending is not None:
                tool, name, hook, kwargs = pending
                call_hook_sync(tool.id, name, hook, **kwargs)

    async def fire_async(self, events: list[Event]) -> None:
        """Fire the hooks for `events` in order (async code)."""
        for event in events:
            pending = self._pending(event)
            if pending is not None:
                tool, name, hook, kwargs = pending
                await call_hook_async(tool.id, name, hook, **kwargs)
