"""Everything the UI bridge needs from `Agent`, in one place, through its public API.

Loading a conversation, pausing and continuing (`export_state`/`import_state`, `approve`,
`deny`, `resume`), card presses (`toolwire.targets.press` on `agent.toolbox`, its result handed
back to the paused turn through the exported state), browser-side tools (a tool without
`execute` becomes one that suspends until the browser answers), the degradations of a run,
and what the model read of each result.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import AsyncGenerator, Callable, Generator, Mapping, Sequence
from typing import Any, Literal, cast

from toolwire.agent import Agent
from toolwire.compat import Degradation
from toolwire.events import Event
from toolwire.exceptions import ToolError
from toolwire.messages import Message, SystemMessage, ToolMessage, message_to_dict
from toolwire.results import ToolResult
from toolwire.runtime import ToolContext
from toolwire.tools import Tool

from .protocol import is_card

CallKind = Literal["approval", "suspended", "card", "client"]
BROWSER_SUSPENSION = {"awaiting": "browser"}
"""The suspension payload of a browser-side call (the browser answers with `addToolOutput`)."""


class RunAgent:
    """One request's agent, prepared for the UI bridge."""

    def __init__(self, agent: Agent, degradations: list[Degradation]) -> None:
        self.agent = agent
        self.degradations = degradations
        """Degradations of this run, in order; the stream drains them."""
        self.client_tools = _browser_side(agent)
        _record_degradations(agent, degradations)

    # -- facts -------------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The conversation as the agent holds it."""
        return self.agent.messages

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The agent's tools by id."""
        return self.agent.tools

    def facts(self) -> dict[str, str]:
        """Model, api and provider, for the message metadata."""
        return {"model": self.agent.model, "api": self.agent.adapter.api, "provider": self.agent.adapter.provider}

    def is_async(self) -> bool:
        """Whether the agent's SDK client is an async one (`astream`), else `stream` runs in a thread."""
        client = self.agent.client
        return type(client).__name__.startswith("Async") or hasattr(client, "aio")

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

    # -- conversation ------------------------------------------------------------------------------

    def load(self, history: Sequence[Message]) -> None:
        """Start from this conversation (the agent's own instructions first)."""
        messages = list(history)
        if self.agent.instructions and not (messages and isinstance(messages[0], SystemMessage)):
            messages.insert(0, SystemMessage(content=self.agent.instructions))
        self.agent.import_state({"messages": [message_to_dict(m) for m in messages]})

    def restore(self, state: Mapping[str, Any]) -> None:
        """Continue from a paused run's exported state."""
        self.agent.import_state(state)

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
            if suspension.tool_name in self.client_tools:
                calls[suspension.tool_call_id] = ("client", None)
            elif is_card(suspension.payload):
                calls[suspension.tool_call_id] = ("card", None)
            else:
                calls[suspension.tool_call_id] = ("suspended", None)
        return calls

    # -- answers -----------------------------------------------------------------------------------

    def approve(self, approval_id: str, approved: bool, reason: str | None) -> None:
        """The user's answer to an approval request."""
        if approved:
            self.agent.approve(approval_id)
        else:
            self.agent.deny(approval_id, reason)

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Resume data for a suspended call."""
        self.agent.resume(tool_call_id, resume_data)

    def client_output(self, tool_call_id: str, output: Any, error_text: str | None) -> None:
        """The browser's output (or error) for a browser-side call."""
        self.agent.resume(tool_call_id, {"errorText": error_text} if error_text is not None else {"output": output})

    async def press(self, tool_call_id: str, button_id: str | None, card_id: str) -> None:
        """Press (or, without a button, dismiss) a card; its result joins the paused turn.

        Raises:
            toolwire.targets.PressError: the press is refused (see `toolwire.targets.press`).
        """
        from toolwire.targets import dismiss, press

        toolbox = self.agent.toolbox
        context = toolbox.request_context
        if button_id is None:
            outcome = await dismiss(toolbox, tool_call_id, card_id=card_id, request_context=context)
        else:
            outcome = await press(toolbox, tool_call_id, button_id, card_id=card_id, request_context=context)
        if isinstance(outcome, ToolResult):
            state = self.agent.export_state()
            state["turn"]["results"].append(outcome.to_dict())
            self.agent.import_state(state)

    # -- running -----------------------------------------------------------------------------------

    def events(self, prompt: Any = None) -> Generator[Event, None, None]:
        """The run's events (sync SDK client); no prompt continues the loaded conversation."""
        return cast(Generator[Event, None, None], self.agent.stream(prompt))

    def aevents(self, prompt: Any = None) -> AsyncGenerator[Event, None]:
        """The run's events (async SDK client); no prompt continues the loaded conversation."""
        return cast(AsyncGenerator[Event, None], self.agent.astream(prompt))


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


def _browser_side(agent: Agent) -> frozenset[str]:
    """Tools without `execute` run in the browser: they suspend until `addToolOutput` answers."""
    names = frozenset(name for name, tool in agent.tools.items() if tool.execute is None)
    for name in names:
        waiting = dataclasses.replace(agent.tools[name], execute=_answered_by_browser)
        agent.tools[name] = waiting
        agent.toolbox.tools[name] = waiting
    return names


def _answered_by_browser(input: Any, context: ToolContext) -> Any:
    answer = context.resume_data
    if not isinstance(answer, Mapping):
        context.suspend(BROWSER_SUSPENSION)
    if answer.get("errorText") is not None:
        raise ToolError(str(answer["errorText"]))
    return answer.get("output")


def _record_degradations(agent: Agent, sink: list[Degradation]) -> None:
    """Every degradation the agent's adapter records in this run also lands in `sink`.

    The adapter reports them only through `warnings` (process-wide, so unusable per request);
    a copy of it whose `degrade` and `encode_tools` also append to this run's list does.
    """
    adapter = copy.copy(agent.adapter)
    original_degrade = type(adapter).degrade
    original_encode = type(adapter).encode_tools

    def degrade(degradations: list[Degradation], feature: str, action: str, tool_id: str | None = None) -> None:
        before = len(degradations)
        original_degrade(adapter, degradations, feature, action, tool_id)
        sink.extend(degradations[before:])

    def encode_tools(*args: Any, **kwargs: Any) -> Any:
        encoded = original_encode(adapter, *args, **kwargs)
        sink.extend(encoded.warnings)
        return encoded

    adapter.degrade = degrade  # type: ignore[method-assign]
    adapter.encode_tools = encode_tools  # type: ignore[method-assign]
    agent.adapter = adapter
