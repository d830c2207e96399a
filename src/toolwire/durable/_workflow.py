"""The two DBOS workflows: an agent run, and one background task.

A run is the agent loop (`WorkflowAgent.astream`) from its prompt until it finishes: every event
goes to the run's stream; when calls wait, the run writes `run-paused`, publishes what waits (the
`toolwire.status` event) and waits durably in `DBOS.recv` for answers, which any process may
send; then the loop continues. A run killed at any point replays from its recorded steps and
messages in whichever process recovers it, writing nothing twice and running nothing twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any

from dbos import DBOS

from toolwire.events import Error
from toolwire.messages import parse_messages
from toolwire.results import ToolCall
from toolwire.runtime import AbortSignal, BackgroundTask, BackgroundTasks, RunState, Toolbox

from ._agent import BACKGROUND_WORKFLOW, WorkflowAgent
from ._definition import DurableAgent, definition_named
from ._inbox import INBOX_TOPIC
from ._run import RUN_WORKFLOW, STATUS_KEY
from ._stream import RunPaused, RunStream

_DRAIN = 0.0
"""A `recv` timeout that only takes messages already there."""


@DBOS.workflow(name=RUN_WORKFLOW)
async def agent_run(agent_name: str, start: dict[str, Any]) -> dict[str, Any]:
    """One run of a durable agent; returns the conversation state it ends with."""
    definition = definition_named(agent_name)
    run_id = DBOS.workflow_id
    assert run_id is not None
    return await _Driver(definition, run_id, start).run()


class _Driver:
    """Runs the loop, writes its events, and waits for answers while calls wait."""

    def __init__(self, definition: DurableAgent, run_id: str, start: Mapping[str, Any]) -> None:
        self.definition = definition
        self.stream = RunStream()
        self.agent: WorkflowAgent = definition.workflow_agent()
        self.inbox = self.agent.bind(definition, run_id, str(start["secret"]), self.stream)
        if start.get("state") is not None:
            self.agent.import_state(start["state"])
        self.prompt = start.get("prompt")
        self.until_idle = bool(start.get("untilIdle"))

    async def run(self) -> dict[str, Any]:
        try:
            return await self._run()
        except Exception as exc:  # the run fails: readers learn it from the stream, DBOS records the error
            await self.stream.write(Error(error_text=f"the run failed: {type(exc).__name__}: {exc}"))
            await self._status({"state": "failed"})
            raise

    async def _run(self) -> dict[str, Any]:
        agent, prompt = self.agent, self.prompt
        abort: AbortSignal | None = None
        while True:
            async for event in agent.astream(prompt, abort=abort, until_idle=self.until_idle):
                if not agent.streamed_by_step:  # a model step wrote its events as they streamed
                    await self.stream.write(event)
            prompt = None
            result = agent.result()
            if not result.paused:
                break
            abort = await self._paused(result.pending_approvals, result.suspended, result.awaiting_outputs)
        await self._status({"state": "finished", "aborted": result.aborted})
        return agent.export_state()

    async def _paused(self, approvals: list[Any], suspended: list[Any], awaiting: list[Any]) -> AbortSignal | None:
        """Publish what waits, then apply messages until an answer or an abort came; the abort, if any."""
        paused = RunPaused(
            approvals=[a.approval_id for a in approvals],
            suspended=[s.tool_call_id for s in suspended],
            awaiting_outputs=[c.tool_call_id for c in awaiting],
        )
        await self._status(
            {
                "state": "paused",
                "approvals": paused.approvals,
                "suspended": paused.suspended,
                "awaitingOutputs": paused.awaiting_outputs,
            }
        )
        await self.stream.write(paused)
        signal = AbortSignal()
        received = "none"
        while received not in ("answer", "abort"):
            received = await self.inbox.receive(self.definition.pause_timeout, paused=True, signal=signal)
            await self._flush()
        while received != "abort" and (more := await self.inbox.receive(_DRAIN, paused=True, signal=signal)) != "none":
            received = more  # answers sent together are applied together
            await self._flush()
        await self._status({"state": "running"})
        return signal if received == "abort" else None

    async def _flush(self) -> None:
        for event in self.agent.drain():
            await self.stream.write(event)

    async def _status(self, status: dict[str, Any]) -> None:
        await DBOS.set_event_async(STATUS_KEY, {**status, "offset": self.stream.offset})


@DBOS.workflow(name=BACKGROUND_WORKFLOW)
async def background_task(agent_name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """One background call: its attempts as one step, then a word to the run that started it."""
    definition = definition_named(agent_name)
    call_data = spec["call"]
    call = ToolCall(
        tool_call_id=str(call_data["toolCallId"]),
        tool_name=str(call_data["toolName"]),
        input=call_data.get("input"),
        provider_metadata=call_data.get("providerMetadata"),
    )
    task = BackgroundTask(task_id=str(spec["taskId"]), call=call)
    runner = _TaskRunner(str(spec["runId"]))
    agent = definition.workflow_agent()
    toolbox = Toolbox(
        agent.tools,
        request_context=agent.toolbox.request_context,
        settings=agent.toolbox.settings,
        run=RunState(
            thread_id=agent.run_state.thread_id,
            resource_id=agent.run_state.resource_id,
            values=spec.get("runState") or {},
        ),
    )
    messages = parse_messages(spec.get("messages") or [], "messages")

    async def attempts() -> dict[str, Any]:
        tool = agent.tools[call.tool_name]
        status, result, count = await runner.attempts(toolbox, tool, task, AbortSignal(), messages)
        await runner.sent()
        return dataclasses.replace(task, status=status, result=result, attempts=count).to_dict()

    ended = await DBOS.run_step_async({"name": "toolwire.background", "preemptible": True}, attempts)
    await DBOS.send_async(runner.run_id, {"kind": "task-ended", "taskId": task.task_id}, INBOX_TOPIC)
    return ended


class _TaskRunner(BackgroundTasks):
    """Runs a task's attempts (the in-process runner's) inside its step; progress goes to the run's inbox."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id
        self._sends: list[asyncio.Future[None]] = []

    def progress(self, task: BackgroundTask, data: Any) -> None:
        """Send a progress report to the run (from the step: not recorded, as progress need not be)."""
        message = {"kind": "progress", "taskId": task.task_id, "data": data}
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a sync tool, in its worker thread
            DBOS.send(self.run_id, message, INBOX_TOPIC)
            return
        self._sends.append(asyncio.ensure_future(DBOS.send_async(self.run_id, message, INBOX_TOPIC)))

    async def sent(self) -> None:
        """Wait for the progress reports still being sent."""
        await asyncio.gather(*self._sends, return_exceptions=True)
