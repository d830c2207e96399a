"""Specification of background tool calls run in-process by an agent.

The model reads an acknowledgement at once; the task runs concurrently; its end is a
`background-task-finished` event and a user message the next model call reads (in the same run
with `until_idle=True`, otherwise in the next run). Timeouts, failures, cancellations and lost
tasks are error texts the model can read.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.events import Event
from toolwire.exceptions import ArgumentError, ToolError
from toolwire.messages import TextPart, UserMessage, message_to_dict
from toolwire.runtime import AbortSignal, BackgroundTask, Toolbox, ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool

TOPIC = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
ACK = (
    "Started in the background as task {task_id}. Its result will arrive in a later message; "
    "go on without waiting for it."
)


def _research(execute: Callable[..., Any], **background: Any) -> Tool:
    return create_tool(
        id="research",
        description="Research a topic.",
        input_schema=TOPIC,
        execute=execute,
        background=background or True,
    )


def _calls(*call_ids: str) -> list[Any]:
    return [*(call(c, "research", f'{{"topic": "{c}"}}') for c in call_ids), StepFinished("tool-calls")]


def _agent(script: list[Any], *tools: Tool, **options: Any) -> tuple[Agent, ScriptedAdapter]:
    adapter = ScriptedAdapter(script)
    return Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=list(tools), **options), adapter


def _follow(agent: Agent, adapter: ScriptedAdapter, gate: threading.Event) -> list[Event]:
    """Stream `go` until idle, opening `gate` once the model answered the acknowledgement.

    Tasks that wait on the gate end after that answer, so their results come as a follow-up turn.
    """
    events: list[Event] = []
    for event in agent.stream("go", until_idle=True):
        events.append(event)
        if event.type == "finish-step" and len(adapter.requests) == 2:
            gate.set()
    return events


def _after(gate: threading.Event, execute: Callable[..., Any]) -> Callable[..., Any]:
    """`execute` that first waits for the gate."""

    def gated(value: Any, context: ToolContext) -> Any:
        assert gate.wait(30)
        return execute(value, context)

    return gated


def _types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def _finished(events: list[Event]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events if e.type == "background-task-finished"]


def _last_user_text(agent: Agent) -> str:
    message = [m for m in agent.messages if isinstance(m, UserMessage)][-1]
    return "".join(p.text for p in message.content if isinstance(p, TextPart))


class TestAcknowledgement:
    def test_the_model_reads_an_acknowledgement_while_the_task_still_runs(self) -> None:
        """The call's result is the acknowledgement; the run ends while the task goes on."""
        gate = threading.Event()
        agent, adapter = _agent([_calls("c1"), answer("Started it.")], _research(lambda v: gate.wait(30) and "done"))
        result = agent.run("Research x")
        (task,) = result.background_tasks
        tool_message = adapter.requests[1]["messages"][-1]
        assert tool_message == {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "research",
                    "output": {"type": "text", "value": ACK.format(task_id=task.task_id)},
                }
            ],
        }
        assert (task.call.tool_call_id, task.status, result.text) == ("c1", "running", "Started it.")
        gate.set()

    def test_the_stream_shows_the_acknowledgement_and_a_started_event(self) -> None:
        """`tool-output-available` carries the acknowledgement (status, task id, text), then a started event."""
        gate = threading.Event()
        agent, _ = _agent([_calls("c1"), answer("ok")], _research(lambda v: gate.wait(30) and "done"))
        events = [e.to_dict() for e in agent.stream("go")]
        task_id = agent.background.running[0].task_id
        assert events[6:8] == [
            {
                "type": "tool-output-available",
                "toolCallId": "c1",
                "output": {"status": "running", "taskId": task_id, "message": ACK.format(task_id=task_id)},
            },
            {"type": "background-task-started", "taskId": task_id, "toolCallId": "c1", "toolName": "research"},
        ]
        gate.set()

    def test_a_template_acknowledgement_is_filled_in(self) -> None:
        """`{task_id}`, `{tool_name}` and `{tool_call_id}` are replaced."""
        gate = threading.Event()
        tool = _research(lambda v: gate.wait(30) and "done", acknowledgement="{tool_name} {tool_call_id} as {task_id}")
        agent, adapter = _agent([_calls("c1"), answer("ok")], tool)
        result = agent.run("go")
        output = adapter.requests[1]["messages"][-1]["content"][0]["output"]
        assert output == {"type": "text", "value": f"research c1 as {result.background_tasks[0].task_id}"}
        gate.set()

    def test_a_callable_acknowledgement_may_return_a_model_output(self) -> None:
        """The callable receives the task; a dict is a model output form."""
        gate = threading.Event()

        def acknowledge(task: BackgroundTask) -> dict[str, Any]:
            return {"type": "json", "value": {"queued": task.task_id}}

        tool = _research(lambda v: gate.wait(30) and "done", acknowledgement=acknowledge)
        agent, adapter = _agent([_calls("c1"), answer("ok")], tool)
        result = agent.run("go")
        output = adapter.requests[1]["messages"][-1]["content"][0]["output"]
        assert output == {"type": "json", "value": {"queued": result.background_tasks[0].task_id}}
        gate.set()

    def test_an_invalid_input_is_answered_at_once_and_starts_no_task(self) -> None:
        """Nothing could run it later: the model reads the input error in this turn."""
        agent, adapter = _agent(
            [[call("c1", "research", "{}"), StepFinished("tool-calls")], answer("ok")], _research(str)
        )
        result = agent.run("go")
        output = adapter.requests[1]["messages"][-1]["content"][0]["output"]
        assert output["type"] == "error-text"
        assert "topic" in output["value"]
        assert result.background_tasks == []

    def test_a_disabled_background_setting_runs_the_call_in_the_turn(self) -> None:
        """`enabled: False` keeps the tool in the foreground."""
        agent, adapter = _agent([_calls("c1"), answer("ok")], _research(lambda v: "done", enabled=False))
        agent.run("go")
        output = adapter.requests[1]["messages"][-1]["content"][0]["output"]
        assert output == {"type": "text", "value": "done"}

    async def test_a_toolbox_without_a_runner_runs_background_tools_in_the_turn(self) -> None:
        """Outside an agent there is no later turn to report in: the call just runs."""
        box = Toolbox([_research(lambda v: "done")])
        (result,) = await box.run([{"toolCallId": "c1", "toolName": "research", "input": {"topic": "x"}}])
        assert result.output == {"type": "text", "value": "done"}


class TestFollowUpTurn:
    def test_until_idle_answers_the_result_in_a_follow_up_turn_of_the_same_stream(self) -> None:
        """The run waits for the task, reports its end, and the model reads the result."""
        gate = threading.Event()
        agent, adapter = _agent(
            [_calls("c1"), answer("Started."), answer("Three pages.")],
            _research(lambda v: gate.wait(30) and {"pages": 3}),
        )
        events: list[Event] = []
        for event in agent.stream("Research x", until_idle=True):
            events.append(event)
            if event.type == "finish-step" and len(adapter.requests) == 2:
                gate.set()
        task_id = events[7].to_dict()["taskId"]
        assert _types(events)[14:] == [
            "background-task-finished",
            "start-step",
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "finish-step",
            "finish",
        ]
        assert _finished(events) == [
            {
                "type": "background-task-finished",
                "taskId": task_id,
                "toolCallId": "c1",
                "toolName": "research",
                "status": "completed",
                "output": {"pages": 3},
            }
        ]
        assert adapter.requests[2]["messages"][-1] == {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": f"[Background task {task_id}] Tool 'research' (call c1) completed."
                    + '\nResult: {"pages": 3}',
                }
            ],
        }
        assert agent.result().text == "Three pages."

    def test_without_until_idle_the_result_comes_before_the_next_prompt(self) -> None:
        """It ended before the user asked again: the next model call reads it first, then the prompt."""
        gate, done = threading.Event(), threading.Event()
        tool = _research(lambda v: gate.wait(30) and "found it")
        agent, adapter = _agent([_calls("c1"), answer("Started."), answer("It found it.")], tool)
        agent.background.finish = _signalling(agent.background.finish, done)  # type: ignore[method-assign]
        agent.run("Research x")
        gate.set()
        assert done.wait(30)
        agent.run("Anything new?")
        roles = [(m["role"], m["content"][0].get("text", "")[:20]) for m in adapter.requests[2]["messages"]]
        assert roles[-2:] == [("user", "[Background task tas"), ("user", "Anything new?")]
        assert [e["role"] for e in agent.transcript][-3:] == ["user", "user", "assistant"]
        assert agent.transcript[-3]["content"][0]["type"] == "background-task-result"

    def test_a_run_without_a_prompt_delivers_ended_tasks(self) -> None:
        """`run()` with no prompt continues the conversation with the results that came in."""
        gate, done = threading.Event(), threading.Event()
        agent, adapter = _agent(
            [_calls("c1"), answer("Started."), answer("Done.")], _research(lambda v: gate.wait(30) and "found")
        )
        agent.background.finish = _signalling(agent.background.finish, done)  # type: ignore[method-assign]
        agent.run("go")
        gate.set()
        assert done.wait(30)
        assert agent.run().text == "Done."
        assert adapter.requests[2]["messages"][-1]["content"][0]["text"].endswith("completed.\nResult: found")

    def test_the_transcript_entry_goes_through_the_transcript_transform(self) -> None:
        """A `background-task-result` part shows what the transcript may show of the output."""
        gate = threading.Event()
        tool = create_tool(
            id="research",
            description="R.",
            input_schema=TOPIC,
            execute=_after(gate, lambda v, c: {"summary": "ok", "secret": "s3"}),
            background=True,
            transform={"transcript": {"output": lambda output: {"summary": output["summary"]}}},
        )
        agent, adapter = _agent([_calls("c1"), answer("Started."), answer("Done.")], tool)
        _follow(agent, adapter, gate)
        (entry,) = [e for e in agent.transcript if e["content"][0]["type"] == "background-task-result"]
        task_id = entry["content"][0]["taskId"]
        assert entry == {
            "role": "user",
            "content": [
                {
                    "type": "background-task-result",
                    "toolCallId": "c1",
                    "toolName": "research",
                    "output": {"summary": "ok"},
                    "taskId": task_id,
                    "status": "completed",
                }
            ],
        }

    async def test_the_async_loop_follows_up_too(self) -> None:
        """`arun(until_idle=True)` waits on the caller's loop."""
        release = asyncio.Event()

        async def research(value: Any) -> str:
            await release.wait()
            return "async result"

        agent, adapter = _agent([_calls("c1"), answer("Started."), answer("Done.")], _research(research))
        running = asyncio.ensure_future(agent.arun("go", until_idle=True))
        while len(adapter.requests) < 2:
            await asyncio.sleep(0)
        release.set()
        result = await running
        assert result.text == "Done."
        assert adapter.requests[2]["messages"][-1]["content"][0]["text"].endswith("Result: async result")

    def test_progress_reports_stream_while_the_run_waits(self) -> None:
        """`context.background.progress(data)` is a `background-task-progress` event."""
        gate = threading.Event()

        def research(value: Any, context: ToolContext) -> str:
            context.background.progress({"done": 1, "of": 2})
            gate.wait(30)
            return "ok"

        agent, _ = _agent([_calls("c1"), answer("Started."), answer("Done.")], _research(research))
        seen: list[dict[str, Any]] = []
        for event in agent.stream("go", until_idle=True):
            if event.type == "background-task-progress":
                seen.append(event.to_dict())
                gate.set()
        assert [(e["toolCallId"], e["data"]) for e in seen] == [("c1", {"done": 1, "of": 2})]


class TestConcurrency:
    def test_parallel_background_calls_run_at_the_same_time(self) -> None:
        """Two calls of one turn: both tasks are running before either ends (their results may come one by one)."""
        both = threading.Barrier(2, timeout=30)

        def research(value: Any) -> str:
            both.wait()  # breaks (and fails the task) unless both run at once
            return f"about {value['topic']}"

        gate = threading.Event()
        tool = _research(_after(gate, lambda value, context: research(value)))
        agent, adapter = _agent(
            [_calls("c1", "c2"), answer("Started both."), answer("One done."), answer("Both done.")], tool
        )
        finished = _finished(_follow(agent, adapter, gate))
        assert sorted((e["toolCallId"], e["status"], e["output"]) for e in finished) == [
            ("c1", "completed", "about c1"),
            ("c2", "completed", "about c2"),
        ]
        results = [m for m in agent.export_state()["messages"] if m["role"] == "user"][1:]
        assert sorted(m["content"][0]["text"].split("\n")[1] for m in results) == [
            "Result: about c1",
            "Result: about c2",
        ]

    def test_the_agent_limit_queues_tasks_beyond_it(self) -> None:
        """With `max_background_tasks=1` the second task starts after the first ended."""
        order: list[str] = []

        def research(value: Any) -> str:
            order.append(f"start {value['topic']}")
            order.append(f"end {value['topic']}")
            return "ok"

        agent, _ = _agent(
            [_calls("c1", "c2"), answer("Started."), answer("Done."), answer("Done.")],
            _research(research),
            max_background_tasks=1,
        )
        agent.run("go", until_idle=True)
        assert order in (["start c1", "end c1", "start c2", "end c2"], ["start c2", "end c2", "start c1", "end c1"])

    def test_the_tool_limit_queues_its_own_tasks(self) -> None:
        """`max_concurrency` of the tool holds even under a larger agent limit."""
        running = 0
        most = 0
        lock = threading.Lock()

        def research(value: Any) -> str:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            with lock:
                running -= 1
            return "ok"

        agent, _ = _agent(
            [_calls("c1", "c2", "c3"), answer("Started."), *(answer("Done.") for _ in range(3))],
            _research(research, max_concurrency=1),
            max_background_tasks=3,
        )
        agent.run("go", until_idle=True)
        assert most == 1

    def test_a_non_positive_agent_limit_is_refused(self) -> None:
        """`max_background_tasks` names itself."""
        with pytest.raises(ArgumentError, match="max_background_tasks"):
            _agent([], _research(str), max_background_tasks=0)


class TestErrorsTheModelReads:
    def _ended(self, execute: Callable[..., Any], **background: Any) -> tuple[str, dict[str, Any]]:
        gate = threading.Event()
        agent, adapter = _agent(
            [_calls("c1"), answer("Started."), answer("Noted.")], _research(_after(gate, execute), **background)
        )
        (finished,) = _finished(_follow(agent, adapter, gate))
        return adapter.requests[2]["messages"][-1]["content"][0]["text"], finished

    def test_a_timeout_ends_the_attempt_as_timed_out(self) -> None:
        """The tool's `timeout` applies per attempt; the model reads that it timed out."""
        text, finished = self._ended(lambda v, c: c.abort_signal.wait(30), timeout=0.05)
        assert finished["status"] == "timed-out"
        assert text.endswith("timed out.\nError: Tool 'research' timed out after 0.05 seconds; try a smaller request.")

    def test_an_exception_ends_the_task_as_failed(self) -> None:
        """The error text names the exception."""

        def research(value: Any, context: ToolContext) -> str:
            raise ConnectionError("search engine down")

        text, finished = self._ended(research)
        assert finished["status"] == "failed"
        assert finished["errorText"] == "Tool 'research' failed: ConnectionError: search engine down"
        assert text.endswith("failed.\nError: Tool 'research' failed: ConnectionError: search engine down")

    def test_retries_run_again_after_a_failure(self) -> None:
        """Two failures then a success, with `retries=2`: completed after three attempts."""
        attempts: list[int] = []

        def research(value: Any, context: ToolContext) -> str:
            attempts.append(context.background.attempt)
            if len(attempts) < 3:
                raise ConnectionError("flaky")
            return "third time"

        _, finished = self._ended(research, retries=2, retry_delay=0)
        assert attempts == [1, 2, 3]
        assert (finished["status"], finished["output"]) == ("completed", "third time")

    def test_a_tool_error_is_an_answer_and_is_not_retried(self) -> None:
        """`ToolError` is the tool's own wording for the model."""
        attempts: list[int] = []

        def research(value: Any, context: ToolContext) -> str:
            attempts.append(1)
            raise ToolError("no results for this topic")

        text, _ = self._ended(research, retries=3, retry_delay=0)
        assert attempts == [1]
        assert text.endswith("failed.\nError: no results for this topic")

    def test_a_cancelled_task_ends_as_cancelled(self) -> None:
        """`agent.background.cancel(task_id, reason)` aborts its signal; the model reads why."""

        def research(value: Any, context: ToolContext) -> str:
            context.abort_signal.wait(30)
            return "too late"

        agent, adapter = _agent([_calls("c1"), answer("Started."), answer("Noted.")], _research(research))
        events: list[Event] = []
        for event in agent.stream("go", until_idle=True):
            events.append(event)
            if event.type == "finish-step" and len(adapter.requests) == 2:
                (task,) = agent.background.running
                assert agent.background.cancel(task.task_id, "the user changed topic") == [task.task_id]
        (finished,) = _finished(events)
        task_id = finished["taskId"]
        assert finished["status"] == "cancelled"
        assert adapter.requests[2]["messages"][-1]["content"][0]["text"] == (
            f"[Background task {task_id}] Tool 'research' (call c1) was cancelled.\n"
            f"Error: Background task {task_id} was cancelled (the user changed topic) before it finished."
        )

    def test_cancelling_an_unknown_task_names_the_running_ones(self) -> None:
        """A stale id is refused."""
        agent, _ = _agent([], _research(str))
        with pytest.raises(ArgumentError, match=r"running: none"):
            agent.background.cancel("task_nope")

    def test_a_suspend_in_the_background_is_a_failure(self) -> None:
        """No one could resume it: the model reads that it cannot wait for data."""
        text, finished = self._ended(lambda v, c: c.suspend({"q": "?"}))
        assert finished["status"] == "failed"
        assert "called suspend() in background task" in text


class TestAcrossProcesses:
    def test_a_task_still_running_at_export_is_lost_in_the_new_agent(self) -> None:
        """The new process cannot finish it: the model reads that it was lost and may call again."""
        gate = threading.Event()
        agent, _ = _agent([_calls("c1"), answer("Started.")], _research(lambda v: gate.wait(30) and "x"))
        agent.run("go")
        task_id = agent.background.running[0].task_id
        state = agent.export_state()
        gate.set()
        loaded, adapter = _agent([answer("I will retry.")], _research(str))
        loaded.import_state(state)
        loaded.run()
        assert adapter.requests[0]["messages"][-1]["content"][0]["text"] == (
            f"[Background task {task_id}] Tool 'research' (call c1) was lost.\n"
            f"Error: Background task {task_id} was lost: the process running it stopped before it finished. "
            "Call the tool again if its result is still needed."
        )

    def test_an_abandoned_task_ends_as_cancelled_in_the_agent_that_adopts_it(self) -> None:
        """A stopped run cancels its tasks: the next agent reads them as cancelled, whatever their threads do."""
        gate = threading.Event()
        agent, _ = _agent([_calls("c1"), answer("Started.")], _research(lambda v: gate.wait(30) and "x"))
        agent.run("go")
        (task,) = agent.background.running
        state = agent.background.abandon("the run that started it ended")  # the tool ignores the cancellation
        gate.set()
        loaded, adapter = _agent([answer("It was cancelled.")], _research(str))
        loaded.background.import_state(state, loaded.tools)
        events = list(loaded.stream("Any news?"))
        assert [item["taskId"] for item in state["abandoned"]] == [task.task_id]
        assert [(f["taskId"], f["status"]) for f in _finished(events)] == [(task.task_id, "cancelled")]
        assert adapter.requests[0]["messages"][-2]["content"][0]["text"] == (
            f"[Background task {task.task_id}] Tool 'research' (call c1) was cancelled.\n"
            f"Error: Background task {task.task_id} was cancelled (the run that started it ended) before it finished."
        )

    def test_abandoning_signals_each_running_task(self) -> None:
        """The tasks see the reason on their abort signal and may stop at once."""
        seen: list[str | None] = []

        started, noticed = threading.Event(), threading.Event()

        def research(value: Any, context: ToolContext) -> str:
            started.set()
            context.abort_signal.wait(30)
            seen.append(context.abort_signal.reason)
            noticed.set()
            return "stopped"

        agent, _ = _agent([_calls("c1"), answer("Started.")], _research(research))
        agent.run("go")
        assert started.wait(30)  # abandoned before it starts, a task ends without running its tool
        agent.background.abandon("the run that started it ended")
        assert noticed.wait(30)
        assert seen == ["the run that started it ended"]

    def test_an_ended_task_not_yet_delivered_survives_the_export(self) -> None:
        """Its result is part of the state: the new agent delivers it."""
        gate, done = threading.Event(), threading.Event()
        agent, _ = _agent([_calls("c1"), answer("Started.")], _research(lambda v: gate.wait(30) and "kept"))
        agent.background.finish = _signalling(agent.background.finish, done)  # type: ignore[method-assign]
        agent.run("go")
        gate.set()
        assert done.wait(30)
        state = agent.export_state()
        loaded, adapter = _agent([answer("ok")], _research(str))
        loaded.import_state(state)
        loaded.run()
        assert adapter.requests[0]["messages"][-1]["content"][0]["text"].endswith("completed.\nResult: kept")


class TestApprovalAndAbort:
    def test_a_background_tool_requiring_approval_starts_once_approved(self) -> None:
        """The approval comes first; the task starts when the run continues."""
        tool = create_tool(
            id="research",
            description="R.",
            input_schema=TOPIC,
            execute=lambda v: "approved work",
            background=True,
            require_approval=True,
        )
        agent, adapter = _agent([_calls("c1"), answer("Started."), answer("Done.")], tool)
        paused = agent.run("go")
        assert paused.paused
        assert paused.background_tasks == []
        agent.approve(paused.pending_approvals[0].approval_id)
        agent.run(until_idle=True)
        assert adapter.requests[-1]["messages"][-1]["content"][0]["text"].endswith("Result: approved work")

    def test_an_abort_stops_the_wait_but_not_the_task(self) -> None:
        """The run ends with `abort`; the task belongs to the conversation and keeps running."""
        gate = threading.Event()
        agent, _ = _agent([_calls("c1"), answer("Started.")], _research(lambda v: gate.wait(30) and "x"))
        signal = AbortSignal()
        events: list[Event] = []
        for event in agent.stream("go", until_idle=True, abort=signal):
            events.append(event)
            if event.type == "finish-step" and len(events) > 10:
                signal.abort("enough")
        assert _types(events)[-1] == "abort"
        assert [t.status for t in agent.background.running] == ["running"]
        gate.set()


def _signalling(finish: Callable[..., None], done: threading.Event) -> Callable[..., None]:
    """Wrap the runner's `finish` to learn when a task ended (no sleeping in tests)."""

    def wrapped(task: BackgroundTask, tool: Tool | None) -> None:
        finish(task, tool)
        done.set()

    return wrapped


def test_messages_of_a_run_serialize() -> None:
    """Delivered results are plain user messages: the history stays JSON."""
    gate = threading.Event()
    agent, adapter = _agent(
        [_calls("c1"), answer("Started."), answer("Done.")], _research(_after(gate, lambda v, c: "x"))
    )
    _follow(agent, adapter, gate)
    assert [message_to_dict(m)["role"] for m in agent.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
