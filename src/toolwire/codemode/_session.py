"""One program's run, seen from the host: the conversation with the runner and every limit on it.

The host owns the clock, the allow-list, the call and size budgets and the kill. The runner's
frames are untrusted: the first `done` ends the run (later frames are never read), a call to a
tool outside the allow-list is refused, and a malformed, oversized or duplicate frame stops the
runner. When the run ends for any reason the runner's process group is killed, in-flight tool
calls are aborted and cancelled, and the logs received so far are kept.

A runner that floods the pipe cannot stall the host: at most `max_calls` calls run, refusals
(calls to other tools, calls past `max_calls`, lookups past `MAX_LOOKUPS`) are answered from
one ordered outbox without a task each and end the run past `MAX_REFUSALS`, the reader yields
to the event loop every few frames, and the channel's own timer kills the runner at the
deadline even if the loop is blocked.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.runtime.abort import AbortSignal

from .limits import Limits
from .protocol import (
    Call,
    Done,
    Ignored,
    Log,
    Lookup,
    ProtocolViolation,
    Ready,
    encode_error,
    encode_result,
    encode_start,
    json_size,
    parse_frame,
)
from .results import CallRecord, CallStatus, CodeModeError, CodeModeToolResult
from .transport import Channel

logger = logging.getLogger("toolwire")

EndKind = Literal["done", "timeout", "aborted", "exited", "violation", "refused"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What the host answers a call with."""

    ok: bool
    value: Any = None
    error_name: str = "ToolError"
    error_message: str = ""


Dispatch = Callable[[str, Any, int], Awaitable[CallOutcome]]
"""`dispatch(tool_id, input, sequence)`: run one allowed call on the host."""
Answer = Callable[[str, "tuple[str, ...] | str"], Any]
"""`answer(kind, argument)`: the JSON reply to a `describe` or `search` request."""
MAX_LOOKUPS = 100
MAX_REFUSALS = 1000
"""Refused requests one run may make; one more is a protocol violation (a well-behaved program makes none)."""
_FRAMES_PER_TURN = 64


@dataclass(frozen=True, slots=True)
class _End:
    kind: EndKind
    done: Done | None = None
    reason: str = ""


class Session:
    """Runs one program over an open channel."""

    def __init__(
        self,
        channel: Channel,
        *,
        externals: Sequence[tuple[str, str]],
        dispatch: Dispatch,
        limits: Limits,
        signal: AbortSignal,
        answer: Answer | None = None,
    ) -> None:
        self._channel = channel
        self._answer = answer
        self._lookups = 0
        self._externals = externals
        self._allowed = frozenset(tool for _, tool in externals)
        self._dispatch = dispatch
        self._limits = limits
        self._signal = signal
        self._semaphore = asyncio.Semaphore(limits.max_concurrency)
        self._tasks: list[asyncio.Future[None]] = []
        self._lookup_turn = asyncio.Lock()
        self._outbox: collections.deque[bytes] = collections.deque()
        self._sender: asyncio.Future[None] | None = None
        self._refusals = 0
        self._records: list[CallRecord] = []
        self._seen_ids: set[int] = set()
        self._started = 0
        self._inbound = 0
        self._logs: list[str] = []
        self._log_chars = 0
        self._logs_dropped = 0
        self._closing = False

    async def run(self, code: str, abort: AbortSignal | None) -> CodeModeToolResult:
        """Run `code` to its result, or until the timeout, an abort or a broken runner."""
        loop = asyncio.get_running_loop()
        aborted: asyncio.Future[str] = loop.create_future()

        def on_abort(reason: str | None) -> None:
            loop.call_soon_threadsafe(_settle, aborted, reason)

        remove = abort.add_listener(on_abort) if abort is not None else None
        deadline = loop.time() + self._limits.timeout
        self._channel.arm_deadline(self._limits.timeout)
        conversation = asyncio.ensure_future(self._converse(code))
        waiting: set[asyncio.Future[Any]] = {conversation, aborted}
        try:
            finished, _ = await asyncio.wait(waiting, timeout=self._limits.timeout, return_when=asyncio.FIRST_COMPLETED)
            if conversation in finished:
                end = conversation.result()
                if end.kind == "exited" and loop.time() >= deadline:
                    end = _End("timeout")  # the channel's own timer killed it while the loop was busy
            elif aborted in finished:
                end = _End("aborted", reason=aborted.result())
            else:
                end = _End("timeout")
        finally:
            self._channel.kill()
            conversation.cancel()
            aborted.cancel()
            if remove is not None:
                remove()
            exit_status = await self._shutdown()
        return self._result(end, exit_status, code)

    async def _shutdown(self) -> str:
        self._closing = True
        self._outbox.clear()
        pending = [*self._tasks, *([self._sender] if self._sender is not None else [])]
        for task in pending:
            task.cancel()
        self._signal.abort("the code-mode run ended")
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        return await self._channel.close()

    # -- the conversation --------------------------------------------------------------------

    async def _converse(self, code: str) -> _End:
        try:
            first = await self._next_frame()
            if first is None or not isinstance(first, Ready):
                return _End("exited") if first is None else _End("violation", reason="the first frame was not `ready`")
            refusal = self._channel.check_ready(first)
            if refusal is not None:
                return _End("refused", reason=refusal)
            await self._channel.send(encode_start(code, self._externals, self._limits.for_child()))
            count = 0
            while (frame := await self._next_frame()) is not None:
                count += 1
                if count % _FRAMES_PER_TURN == 0:
                    await asyncio.sleep(0)  # buffered frames are read without yielding otherwise
                if isinstance(frame, Done):
                    return _End("done", done=self._within_limit(frame))
                if isinstance(frame, Call):
                    self._on_call(frame)
                elif isinstance(frame, Lookup):
                    self._on_lookup(frame)
                elif isinstance(frame, Log):
                    self._on_log(frame)
                elif not isinstance(frame, Ignored):
                    raise ProtocolViolation(f"an unexpected {type(frame).__name__.lower()} frame")
            return _End("exited")
        except ProtocolViolation as violation:
            return _End("violation", reason=str(violation))

    async def _next_frame(self) -> Ready | Call | Lookup | Log | Done | Ignored | None:
        try:
            line = await self._channel.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError:
            raise ProtocolViolation(f"a frame over {self._limits.max_frame_bytes} bytes") from None
        self._inbound += len(line)
        if self._inbound > self._limits.max_inbound_bytes:
            raise ProtocolViolation(f"more than {self._limits.max_inbound_bytes} bytes in one run")
        if len(line) > self._limits.max_frame_bytes + 1:
            raise ProtocolViolation(f"a frame over {self._limits.max_frame_bytes} bytes")
        return parse_frame(line)

    def _on_call(self, call: Call) -> None:
        if call.id in self._seen_ids:
            raise ProtocolViolation(f"call id {call.id} used twice")
        self._seen_ids.add(call.id)
        index = len(self._records)
        if call.tool not in self._allowed:
            message = f"{call.tool[:200]!r} is not a tool this program may call"
            self._refuse(encode_error(call.id, "NotAllowedError", message, call.tool[:200]))
            self._records.append(CallRecord(tool=call.tool[:200], status="refused"))
            return
        if self._started >= self._limits.max_calls:
            message = f"this program already made {self._limits.max_calls} calls, the limit for one run"
            self._refuse(encode_error(call.id, "CallLimitError", message, call.tool))
            self._records.append(CallRecord(tool=call.tool, status="refused"))
            return
        self._started += 1
        self._records.append(CallRecord(tool=call.tool, status="cancelled"))
        self._tasks.append(asyncio.ensure_future(self._run_call(call, index)))

    def _on_lookup(self, lookup: Lookup) -> None:
        if lookup.id in self._seen_ids:
            raise ProtocolViolation(f"request id {lookup.id} used twice")
        self._seen_ids.add(lookup.id)
        self._lookups += 1
        if self._answer is None or self._lookups > MAX_LOOKUPS:
            message = f"at most {MAX_LOOKUPS} catalog lookups per run" if self._answer else "no catalog here"
            self._refuse(encode_error(lookup.id, "LookupError", message, f"{lookup.kind}_functions"))
            return
        self._tasks.append(asyncio.ensure_future(self._answer_lookup(lookup)))

    async def _answer_lookup(self, lookup: Lookup) -> None:
        """Rendering stubs for a big catalog takes a while: off the event loop, one at a time, in order."""
        assert self._answer is not None
        async with self._lookup_turn:
            try:
                frame = encode_result(lookup.id, await asyncio.to_thread(self._answer, lookup.kind, lookup.argument))
            except Exception:
                logger.exception("code mode: answering a %s request failed", lookup.kind)
                message = "the host failed to answer this request"
                frame = encode_error(lookup.id, "LookupError", message, f"{lookup.kind}_functions")
        self._reply(frame)

    def _refuse(self, frame: bytes) -> None:
        self._refusals += 1
        if self._refusals > MAX_REFUSALS:
            raise ProtocolViolation(f"more than {MAX_REFUSALS} refused requests in one run")
        self._reply(frame)

    def _reply(self, frame: bytes) -> None:
        """Queue a reply; one sender writes them in order, however many wait (no task per reply)."""
        if self._closing:
            return
        self._outbox.append(frame)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.ensure_future(self._send_outbox())

    async def _send_outbox(self) -> None:
        while self._outbox:
            await self._channel.send(self._outbox.popleft())

    def _within_limit(self, done: Done) -> Done:
        """The host's own check of `max_result_bytes` (the runner's is only a courtesy)."""
        limit = self._limits.max_result_bytes
        if not done.ok or (size := json_size(done.result)) <= limit:
            return done
        message = f"the result is {size} bytes of JSON; the limit is {limit}: return less data"
        return Done(False, error_name="ResultTooLarge", error_message=message, logs_dropped=done.logs_dropped)

    async def _run_call(self, call: Call, index: int) -> None:
        async with self._semaphore:
            try:
                outcome = await self._dispatch(call.tool, call.input, index + 1)
            except Exception as exc:
                logger.exception("code mode: dispatching a call to %r failed", call.tool)
                message = f"the host failed to run the call ({type(exc).__name__})"
                outcome = CallOutcome(False, error_name="HostError", error_message=message)
        if self._closing:
            return
        status: CallStatus = "ok" if outcome.ok else "error"
        try:
            frame = encode_result(call.id, outcome.value) if outcome.ok else None
        except ValueError as exc:
            outcome = CallOutcome(False, error_name="TypeError", error_message=f"the tool's output is not JSON: {exc}")
            status, frame = "error", None
        if frame is None:
            frame = encode_error(call.id, outcome.error_name, outcome.error_message, call.tool)
        self._records[index] = CallRecord(tool=call.tool, status=status)
        self._reply(frame)

    def _on_log(self, log: Log) -> None:
        text = log.text if log.stream == "stdout" else f"[stderr] {log.text}"
        cap = self._limits.max_log_line_chars + 40
        if len(text) > cap:
            text = text[:cap] + f"… [{len(text) - cap} more characters]"
        if self._logs_dropped or self._log_chars + len(text) > self._limits.max_log_chars:
            self._logs_dropped += len(text)
            return
        self._log_chars += len(text)
        self._logs.append(text)

    # -- the result ------------------------------------------------------------------------------

    def _result(self, end: _End, exit_status: str, code: str) -> CodeModeToolResult:
        logs = list(self._logs)
        dropped = max(self._logs_dropped, end.done.logs_dropped if end.done else 0)
        if dropped:
            logs.append(f"… [logs truncated: {dropped} more characters not shown]")
        calls = tuple(self._records)
        if end.kind == "done" and end.done is not None and end.done.ok:
            return CodeModeToolResult(success=True, result=end.done.result, logs=tuple(logs), calls=calls)
        error = self._error(end, exit_status, code)
        return CodeModeToolResult(success=False, logs=tuple(logs), error=error, calls=calls)

    def _error(self, end: _End, exit_status: str, code: str) -> CodeModeError:
        cap = self._limits.max_error_chars
        if end.kind == "done" and end.done is not None:
            line = end.done.error_line
            valid_line = line if line is not None and line <= code.count("\n") + 1 else None
            message = _cap(end.done.error_message if end.done.error_message is not None else "the program failed", cap)
            return CodeModeError(message=message, name=_name(end.done.error_name), line=valid_line)
        timeout = f"{self._limits.timeout:g} s"
        messages: Mapping[EndKind, tuple[str, str]] = {
            "timeout": ("TimeoutError", f"the program did not finish within {timeout} and was stopped"),
            "aborted": ("AbortError", f"the run was aborted ({end.reason or 'no reason given'})"),
            "exited": ("NoResultError", f"the sandbox process ended ({exit_status}) before the program finished"),
            "violation": ("ProtocolError", f"the sandbox broke the protocol ({end.reason}) and was stopped"),
            "refused": ("SandboxError", f"{end.reason}; nothing was run"),
        }
        name, message = messages[end.kind]
        if end.kind == "exited" and (detail := self._channel.diagnostics()):
            message += ": " + detail[-500:]
        cancelled = [r.tool for r in self._records if r.status == "cancelled"]
        if cancelled:
            message += (
                f". {len(cancelled)} tool call(s) were still running and were cancelled ({', '.join(cancelled[:10])}); "
                "calls that had started may already have had effects"
            )
        return CodeModeError(message=_cap(message, cap), name=name)


def _settle(future: asyncio.Future[str], reason: str | None) -> None:
    if not future.done():
        future.set_result(reason or "no reason given")


def _name(name: str | None) -> str:
    if name is None or not name.isidentifier() or len(name) > 100:
        return "Error"
    return name


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
