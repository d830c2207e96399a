"""The unified stream events every adapter produces, in the AI SDK UI message stream vocabulary.

Events are small frozen value objects built in the hot path of every stream. `to_dict()` gives
the JSON form (camelCase fields); `from_dict()` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

from ._source_events import SOURCE_EVENT_CLASSES, source_event_from_dict
from ._source_events import File as File
from ._source_events import SourceDocument as SourceDocument
from ._source_events import SourceUrl as SourceUrl

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

    def partial_value(self, delta_count: int) -> Any:
        """The parsed prefix after `delta_count` argument deltas."""
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
_SNAKE = {v: k for k, v in _CAMEL.items()}


class _EventBase:
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(_EventBase):
    """A response begins."""

    type: ClassVar[str] = "start"
    message_id: str | None = None
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TextStart(_EventBase):
    """A text part begins."""

    type: ClassVar[str] = "text-start"
    id: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta(_EventBase):
    """More text for an open text part."""

    type: ClassVar[str] = "text-delta"
    id: str
    delta: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TextEnd(_EventBase):
    """A text part is complete."""

    type: ClassVar[str] = "text-end"
    id: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningStart(_EventBase):
    """A reasoning (thinking) part begins."""

    type: ClassVar[str] = "reasoning-start"
    id: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningDelta(_EventBase):
    """More reasoning text."""

    type: ClassVar[str] = "reasoning-delta"
    id: str
    delta: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningEnd(_EventBase):
    """A reasoning part is complete; signatures travel in `provider_metadata`."""

    type: ClassVar[str] = "reasoning-end"
    id: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInputStart(_EventBase):
    """The model started a tool call; its input will stream next."""

    type: ClassVar[str] = "tool-input-start"
    tool_call_id: str
    tool_name: str
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInputDelta(_EventBase):
    """A fragment of a call's JSON input text."""

    type: ClassVar[str] = "tool-input-delta"
    tool_call_id: str
    input_text_delta: str

    @property
    def partial_input(self) -> Any:
        """Best-effort parsed input so far: only with `partial=True` (`PartialToolInputDelta`)."""
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"type": self.type, "toolCallId": self.tool_call_id, "inputTextDelta": self.input_text_delta}


@dataclass(frozen=True, slots=True, kw_only=True)
class PartialToolInputDelta(ToolInputDelta):
    """A `tool-input-delta` from a stream normalized with `partial=True`: it knows the input so far.

    A subclass, so the common case builds two fields instead of four (half the cost per delta).
    """

    _partial: PartialInputSource = field(repr=False, compare=False)
    _delta_count: int = field(default=0, repr=False, compare=False)

    @property
    def partial_input(self) -> Any:
        """Best-effort parsed input so far.

        Computed when read. Read while iterating, it is the parser's live value (copy it to
        keep it); read later, it is recomputed from the text as it stood at this delta.
        """
        return self._partial.partial_value(self._delta_count)

    def to_dict(self) -> dict[str, Any]:
        """JSON form with `partialInput`."""
        data = ToolInputDelta.to_dict(self)
        data["partialInput"] = self.partial_input
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInputAvailable(_EventBase):
    """A call's input is complete, parsed and (with tools given) validated."""

    type: ClassVar[str] = "tool-input-available"
    tool_call_id: str
    tool_name: str
    input: Any
    """The input as JSON (after strict-mode null repair)."""
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None
    validated_input: Any = field(default=None, repr=False, compare=False)
    """The value `execute` receives (a model instance for pydantic schemas); not serialized."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form (without `validated_input`)."""
        data: dict[str, Any] = {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "input": self.input,
        }
        if self.provider_executed:
            data["providerExecuted"] = True
        if self.provider_metadata is not None:
            data["providerMetadata"] = self.provider_metadata
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInputError(_EventBase):
    """A call's input is unusable: not JSON, incomplete, or not matching the schema."""

    type: ClassVar[str] = "tool-input-error"
    tool_call_id: str
    tool_name: str
    input: Any
    """The parsed input, or the raw text when it did not parse."""
    error_text: str
    """What is wrong, worded so the model can fix it."""
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutputAvailable(_EventBase):
    """A tool produced output (ours, or a provider-executed one)."""

    type: ClassVar[str] = "tool-output-available"
    tool_call_id: str
    output: Any
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutputError(_EventBase):
    """A tool failed."""

    type: ClassVar[str] = "tool-output-error"
    tool_call_id: str
    error_text: str
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutputDenied(_EventBase):
    """The user denied a call that required approval."""

    type: ClassVar[str] = "tool-output-denied"
    tool_call_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolApprovalRequest(_EventBase):
    """A call waits for `approve(approval_id)` or `deny(approval_id)`."""

    type: ClassVar[str] = "tool-approval-request"
    approval_id: str
    """Unguessable and single-use: the answer must quote it."""
    tool_call_id: str
    approval_descriptor: Any = None
    """What the approver is shown: the call's input after the display `approval` transform."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolApprovalResponse(_EventBase):
    """A waiting call was approved or denied."""

    type: ClassVar[str] = "tool-approval-response"
    approval_id: str
    approved: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StartStep(_EventBase):
    """An agent loop starts one model call."""

    type: ClassVar[str] = "start-step"


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishStep(_EventBase):
    """An agent loop's model call is over (its tools may still run)."""

    type: ClassVar[str] = "finish-step"
    finish_reason: FinishReason | None = None
    usage: Usage | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSuspended(_EventBase):
    """A call paused itself (`suspend()`); `payload` is what the display may show."""

    type: ClassVar[str] = "tool-suspended"
    tool_call_id: str
    payload: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResumed(_EventBase):
    """A suspended call continues; `payload` is the resume data after the display `resume` transform.

    Without that transform no payload is shown: resume data can carry the presser's request context.
    """

    type: ClassVar[str] = "tool-resumed"
    tool_call_id: str
    payload: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResumeError(_EventBase):
    """Resume data was refused (it fails the tool's `resume_schema`); the call stays suspended."""

    type: ClassVar[str] = "tool-resume-error"
    tool_call_id: str
    error_text: str


BackgroundTaskStatus = Literal["completed", "failed", "timed-out", "cancelled", "lost"]
"""How a background task ended; `lost`: the process running it stopped before it finished."""
BACKGROUND_TASK_STATUSES: tuple[BackgroundTaskStatus, ...] = ("completed", "failed", "timed-out", "cancelled", "lost")


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskStarted(_EventBase):
    """A call runs in the background as `taskId`; the model was told so at once (toolwire-only)."""

    type: ClassVar[str] = "background-task-started"
    task_id: str
    tool_call_id: str
    tool_name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskProgress(_EventBase):
    """A background task reported progress with `context.background.progress(data)` (toolwire-only)."""

    type: ClassVar[str] = "background-task-progress"
    task_id: str
    tool_call_id: str
    tool_name: str
    data: Any = None
    """What the tool reported (JSON); a tool reports only what a display may show."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTaskFinished(_EventBase):
    """A background task ended; its result enters the conversation before the next model call (toolwire-only)."""

    type: ClassVar[str] = "background-task-finished"
    task_id: str
    tool_call_id: str
    tool_name: str
    status: BackgroundTaskStatus
    output: Any = None
    """On `completed`: the output as the display may show it (the tool's display `output` transform)."""
    error_text: str | None = None
    """Otherwise: what went wrong, as the display may show it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort(_EventBase):
    """The run was aborted (signal, task cancellation or closed stream); its calls were answered as aborted."""

    type: ClassVar[str] = "abort"
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish(_EventBase):
    """The response is over."""

    type: ClassVar[str] = "finish"
    finish_reason: FinishReason
    usage: Usage | None = None
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(_EventBase):
    """Something went wrong; the stream may go on after it."""

    type: ClassVar[str] = "error"
    error_text: str


Event: TypeAlias = (
    Start
    | TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | SourceUrl
    | SourceDocument
    | File
    | ToolInputStart
    | ToolInputDelta
    | ToolInputAvailable
    | ToolInputError
    | ToolOutputAvailable
    | ToolOutputError
    | ToolOutputDenied
    | ToolApprovalRequest
    | ToolApprovalResponse
    | ToolSuspended
    | ToolResumed
    | ToolResumeError
    | BackgroundTaskStarted
    | BackgroundTaskProgress
    | BackgroundTaskFinished
    | StartStep
    | FinishStep
    | Finish
    | Abort
    | Error
)

EVENT_CLASSES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Start,
        TextStart,
        TextDelta,
        TextEnd,
        ReasoningStart,
        ReasoningDelta,
        ReasoningEnd,
        *SOURCE_EVENT_CLASSES.values(),
        ToolInputStart,
        ToolInputDelta,
        ToolInputAvailable,
        ToolInputError,
        ToolOutputAvailable,
        ToolOutputError,
        ToolOutputDenied,
        ToolApprovalRequest,
        ToolApprovalResponse,
        ToolSuspended,
        ToolResumed,
        ToolResumeError,
        BackgroundTaskStarted,
        BackgroundTaskProgress,
        BackgroundTaskFinished,
        StartStep,
        FinishStep,
        Finish,
        Abort,
        Error,
    )
}


def from_dict(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from its JSON form.

    Raises:
        ValueError: unknown `type`, or fields that do not belong to it.
    """
    kind = data.get("type")
    cls = EVENT_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}; known: {sorted(EVENT_CLASSES)}")
    if kind in SOURCE_EVENT_CLASSES:
        return source_event_from_dict(data)
    allowed = {f.name for f in fields(cls) if not f.name.startswith("_")}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("type", "partialInput"):
            continue
        name = _SNAKE.get(key, key)
        if name not in allowed:
            raise ValueError(f"{kind!r} events have no field {key!r}")
        kwargs[name] = Usage.from_dict(value) if name == "usage" and isinstance(value, Mapping) else value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {kind!r} event: {exc}") from None
