"""Specification of how the agent loop runs its steps: in the caller's thread and task, no task per event."""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool


def _agent(tool: Tool, steps: int = 3) -> Agent:
    script = [[call(f"c{i}", tool.id, "{}"), StepFinished("tool-calls")] for i in range(steps)]
    return Agent(api=ScriptedAdapter([*script, answer("done")]), client=SCRIPTED_CLIENT, model="m", tools=[tool])


def _recording(threads: list[str]) -> tuple[Tool, Tool]:
    async def async_tool(value: Any) -> str:
        threads.append(threading.current_thread().name)
        return "ok"

    def sync_tool(value: Any) -> str:
        threads.append(threading.current_thread().name)
        return "ok"

    return (
        create_tool(id="async_tool", description="Async.", execute=async_tool),
        create_tool(id="sync_tool", description="Sync.", execute=sync_tool),
    )


class TestSyncRuns:
    def test_an_async_tool_runs_in_the_callers_thread(self) -> None:
        """`run` drives its steps on an event loop of its own in this thread: no hop to another thread."""
        threads: list[str] = []
        async_tool, _ = _recording(threads)
        assert _agent(async_tool).run("go").text == "done"
        assert threads == [threading.current_thread().name] * 3

    def test_a_sync_tool_runs_in_a_worker_thread_so_an_abort_is_not_blocked_by_it(self) -> None:
        """Sync tools still run off the caller's thread (a stuck tool never holds the run's abort)."""
        threads: list[str] = []
        _, sync_tool = _recording(threads)
        assert _agent(sync_tool).run("go").text == "done"
        assert len(threads) == 3
        assert all(name.startswith("toolwire-tools") for name in threads)

    async def test_run_called_from_code_with_a_running_event_loop_still_runs_its_tools(self) -> None:
        """With a loop already running in this thread, the steps run on the hooks' loop thread instead."""
        threads: list[str] = []
        async_tool, _ = _recording(threads)
        assert _agent(async_tool).run("go").text == "done"
        assert threads == ["toolwire-hooks"] * 3


class TestAsyncRuns:
    async def test_tool_steps_create_no_task(self) -> None:
        """Model events and a lone call are awaited in the run's own task (the abort signal cancels it)."""
        threads: list[str] = []
        async_tool, _ = _recording(threads)
        agent = _agent(async_tool)
        created: list[Any] = []
        loop = asyncio.get_running_loop()

        def counting_factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
            created.append(coro)
            return asyncio.Task(coro, loop=loop, **kwargs)

        loop.set_task_factory(counting_factory)
        gc.disable()  # a collected async generator of an earlier test would be closed by a task of asyncio's
        try:
            result = await agent.arun("go")
        finally:
            gc.enable()
            loop.set_task_factory(None)
        assert (result.text, result.steps, created) == ("done", 4, [])
