"""Specification of `await_interruptible`: awaiting in the caller's task, cut short by an abort signal."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolwire.runtime.abort import AbortSignal, Interrupted, await_interruptible


async def _value_at_once() -> str:
    return "ready"


async def _value_after_a_suspension() -> str:
    await asyncio.sleep(0)
    return "later"


class TestAwaitInterruptible:
    async def test_work_that_completes_without_suspending_returns_its_value_and_keeps_no_listener(self) -> None:
        """Nothing could interrupt it, so no listener is added to the signal."""
        signal = AbortSignal()
        assert await await_interruptible(_value_at_once(), signal) == "ready"
        assert signal._listeners == []

    async def test_work_that_suspends_returns_its_value_and_removes_its_listener(self) -> None:
        """The awaited work goes on in the caller's task until it returns."""
        signal = AbortSignal()
        assert await await_interruptible(_value_after_a_suspension(), signal) == "later"
        assert signal._listeners == []

    async def test_an_abort_during_the_await_cancels_the_work_and_raises_interrupted(self) -> None:
        """The work sees CancelledError; the caller gets Interrupted and its task is not left cancelling."""
        signal = AbortSignal()
        seen: list[str] = []

        async def work() -> None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        asyncio.get_running_loop().call_later(0.01, signal.abort, "stop")
        with pytest.raises(Interrupted):
            await await_interruptible(work(), signal)
        task = asyncio.current_task()
        assert task is not None
        assert (seen, task.cancelling()) == (["cancelled"], 0)

    async def test_an_abort_from_another_thread_interrupts_the_await(self) -> None:
        """Signals fire in any thread; the cancel is handed to the loop's thread."""
        signal = AbortSignal()
        started = threading.Event()

        async def work() -> None:
            started.set()
            await asyncio.Event().wait()

        def abort_once_started() -> None:
            assert started.wait(10)
            signal.abort("from a thread")

        thread = threading.Thread(target=abort_once_started)
        thread.start()
        with pytest.raises(Interrupted):
            await await_interruptible(work(), signal)
        thread.join()

    async def test_an_already_aborted_signal_raises_before_the_work_starts(self) -> None:
        """The coroutine is closed unstarted (no never-awaited warning) and a future is cancelled."""
        signal = AbortSignal()
        signal.abort("early")
        ran: list[str] = []

        async def work() -> None:
            ran.append("ran")

        with pytest.raises(Interrupted):
            await await_interruptible(work(), signal)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        with pytest.raises(Interrupted):
            await await_interruptible(future, signal)
        assert (ran, future.cancelled()) == ([], True)

    async def test_cancelling_the_callers_task_propagates_as_cancelled_error(self) -> None:
        """Only the signal's own cancel becomes Interrupted."""
        signal = AbortSignal()

        async def caller() -> None:
            await await_interruptible(asyncio.Event().wait(), signal)

        task = asyncio.ensure_future(caller())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert signal._listeners == []

    async def test_work_that_swallows_the_cancel_keeps_its_result(self) -> None:
        """As with a cancelled task that returns anyway: the value stands, the caller's task is not cancelling."""
        signal = AbortSignal()

        async def stubborn() -> str:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return "finished anyway"
            return "unreachable"

        asyncio.get_running_loop().call_later(0.01, signal.abort, "stop")
        assert await await_interruptible(stubborn(), signal) == "finished anyway"
        task = asyncio.current_task()
        assert task is not None
        assert task.cancelling() == 0
