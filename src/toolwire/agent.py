"""A small multi-provider agent loop over the official SDK clients.

Each step encodes the conversation and tools for the adapter's API, calls the SDK, normalizes
the response, runs the requested tools through a `Toolbox`, appends the results, and repeats
until the model stops calling tools or `max_steps` is reached. A call waiting for approval or
suspended by its tool pauses the loop; `approve`/`deny`/`resume` and then `run()` (without a
prompt) continue it, also after a restart (`export_state` / `from_state`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire._hooks import run_sync
from toolwire.adapter import Adapter, EncodedTools, tool_mapping
from toolwire.events import (
    Event,
    Finish,
    FinishReason,
    FinishStep,
    StartStep,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    Usage,
)
from toolwire.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ToolMessage,
    assistant_message,
    message_to_dict,
    to_message,
    user,
)
from toolwire.registry import get_adapter
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import ApprovalRequest, ExecutionSettings, Suspension, Toolbox, transformed
from toolwire.runtime.execute import Outcome
from toolwire.tools import Tool


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentResult:
    """Where a run ended."""

    text: str
    """The last assistant message's text."""
    finish_reason: FinishReason
    steps: int
    usage: Usage | None
    messages: list[Message]
    paused: bool = False
    """True when calls wait for approval or resumption; continue with `run()`."""
    pending_approvals: list[ApprovalRequest] = field(default_factory=list)
    suspended: list[Suspension] = field(default_factory=list)


@dataclass(slots=True)
class _Turn:
    """Results of the current assistant turn, held until every call has one."""

    calls: list[ToolCall]
    results: dict[str, ToolResult] = field(default_factory=dict)

    def missing(self) -> list[ToolCall]:
        return [c for c in self.calls if c.tool_call_id not in self.results]

    def message(self) -> ToolMessage:
        return ToolMessage(content=tuple(self.results[c.tool_call_id] for c in self.calls))


class Agent:
    """Runs a tool-using conversation on any API with its official SDK client."""

    def __init__(
        self,
        *,
        api: str | Adapter,
        client: Any,
        model: str,
        tools: Sequence[Tool] = (),
        instructions: str | None = None,
        max_steps: int = 10,
        tool_choice: Any = None,
        request_options: Mapping[str, Any] | None = None,
        request_context: Any = None,
        settings: ExecutionSettings | None = None,
        stream: bool = True,
        max_concurrency: int = 8,
    ) -> None:
        self.adapter = get_adapter(api) if isinstance(api, str) else api
        self.client = client
        self.model = model
        self.tools = tool_mapping(tools) or {}
        self.instructions = instructions
        self.max_steps = max_steps
        self.tool_choice = tool_choice
        self.request_options = dict(request_options or {})
        self.stream_responses = stream
        self.messages: list[Message] = [SystemMessage(content=instructions)] if instructions else []
        self.transcript: list[dict[str, Any]] = []
        """The conversation as a user may see it: transcript transforms applied to tool payloads."""
        self._outbox: list[Event] = []
        self.toolbox = Toolbox(
            self.tools,
            max_concurrency=max_concurrency,
            request_context=request_context,
            settings=settings,
            approvals="pause",
            on_event=self._outbox.append,
        )
        self._turn: _Turn | None = None
        self._usage: Usage | None = None
        self._steps = 0
        self._finish: FinishReason = "other"
        self._resume_data: dict[str, Any] = {}
        self._call_tool_ids: dict[str, str] = {}

    # -- public API ----------------------------------------------------------------------------

    def run(self, prompt: str | Message | Mapping[str, Any] | None = None) -> AgentResult:
        """Run until the model stops calling tools (sync client); `prompt=None` continues a paused run."""
        for _ in self.stream(prompt):
            pass
        return self.result()

    async def arun(self, prompt: str | Message | Mapping[str, Any] | None = None) -> AgentResult:
        """`run` with the SDK's async client."""
        async for _ in self.astream(prompt):
            pass
        return self.result()

    def stream(self, prompt: str | Message | Mapping[str, Any] | None = None) -> Iterator[Event]:
        """Unified events of every step, tool outputs included (display transforms applied)."""
        self._begin(prompt)
        yield from self._drain()
        if self._turn is not None and not self._settle_sync():
            yield from self._drain()
            return
        yield from self._drain()
        while self._steps < self.max_steps:
            self._steps += 1
            yield StartStep()
            request = self._request()
            source = self.adapter.invoke(self.client, request, stream=self.stream_responses)
            events: list[Event] = []
            for event in self.adapter.normalize(source, tools=self.tools, messages=self.messages):
                events.append(event)
                shown = self._step_event(event)
                if shown is not None:
                    yield shown
            if not self._after_response(events):
                break
            settled = self._settle_sync()
            yield from self._drain()
            if not settled:
                return
        yield Finish(finish_reason=self._finish, usage=self._usage)

    async def astream(self, prompt: str | Message | Mapping[str, Any] | None = None) -> AsyncIterator[Event]:
        """`stream` with the SDK's async client."""
        self._begin(prompt)
        for event in self._drain():
            yield event
        if self._turn is not None and not await self._settle():
            for event in self._drain():
                yield event
            return
        while self._steps < self.max_steps:
            self._steps += 1
            yield StartStep()
            request = self._request()
            source = await self.adapter.ainvoke(self.client, request, stream=self.stream_responses)
            events: list[Event] = []
            async for event in self.adapter.anormalize(source, tools=self.tools, messages=self.messages):
                events.append(event)
                shown = self._step_event(event)
                if shown is not None:
                    yield shown
            if not self._after_response(events):
                break
            settled = await self._settle()
            for event in self._drain():
                yield event
            if not settled:
                return
        yield Finish(finish_reason=self._finish, usage=self._usage)

    def approve(self, approval_id: str) -> None:
        """Approve a call the run paused on; `run()` then continues."""
        self.toolbox.approve(approval_id)

    def deny(self, approval_id: str, reason: str | None = None) -> None:
        """Deny a call the run paused on; the model sees an `execution-denied` result."""
        self.toolbox.deny(approval_id, reason)

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Give a suspended call its resume data; `run()` then continues."""
        self._resume_data[tool_call_id] = resume_data

    # -- persistence -----------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        """JSON state of the conversation and of paused calls."""
        turn = self._turn
        return {
            "messages": [message_to_dict(m) for m in self.messages],
            "toolbox": self.toolbox.export_state(),
            "turn": None
            if turn is None
            else {
                "calls": [c.to_dict() for c in turn.calls],
                "results": [r.to_dict() for r in turn.results.values()],
            },
            "steps": self._steps,
        }

    def import_state(self, state: Mapping[str, Any]) -> None:
        """Restore `export_state` output into this agent (same tools and client)."""
        self.messages = [to_message(m) for m in state.get("messages", [])]
        self.toolbox.import_state(state.get("toolbox", {}))
        turn = state.get("turn")
        if turn is not None:
            calls = [to_message({"role": "assistant", "content": [c]}).content[0] for c in turn["calls"]]
            self._turn = _Turn(calls=[c for c in calls if isinstance(c, ToolCall)])
            for item in turn["results"]:
                result = ToolResult.from_dict(item)
                self._turn.results[result.tool_call_id] = result
        self._steps = int(state.get("steps", 0))

    # -- one step ----------------------------------------------------------------------------------

    def _begin(self, prompt: str | Message | Mapping[str, Any] | None) -> None:
        if prompt is None:
            if self._turn is None and not self.messages:
                raise ValueError("nothing to run: give a prompt")
            return
        if self._turn is not None:
            raise ValueError(
                "the run is paused on tool calls: approve/deny/resume them and call run() without a prompt"
            )
        message = user(prompt) if isinstance(prompt, str) else to_message(prompt)
        self.messages.append(message)
        self.transcript.append(message_to_dict(message))
        self._steps = 0

    def _request(self) -> dict[str, Any]:
        tools: EncodedTools | None = None
        if self.tools:
            tools = self.adapter.encode_tools(list(self.tools.values()), self.tool_choice)
        return self.adapter.build_request(
            model=self.model,
            messages=self.messages,
            tools=tools,
            options=self.request_options,
            stream=self.stream_responses,
        )

    def _step_event(self, event: Event) -> Event | None:
        """What the UI sees of a model event: payload transforms applied, per-step finish renamed."""
        if isinstance(event, Finish):
            self._finish = event.finish_reason
            self._usage = _add_usage(self._usage, event.usage)
            return FinishStep(finish_reason=event.finish_reason, usage=event.usage)
        if isinstance(event, ToolInputStart):
            self._call_tool_ids[event.tool_call_id] = event.tool_name
            return event
        if isinstance(event, ToolInputDelta):
            tool = self.tools.get(self._call_tool_ids.get(event.tool_call_id, ""))
            if tool is None or tool.transform is None:
                return event
            shown = transformed(tool, "display", "input_delta", event.input_text_delta)
            return (
                None if shown is None else ToolInputDelta(tool_call_id=event.tool_call_id, input_text_delta=str(shown))
            )
        if isinstance(event, (ToolInputAvailable, ToolInputError)):
            tool = self.tools.get(event.tool_name)
            if tool is None or tool.transform is None:
                return event
            shown_input = transformed(tool, "display", "input", event.input, tool_call_id=event.tool_call_id)
            return dataclasses.replace(event, input=shown_input)
        return event

    def _after_response(self, events: list[Event]) -> bool:
        """Record the assistant turn; True when there are calls to run."""
        assistant = assistant_message(events)
        self.messages.append(assistant)
        self.transcript.append(self._transcript_of(assistant))
        calls: list[ToolCall] = []
        failed: dict[str, ToolResult] = {}
        for event in events:
            if isinstance(event, ToolInputAvailable) and not event.provider_executed:
                calls.append(ToolCall.from_event(event))
            elif isinstance(event, ToolInputError) and not event.provider_executed:
                call = ToolCall(tool_call_id=event.tool_call_id, tool_name=event.tool_name, input=event.input)
                calls.append(call)
                failed[call.tool_call_id] = ToolResult(
                    tool_call_id=call.tool_call_id,
                    tool_name=call.tool_name,
                    output={"type": "error-text", "value": event.error_text},
                )
        if not calls:
            return False
        self._turn = _Turn(calls=calls, results=failed)
        return True

    def _settle_sync(self) -> bool:
        """Run what the current turn still needs (sync code); True when every call has a result."""
        settled: bool = run_sync(self._settle())
        return settled

    async def _settle(self) -> bool:
        turn = self._turn
        if turn is None:
            return True
        for tool_call_id in list(self._resume_data):
            if tool_call_id in self.toolbox.suspended:
                outcome = await self.toolbox.resume(
                    tool_call_id, self._resume_data.pop(tool_call_id), messages=self.messages
                )
                self._collect(turn, outcome)
        for outcome in await self.toolbox.run_decided(messages=self.messages):
            self._collect(turn, outcome)
        parked = set(self.toolbox.suspended) | {r.call.tool_call_id for r in self.toolbox.pending_approvals.values()}
        to_run = [c for c in turn.missing() if c.tool_call_id not in parked]
        for ran in await self.toolbox.run(to_run, messages=self.messages):
            if not isinstance(ran, ApprovalRequest):
                self._collect(turn, ran)
        if turn.missing():
            return False
        message = turn.message()
        self.messages.append(message)
        self.transcript.append(self._transcript_of(message))
        self._turn = None
        return True

    @staticmethod
    def _collect(turn: _Turn, outcome: Outcome) -> None:
        if isinstance(outcome, ToolResult):
            turn.results[outcome.tool_call_id] = outcome

    def _drain(self) -> Iterator[Event]:
        while self._outbox:
            yield self._outbox.pop(0)

    def _transcript_of(self, message: Message) -> dict[str, Any]:
        data = message_to_dict(message)
        for part in data.get("content", []):
            if not isinstance(part, dict):
                continue
            tool = self.tools.get(str(part.get("toolName")))
            if part.get("type") == "tool-call":
                part["input"] = transformed(tool, "transcript", "input", part.get("input"))
            elif part.get("type") == "tool-result":
                part["output"] = transformed(tool, "transcript", "output", part.get("output"))
        return data

    def result(self) -> AgentResult:
        """Where the conversation stands now."""
        last = next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)
        text = "".join(p.text for p in last.content if isinstance(p, TextPart)) if last else ""
        return AgentResult(
            text=text,
            finish_reason=self._finish,
            steps=self._steps,
            usage=self._usage,
            messages=list(self.messages),
            paused=self._turn is not None,
            pending_approvals=list(self.toolbox.pending_approvals.values()),
            suspended=list(self.toolbox.suspended.values()),
        )


def _add_usage(total: Usage | None, more: Usage | None) -> Usage | None:
    if more is None:
        return total
    if total is None:
        return more

    def add(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        input_tokens=add(total.input_tokens, more.input_tokens),
        output_tokens=add(total.output_tokens, more.output_tokens),
        total_tokens=add(total.total_tokens, more.total_tokens),
        reasoning_tokens=add(total.reasoning_tokens, more.reasoning_tokens),
        cached_input_tokens=add(total.cached_input_tokens, more.cached_input_tokens),
    )
