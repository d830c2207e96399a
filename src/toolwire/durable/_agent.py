"""The agent inside a durable run: the same loop, with its model calls and tool units as DBOS steps.

`WorkflowAgent` changes only the seams the loop offers: `acall_model` runs the model call as a
step (streaming its events into the run's stream as they come, recording them for a replay),
`toolbox_class` is a `DurableToolbox`, `background_class` runs background calls as workflows
on a DBOS queue. Everything else — the loop, pauses, transcripts, transforms — is the agent's
own code, replayed deterministically from recorded step outcomes and received messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from dbos import DBOS, EnqueueOptions

from toolwire.agent import Agent, Run
from toolwire.agent._stream_view import StreamView
from toolwire.events import Event, from_dict
from toolwire.messages import message_to_dict
from toolwire.results import ToolCall
from toolwire.runtime import AbortSignal, BackgroundTask, BackgroundTasks, Toolbox
from toolwire.runtime.background import error_result_for, started_event
from toolwire.runtime.background_tasks import RunningTask
from toolwire.tools import Tool

from ._inbox import Inbox
from ._steps import DurableToolbox, in_thread
from ._stream import RunStream, StepWriter

if TYPE_CHECKING:
    from ._definition import DurableAgent

BACKGROUND_WORKFLOW = "toolwire.background_task"
_ACTIVE = ("PENDING", "ENQUEUED", "DELAYED")


class DurableBackground(BackgroundTasks):
    """Background calls as workflows on the agent's DBOS queue (its concurrency limit holds across workers).

    A task's id is its workflow id. A task outlives the run that started it: the runs after it
    find it in the conversation state, read its status, and deliver its result when it ended.
    The task tells the run that started it about its progress and its end (messages to its
    inbox); later runs see the end at their next look, at most `poll_interval` seconds late.
    """

    _definition: DurableAgent | None = None
    _run_id = ""
    _launched = 0
    _inbox: Inbox | None = None

    def bind(self, definition: DurableAgent, run_id: str, inbox: Inbox) -> None:
        """Tie the runner to its run."""
        self._definition, self._run_id, self._inbox = definition, run_id, inbox

    def new_task_id(self) -> str:
        """The next task id of the run (also its workflow id): the same on a replay."""
        self._launched += 1
        return f"{self._run_id}-task-{self._launched}"

    async def launch(
        self, toolbox: Toolbox, tool: Tool, call: ToolCall, *, messages: Sequence[Any] | None = None
    ) -> BackgroundTask:
        """Enqueue the call as a workflow (recorded: a replay does not enqueue it again)."""
        assert self._definition is not None
        task = BackgroundTask(task_id=self.new_task_id(), call=call)
        spec = {
            "runId": self._run_id,
            "taskId": task.task_id,
            "call": call.to_dict(),
            "runState": toolbox.run_state.values if toolbox.run_state is not None else {},
            "messages": [message_to_dict(m) for m in messages or ()],
        }
        queue = await self._definition.queue_for(tool)
        options: EnqueueOptions = {
            "queue_name": queue,
            "workflow_name": BACKGROUND_WORKFLOW,
            "workflow_id": task.task_id,
            "app_version": DBOS.application_version,
        }
        await DBOS.enqueue_workflow_with_options_async(options, self._definition.name, spec)
        self._adopt(task, tool, started=True)
        return task

    async def collect(self) -> list[BackgroundTask]:
        """Read the status of each running task (recorded); those that ended are collected."""
        for entry in list(self._running.values()):
            status = await DBOS.get_workflow_status_async(entry.task.task_id)
            if status is None or status.status in _ACTIVE:
                continue
            self.finish(_ended_task(entry.task, status.status, status.output, status.error), entry.tool)
        return await super().collect()

    async def wait(self, signal: AbortSignal) -> None:
        """Until a message arrives (a task's progress or end, an abort) or `poll_interval` passes."""
        if not self._running or self._inbox is None or self._definition is None:
            return
        await self._inbox.receive(self._definition.poll_interval, signal=signal)

    def note_progress(self, task_id: str, data: Any) -> None:
        """A task reported progress (through the inbox)."""
        entry = self._running.get(task_id)
        if entry is not None:
            self.progress(entry.task, data)

    def import_state(self, state: Mapping[str, Any], tools: Mapping[str, Tool]) -> None:
        """Tasks that were running still are: they live on the queue, not in a process."""
        for item in state.get("running", []):
            task = BackgroundTask.from_dict(item)
            self._adopt(task, tools.get(task.call.tool_name), started=False)
        super().import_state({"ended": state.get("ended", [])}, tools)

    def abandon(self, reason: str) -> dict[str, Any]:
        """The state as it is: tasks on the queue outlive the run that started them, so none is cancelled."""
        del reason
        return self.export_state()

    def _adopt(self, task: BackgroundTask, tool: Tool | None, *, started: bool) -> None:
        if tool is None:
            return  # the agent no longer has the tool: the task's end is read, but nothing runs here
        with self._lock:
            self._running[task.task_id] = RunningTask(task=task, tool=tool, signal=AbortSignal())
            if started:
                self._events.append(started_event(task))
        self._notify()


def _ended_task(task: BackgroundTask, status: str, output: Any, error: BaseException | None) -> BackgroundTask:
    """How a task workflow ended, as the task the model reads about."""
    if status == "SUCCESS" and isinstance(output, Mapping):
        return BackgroundTask.from_dict(output)
    if status == "CANCELLED":
        text = f"Background task {task.task_id} was cancelled before it finished."
        return dataclasses.replace(task, status="cancelled", result=error_result_for(task.call, text))
    why = f": {type(error).__name__}: {error}" if error is not None else f" (status {status})"
    text = f"Background task {task.task_id} failed{why}."
    return dataclasses.replace(task, status="failed", result=error_result_for(task.call, text))


class WorkflowAgent(Agent):
    """An `Agent` whose model calls and tool units are DBOS steps; run only inside the run workflow."""

    toolbox_class: ClassVar[type[Toolbox]] = DurableToolbox
    background_class: ClassVar[type[BackgroundTasks]] = DurableBackground
    toolbox: DurableToolbox
    background: DurableBackground

    def bind(self, definition: DurableAgent, run_id: str, secret: str, stream: RunStream) -> Inbox:
        """Tie the agent to its run; returns the run's inbox."""
        self.run_id = run_id
        self.run_stream = stream
        self.streamed_by_step = False
        """True while the loop yields events a model step already wrote to the stream."""
        self.inbox = Inbox(self, self._outbox.append)
        self.toolbox.bind(run_id, secret)
        self.background.bind(definition, run_id, self.inbox)
        return self.inbox

    def check_mode(self, method: str, asynchronous: bool) -> None:
        """A durable run drives a sync client too (from a worker thread inside the model step)."""

    def drain(self) -> list[Event]:
        """Events waiting to be written (the run is between two loops: paused, or answering)."""
        return list(self._drain())

    async def _next_turn(self, run: Run) -> bool:
        """Before each model call, read the inbox: an abort sent meanwhile ends the run here."""
        while (received := await self.inbox.receive(0, signal=run.signal)) != "none":
            if received == "abort":
                return False
        return await super()._next_turn(run)

    async def acall_model(self, request: dict[str, Any], signal: AbortSignal) -> AsyncIterator[Event]:
        """One model call as a step, recorded; its events reach the stream as the model streams them."""
        start = self.run_stream.offset
        recorded = await DBOS.run_step_async({"name": "toolwire.model"}, self._model_step, request, start)
        self.run_stream.offset = recorded["end"]
        self.streamed_by_step = True
        try:
            for data in recorded["events"]:
                yield from_dict(data)
        finally:
            self.streamed_by_step = False

    async def _model_step(self, request: dict[str, Any], start: int) -> dict[str, Any]:
        writer = StepWriter(self.run_id, start)
        await writer.open()
        view = StreamView(self.tools)
        events: list[dict[str, Any]] = []
        signal = AbortSignal()
        source = (
            super().acall_model(request, signal)
            if self._client_mode != "sync"
            else in_thread(lambda: super(WorkflowAgent, self).call_model(request, signal))
        )
        async for event in source:
            events.append(event.to_dict())
            shown = view.shown(event)
            if shown is not None:
                await writer.write(shown)
        await writer.close()
        return {"events": events, "end": writer.end}
