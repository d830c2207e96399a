"""Specification of aborting a run: by signal, by cancelling its task, by closing its stream.

An abort closes the provider stream, sets every running tool's signal (sync tools too), fires no
more hooks, and leaves a conversation that takes a new prompt (unfinished calls answered as aborted).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished, TextPiece, ToolArgsPiece, ToolCallStarted
from toolwire.events import Abort, Finish
from toolwire.exceptions import ApprovalError
from toolwire.messages import AssistantMessage, TextPart, ToolMessage, UserMessage
from toolwire.runtime import AbortSignal, ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, ScriptedStream, answer, call, streamed_call
from toolwire.tools import Tool

ABORTED_TEXT = "The run was aborted (user stop) before tool {name!r} finished; it may be called again."


def _hooked(hooks: list[str]) -> Tool:
    return create_tool(
        id="lookup",
        description="Look up.",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        execute=lambda value: "found",
        on_input_start=lambda tool_call_id: hooks.append(f"start {tool_call_id}"),
        on_input_available=lambda tool_call_id: hooks.append(f"available {tool_call_id}"),
        on_output=lambda tool_call_id: hooks.append(f"output {tool_call_id}"),
    )


def _half_streamed() -> ScriptedStream:
    """Text, then a call whose input is cut by the abort (the stream holds before its arguments)."""
    return ScriptedStream(
        [
            TextPiece("t", "Let me look"),
            ToolCallStarted(key="c1", tool_call_id="c1", name="lookup"),
            ToolArgsPiece(key="c1", text='{"q": "x"}'),
            StepFinished("tool-calls"),
        ],
        hold_after=2,
    )


def _blocking_tool(started: threading.Event, observed: list[Any], finished: threading.Event) -> Tool:
    def execute(value: Any, context: ToolContext) -> str:
        started.set()
        observed.append(context.abort_signal.wait(timeout=30))
        observed.append(context.abort_signal.reason)
        finished.set()
        return "too late"

    return create_tool(
        id="slow", description="Slow.", execute=execute, on_output=lambda output: observed.append("on_output")
    )


def _abort_when(event: threading.Event, signal: AbortSignal, reason: str = "user stop") -> threading.Thread:
    def abort() -> None:
        assert event.wait(30)
        signal.abort(reason)

    thread = threading.Thread(target=abort)
    thread.start()
    return thread


class TestAbortDuringTheModelStream:
    def test_the_provider_stream_is_closed_and_no_more_hooks_fire(self) -> None:
        """The call that was streaming is dropped: `on_input_available` never fires for it."""
        hooks: list[str] = []
        stream = _half_streamed()
        agent = Agent(api=ScriptedAdapter([stream]), client=SCRIPTED_CLIENT, model="m", tools=[_hooked(hooks)])
        signal = AbortSignal()
        thread = _abort_when(stream.holding, signal)
        events = list(agent.stream("look it up", abort=signal))
        thread.join()
        assert stream.closed
        assert hooks == ["start c1"]
        assert events[-1] == Abort(reason="user stop")
        assert not any(isinstance(e, Finish) for e in events)

    def test_the_conversation_keeps_what_was_said_and_takes_a_new_prompt(self) -> None:
        """The partial answer is history; the cut call is not; the next run is a normal one."""
        stream = _half_streamed()
        adapter = ScriptedAdapter([stream, answer("Sure.")])
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_hooked([])])
        signal = AbortSignal()
        thread = _abort_when(stream.holding, signal)
        aborted = agent.run("look it up", abort=signal)
        thread.join()
        assert (aborted.aborted, aborted.paused) == (True, False)
        assert agent.run("never mind").text == "Sure."
        assert adapter.requests[1]["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "look it up"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me look"}]},
            {"role": "user", "content": [{"type": "text", "text": "never mind"}]},
        ]

    async def test_an_async_run_closes_its_stream_on_abort(self) -> None:
        """Same with the async client: the pending read is cancelled and the stream closed."""
        stream = _half_streamed()
        agent = Agent(api=ScriptedAdapter([stream]), client=SCRIPTED_CLIENT, model="m", tools=[_hooked([])])
        signal = AbortSignal()
        thread = _abort_when(stream.holding, signal)
        events = [e async for e in agent.astream("look it up", abort=signal)]
        thread.join()
        assert stream.closed
        assert events[-1] == Abort(reason="user stop")
        assert agent.result().aborted


class TestAbortWhileToolsRun:
    def test_a_sync_tool_sees_its_signal_and_the_call_is_answered_as_aborted(self) -> None:
        """The running thread hears the abort; its late return is discarded; no `on_output`."""
        started, finished, observed = threading.Event(), threading.Event(), []
        adapter = ScriptedAdapter([[call("c1", "slow", "{}"), StepFinished("tool-calls")], answer("ok")])
        agent = Agent(
            api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_blocking_tool(started, observed, finished)]
        )
        signal = AbortSignal()
        thread = _abort_when(started, signal)
        events = [e.to_dict() for e in agent.stream("go", abort=signal)]
        thread.join()
        assert finished.wait(30)
        assert observed == [True, "user stop"]
        assert events[-2:] == [
            {"type": "tool-output-error", "toolCallId": "c1", "errorText": "Tool 'slow' was aborted (user stop)."},
            {"type": "abort", "reason": "user stop"},
        ]
        tool_message = agent.messages[-1]
        assert isinstance(tool_message, ToolMessage)
        assert tool_message.content[0].output == {"type": "error-text", "value": "Tool 'slow' was aborted (user stop)."}
        assert agent.run("again").text == "ok"

    async def test_cancelling_the_arun_task_sets_a_sync_tools_signal(self) -> None:
        """The issue's case: task cancellation used to leave a sync tool running with its signal unset."""
        started, finished, observed = threading.Event(), threading.Event(), []
        adapter = ScriptedAdapter([[call("c1", "slow", "{}"), StepFinished("tool-calls")], answer("ok")])
        agent = Agent(
            api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_blocking_tool(started, observed, finished)]
        )
        task = asyncio.ensure_future(agent.arun("go"))
        assert await asyncio.to_thread(started.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(finished.wait, 30)
        assert observed == [True, "cancelled"]
        assert agent.result().aborted
        tool_message = agent.messages[-1]
        assert isinstance(tool_message, ToolMessage)
        assert tool_message.content[0].output == {
            "type": "error-text",
            "value": "The run was aborted (cancelled) before tool 'slow' finished; it may be called again.",
        }
        assert (await agent.arun("again")).text == "ok"

    def test_closing_the_stream_early_aborts_the_run(self) -> None:
        """A consumer that stops reading (a disconnected client) aborts; the next prompt is accepted."""
        adapter = ScriptedAdapter(
            [[TextPiece("t", "Hel"), TextPiece("t", "lo"), call("c1", "lookup", "{}"), StepFinished("x")], answer("ok")]
        )
        hooks: list[str] = []
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_hooked(hooks)])
        events = agent.stream("hi")
        assert next(e for e in events if e.type == "text-delta").delta == "Hel"  # type: ignore[union-attr]
        events.close()
        assert adapter.streams[0].closed
        assert agent.result().aborted
        assert hooks == []
        assert agent.run("again").text == "ok"
        assert adapter.requests[1]["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "Hel"}]}

    async def test_closing_an_async_stream_early_closes_the_provider_stream_at_once(self) -> None:
        """`aclose()` of `astream` mid-response closes the SDK stream before it returns, not when collected."""
        stream = ScriptedStream([TextPiece("t", "Hel"), call("c1", "lookup", "{}"), StepFinished("x")], hold_after=2)
        adapter = ScriptedAdapter([stream, answer("ok")])
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[_hooked([])])
        events = agent.astream("hi")
        seen = []
        async for event in events:
            seen.append(event.type)
            if event.type == "tool-input-available":
                break
        await events.aclose()  # type: ignore[attr-defined]
        assert seen[0] == "start-step"
        assert stream.closed
        assert agent.result().aborted
        assert (await agent.arun("again")).text == "ok"
        closed = ABORTED_TEXT.replace("user stop", "the stream was closed").format(name="lookup")
        assert adapter.requests[1]["messages"][2]["content"][0]["output"] == {"type": "error-text", "value": closed}

    def test_an_abort_while_resuming_stops_the_other_resumes_before_they_are_shown(self) -> None:
        """Two suspended calls resumed; the first aborts the run: the second is never announced as resumed."""
        agents: list[Agent] = []

        def ask(value: Any, context: ToolContext) -> str:
            if not context.resumed:
                context.suspend({"question": "Sure?"})
            agents[0].abort("user stop")
            return "answered"

        script = [[call("c1", "ask", "{}"), call("c2", "ask", "{}"), StepFinished("tool-calls")], answer("ok")]
        agents.append(Agent(api=ScriptedAdapter(script), client=SCRIPTED_CLIENT, model="m", tools=[_ask_tool(ask)]))
        agents[0].run("ask twice")
        agents[0].resume("c1", "yes")
        agents[0].resume("c2", "yes")
        events = [e.to_dict() for e in agents[0].stream()]
        assert [e["type"] for e in events] == ["tool-resumed", "tool-output-error", "tool-output-error", "abort"]
        assert events[2] == {
            "type": "tool-output-error",
            "toolCallId": "c2",
            "errorText": ABORTED_TEXT.format(name="ask"),
        }
        assert agents[0].run("again").text == "ok"


def _ask_tool(execute: Any) -> Tool:
    return create_tool(id="ask", description="Ask.", execute=execute)


class TestAbortApi:
    def test_hooks_and_tools_get_the_runs_signal_never_none(self) -> None:
        """`abort_signal=None` in hooks was the bug: every hook and execute gets a real signal."""
        signals: list[Any] = []
        tool = create_tool(
            id="lookup",
            description="Look up.",
            execute=lambda value, context: signals.append(context.abort_signal) or "found",
            on_input_start=lambda abort_signal: signals.append(abort_signal),
            on_input_available=lambda abort_signal: signals.append(abort_signal),
            on_output=lambda abort_signal: signals.append(abort_signal),
        )
        script = [[*streamed_call("c1", "lookup", ["{}"]), StepFinished("tool-calls")], answer("ok")]
        Agent(api=ScriptedAdapter(script), client=SCRIPTED_CLIENT, model="m", tools=[tool]).run("go")
        assert len(signals) == 4
        assert all(isinstance(s, AbortSignal) for s in signals)

    def test_agent_abort_stops_the_run_in_progress(self) -> None:
        """`agent.abort()` is the signal's shortcut (for a UI handler); False when nothing runs."""
        stream = _half_streamed()
        agent = Agent(api=ScriptedAdapter([stream]), client=SCRIPTED_CLIENT, model="m", tools=[_hooked([])])
        assert agent.abort() is False

        def abort() -> None:
            assert stream.holding.wait(30)
            assert agent.abort("user stop") is True

        thread = threading.Thread(target=abort)
        thread.start()
        events = list(agent.stream("look it up"))
        thread.join()
        assert events[-1] == Abort(reason="user stop")

    def test_an_aborted_signal_closes_a_paused_turn_so_a_new_prompt_is_accepted(self) -> None:
        """Calls waiting for approval are answered as aborted; their approval ids are spent."""
        delete = create_tool(id="delete", description="Delete.", require_approval=True, execute=lambda v: "deleted")
        adapter = ScriptedAdapter([[call("c1", "delete", "{}"), StepFinished("tool-calls")], answer("ok")])
        agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[delete])
        (request,) = agent.run("delete").pending_approvals
        signal = AbortSignal()
        signal.abort("user stop")
        result = agent.run(abort=signal)
        assert (result.aborted, result.paused, result.pending_approvals) == (True, False, [])
        aborted = agent.messages[-1]
        assert isinstance(aborted, ToolMessage)
        assert aborted.content[0].output == {"type": "error-text", "value": ABORTED_TEXT.format(name="delete")}
        with pytest.raises(ApprovalError, match="was already answered"):
            agent.approve(request.approval_id)
        assert agent.run("something else").text == "ok"
        assert [type(m) for m in agent.messages] == [
            UserMessage,
            AssistantMessage,
            ToolMessage,
            UserMessage,
            AssistantMessage,
        ]
        assert isinstance(agent.messages[-1].content[0], TextPart)  # type: ignore[union-attr]
