"""The in-process runner of background calls: asyncio tasks, limits, timeouts, retries, cancellation.

See `toolwire.runtime.background` for what a background call is. Tasks run on the event loop of
the run that started them (`arun`: the caller's loop), or with `detached` — what a sync
`Agent.run` sets, its loop ending with the run — on toolwire's own loop thread. Everything here
is thread-safe: sync tools report progress from their own thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolwire._hooks import run_detached
from toolwire.events import BackgroundTaskProgress, Event
from toolwire.exceptions import ArgumentError
from toolwire.results import ToolCall, ToolResult
from toolwire.tools import BackgroundConfig, Tool

from .abort import AbortSignal
from .background import (
    BackgroundContext,
    BackgroundTask,
    TaskState,
    cancelled_result,
    ended,
    error_result_for,
    finished_event,
    lost_result,
    retryable,
    started_event,
)
from .execute import execute_tool

if TYPE_CHECKING:
    import concurrent.futures

    from .toolbox import Toolbox


@dataclass(slots=True)
class RunningTask:
    """A task a runner watches: its record, its tool, the signal that cancels it."""

    task: BackgroundTask
    tool: Tool
    signal: AbortSignal
    future: asyncio.Future[None] | concurrent.futures.Future[None] | None = None


class BackgroundTasks:
    """Runs background calls as asyncio tasks of this process; thread-safe.

    A task runs on the event loop of the run that started it (for a sync `Agent.run`, toolwire's
    own loop thread, so it outlives the call). Ended tasks wait in `collect()` until the agent
    puts their results into the conversation; events wait in `take_events()` (progress events
    of one task not yet taken are merged: only the latest is kept).
    """

    def __init__(self, *, max_concurrency: int = 4) -> None:
        if not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool) or max_concurrency < 1:
            raise ArgumentError("max_background_tasks", "a positive int", max_concurrency)
        self.max_concurrency = max_concurrency
        self.detached = False
        """Start tasks on toolwire's own loop thread, not the running loop (a sync run's loop ends with it)."""
        self._lock = threading.Lock()
        self._running: dict[str, RunningTask] = {}
        self._ended: list[BackgroundTask] = []
        self._events: list[Event] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._slots: dict[tuple[int, str], asyncio.Semaphore] = {}

    # -- what the agent reads ----------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """Whether a task runs or an ended one waits to be collected (a cheap check for the loop)."""
        return bool(self._running or self._ended or self._events)

    @property
    def running(self) -> list[BackgroundTask]:
        """Tasks still running, in start order."""
        with self._lock:
            return [r.task for r in self._running.values()]

    def take_events(self) -> list[Event]:
        """Events since the last call, in order."""
        with self._lock:
            events, self._events = self._events, []
        return events

    async def collect(self) -> list[BackgroundTask]:
        """Tasks that ended since the last call, in the order they ended (each returned once)."""
        with self._lock:
            ended_tasks, self._ended = self._ended, []
        return ended_tasks

    async def wait(self, signal: AbortSignal) -> None:
        """Until a task ends or reports progress, the signal fires, or no task runs."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._events or self._ended or not self._running:
                return
            self._waiters.append(waiter)
        remove = signal.add_listener(_waker(loop, waiter))
        try:
            await waiter
        finally:
            remove()
            with self._lock, contextlib.suppress(ValueError):
                self._waiters.remove(waiter)

    def cancel(self, task_id: str | None = None, reason: str | None = None) -> list[str]:
        """Cancel one running task (or all with no id); each ends as `cancelled`. Returns the ids cancelled.

        Raises:
            ArgumentError: no task with this id is running.
        """
        with self._lock:
            if task_id is None:
                chosen = list(self._running.values())
            elif task_id in self._running:
                chosen = [self._running[task_id]]
            else:
                running = ", ".join(self._running) or "none"
                raise ArgumentError("task_id", f"the id of a running background task (running: {running})", task_id)
        for entry in chosen:
            entry.signal.abort(reason or "cancelled")
        return [entry.task.task_id for entry in chosen]

    # -- running -----------------------------------------------------------------------------------

    def new_task_id(self) -> str:
        """A fresh task id."""
        return f"task_{secrets.token_urlsafe(9)}"

    async def launch(
        self, toolbox: Toolbox, tool: Tool, call: ToolCall, *, messages: Sequence[Any] | None = None
    ) -> BackgroundTask:
        """Start a call as a task on the running loop; returns at once."""
        task = BackgroundTask(task_id=self.new_task_id(), call=call)
        entry = RunningTask(task=task, tool=tool, signal=AbortSignal())
        with self._lock:
            self._running[task.task_id] = entry
            self._events.append(started_event(task))
        work = self._run(toolbox, entry, messages)
        entry.future = run_detached(work) if self.detached else asyncio.get_running_loop().create_task(work)
        self._notify()
        return task

    async def _run(self, toolbox: Toolbox, entry: RunningTask, messages: Sequence[Any] | None) -> None:
        task = entry.task
        try:
            status, result, attempts = await self.attempts(toolbox, entry.tool, task, entry.signal, messages)
        except asyncio.CancelledError:  # the loop running it is shutting down: it cannot finish
            entry.signal.abort("the event loop running it stopped")
            text = f"Background task {task.task_id} was cancelled (the event loop running it stopped)."
            status, result, attempts = "cancelled", error_result_for(task.call, text), task.attempts
        self.finish(dataclasses.replace(task, status=status, result=result, attempts=attempts), entry.tool)

    async def attempts(
        self,
        toolbox: Toolbox,
        tool: Tool,
        task: BackgroundTask,
        signal: AbortSignal,
        messages: Sequence[Any] | None,
    ) -> tuple[TaskState, ToolResult, int]:
        """Run the call until it succeeds, gives an answer, or its retries are spent."""
        config = tool.background or BackgroundConfig()
        settings = dataclasses.replace(toolbox.settings, timeout=config.timeout)
        delay = config.retry_delay
        attempt = 0
        while True:
            attempt += 1
            context = BackgroundContext(task.task_id, attempt, lambda data: self.progress(task, data))
            async with self._slot(tool):
                outcome = await execute_tool(
                    tool,
                    task.call,
                    request_context=toolbox.request_context,
                    abort=signal,
                    messages=messages,
                    settings=settings,
                    approved=True,  # approval, when required, came before the task started
                    run=toolbox.run_state,
                    background=context,
                )
            status, result = ended(outcome, signal, task)
            if attempt > config.retries or signal.aborted or not retryable(status, result):
                return status, result, attempt
            await _sleep(delay, signal)
            delay *= 2

    def progress(self, task: BackgroundTask, data: Any) -> None:
        """Note a progress report (thread-safe: sync tools report from their thread)."""
        call = task.call
        event = BackgroundTaskProgress(
            task_id=task.task_id, tool_call_id=call.tool_call_id, tool_name=call.tool_name, data=data
        )
        with self._lock:
            self._events = [
                e for e in self._events if not (isinstance(e, BackgroundTaskProgress) and e.task_id == task.task_id)
            ]
            self._events.append(event)
        self._notify()

    def finish(self, task: BackgroundTask, tool: Tool | None) -> None:
        """Note an ended task: its event now, its result for the next `collect()`."""
        with self._lock:
            self._running.pop(task.task_id, None)
            self._ended.append(task)
            self._events.append(finished_event(tool, task))
        self._notify()

    def _slot(self, tool: Tool) -> _Slots:
        loop = asyncio.get_running_loop()
        semaphores = [self._semaphore(loop, "", self.max_concurrency)]
        limit = tool.background.max_concurrency if tool.background is not None else None
        if limit is not None:
            semaphores.append(self._semaphore(loop, tool.id, limit))
        return _Slots(semaphores)

    def _semaphore(self, loop: asyncio.AbstractEventLoop, key: str, limit: int) -> asyncio.Semaphore:
        with self._lock:
            semaphore = self._slots.get((id(loop), key))
            if semaphore is None:
                semaphore = self._slots[(id(loop), key)] = asyncio.Semaphore(limit)
            return semaphore

    def _notify(self) -> None:
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody waits any more
                waiter.get_loop().call_soon_threadsafe(_settle, waiter)

    # -- persistence -------------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        """Running and uncollected tasks as JSON."""
        with self._lock:
            return {
                "running": [r.task.to_dict() for r in self._running.values()],
                "ended": [t.to_dict() for t in self._ended],
            }

    def abandon(self, reason: str) -> dict[str, Any]:
        """Cancel every running task and export the state a later run adopts: the run that would read them is over.

        The tasks running now are exported as `abandoned`, already `cancelled`: what the later run
        reads does not depend on whether a task noticed the cancellation before this export.
        """
        with self._lock:
            leaving = list(self._running.values())
            ended_tasks = [task.to_dict() for task in self._ended]
        for entry in leaving:
            entry.signal.abort(reason)
        abandoned = [
            dataclasses.replace(entry.task, status="cancelled", result=cancelled_result(entry.task, reason)).to_dict()
            for entry in leaving
        ]
        return {"running": [], "ended": ended_tasks, "abandoned": abandoned}

    def import_state(self, state: Mapping[str, Any], tools: Mapping[str, Tool]) -> None:
        """Restore `export_state` (or `abandon`) output: tasks that were running elsewhere end here as `lost`.

        Raises:
            ValueError: a task that cannot be read.
        """
        ended_tasks = [BackgroundTask.from_dict(item) for item in state.get("ended", [])]
        with self._lock:
            self._ended.extend(ended_tasks)  # their events were sent where they ended
        for item in state.get("running", []):
            task = BackgroundTask.from_dict(item)
            self.finish(
                dataclasses.replace(task, status="lost", result=lost_result(task)), tools.get(task.call.tool_name)
            )
        for item in state.get("abandoned", []):  # ended with the run that left them: their end is news here
            task = BackgroundTask.from_dict(item)
            self.finish(task, tools.get(task.call.tool_name))


class _Slots:
    """Holds every semaphore of a task for the duration of one attempt."""

    def __init__(self, semaphores: list[asyncio.Semaphore]) -> None:
        self._semaphores = semaphores

    async def __aenter__(self) -> None:
        for semaphore in self._semaphores:
            await semaphore.acquire()

    async def __aexit__(self, *_exc: object) -> None:
        for semaphore in reversed(self._semaphores):
            semaphore.release()


async def _sleep(seconds: float, signal: AbortSignal) -> None:
    """Wait before a retry; a cancellation ends the wait early."""
    loop = asyncio.get_running_loop()
    woken: asyncio.Future[None] = loop.create_future()
    remove = signal.add_listener(_waker(loop, woken))
    try:
        await asyncio.wait_for(woken, seconds)
    except TimeoutError:
        pass
    finally:
        remove()


def _waker(loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[None]) -> Callable[[str | None], None]:
    """An abort listener that settles `waiter` on its loop (from any thread)."""

    def wake(_reason: str | None) -> None:
        loop.call_soon_threadsafe(_settle, waiter)

    return wake


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
