"""Specification of abort signals and timeouts: running calls stop, and the model is told why."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.results import ToolResult
from toolwire.runtime import AbortSignal, ExecutionSettings, ToolContext, execute_tool

_CALL = {"toolCallId": "c1", "toolName": "slow", "input": {}}


async def _never_returns(value: Any, context: ToolContext) -> None:
    await asyncio.Event().wait()


SLOW = create_tool(id="slow", description="Never finishes.", execute=_never_returns)


async def _result(coroutine: Any) -> ToolResult:
    outcome = await coroutine
    assert isinstance(outcome, ToolResult)
    return outcome


class TestAbortSignal:
    def test_abort_sets_the_reason_and_notifies_listeners_once(self) -> None:
        """Listeners run on the first abort only; later aborts change nothing."""
        signal = AbortSignal()
        heard: list[str | None] = []
        signal.add_listener(heard.append)
        signal.abort("user stop")
        signal.abort("again")
        assert (signal.aborted, signal.reason, heard) == (True, "user stop", ["user stop"])

    def test_a_listener_added_after_the_abort_runs_at_once(self) -> None:
        """Late listeners are not left waiting forever."""
        signal = AbortSignal()
        signal.abort(None)
        heard: list[str | None] = []
        signal.add_listener(heard.append)
        assert heard == [None]

    def test_a_removed_listener_is_not_called(self) -> None:
        """The remover returned by add_listener detaches it."""
        signal = AbortSignal()
        heard: list[str | None] = []
        remove = signal.add_listener(heard.append)
        remove()
        signal.abort("x")
        assert heard == []

    def test_wait_returns_true_once_aborted_from_another_thread(self) -> None:
        """Sync tools can block on the signal."""
        signal = AbortSignal()
        threading.Thread(target=signal.abort, args=("stop",)).start()
        assert signal.wait(timeout=10) is True


class TestAbort:
    async def test_aborting_a_running_async_tool_gives_an_aborted_error_result(self) -> None:
        """The task is cancelled and the model reads why."""
        signal = AbortSignal()
        started = asyncio.Event()

        async def execute(value: Any, context: ToolContext) -> None:
            started.set()
            await asyncio.Event().wait()

        tool = create_tool(id="slow", description="Slow.", execute=execute)
        task = asyncio.ensure_future(execute_tool(tool, _CALL, abort=signal))
        await started.wait()
        signal.abort("user pressed stop")
        result = await _result(task)
        assert result.output == {"type": "error-text", "value": "Tool 'slow' was aborted (user pressed stop)."}
        assert isinstance(result.error, asyncio.CancelledError)

    async def test_a_call_aborted_before_it_starts_never_runs(self) -> None:
        """An already-aborted signal stops the call before execute."""
        ran: list[Any] = []
        signal = AbortSignal()
        signal.abort(None)
        tool = create_tool(id="slow", description="Slow.", execute=ran.append)
        result = await _result(execute_tool(tool, _CALL, abort=signal))
        assert ran == []
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'slow' was aborted before it ran (no reason given).",
        }

    async def test_a_cancelled_caller_is_not_turned_into_a_result(self) -> None:
        """Cancelling the task that awaits execute_tool propagates; only our own abort becomes a result."""
        task = asyncio.ensure_future(execute_tool(SLOW, _CALL))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    async def test_a_caller_cancelled_as_its_signal_fires_still_sees_the_cancellation(self) -> None:
        """The owner's cancel (an ASGI server's on disconnect) is not swallowed by the abort that came with it."""
        signal = AbortSignal()
        started = asyncio.Event()

        async def execute(value: Any, context: ToolContext) -> None:
            started.set()
            await asyncio.Event().wait()

        tool = create_tool(id="slow", description="Slow.", execute=execute)
        task = asyncio.ensure_future(execute_tool(tool, _CALL, abort=signal))
        await started.wait()
        signal.abort("the client left")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


class TestTimeout:
    async def test_a_timed_out_async_tool_gives_a_timeout_error_result(self) -> None:
        """The model is told the call took too long."""
        result = await _result(execute_tool(SLOW, _CALL, settings=ExecutionSettings(timeout=0.01)))
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'slow' timed out after 0.01 seconds; try a smaller request.",
        }
        assert isinstance(result.error, TimeoutError)

    async def test_a_sync_tool_sees_its_abort_signal_set_after_a_timeout(self) -> None:
        """A thread cannot be cancelled, so the signal tells a polling tool to stop."""
        observed: list[Any] = []
        finished = threading.Event()

        def execute(value: Any, context: ToolContext) -> None:
            observed.append(context.abort_signal.wait(timeout=30))
            observed.append(context.abort_signal.reason)
            finished.set()

        tool = create_tool(id="slow", description="Slow.", execute=execute)
        result = await _result(execute_tool(tool, _CALL, settings=ExecutionSettings(timeout=0.01)))
        assert result.output["value"] == "Tool 'slow' timed out after 0.01 seconds; try a smaller request."
        assert await asyncio.to_thread(finished.wait, 30)
        assert observed == [True, "timeout"]

    async def test_a_tool_within_its_timeout_returns_normally(self) -> None:
        """The timeout only applies when exceeded."""
        tool = create_tool(id="fast", description="Fast.", execute=lambda v: "done")
        result = await _result(execute_tool(tool, _CALL, settings=ExecutionSettings(timeout=30)))
        assert result.output == {"type": "text", "value": "done"}

    async def test_a_timeout_does_not_abort_the_callers_signal(self) -> None:
        """A timed-out call stops itself; a signal shared with other calls of the turn stays usable."""
        signal = AbortSignal()
        await execute_tool(SLOW, _CALL, abort=signal, settings=ExecutionSettings(timeout=0.01))
        assert signal.aborted is False

    async def test_a_timeout_in_one_call_does_not_abort_a_sibling_sharing_the_signal(self) -> None:
        """Parallel calls of one turn share the host's signal; one slow call must not stop the others."""
        signal = AbortSignal()
        sibling_started = asyncio.Event()
        release = asyncio.Event()

        async def sibling(value: Any, context: ToolContext) -> str:
            sibling_started.set()
            await release.wait()
            return "finished"

        other = create_tool(id="other", description="Other.", execute=sibling)
        running = asyncio.ensure_future(
            execute_tool(other, {"toolCallId": "c2", "toolName": "other", "input": {}}, abort=signal)
        )
        await sibling_started.wait()
        await execute_tool(SLOW, _CALL, abort=signal, settings=ExecutionSettings(timeout=0.01))
        release.set()
        result = await _result(running)
        assert result.output == {"type": "text", "value": "finished"}
