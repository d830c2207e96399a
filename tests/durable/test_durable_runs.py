"""Specification of durable runs in one process (DBOS on SQLite): the stream, pauses and answers, background tasks.

A durable run streams what `Agent.stream` yields (plus `run-paused` where it waits), waits for
answers sent through `DurableRun`, refuses answers nothing waits for, and runs background calls
on a DBOS queue, delivering their results as the in-process runner does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from dbos import DBOS

from toolwire import Agent, create_tool
from toolwire.deltas import Delta, StepFinished
from toolwire.durable import DurableAgent, DurableRun, RunPaused, dbos_config, ui_chunks, ui_message_id
from toolwire.exceptions import ApprovalError, ConfigurationError, ResumeError
from toolwire.runtime import ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call, streamed_call
from toolwire.tools import Tool

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TIME = {"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]}


@pytest.fixture(scope="module", autouse=True)
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """DBOS in this process, on a SQLite file of its own."""
    folder = tmp_path_factory.mktemp("dbos")
    url = f"sqlite:///{folder / 'dbos.sqlite'}"
    DBOS(
        config=dbos_config("toolwire-tests", url, log_level="WARNING", notification_listener_polling_interval_sec=0.02)
    )
    DBOS.launch()
    yield
    DBOS.destroy()


@pytest.fixture
def define(request: pytest.FixtureRequest) -> Iterator[Callable[..., DurableAgent]]:
    """Define agents named after the test (forgotten afterwards)."""
    made: list[DurableAgent] = []

    def make(script: list[Any], tools: list[Tool], **options: Any) -> DurableAgent:
        name = f"{request.node.name}-{len(made)}".replace("[", "-").replace("]", "")
        agent = DurableAgent(
            name, api=ScriptedAdapter(script, by_turn=True), client=SCRIPTED_CLIENT, model="m", tools=tools, **options
        )
        made.append(agent)
        return agent

    yield make
    for agent in made:
        agent.forget()


def _weather() -> Tool:
    return create_tool(
        id="weather",
        description="Weather.",
        input_schema=CITY,
        execute=lambda v: {"city": v["city"], "temperature": 18, "api_key": "secret"},
        transform={"display": {"output": lambda output: {"city": output["city"]}}},
    )


def _book() -> Tool:
    def book(value: dict[str, Any], context: ToolContext) -> str:
        if not context.resumed:
            context.suspend({"question": "Which time?"})
        return f"booked {value['city']} at {context.resume_data['time']}"

    return create_tool(id="book", description="Book.", input_schema=CITY, execute=book, resume_schema=TIME)


def _delete() -> Tool:
    return create_tool(
        id="delete", description="Delete.", input_schema=CITY, execute=lambda v: "deleted", require_approval=True
    )


def _pick() -> Tool:
    return create_tool(id="pick", description="The user picks a city.", input_schema=CITY)


def _turns(*calls: Delta) -> list[list[Delta]]:
    return [[*calls, StepFinished("tool-calls")], answer("All set.")]


def _segment(run: DurableRun, offset: int) -> tuple[list[dict[str, Any]], int]:
    """Entries from `offset` up to the next pause or the end; and the offset after them."""
    entries = [item.event.to_dict() for item in run.events(offset, timeout=30)]
    return entries, offset + len(entries)


def _ids_hidden(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "approvalId": "id"} if "approvalId" in e else e for e in events]


class TestTheStream:
    def test_a_run_streams_what_the_agent_streams_then_its_end(self, define: Callable[..., DurableAgent]) -> None:
        """Display transforms applied, one `finish`; offsets count from 0."""
        script = _turns(call("c1", "weather", '{"city": "Paris"}'))
        durable = define(script, [_weather()])
        run = durable.start("Weather?")
        entries = list(run.events(until="end", timeout=30))
        plain = Agent(api=ScriptedAdapter(script, by_turn=True), client=SCRIPTED_CLIENT, model="m", tools=[_weather()])
        assert [i.offset for i in entries] == list(range(len(entries)))
        assert [i.event.to_dict() for i in entries] == [e.to_dict() for e in plain.stream("Weather?")]
        assert {"type": "tool-output-available", "toolCallId": "c1", "output": {"city": "Paris"}} in [
            i.event.to_dict() for i in entries
        ]
        assert run.result().text == "All set."

    def test_hidden_input_deltas_stay_hidden_as_in_the_agent_stream(self, define: Callable[..., DurableAgent]) -> None:
        """An `input` display transform hides the deltas in the durable stream too (written by the model step)."""
        secret = create_tool(
            id="secret",
            description="S.",
            input_schema=CITY,
            execute=lambda v: "ok",
            transform={"display": {"input": lambda input: {"city": "***"}}},
        )
        script = _turns(*streamed_call("c1", "secret", ['{"city": ', '"Paris"}']))
        durable = define(script, [secret])
        entries = [item.event.to_dict() for item in durable.start("Go").events(until="end", timeout=30)]
        plain = Agent(api=ScriptedAdapter(script, by_turn=True), client=SCRIPTED_CLIENT, model="m", tools=[secret])
        assert entries == [e.to_dict() for e in plain.stream("Go")]
        assert [e for e in entries if e["type"] == "tool-input-delta"] == []
        assert {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "secret",
            "input": {"city": "***"},
        } in entries

    def test_a_sync_client_streams_from_a_worker_thread(self, define: Callable[..., DurableAgent]) -> None:
        """An agent given a sync SDK client runs its model calls in a thread inside the step."""

        class SyncOnly(ScriptedAdapter):
            def client_mode(self, client: Any) -> Any:
                return "sync"

        script = _turns(call("c1", "weather", '{"city": "Paris"}'))
        durable = DurableAgent(
            "sync-client-test",
            api=SyncOnly(script, by_turn=True),
            client=SCRIPTED_CLIENT,
            model="m",
            tools=[_weather()],
        )
        try:
            run = durable.start("Weather?")
            assert [item.event.type for item in run.events(until="end", timeout=30)][-1] == "finish"
            assert run.result().text == "All set."
        finally:
            durable.forget()

    def test_a_failing_run_says_so_in_its_stream(self, define: Callable[..., DurableAgent]) -> None:
        """A model call that raises ends the stream with an `error` entry; the run's end raises."""
        durable = define([], [])
        run = durable.start("Hi")
        last = [item.event.to_dict() for item in run.events(until="end", timeout=30)][-1]
        assert last == {
            "type": "error",
            "errorText": "the run failed: AssertionError: the script has no response for turn 0",
        }
        assert run.status() == {"state": "failed", "offset": 2}
        with pytest.raises(ConfigurationError, match=f"durable run '{run.run_id}' did not finish"):
            run.final_state()

    def test_a_reader_resumes_from_an_offset_without_a_repeat(self, define: Callable[..., DurableAgent]) -> None:
        """Reading from `offset` gives exactly the entries from there."""
        durable = define(_turns(call("c1", "weather", '{"city": "Paris"}')), [_weather()])
        run = durable.start("Weather?")
        everything = [item.event.to_dict() for item in run.events(until="end", timeout=30)]
        assert [item.event.to_dict() for item in run.events(5, until="end", timeout=30)] == everything[5:]

    def test_a_run_after_another_continues_its_conversation(self, define: Callable[..., DurableAgent]) -> None:
        """`after=` starts from the state the earlier run ended with."""
        durable = define([answer("Hello."), answer("Still here.")], [])
        first = durable.start("Hi")
        second = durable.start("And now?", after=first)
        result = second.result()
        assert [m.role for m in result.messages] == ["user", "assistant", "user", "assistant"]
        assert result.text == "Still here."


class TestPausesAndAnswers:
    def test_an_approval_pauses_the_run_until_it_is_answered(self, define: Callable[..., DurableAgent]) -> None:
        """`run-paused` names the approval; `approve` continues the run; the events match the agent's."""
        script = _turns(call("c1", "delete", '{"city": "Paris"}'))
        durable = define(script, [_delete()])
        run = durable.start("Delete Paris")
        first, offset = _segment(run, 0)
        (approval_id,) = first[-1]["approvals"]
        assert first[-1] == RunPaused(approvals=[approval_id]).to_dict()
        assert run.status() == {
            "state": "paused",
            "approvals": [approval_id],
            "suspended": [],
            "awaitingOutputs": [],
            "offset": offset - 1,
        }
        run.approve(approval_id)
        second, _ = _segment(run, offset)
        plain = Agent(api=ScriptedAdapter(script, by_turn=True), client=SCRIPTED_CLIENT, model="m", tools=[_delete()])
        expected = [e.to_dict() for e in plain.stream("Delete Paris")]
        plain.approve(plain.result().pending_approvals[0].approval_id)
        expected += [e.to_dict() for e in plain.stream()]
        assert _ids_hidden(first[:-1] + second) == _ids_hidden(expected)
        assert run.result().text == "All set."

    def test_a_denied_call_is_execution_denied_for_the_model(self, define: Callable[..., DurableAgent]) -> None:
        """`deny` with a reason: the model reads it."""
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        first, _ = _segment(run, 0)
        run.deny(first[-1]["approvals"][0], "not today")
        tool_message = run.result().messages[2]
        assert [r.output for r in tool_message.content] == [{"type": "execution-denied", "reason": "not today"}]  # type: ignore[union-attr]

    def test_an_answer_nothing_waits_for_is_refused_before_it_is_sent(
        self, define: Callable[..., DurableAgent]
    ) -> None:
        """The run's status says what waits: a forged approval id or an unknown call id raise."""
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        _segment(run, 0)
        with pytest.raises(ApprovalError, match="does not wait for 'approval_forged'"):
            run.approve("approval_forged")
        with pytest.raises(ResumeError, match="does not wait for 'c9'"):
            run.resume("c9", {})
        run.abort("cleanup")

    def test_an_answer_sent_anyway_is_refused_in_the_stream_and_the_run_still_waits(
        self, define: Callable[..., DurableAgent]
    ) -> None:
        """A forged id reaching the run: an `error` entry, then `run-paused` again; the real id still works."""
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        first, offset = _segment(run, 0)
        DBOS.send(run.run_id, {"kind": "approve", "approvalId": "approval_forged"}, "toolwire.inbox")
        second, offset = _segment(run, offset)
        assert second[0] == {
            "type": "error",
            "errorText": "answer refused: no tool call waits for approval 'approval_forged'",
        }
        assert second[-1] == first[-1]
        run.approve(first[-1]["approvals"][0])
        assert run.result().text == "All set."

    def test_a_suspended_call_resumes_with_valid_data_only(self, define: Callable[..., DurableAgent]) -> None:
        """Data failing `resume_schema`: `tool-resume-error`, still suspended; then valid data runs it."""
        durable = define(_turns(call("c1", "book", '{"city": "Paris"}')), [_book()])
        run = durable.start("Book Paris")
        first, offset = _segment(run, 0)
        assert first[-1] == RunPaused(suspended=["c1"]).to_dict()
        run.resume("c1", {"time": 9})
        second, offset = _segment(run, offset)
        assert [e["type"] for e in second] == ["tool-resume-error", "run-paused"]
        run.resume("c1", {"time": "09:00"})
        result = run.result()
        assert [r.output for r in result.messages[2].content] == [{"type": "text", "value": "booked Paris at 09:00"}]  # type: ignore[union-attr]

    def test_a_call_to_a_tool_without_execute_waits_for_its_output(self, define: Callable[..., DurableAgent]) -> None:
        """`supply_output` gives the output the front end produced."""
        durable = define(_turns(call("c1", "pick", '{"city": "?"}')), [_pick()])
        run = durable.start("Pick one")
        first, _ = _segment(run, 0)
        assert first[-1] == RunPaused(awaiting_outputs=["c1"]).to_dict()
        run.supply_output("c1", "Lyon")
        assert [r.output for r in run.result().messages[2].content] == [{"type": "text", "value": "Lyon"}]  # type: ignore[union-attr]

    def test_an_abort_while_paused_answers_the_calls_as_aborted(self, define: Callable[..., DurableAgent]) -> None:
        """The run ends with `abort`; the conversation takes a new prompt."""
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        _, offset = _segment(run, 0)
        run.abort("the user left")
        rest = [item.event.to_dict() for item in run.events(offset, until="end", timeout=30)]
        assert rest[-1] == {"type": "abort", "reason": "the user left"}
        result = run.result()
        assert result.aborted
        assert not result.paused

    def test_an_abort_while_running_stops_before_the_next_model_call(self, define: Callable[..., DurableAgent]) -> None:
        """The run reads its inbox before each model call: the second one never happens."""
        started, release = threading.Event(), threading.Event()

        def slow(value: Any) -> str:
            started.set()
            assert release.wait(30)
            return "late"

        tool = create_tool(id="slow", description="Slow.", input_schema=CITY, execute=slow)
        durable = define(_turns(call("c1", "slow", '{"city": "Paris"}')), [tool])
        run = durable.start("Go")
        assert started.wait(30)
        run.abort("stop now")
        release.set()
        events = [item.event.to_dict() for item in run.events(until="end", timeout=30)]
        assert [e["type"] for e in events][-2:] == ["tool-output-available", "abort"]
        assert [e["type"] for e in events].count("start-step") == 1


def _research_call() -> list[Delta]:
    return [call("c1", "research", '{"city": "Paris"}'), StepFinished("tool-calls")]


class TestBackgroundOnTheQueue:
    def _research(self, gate: threading.Event) -> Tool:
        def research(value: dict[str, Any], context: ToolContext) -> dict[str, Any]:
            context.background.progress({"step": 1})
            assert gate.wait(30)
            return {"city": value["city"], "pages": 3}

        return create_tool(id="research", description="R.", input_schema=CITY, execute=research, background=True)

    def test_a_background_call_runs_as_a_workflow_and_follows_up_in_the_same_run(
        self, define: Callable[..., DurableAgent]
    ) -> None:
        """Acknowledged at once; progress and end in the stream; the result is read in a follow-up turn."""
        gate = threading.Event()
        script = [
            [call("c1", "research", '{"city": "Paris"}'), StepFinished("tool-calls")],
            answer("On it."),
            answer("3."),
        ]
        durable = define(script, [self._research(gate)], poll_interval=0.05)
        run = durable.start("Research Paris", until_idle=True)
        seen: list[dict[str, Any]] = []
        for item in run.events(until="end", timeout=30):
            seen.append(item.event.to_dict())
            if seen[-1]["type"] == "background-task-progress":
                gate.set()
        task_id = f"{run.run_id}-task-1"
        assert [e for e in seen if e["type"].startswith("background-task-")] == [
            {"type": "background-task-started", "taskId": task_id, "toolCallId": "c1", "toolName": "research"},
            {
                "type": "background-task-progress",
                "taskId": task_id,
                "toolCallId": "c1",
                "toolName": "research",
                "data": {"step": 1},
            },
            {
                "type": "background-task-finished",
                "taskId": task_id,
                "toolCallId": "c1",
                "toolName": "research",
                "status": "completed",
                "output": {"city": "Paris", "pages": 3},
            },
        ]
        result = run.result()
        assert result.text == "3."
        assert result.messages[-2].content[0].text == (  # type: ignore[union-attr]
            f"[Background task {task_id}] Tool 'research' (call c1) completed.\n"
            'Result: {"city": "Paris", "pages": 3}'
        )
        assert DBOS.get_workflow_status(task_id).status == "SUCCESS"  # type: ignore[union-attr]

    def test_a_task_still_running_is_delivered_by_a_later_run(self, define: Callable[..., DurableAgent]) -> None:
        """The task outlives its run; the next run reads its end before its prompt."""
        gate = threading.Event()
        script = [
            [call("c1", "research", '{"city": "Paris"}'), StepFinished("tool-calls")],
            answer("On it."),
            answer("3."),
        ]
        durable = define(script, [self._research(gate)])
        first = durable.start("Research Paris")
        assert [t.status for t in first.result().background_tasks] == ["running"]
        gate.set()
        DBOS.retrieve_workflow(f"{first.run_id}-task-1").get_result()
        result = durable.start("Any news?", after=first).result()
        assert [m.role for m in result.messages][-3:] == ["user", "user", "assistant"]
        assert result.messages[-3].content[0].text.startswith(f"[Background task {first.run_id}-task-1]")  # type: ignore[union-attr]
        assert result.background_tasks == []

    def test_a_cancelled_task_is_read_as_cancelled(self, define: Callable[..., DurableAgent]) -> None:
        """`cancel_task` cancels its workflow; the waiting run reads why at once."""
        gate = threading.Event()
        script = [
            [call("c1", "research", '{"city": "Paris"}'), StepFinished("tool-calls")],
            answer("On it."),
            answer("Ok."),
        ]
        durable = define(script, [self._research(gate)])
        run = durable.start("Research Paris", until_idle=True)
        for item in run.events(until="end", timeout=30):
            if item.event.type == "background-task-progress":
                run.cancel_task(f"{run.run_id}-task-1")
        gate.set()
        text = run.result().messages[-2].content[0].text  # type: ignore[union-attr]
        assert text == (
            f"[Background task {run.run_id}-task-1] Tool 'research' (call c1) was cancelled.\n"
            f"Error: Background task {run.run_id}-task-1 was cancelled before it finished."
        )


def test_approval_ids_repeat_with_the_run_secret_only() -> None:
    """A replay gets the same ids; another run (another secret) gets others; they are not derived from calls."""
    from toolwire.durable._steps import DurableToolbox

    def ids(run_id: str, secret: str) -> list[str]:
        box = DurableToolbox([])
        box.bind(run_id, secret)
        return [box.new_approval_id(), box.new_approval_id()]

    assert ids("run-1", "s3cret") == ids("run-1", "s3cret")
    assert set(ids("run-1", "s3cret")).isdisjoint(ids("run-1", "other"))
    assert all(i.startswith("approval_") and len(i) == 31 for i in ids("run-1", "s3cret"))


def test_a_retried_model_step_skips_what_it_wrote_and_voids_what_differs(tmp_path: Path) -> None:
    """An earlier attempt wrote a, b, x; the retry writes a, b, c, d: the stream gets a, b, x, step-retried, c, d."""
    from toolwire.durable._stream import STREAM_KEY, StepWriter
    from toolwire.events import TextDelta

    @DBOS.workflow(name="toolwire-test.step-writer")
    async def retried() -> int:
        run_id = DBOS.workflow_id
        assert run_id is not None

        async def earlier_attempt() -> None:
            for text in ("a", "b", "x"):
                await DBOS.write_stream_async(STREAM_KEY, TextDelta(id="t", delta=text).to_dict())

        await DBOS.run_step_async({"name": "earlier"}, earlier_attempt)

        async def retry() -> int:
            writer = StepWriter(run_id, 0)
            await writer.open()
            for text in ("a", "b", "c", "d"):
                await writer.write(TextDelta(id="t", delta=text))
            await writer.close()
            return writer.end

        return await DBOS.run_step_async({"name": "retry"}, retry)

    handle = DBOS.start_workflow(retried)
    assert handle.get_result() == 6
    entries = list(DBOS.read_stream(handle.workflow_id, STREAM_KEY))
    assert [e.get("delta", e["type"]) for e in entries] == ["a", "b", "x", "step-retried", "c", "d"]
    assert entries[3] == {"type": "step-retried", "voidFrom": 2, "voidTo": 3}


# -- to an AI SDK front end ---------------------------------------------------------------------------


def _flat_chunks(batches: list[tuple[int | None, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    return [chunk for _, batch in batches for chunk in batch]


class TestUIMessage:
    """`ui_chunks`: the run is one assistant UI message across its pause; a reader resumes at any offset."""

    def test_the_segment_after_an_approval_continues_the_same_message(
        self, define: Callable[..., DurableAgent]
    ) -> None:
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        first = list(ui_chunks(run))
        paused_at = first[-1][0]
        assert paused_at is not None
        (approval_id,) = next(i.event for i in run.events(paused_at) if isinstance(i.event, RunPaused)).approvals
        run.approve(approval_id)
        second = _flat_chunks(list(ui_chunks(run, paused_at + 1)))
        facts = {"model": "m", "api": "scripted", "provider": "scripted"}
        assert _flat_chunks(first)[0] == {"type": "start", "messageId": ui_message_id(run), "messageMetadata": facts}
        assert _flat_chunks(first)[-1]["messageMetadata"]["paused"] is True
        assert [chunk["type"] for chunk in second] == [
            "start",
            "tool-approval-response",
            "tool-output-available",
            "start-step",
            "text-start",
            "text-delta",
            "text-end",
            "finish-step",
            "message-metadata",
            "finish",
        ]
        assert second[0] == {"type": "start", "messageId": ui_message_id(run), "messageMetadata": facts}
        assert second[2] == {"type": "tool-output-available", "toolCallId": "c1", "output": "deleted"}
        assert second[-1]["messageMetadata"]["steps"] == [{"finishReason": "tool-calls"}, {"finishReason": "stop"}]

    def test_a_reader_starting_mid_segment_gets_the_rest_without_a_repeat(
        self, define: Callable[..., DurableAgent]
    ) -> None:
        durable = define(_turns(call("c1", "delete", '{"city": "Paris"}')), [_delete()])
        run = durable.start("Delete Paris")
        whole = list(ui_chunks(run))
        offsets = [offset for offset, _ in whole if offset is not None]
        cut = offsets[len(offsets) // 2]
        rest = list(ui_chunks(run, cut))
        after_cut = [chunk for offset, batch in whole if offset is not None and offset >= cut for chunk in batch]
        assert _flat_chunks(rest)[0]["messageId"] == ui_message_id(run)
        assert _flat_chunks(rest)[1:] == after_cut
        run.abort("cleanup")
