"""The run state of an agent: the conversation, the turn in progress, totals, and their JSON form.

Everything here is plain data: `export_state` writes it as JSON and `import_state` reads it
back into a new process, so a paused or interrupted conversation continues elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic_core

from toolwire.compat import Degradation
from toolwire.events import FINISH_REASONS, FinishReason, Usage
from toolwire.messages import AssistantMessage, Message, ToolMessage, message_to_dict, parse_messages
from toolwire.results import ToolCall, ToolResult
from toolwire.runtime import ApprovalRequest, BackgroundTask, RunState, Suspension

STATE_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentResult:
    """Where a run ended."""

    text: str
    """The last assistant message's text."""
    finish_reason: FinishReason
    steps: int
    """Model calls since the last prompt."""
    usage: Usage | None
    """Token counts summed over those model calls."""
    messages: list[Message]
    paused: bool = False
    """True when calls wait (approval, resume data, an output from elsewhere); continue with `run()`."""
    pending_approvals: list[ApprovalRequest] = field(default_factory=list)
    """Calls waiting for `approve`/`deny`, with their unguessable approval ids."""
    suspended: list[Suspension] = field(default_factory=list)
    """Calls waiting for `resume(tool_call_id, data)` (or a card press)."""
    awaiting_outputs: list[ToolCall] = field(default_factory=list)
    """Calls to tools without `execute`, waiting for `supply_output(tool_call_id, output)` or `supply_error`."""
    aborted: bool = False
    """True when the run was aborted; its unfinished calls were answered as aborted."""
    warnings: list[Degradation] = field(default_factory=list)
    """Every degradation the conversation met (tools, history, provider switches), each once."""
    background_tasks: list[BackgroundTask] = field(default_factory=list)
    """Background calls still running; their results come before the next model call once they end."""


@dataclass(slots=True)
class Turn:
    """The calls of the last assistant message, held until every one has a result."""

    calls: list[ToolCall]
    results: dict[str, ToolResult] = field(default_factory=dict)
    awaiting_output: set[str] = field(default_factory=set)
    """Calls to tools without `execute`: their output comes from `supply_output`."""
    assistant_entry: int | None = None
    """Index of the assistant message in the transcript (approval requests are noted there)."""
    tool_entry: int | None = None
    """Index of the transcript entry collecting this turn's tool parts (None until the first)."""

    def owns(self, tool_call_id: str) -> bool:
        """Whether the call belongs to this turn."""
        return any(c.tool_call_id == tool_call_id for c in self.calls)

    def missing(self) -> list[ToolCall]:
        """Calls without a result yet, in call order."""
        return [c for c in self.calls if c.tool_call_id not in self.results]

    def message(self) -> ToolMessage:
        """The tool message answering every call, in call order."""
        return ToolMessage(content=tuple(self.results[c.tool_call_id] for c in self.calls))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (results keep their model-facing output; raw values stay behind)."""
        return {
            "calls": [c.to_dict() for c in self.calls],
            "results": [r.to_dict() for r in self.results.values()],
            "awaitingOutput": sorted(self.awaiting_output),
            "assistantEntry": self.assistant_entry,
            "toolEntry": self.tool_entry,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Turn:
        """Read the JSON form."""
        message = parse_messages([{"role": "assistant", "content": list(data.get("calls", []))}], "state.turn.calls")
        calls = [c for c in message[0].content if isinstance(c, ToolCall)] if message else []
        turn = cls(
            calls=calls,
            awaiting_output=set(data.get("awaitingOutput", [])),
            assistant_entry=data.get("assistantEntry"),
            tool_entry=data.get("toolEntry"),
        )
        for item in data.get("results", []):
            result = ToolResult.from_dict(item)
            turn.results[result.tool_call_id] = result
        return turn


def open_turn(messages: Sequence[Message]) -> Turn | None:
    """The turn a history leaves open: its last message is an assistant message with calls to run."""
    if not messages or not isinstance(messages[-1], AssistantMessage):
        return None
    calls = messages[-1].tool_calls
    return Turn(calls=list(calls)) if calls else None


def aborted_result(call: ToolCall, reason: str | None) -> ToolResult:
    """What the model reads for a call the run was aborted before it finished."""
    why = f" ({reason})" if reason else ""
    text = f"The run was aborted{why} before tool {call.tool_name!r} finished; it may be called again."
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        output={"type": "error-text", "value": text},
        provider_metadata=call.provider_metadata,
    )


def add_usage(total: Usage | None, more: Usage | None) -> Usage | None:
    """Token counts summed field by field (None stays None only where both are)."""
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


@dataclass(slots=True)
class Conversation:
    """The agent's whole state between calls (the toolbox keeps parked approvals and suspensions)."""

    messages: list[Message]
    transcript: list[dict[str, Any]]
    run: RunState
    turn: Turn | None = None
    steps: int = 0
    usage: Usage | None = None
    finish: FinishReason = "other"
    warnings: list[Degradation] = field(default_factory=list)
    resume_data: dict[str, Any] = field(default_factory=dict)
    """Resume data given with `resume()`, applied by the next run."""
    supplied_outputs: dict[str, Any] = field(default_factory=dict)
    """Outputs given with `supply_output()`, applied by the next run."""
    supplied_errors: dict[str, str] = field(default_factory=dict)
    """Errors given with `supply_error()`, applied by the next run."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "version": STATE_VERSION,
            "messages": [message_to_dict(m) for m in self.messages],
            "transcript": self.transcript,
            "turn": None if self.turn is None else self.turn.to_dict(),
            "steps": self.steps,
            "usage": None if self.usage is None else self.usage.to_dict(),
            "finishReason": self.finish,
            "run": self.run.to_dict(),
            "warnings": [d.to_dict() for d in self.warnings],
            "resumeData": _jsonable(self.resume_data),
            "suppliedOutputs": _jsonable(self.supplied_outputs),
            "suppliedErrors": dict(self.supplied_errors),
        }

    def load(self, state: Mapping[str, Any]) -> None:
        """Take every field of a `to_dict` form.

        Raises:
            ArgumentError: messages that cannot be read.
        """
        self.messages = parse_messages(state.get("messages", []), "state.messages")
        self.transcript = [dict(entry) for entry in state.get("transcript", [])]
        turn = state.get("turn")
        self.turn = None if turn is None else Turn.from_dict(turn)
        self.steps = int(state.get("steps", 0))
        usage = state.get("usage")
        self.usage = None if usage is None else Usage.from_dict(usage)
        finish = state.get("finishReason", "other")
        self.finish = finish if finish in FINISH_REASONS else "other"
        self.run.load(state.get("run") or {})
        self.warnings = [Degradation.from_dict(d) for d in state.get("warnings", [])]
        self.resume_data = dict(state.get("resumeData") or {})
        self.supplied_outputs = dict(state.get("suppliedOutputs") or {})
        self.supplied_errors = {str(k): str(v) for k, v in (state.get("suppliedErrors") or {}).items()}


def _jsonable(value: Any) -> Any:
    return pydantic_core.to_jsonable_python(value, bytes_mode="base64", serialize_unknown=True)
