"""The host side of a run against a scripted runner: every frame untrusted, every limit enforced.

A `FakeRunner` plays the child's part exactly as a hostile program could (it can write any
bytes to the protocol pipe), so each rule is checked without depending on process timing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from toolwire.codemode import CallRecord, CodeModeError, CodeModeToolResult, Limits
from toolwire.codemode._session import CallOutcome, Session
from toolwire.codemode.protocol import Ready
from toolwire.codemode.transport import Channel
from toolwire.runtime import AbortSignal

Script = Callable[["FakeRunner", dict[str, Any]], None]


def frame(method: str, **fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, **fields}


def done(result: Any) -> dict[str, Any]:
    return frame("done", params={"ok": True, "result": result})


def call(call_id: int, tool: str, value: Any = None) -> dict[str, Any]:
    return frame("call", id=call_id, params={"tool": tool, "input": value if value is not None else {}})


class FakeRunner(Channel):
    """A runner that says `ready`, then plays `on_start` and `on_reply` scripts."""

    def __init__(
        self,
        *,
        on_start: Script | None = None,
        on_reply: Script | None = None,
        refuse: str | None = None,
        first: dict[str, Any] | None = None,
        limit: int = 1 << 20,
    ) -> None:
        self.reader = asyncio.StreamReader(limit=limit)
        self.sent: list[dict[str, Any]] = []
        self.killed = False
        self.closed = False
        self.deadline: float | None = None
        self._on_start = on_start
        self._on_reply = on_reply
        self._refuse = refuse
        self.emit(first if first is not None else frame("ready", params={"layers": {}, "python": "3.11"}))

    def emit(self, message: dict[str, Any] | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.reader.feed_data(data)

    def end(self) -> None:
        self.reader.feed_eof()

    async def send(self, data: bytes) -> None:
        message = json.loads(data)
        self.sent.append(message)
        script = self._on_start if message.get("method") == "start" else self._on_reply
        if script is not None:
            script(self, message)

    def kill(self) -> None:
        self.killed = True

    def arm_deadline(self, seconds: float) -> None:
        self.deadline = seconds

    async def close(self) -> str:
        self.closed = True
        return "exit code 0"

    def diagnostics(self) -> str:
        return "Fatal Python error: Segmentation fault"

    def check_ready(self, ready: Ready) -> str | None:
        return self._refuse

    @property
    def replies(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if "id" in m]


class Recorder:
    """A dispatch that records calls; `block` makes every call wait forever."""

    def __init__(self, *, block: bool = False, value: Any = "ok") -> None:
        self.calls: list[tuple[str, Any]] = []
        self.running = 0
        self.most_running = 0
        self.cancelled = 0
        self._block = block
        self._value = value

    async def __call__(self, tool: str, value: Any, sequence: int) -> CallOutcome:
        self.calls.append((tool, value))
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await asyncio.sleep(3600 if self._block else 0)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.running -= 1
        return CallOutcome(True, self._value)


async def run_session(
    runner: FakeRunner,
    *,
    dispatch: Recorder | None = None,
    limits: Limits | None = None,
    code: str = "pass",
    abort: AbortSignal | None = None,
    tools: tuple[str, ...] = ("allowed",),
) -> tuple[CodeModeToolResult, AbortSignal]:
    signal = AbortSignal()
    session = Session(
        runner,
        externals=[(f"external_{t}", t) for t in tools],
        dispatch=dispatch or Recorder(),
        limits=limits or Limits(timeout=5),
        signal=signal,
    )
    return await session.run(code, abort), signal


class TestConversation:
    async def test_a_call_is_dispatched_and_answered(self) -> None:
        """The host runs the allowed tool and replies with its value under the call's id."""
        recorder = Recorder(value={"temp": 21})

        def reply(runner: FakeRunner, message: dict[str, Any]) -> None:
            runner.emit(done(message["result"]))

        runner = FakeRunner(on_start=lambda r, _m: r.emit(call(1, "allowed", {"q": 1})), on_reply=reply)
        result, _ = await run_session(runner, dispatch=recorder)
        assert recorder.calls == [("allowed", {"q": 1})]
        assert runner.replies == [{"jsonrpc": "2.0", "id": 1, "result": {"temp": 21}}]
        assert result == CodeModeToolResult(
            success=True, result={"temp": 21}, calls=(CallRecord(tool="allowed", status="ok"),)
        )

    async def test_start_is_sent_only_after_ready(self) -> None:
        """The program never reaches a runner that has not confined itself."""
        runner = FakeRunner(on_start=lambda r, _m: r.emit(done(None)))
        await run_session(runner, code="1 + 1")
        assert runner.sent == [
            {
                "jsonrpc": "2.0",
                "method": "start",
                "params": {
                    "code": "1 + 1",
                    "externals": [{"name": "external_allowed", "tool": "allowed"}],
                    "limits": Limits(timeout=5).for_child(),
                },
            }
        ]

    async def test_the_runner_is_killed_and_closed_after_every_run(self) -> None:
        """Even a clean finish ends with the process group killed."""
        runner = FakeRunner(on_start=lambda r, _m: r.emit(done(1)))
        await run_session(runner)
        assert runner.killed
        assert runner.closed


class TestUntrustedFrames:
    async def test_only_the_first_done_counts(self) -> None:
        """A forged second `done` cannot replace the result."""

        def finish_twice(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(done("first"))
            runner.emit(done("second"))

        result, _ = await run_session(FakeRunner(on_start=finish_twice))
        assert result.result == "first"

    async def test_a_call_to_an_unconfigured_tool_is_refused_on_the_host(self) -> None:
        """Nothing runs; the program gets `NotAllowedError`."""
        recorder = Recorder()

        def finish(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(done(None))

        runner = FakeRunner(on_start=lambda r, _m: r.emit(call(1, "secret_admin")), on_reply=finish)
        result, _ = await run_session(runner, dispatch=recorder)
        assert recorder.calls == []
        assert runner.replies == [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32000,
                    "message": "'secret_admin' is not a tool this program may call",
                    "data": {"name": "NotAllowedError", "tool": "secret_admin"},
                },
            }
        ]
        assert result.calls == (CallRecord(tool="secret_admin", status="refused"),)

    async def test_a_duplicate_call_id_stops_the_runner(self) -> None:
        """Reusing an id could confuse replies, so it breaks the protocol."""

        def twice(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(call(1, "allowed"))
            runner.emit(call(1, "allowed"))

        result, _ = await run_session(FakeRunner(on_start=twice), dispatch=Recorder(block=True))
        assert result.error == CodeModeError(
            name="ProtocolError",
            message=(
                "the sandbox broke the protocol (call id 1 used twice) and was stopped. 1 tool call(s) were still "
                "running and were cancelled (allowed); calls that had started may already have had effects"
            ),
        )

    async def test_an_oversized_frame_stops_the_runner(self) -> None:
        """A line longer than `max_frame_bytes` is never buffered whole."""
        limits = Limits(timeout=5, max_frame_bytes=1000, max_result_bytes=500)
        runner = FakeRunner(limit=limits.max_frame_bytes + 1, on_start=lambda r, _m: r.emit(b"x" * 5000))
        result, _ = await run_session(runner, limits=limits)
        assert result.error == CodeModeError(
            name="ProtocolError", message="the sandbox broke the protocol (a frame over 1000 bytes) and was stopped"
        )

    async def test_malformed_json_stops_the_runner_and_keeps_earlier_logs(self) -> None:
        """Logs received before the violation are still returned."""

        def garbage(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("log", params={"stream": "stdout", "text": "before"}))
            runner.emit(b"{not json\n")

        result, _ = await run_session(FakeRunner(on_start=garbage))
        assert result.logs == ("before",)
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (a frame that is not JSON (JSONDecodeError)) and was stopped",
        )

    async def test_responses_from_the_runner_are_ignored(self) -> None:
        """The host asks the child nothing, so a response frame resolves nothing."""

        def forge(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit({"jsonrpc": "2.0", "id": 1, "result": "forged"})
            runner.emit(done("real"))

        result, _ = await run_session(FakeRunner(on_start=forge))
        assert result.result == "real"

    async def test_a_first_frame_other_than_ready_is_a_violation(self) -> None:
        """The program is never sent to a runner that skipped its confinement report."""
        runner = FakeRunner(first=done("early"))
        result, _ = await run_session(runner)
        assert runner.sent == []
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (the first frame was not `ready`) and was stopped",
        )

    async def test_a_runner_weaker_than_promised_is_refused_before_the_program_is_sent(self) -> None:
        """Fail closed when a layer did not take effect this time."""
        runner = FakeRunner(refuse="the sandbox could not isolate network this time")
        result, _ = await run_session(runner)
        assert runner.sent == []
        assert result.error == CodeModeError(
            name="SandboxError", message="the sandbox could not isolate network this time; nothing was run"
        )

    async def test_too_many_bytes_in_one_run_stop_the_runner(self) -> None:
        """Even well-formed frames cannot flood the host forever."""
        limits = Limits(timeout=5, max_inbound_bytes=2000)

        def flood(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for _ in range(100):
                runner.emit(frame("log", params={"stream": "stdout", "text": "x" * 50}))

        result, _ = await run_session(FakeRunner(on_start=flood), limits=limits)
        assert result.error is not None
        assert (
            result.error.message == "the sandbox broke the protocol (more than 2000 bytes in one run) and was stopped"
        )


class TestEndings:
    async def test_exit_without_done_reports_the_exit_and_stderr(self) -> None:
        """A crashed runner is a `NoResultError` with its last words."""
        result, _ = await run_session(FakeRunner(on_start=lambda r, _m: r.end()))
        assert result.error == CodeModeError(
            name="NoResultError",
            message=(
                "the sandbox process ended (exit code 0) before the program finished: "
                "Fatal Python error: Segmentation fault"
            ),
        )

    async def test_timeout_cancels_in_flight_calls_and_lists_them(self) -> None:
        """The host's clock wins: the call task is cancelled and the run signal aborted."""
        recorder = Recorder(block=True)
        runner = FakeRunner(on_start=lambda r, _m: r.emit(call(1, "allowed")))
        result, signal = await run_session(runner, dispatch=recorder, limits=Limits(timeout=0.2))
        assert recorder.cancelled == 1
        assert signal.aborted
        assert result.calls == (CallRecord(tool="allowed", status="cancelled"),)
        assert result.error == CodeModeError(
            name="TimeoutError",
            message=(
                "the program did not finish within 0.2 s and was stopped. 1 tool call(s) were still running and "
                "were cancelled (allowed); calls that had started may already have had effects"
            ),
        )

    async def test_an_outer_abort_stops_the_run(self) -> None:
        """Aborting the code-mode call kills the runner and reports why."""
        abort = AbortSignal()

        def stall(runner: FakeRunner, _message: dict[str, Any]) -> None:
            asyncio.get_running_loop().call_soon(abort.abort, "user pressed stop")

        result, _ = await run_session(FakeRunner(on_start=stall), abort=abort)
        assert result.error == CodeModeError(name="AbortError", message="the run was aborted (user pressed stop)")

    async def test_an_error_line_outside_the_program_is_dropped(self) -> None:
        """A forged line number past the end of the code is not reported."""

        def fail(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(
                frame("done", params={"ok": False, "error": {"name": "ValueError", "message": "m", "line": 99}})
            )

        result, _ = await run_session(FakeRunner(on_start=fail), code="a = 1\nb = 2")
        assert result.error == CodeModeError(name="ValueError", message="m", line=None)

    @pytest.mark.parametrize("name", ["x" * 101, "not an identifier", None])
    async def test_implausible_error_names_become_error(self, name: str | None) -> None:
        """Names are identifiers of sane length, else `Error`."""

        def fail(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("done", params={"ok": False, "error": {"name": name, "message": "m"}}))

        result, _ = await run_session(FakeRunner(on_start=fail))
        assert result.error == CodeModeError(name="Error", message="m")

    async def test_long_error_messages_are_capped(self) -> None:
        """The host caps what the runner claims."""

        def fail(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("done", params={"ok": False, "error": {"name": "E", "message": "m" * 5000}}))

        result, _ = await run_session(FakeRunner(on_start=fail), limits=Limits(timeout=5, max_error_chars=10))
        assert result.error == CodeModeError(name="E", message="mmmmmmmmm…")


class TestBudgets:
    async def test_calls_beyond_the_limit_are_refused(self) -> None:
        """`max_calls` is counted on the host."""
        recorder = Recorder()
        replies: list[int] = []

        def on_reply(runner: FakeRunner, message: dict[str, Any]) -> None:
            replies.append(message["id"])
            if len(replies) == 3:
                runner.emit(done(None))

        def three_calls(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for call_id in (1, 2, 3):
                runner.emit(call(call_id, "allowed"))

        runner = FakeRunner(on_start=three_calls, on_reply=on_reply)
        result, _ = await run_session(runner, dispatch=recorder, limits=Limits(timeout=5, max_calls=2))
        assert len(recorder.calls) == 2
        refused = [m for m in runner.replies if "error" in m]
        assert refused == [
            {
                "jsonrpc": "2.0",
                "id": 3,
                "error": {
                    "code": -32000,
                    "message": "this program already made 2 calls, the limit for one run",
                    "data": {"name": "CallLimitError", "tool": "allowed"},
                },
            }
        ]
        assert [c.status for c in result.calls] == ["ok", "ok", "refused"]

    async def test_concurrency_is_bounded_on_the_host(self) -> None:
        """With `max_concurrency=2`, a third simultaneous call waits for a slot."""
        recorder = Recorder(block=True)

        def many(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for call_id in range(1, 6):
                runner.emit(call(call_id, "allowed"))

        runner = FakeRunner(on_start=many)
        await run_session(runner, dispatch=recorder, limits=Limits(timeout=0.2, max_concurrency=2))
        assert recorder.most_running == 2

    async def test_a_tool_value_that_is_not_json_becomes_an_error_reply(self) -> None:
        """The program gets `TypeError`, not a broken frame."""
        recorder = Recorder(value={1, 2})

        def finish(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(done(None))

        runner = FakeRunner(on_start=lambda r, _m: r.emit(call(1, "allowed")), on_reply=finish)
        result, _ = await run_session(runner, dispatch=recorder)
        assert runner.replies[0]["error"]["data"] == {"name": "TypeError", "tool": "allowed"}
        assert result.calls == (CallRecord(tool="allowed", status="error"),)


class TestFloods:
    async def test_refusals_past_the_cap_stop_the_runner(self) -> None:
        """1000 refused requests are answered, in order; the 1001st ends the run."""
        recorder = Recorder()

        def flood(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for call_id in range(1, 1101):
                runner.emit(call(call_id, "admin"))

        runner = FakeRunner(on_start=flood)
        result, _ = await run_session(runner, dispatch=recorder)
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (more than 1000 refused requests in one run) and was stopped",
        )
        assert len(result.calls) == 1000
        assert recorder.calls == []

    async def test_refusals_are_answered_without_a_task_each(self) -> None:
        """While the runner reads nothing, a flood adds at most one sending task, not one per reply."""
        tasks_during: list[int] = []

        def flood(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for call_id in range(1, 501):
                runner.emit(call(call_id, "admin"))
            runner.emit(frame("log", params={"stream": "stdout", "text": "end"}))

        def count(runner: FakeRunner, message: dict[str, Any]) -> None:
            if not tasks_during:
                tasks_during.append(len(asyncio.all_tasks()))
            if message["id"] == 500:
                runner.emit(done(None))

        before = len(asyncio.all_tasks())
        runner = FakeRunner(on_start=flood, on_reply=count)
        await run_session(runner)
        assert tasks_during[0] - before <= 3  # the conversation, the abort wait, and one sender
        assert [m["id"] for m in runner.replies] == list(range(1, 501))

    async def test_lookups_past_their_cap_count_as_refusals(self) -> None:
        """100 lookups are answered; the rest are refused and share the refusal cap."""

        def flood(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for request_id in range(1, 1200):
                runner.emit(frame("search", id=request_id, params={"query": "x"}))

        runner = FakeRunner(on_start=flood)
        signal = AbortSignal()
        session = Session(
            runner,
            externals=[("external_allowed", "allowed")],
            dispatch=Recorder(),
            limits=Limits(timeout=5),
            signal=signal,
            answer=lambda _kind, _argument: [],
        )
        result = await session.run("pass", None)
        assert result.error is not None
        assert result.error.message == (
            "the sandbox broke the protocol (more than 1000 refused requests in one run) and was stopped"
        )
        assert sum("error" in m for m in runner.replies) == 1000

    async def test_the_channel_is_given_the_deadline(self) -> None:
        """The runner's own timer (a hard timeout) is armed with the run's timeout."""
        runner = FakeRunner(on_start=lambda r, _m: r.emit(done(1)))
        await run_session(runner, limits=Limits(timeout=7.5))
        assert runner.deadline == 7.5


class TestResultSize:
    async def test_a_done_over_max_result_bytes_is_refused_on_the_host(self) -> None:
        """The runner's own check is a courtesy; the host measures the JSON itself."""
        limits = Limits(timeout=5, max_result_bytes=100)
        runner = FakeRunner(on_start=lambda r, _m: r.emit(done("é" * 60)))
        result, _ = await run_session(runner, limits=limits)
        assert result.error == CodeModeError(
            name="ResultTooLarge", message="the result is 122 bytes of JSON; the limit is 100: return less data"
        )

    async def test_a_done_at_the_limit_is_kept(self) -> None:
        """Exactly `max_result_bytes` is allowed."""
        limits = Limits(timeout=5, max_result_bytes=100)
        runner = FakeRunner(on_start=lambda r, _m: r.emit(done("x" * 98)))
        result, _ = await run_session(runner, limits=limits)
        assert result.result == "x" * 98


class TestLookups:
    async def test_lookups_are_answered_and_not_counted_as_calls(self) -> None:
        """`describe`/`search` go to the catalog, never to a tool."""
        recorder = Recorder()
        asked: list[tuple[str, Any]] = []

        def answer(kind: str, argument: Any) -> Any:
            asked.append((kind, argument))
            return "stubs"

        def ask(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("describe", id=1, params={"names": ["external_allowed"]}))

        runner = FakeRunner(on_start=ask, on_reply=lambda r, m: r.emit(done(m["result"])))
        signal = AbortSignal()
        session = Session(
            runner,
            externals=[("external_allowed", "allowed")],
            dispatch=recorder,
            limits=Limits(timeout=5),
            signal=signal,
            answer=answer,
        )
        result = await session.run("pass", None)
        assert (result.result, asked, recorder.calls, result.calls) == (
            "stubs",
            [("describe", ("external_allowed",))],
            [],
            (),
        )

    async def test_without_a_catalog_lookups_get_an_error(self) -> None:
        """A session built without `answer` refuses them politely."""

        def ask(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("search", id=1, params={"query": "x"}))

        runner = FakeRunner(on_start=ask, on_reply=lambda r, m: r.emit(done(m["error"]["message"])))
        result, _ = await run_session(runner)
        assert result.result == "no catalog here"


class TestLogs:
    async def test_stderr_lines_are_marked_and_order_is_kept(self) -> None:
        """One list, in arrival order; stderr lines start with `[stderr] `."""

        def talk(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("log", params={"stream": "stdout", "text": "one"}))
            runner.emit(frame("log", params={"stream": "stderr", "text": "two"}))
            runner.emit(frame("log", params={"stream": "stdout", "text": "three"}))
            runner.emit(done(None))

        result, _ = await run_session(FakeRunner(on_start=talk))
        assert result.logs == ("one", "[stderr] two", "three")

    async def test_logs_past_the_budget_are_dropped_with_a_marker(self) -> None:
        """Everything after the first line that does not fit is dropped, and the count is reported."""
        limits = Limits(timeout=5, max_log_chars=10)

        def talk(runner: FakeRunner, _message: dict[str, Any]) -> None:
            for text in ("12345", "6789", "abcdef", "g"):
                runner.emit(frame("log", params={"stream": "stdout", "text": text}))
            runner.emit(done(None))

        result, _ = await run_session(FakeRunner(on_start=talk), limits=limits)
        assert result.logs == ("12345", "6789", "… [logs truncated: 7 more characters not shown]")

    async def test_an_overlong_line_is_cut_by_the_host(self) -> None:
        """The runner cuts lines too, but the host does not rely on it."""
        limits = Limits(timeout=5, max_log_line_chars=10)

        def talk(runner: FakeRunner, _message: dict[str, Any]) -> None:
            runner.emit(frame("log", params={"stream": "stdout", "text": "y" * 100}))
            runner.emit(done(None))

        result, _ = await run_session(FakeRunner(on_start=talk), limits=limits)
        assert result.logs == ("y" * 50 + "… [50 more characters]",)
