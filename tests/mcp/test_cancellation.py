"""Specification of client cancellation: it aborts the served tool's `abort_signal`, on both protocol eras."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client

from toolwire import create_tool
from toolwire.mcp import build_server
from toolwire.runtime import ToolContext


class TestCancellation:
    async def test_client_cancellation_aborts_a_sync_tools_signal(self, connect: Callable[..., Client]) -> None:
        """A sync tool polling `abort_signal` learns the client gave up, and why."""
        started, stopped = threading.Event(), threading.Event()
        reasons: list[str | None] = []

        def slow(value: Any, context: ToolContext) -> str:
            started.set()
            if context.abort_signal.wait(timeout=30):
                reasons.append(context.abort_signal.reason)
            stopped.set()
            return "finished"

        server = build_server([create_tool(id="slow", description="d", execute=slow)], name="demo", version="1.0.0")
        async with connect(server) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "slow", {})
                await anyio.to_thread.run_sync(started.wait, 30)
                group.cancel_scope.cancel()
            await anyio.to_thread.run_sync(stopped.wait, 30)
        assert reasons == ["cancelled by the MCP client"]

    async def test_client_cancellation_cancels_an_async_tool_with_the_signal_already_set(
        self, connect: Callable[..., Client]
    ) -> None:
        """An async tool is cancelled, and its cleanup can already read the reason."""
        started, cleaned_up = asyncio.Event(), asyncio.Event()
        seen: list[tuple[bool, str | None]] = []

        async def slow(value: Any, context: ToolContext) -> str:
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                seen.append((context.abort_signal.aborted, context.abort_signal.reason))
                cleaned_up.set()
            return "never"

        server = build_server([create_tool(id="slow", description="d", execute=slow)], name="demo", version="1.0.0")
        async with connect(server) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "slow", {})
                await started.wait()
                group.cancel_scope.cancel()
            await cleaned_up.wait()
        assert seen == [(True, "cancelled by the MCP client")]
