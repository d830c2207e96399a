"""Everything the UI bridge needs from `Agent`, in one place, through its public API.

Loading a conversation (`messages`), pausing and continuing (`export_state`/`import_state`,
`approve`, `deny`, `resume`, `supply_output`, `supply_error`), card presses (`toolwire.targets.press` on
`agent.toolbox`: the runtime hands the result to the paused turn), the run's abort signal,
its degradations (`warnings`, each once) and what the model read of each result.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable, Generator, Iterator, Mapping, Sequence
from typing import Any, Literal, TypedDict, cast

from toolwire._hooks import run_sync
from toolwire.agent import Agent
from toolwire.compat import Degradation
from toolwire.events import Event, ToolInputAvailable
from toolwire.exceptions import ApprovalError, ResumeError
from toolwire.messages import AssistantMessage, Message, SystemMessage, TextPart, ToolMessage, UserMessage
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import AbortSignal, BackgroundTask
from toolwire.tools import Tool

from ._tool_chunks import shown_call
from .protocol import is_card

CallKind = Literal["approval", "suspended", "card", "client"]


class Facts(TypedDict):
    """What the message metadata says of the model."""

    model: str
    api: str
    provider: str


class AnswerRefused(Exception):
    """The agent refused an answer (a stale approval, a call that does not wait); the message says why."""


class RunAgent:
    """One request's agent, prepared for the UI bridge."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.signal = AbortSignal()
        """Aborted when the browser goes away: the provider stream closes and tools see it."""
        self._warned = len(agent.warnings)
        self._prompt: UserMessage | None = None
        """The posted message, when the run must take it as its prompt (results go before it)."""
        self.client_tools = frozenset(name for name, tool in agent.tools.items() if tool.execute is None)
        """Tools without `execute`: the browser runs them and supplies their output."""

    # -- facts -------------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The conversation as the agent holds it."""
        return self.agent.messages

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The agent's tools by id."""
        return self.agent.tools

    def facts(self) -> Facts:
        """Model, api and provider, for the message metadata."""
        return {"model": self.agent.model, "api": self.agent.adapter.api, "provider": self.agent.adapter.provider}

    def is_async(self) -> bool:
        """Whether to drive the agent with `astream` (an async or dual SDK client); else `stream` in a thread."""
        return self.agent.adapter.client_mode(self.agent.client) != "sync"

    def new_warnings(self) -> list[Degradation]:
        """Degradations met since the last call (the agent reports each once)."""
        found = self.agent.warnings
        new, self._warned = found[self._warned :], len(found)
        return new

    def current_calls(self) -> dict[str, ToolInputAvailable]:
        """The calls since the last user message (the assistant message a continued run streams into), as shown."""
        messages = self.agent.messages
        last_user = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
        return {
            part.tool_call_id: shown_call(part, self.tools)
            for message in messages[last_user + 1 :]
            if isinstance(message, AssistantMessage)
            for part in message.content
            if isinstance(part, ToolCall)
        }

    def tool_result(self, tool_call_id: str) -> ToolResult | None:
        """The result the model read (or will read) for a call run by this agent."""
        for message in reversed(self.agent.messages):
            if isinstance(message, ToolMessage):
                for result in message.content:
                    if result.tool_call_id == tool_call_id:
                        return result
        if self.agent.result().paused:
            for item in (self.agent.export_state().get("turn") or {}).get("results", []):
                if item.get("toolCallId") == tool_call_id:
                    return ToolResult.from_dict(item)
        return None

    def background_result(self, task_id: str) -> UserMessage | None:
        """The user message that brought a background task's result to the model, once it is in the conversation."""
        header = f"[Background task {task_id}] "  # how `toolwire.agent` opens a task's result message
        for message in reversed(self.agent.messages):
            if isinstance(message, UserMessage) and message.content:
                first = message.content[0]
                if isinstance(first, TextPart) and first.text.startswith(header):
                    return message
        return None

    def undelivered_tasks(self) -> dict[str, tuple[str, str, bool]]:
        """Background tasks that ended and wait to enter the conversation: (call id, tool, failed) by task id."""
        ended = [BackgroundTask.from_dict(item) for item in self.agent.background.export_state()["ended"]]
        return {t.task_id: (t.call.tool_call_id, t.call.tool_name, t.status != "completed") for t in ended}

    def leftover_background(self) -> dict[str, Any] | None:
        """Tasks left by a run that does not pause (stopped, failed): cancelled, exported as such for the next."""
        background = self.agent.background
        if self.agent.result().paused or not background.active:
            return None
        return background.abandon("the run that started it ended")  # its results could reach no one here

    def adopt_background(self, state: Mapping[str, Any] | None, history: Sequence[Message]) -> None:
        """Take in the tasks an earlier request left (those of calls the conversation still has).

        A task still running there is read as lost (a stopped run exports its tasks as cancelled),
        an ended one with its result: the model learns of each before the new prompt (which the
        run then takes as its prompt, as `Agent` places results that came before one).
        """
        if not state:
            return
        calls = {part.tool_call_id for message in history for part in _calls(message)}
        kept = {
            kind: [task for task in state.get(kind, []) if task.get("call", {}).get("toolCallId") in calls]
            for kind in ("running", "ended", "abandoned")
        }
        if not any(kept.values()):
            return
        self.agent.background.import_state(kept, self.agent.tools)
        messages = self.agent.messages
        if messages and isinstance(messages[-1], UserMessage):
            self._prompt = messages[-1]
            self.agent.messages = messages[:-1]

    # -- conversation ------------------------------------------------------------------------------

    def load(self, history: Sequence[Message]) -> None:
        """Start from this conversation, after the agent's own instructions."""
        instructions = [m for m in self.agent.messages if isinstance(m, SystemMessage)]
        self.agent.messages = [*instructions, *history]
        self._warned = len(self.agent.warnings)

    def restore(self, state: Mapping[str, Any]) -> None:
        """Continue from a paused run's exported state (its degradations were shown already)."""
        self.agent.import_state(state)
        self._warned = len(self.agent.warnings)

    def paused_state(self) -> dict[str, Any] | None:
        """The exported state when the run waits for answers, else None."""
        return self.agent.export_state() if self.agent.result().paused else None

    def waiting(self) -> dict[str, tuple[CallKind, str | None]]:
        """Calls the paused run waits on: kind and (for approvals) the approval id, by call id."""
        result = self.agent.result()
        calls: dict[str, tuple[CallKind, str | None]] = {}
        for request in result.pending_approvals:
            calls[request.call.tool_call_id] = ("approval", request.approval_id)
        for suspension in result.suspended:
            calls[suspension.tool_call_id] = ("card" if is_card(suspension.payload) else "suspended", None)
        for call in result.awaiting_outputs:
            calls[call.tool_call_id] = ("client", None)
        return calls

    # -- answers -----------------------------------------------------------------------------------

    def approve(self, approval_id: str, approved: bool, reason: str | None) -> None:
        """The user's answer to an approval request.

        Raises:
            AnswerRefused: the approval id does not wait (forged, stale, already answered).
        """
        try:
            if approved:
                self.agent.approve(approval_id)
            else:
                self.agent.deny(approval_id, reason)
        except ApprovalError as exc:
            raise AnswerRefused(str(exc)) from None

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Resume data for a suspended call (the run refuses data failing its schema, and stays paused).

        Raises:
            AnswerRefused: the call is not suspended.
        """
        try:
            self.agent.resume(tool_call_id, resume_data)
        except ResumeError as exc:
            raise AnswerRefused(str(exc)) from None

    def client_output(self, tool_call_id: str, output: Any) -> None:
        """The browser's output for a call to a tool without `execute`.

        Raises:
            AnswerRefused: the call does not wait for an output.
        """
        try:
            self.agent.supply_output(tool_call_id, output)
        except ResumeError as exc:
            raise AnswerRefused(str(exc)) from None

    def client_error(self, tool_call_id: str, error_text: str) -> None:
        """The browser's tool failed: the model reads `error_text` as the call's error result.

        Raises:
            AnswerRefused: the call does not wait for an output.
        """
        try:
            self.agent.supply_error(tool_call_id, error_text)
        except ResumeError as exc:
            raise AnswerRefused(str(exc)) from None

    async def press(self, tool_call_id: str, button_id: str | None, card_id: str) -> None:
        """Press (or, without a button, dismiss) a card; the runtime gives its result to the paused turn.

        Raises:
            toolwire.targets.PressError: the press is refused (see `toolwire.targets.press`).
        """
        from toolwire.targets import dismiss, press

        toolbox = self.agent.toolbox
        context = toolbox.request_context
        messages = self.agent.messages
        if button_id is None:
            await dismiss(toolbox, tool_call_id, card_id=card_id, request_context=context, messages=messages)
        else:
            await press(toolbox, tool_call_id, button_id, card_id=card_id, request_context=context, messages=messages)

    # -- running -----------------------------------------------------------------------------------

    def events(self, prompt: Any = None) -> Generator[Event, None, None]:
        """The run's events (sync SDK client); no prompt continues the loaded conversation.

        The run waits for its background calls (`until_idle`) and answers them in the same
        message: the next request builds a fresh agent, so a result coming later would be lost.
        """
        prompt = prompt if prompt is not None else self._prompt
        events = self.agent.stream(prompt, abort=self.signal, until_idle=True)
        return cast(Generator[Event, None, None], events)

    def aevents(self, prompt: Any = None) -> AsyncGenerator[Event, None]:
        """The run's events (async SDK client); waits for background calls too (see `events`)."""
        prompt = prompt if prompt is not None else self._prompt
        events = self.agent.astream(prompt, abort=self.signal, until_idle=True)
        return cast(AsyncGenerator[Event, None], events)

    async def apaused_background(self) -> AsyncGenerator[Event, None]:
        """A paused run's background tasks to their end, with their events (the next request builds a fresh agent).

        The answers may come in any later request, and a task of this agent would be lost with it;
        the ended tasks are exported with the paused run and enter the conversation after the answers.
        """
        background = self.agent.background
        while self.agent.result().paused and background.running and not self.signal.aborted:
            await background.wait(self.signal)
            for event in background.take_events():
                yield event
        for event in background.take_events() if self.agent.result().paused else []:
            yield event

    def paused_background(self) -> Iterator[Event]:
        """`apaused_background` for the sync driver (waits on toolwire's loop thread)."""
        events = self.apaused_background()
        try:
            while True:
                try:
                    yield run_sync(anext(events))
                except StopAsyncIteration:
                    return
        finally:
            run_sync(events.aclose())

    def abort(self, reason: str) -> None:
        """Stop the run: the provider stream closes, running tools see their abort signal."""
        self.signal.abort(reason)


def build_agent(factory: Callable[..., Agent], request: Any) -> Agent:
    """Call the app's factory with the chat request when it takes an argument."""
    try:
        takes_request = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_request = True
    agent = factory(request) if takes_request else factory()
    if not isinstance(agent, Agent):
        raise TypeError(f"the agent factory must return a toolwire Agent, got {type(agent).__name__}")
    return agent


def _calls(message: Message) -> list[ToolCall]:
    return (
        [part for part in message.content if isinstance(part, ToolCall)]
        if isinstance(message, AssistantMessage)
        else []
    )
