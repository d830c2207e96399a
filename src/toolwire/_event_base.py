"""What every event shares: JSON conversion, token usage, and the closed sets of their fields.

Split from `events` so the run events (`_run_events`) and the stream events can both build on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

FinishReason = Literal["stop", "length", "tool-calls", "content-filter", "error", "other"]
FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "tool-calls", "content-filter", "error", "other")

ProviderMetadata: TypeAlias = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Token counts for one response (None where the provider did not say)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    reasoning_tokens: int | None = None
    """Output tokens spent on reasoning (included in `output_tokens`)."""
    cached_input_tokens: int | None = None
    """Input tokens read from the provider's prompt cache (included in `input_tokens`)."""

    def to_dict(self) -> dict[str, int]:
        """JSON form with unset counts omitted."""
        data = {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "totalTokens": self.total_tokens,
            "reasoningTokens": self.reasoning_tokens,
            "cachedInputTokens": self.cached_input_tokens,
        }
        return {k: v for k, v in data.items() if v is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """Read the JSON form."""
        return cls(
            input_tokens=data.get("inputTokens"),
            output_tokens=data.get("outputTokens"),
            total_tokens=data.get("totalTokens"),
            reasoning_tokens=data.get("reasoningTokens"),
            cached_input_tokens=data.get("cachedInputTokens"),
        )


class PartialInputSource(Protocol):
    """Computes the best-effort input of a streaming call as it stood after a given delta."""

    def partial_value(self, position: int) -> Any:
        """The parsed prefix of the call's argument text up to `position` (where a delta ended)."""
        ...


_CAMEL = {
    "message_id": "messageId",
    "tool_call_id": "toolCallId",
    "tool_name": "toolName",
    "input_text_delta": "inputTextDelta",
    "error_text": "errorText",
    "approval_id": "approvalId",
    "finish_reason": "finishReason",
    "provider_metadata": "providerMetadata",
    "provider_executed": "providerExecuted",
    "approval_descriptor": "approvalDescriptor",
    "task_id": "taskId",
}
SNAKE_FIELDS = {v: k for k, v in _CAMEL.items()}
"""JSON field names back to attribute names (`from_dict`)."""


class EventBase:
    """JSON conversion shared by every event class."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `type` plus camelCase fields; optional fields left unset are omitted."""
        data: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if (value is None and f.default is None) or (f.name == "provider_executed" and value is False):
                continue
            if isinstance(value, Usage):
                value = value.to_dict()
            data[_CAMEL.get(f.name, f.name)] = value
        return data
