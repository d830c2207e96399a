"""The step loop: call the model, show its events, run the calls, repeat; sync and async, abortable.

Two units of work are separate methods with serializable inputs and outputs, so a durable
engine can wrap them as steps: `call_model(request)` / `acall_model(request)` (the SDK keyword
arguments from `build_model_request()`, JSON; events out, each `to_dict()`-able) and one tool
call, `Toolbox.execute_call` (a `ToolCall` in, a `ToolResult` or `Suspension` out).

An abort — the run's signal, the task running it cancelled, or its stream closed — closes the
provider stream, sets every running tool's signal (sync tools too), fires no more hooks, and
answers the turn's unfinished calls as aborted so the conversation can go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from toolwire._clients import ClientMode, wrong_mode_message
from toolwire._hooks import run_sync
from toolwire.adapter import Adapter, EncodedTools
from toolwire.compat import CompatibilityWarning, Degradation
from toolwire.events import (
    Abort,
    Event,
    Finish,
    ToolInputAvailable,
    ToolInputError,
)
from toolwire.exceptions import ConfigurationError
from toolwire.messages import Message, assistant_message
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import AbortSignal, BackgroundTasks, Toolbox
from toolwire.runtime.abort import SHARED_EXECUTOR
from toolwire.tools import Tool

from ._aborting import RunAborted, abortable, close_source, close_source_async
from ._followups import Delivery, Followups, FollowupSteps
from ._pauses import Pauses
from ._state import Conversation, Turn, add_usage
from ._stream_view import StreamView
from ._transcript import Transcript

T = TypeVar("T")


@dataclass(slots=True)
class Run:
    """One entry into the loop: its own abort signal (linked to the caller's) and the step in flight."""

    signal: AbortSignal
    unlink: Any = None
    events: list[Event] = field(default_factory=list)
    """Raw events of the model call in flight (kept so an abort can record what was said)."""
    in_model: bool = False
    delivery: Delivery = field(default_factory=Delivery)
    """Background results: whether to wait for running tasks, where this run's prompt is."""

    def stopped(self) -> bool:
        """Whether the run was aborted (a call, so checks are never narrowed away: another thread may abort)."""
        return self.signal.aborted


class StepLoop(FollowupSteps):
    """The loop behind `Agent.run/stream/arun/astream`; `Agent` adds the public API around it."""

    adapter: Adapter
    client: Any
    model: str
    tools: dict[str, Tool]
    tool_choice: Any
    request_options: dict[str, Any]
    stream_responses: bool
    max_steps: int
    toolbox: Toolbox
    background: BackgroundTasks
    _followups: Followups
    _client_mode: ClientMode
    _conversation: Conversation
    _pauses: Pauses
    _transcript: Transcript
    _outbox: list[Event]
    _encoded_tools: EncodedTools | None
    _view: StreamView
    _active: Run | None
    _aborted: bool
    _sync_loop: asyncio.AbstractEventLoop | None = None

    # -- the two durable units ---------------------------------------------------------------------

    def build_model_request(self, degradations: list[Degradation] | None = None) -> dict[str, Any]:
        """The SDK keyword arguments for the next model call (history, tools, options); new degradations noted."""
        found: list[Degradation] = []
        if self._encoded_tools is None and self.tools:
            self._encoded_tools = self.adapter.encode_tools(list(self.tools.values()), self.tool_choice, warn=False)
            found.extend(self._encoded_tools.warnings)
        request = self.adapter.build_request(
            model=self.model,
            messages=self._conversation.messages,
            tools=self._encoded_tools,
            options=self.request_options,
            stream=self.stream_responses,
            degradations=found,
        )
        new = self._note_warnings(found)
        if degradations is not None:
            degradations.extend(new)
        return request

    def call_model(self, request: dict[str, Any], signal: AbortSignal) -> Iterator[Event]:
        """One model call with the sync client: its unified events (stream hooks fired)."""
        source = self.adapter.invoke(self.client, request, stream=self.stream_responses)
        remove = signal.add_listener(lambda _reason: close_source(source))
        finished = False
        try:
            yield from self.adapter.normalize(
                source, tools=self.tools, messages=self._conversation.messages, abort_signal=signal
            )
            finished = True
        finally:
            remove()
            if signal.aborted or not finished:  # aborted, or the consumer stopped reading
                close_source(source)

    async def acall_model(self, request: dict[str, Any], signal: AbortSignal) -> AsyncIterator[Event]:
        """One model call with the async client: its unified events (stream hooks fired)."""
        source = await self.adapter.ainvoke(self.client, request, stream=self.stream_responses)
        finished = False
        try:
            async for event in self.adapter.anormalize(
                source, tools=self.tools, messages=self._conversation.messages, abort_signal=signal
            ):
                yield event
            finished = True
        finally:
            if signal.aborted or not finished:  # aborted, cancelled, or the consumer stopped reading
                await close_source_async(source)

    # -- sync ----------------------------------------------------------------------------------------

    def _sync_steps(self, prompt: Message | None, abort: AbortSignal | None, until_idle: bool) -> Iterator[Event]:
        run = self._enter(prompt, abort, until_idle, detached=True)
        try:
            yield from self._drain()
            settled = self._pauses_settled_sync(run)
            yield from self._drain()
            while settled and not run.stopped() and self._next_turn_sync(run):
                self._conversation.steps += 1
                yield from self._step_start()
                request = self.build_model_request()
                run.events, run.in_model = [], True
                for event in self.call_model(request, run.signal):
                    run.events.append(event)
                    shown = self._shown(event)
                    if shown is not None:
                        yield shown
                    if run.stopped():
                        break
                if run.stopped():
                    break
                run.in_model = False
                if not self._after_response(run.events) and not (yield from self._idle_sync(run)):
                    break
                settled = self._pauses_settled_sync(run)
                yield from self._drain()
            yield from self._ending(run, settled)
        except GeneratorExit:
            self._closed_by_consumer(run)
            raise
        finally:
            self._leave(run)

    def _pauses_settled_sync(self, run: Run) -> bool:
        if run.stopped():
            return False
        if self._conversation.turn is None:
            return True  # what `settle` answers at once: no event loop needed
        settled: bool = self._run_async(self._pauses.settle(run.signal))
        return settled

    def _run_async(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` from sync code: on this run's own event loop in this thread (no thread hop), or,
        when a loop already runs here (sync code called from async code), on the hooks' loop thread."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._sync_loop is None:
                self._sync_loop = asyncio.new_event_loop()
                self._sync_loop.set_default_executor(SHARED_EXECUTOR)  # no new threads per run
            return self._sync_loop.run_until_complete(work)
        return cast(T, run_sync(work))

    # -- async ---------------------------------------------------------------------------------------

    async def _async_steps(
        self, prompt: Message | None, abort: AbortSignal | None, until_idle: bool
    ) -> AsyncIterator[Event]:
        run = self._enter(prompt, abort, until_idle)
        try:
            for event in self._drain():
                yield event
            settled = await self._pauses_settled(run)
            for event in self._drain():
                yield event
            while settled and not run.stopped() and await self._next_turn(run):
                self._conversation.steps += 1
                for event in self._step_start():
                    yield event
                async with contextlib.aclosing(self._async_model_step(run)) as step:  # closed now if we are
                    async for shown in step:
                        yield shown
                if run.stopped():
                    break
                if not self._after_response(run.events):
                    async with contextlib.aclosing(self._idle(run)) as idle:
                        async for event in idle:
                            yield event
                    if not run.delivery.follow_up:
                        break
                settled = await self._pauses_settled(run)
                for event in self._drain():
                    yield event
            for event in self._ending(run, settled):
                yield event
        except asyncio.CancelledError:
            run.signal.abort(run.signal.reason or "cancelled")
            self._abort_bookkeeping(run)
            self._outbox.clear()
            raise
        except GeneratorExit:
            self._closed_by_consumer(run)
            raise
        finally:
            self._leave(run)

    async def _async_model_step(self, run: Run) -> AsyncGenerator[Event, None]:
        run.events, run.in_model = [], True
        events = cast(AsyncGenerator[Event, None], self.acall_model(self.build_model_request(), run.signal))
        try:
            while True:
                try:
                    event = await abortable(events.__anext__(), run.signal)
                except StopAsyncIteration:
                    break
                except RunAborted:
                    return
                run.events.append(event)
                shown = self._shown(event)
                if shown is not None:
                    yield shown
                if run.stopped():
                    return
            run.in_model = False
        finally:
            with contextlib.suppress(Exception):
                await events.aclose()

    async def _pauses_settled(self, run: Run) -> bool:
        return False if run.stopped() else await self._pauses.settle(run.signal)

    # -- shared steps --------------------------------------------------------------------------------

    def _enter(
        self, prompt: Message | None, abort: AbortSignal | None, until_idle: bool = False, detached: bool = False
    ) -> Run:
        if self._active is not None:
            raise ConfigurationError("the agent is already running: one run at a time (abort it with agent.abort())")
        signal = AbortSignal()
        run = Run(signal=signal, unlink=abort.add_listener(signal.abort) if abort is not None else None)
        run.delivery.until_idle = until_idle
        self.background.detached = detached  # a sync run's loop ends with it: its tasks start elsewhere
        self._active = run
        self._aborted = False
        if prompt is not None:
            run.delivery.prompt_at = len(self._conversation.messages)
            self._conversation.messages.append(prompt)
            run.delivery.prompt_entry = self._transcript.message(prompt)
            self._conversation.steps = 0
        return run

    def _leave(self, run: Run) -> None:
        if self._sync_loop is not None:
            self._sync_loop.close()
            self._sync_loop = None
        if run.unlink is not None:
            run.unlink()
        if self._active is run:
            self._active = None

    def _ending(self, run: Run, settled: bool) -> Iterator[Event]:
        """The run's last events: `abort` after the bookkeeping of an abort, `finish` when nothing waits."""
        if run.stopped():
            self._abort_bookkeeping(run)
        yield from self._drain()
        if run.stopped():
            yield Abort(reason=run.signal.reason)
        elif settled:
            yield Finish(finish_reason=self._conversation.finish, usage=self._conversation.usage)

    def _closed_by_consumer(self, run: Run) -> None:
        """The consumer stopped iterating: abort, settle the books, and drop events nobody will read."""
        run.signal.abort(run.signal.reason or "the stream was closed")
        self._abort_bookkeeping(run)
        self._outbox.clear()

    def _abort_bookkeeping(self, run: Run) -> None:
        if self._aborted:
            return
        self._aborted = True
        if run.in_model:
            run.in_model = False
            self._after_response(run.events, partial=True)
        self._pauses.abort(run.signal.reason)

    def check_mode(self, method: str, asynchronous: bool) -> None:
        """Refuse a run method that cannot drive the client (an async client given to `run`, ...).

        Raises:
            ConfigurationError: the client is of the other kind; the message says which method to use.
        """
        mode = self._client_mode
        if mode == "both" or (mode == "async") == asynchronous:
            return
        raise ConfigurationError(wrong_mode_message(self.adapter.api, mode, method))

    def _shown(self, event: Event) -> Event | None:
        """What the UI sees of a model event (`StreamView`); a response's finish also counts for the turn."""
        if isinstance(event, Finish):
            self._conversation.finish = event.finish_reason
            self._conversation.usage = add_usage(self._conversation.usage, event.usage)
        return self._view.shown(event)

    def _after_response(self, events: list[Event], *, partial: bool = False) -> bool:
        """Record the assistant turn; True when it has calls to run."""
        assistant = assistant_message(events, self._conversation.messages)
        if partial and not assistant.content:
            return False
        self._conversation.messages.append(assistant)
        entry = self._transcript.message(assistant)
        calls: list[ToolCall] = []
        failed: list[ToolResult] = []
        for event in events:
            if isinstance(event, ToolInputAvailable) and not event.provider_executed:
                calls.append(ToolCall.from_event(event))
            elif isinstance(event, ToolInputError) and not event.provider_executed:
                call = ToolCall(tool_call_id=event.tool_call_id, tool_name=event.tool_name, input=event.input)
                calls.append(call)
                output = {"type": "error-text", "value": event.error_text}
                failed.append(ToolResult(tool_call_id=call.tool_call_id, tool_name=call.tool_name, output=output))
        if not calls:
            return False
        self._conversation.turn = Turn(calls=calls, assistant_entry=entry)
        for result in failed:
            self._pauses.collect(result)
        return True

    def _drain(self) -> Iterator[Event]:
        if self.background.active:
            self._outbox.extend(self.background.take_events())
        while self._outbox:
            yield self._outbox.pop(0)

    def _note_warnings(self, found: list[Degradation]) -> list[Degradation]:
        """Keep the degradations not met before, each reported once (here and on the result)."""
        new: list[Degradation] = []
        for degradation in found:
            if degradation not in self._conversation.warnings and degradation not in new:
                new.append(degradation)
        self._conversation.warnings.extend(new)
        for degradation in new:
            warnings.warn(CompatibilityWarning(degradation), stacklevel=4)
        return new
