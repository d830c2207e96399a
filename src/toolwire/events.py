"""The unified stream events every adapter produces, in the AI SDK UI message stream vocabulary.

Events are small frozen value objects built in the hot path of every stream. `to_dict()` gives
the JSON form (camelCase fields); `from_dict()` reads it back. The events of a run (tool outputs,
approvals, steps, background tasks) are defined in `_run_events` and exported here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeAlias

from ._event_base import FINISH_REASONS as FINISH_REASONS
from ._event_base import SNAKE_FIELDS
from ._event_base import EventBase as _EventBase
from ._event_base import FinishReason as FinishReason
from ._event_base import PartialInputSource as PartialInputSource
from ._event_base import ProviderMetadata as ProviderMetadata
from ._event_base import Usage as Usage
from ._run_events import BACKGROUND_TASK_STATUSES as BACKGROUND_TASK_STATUSES
from ._run_events import Abort as Abort
from ._run_events import BackgroundTaskFinished as BackgroundTaskFinished
from ._run_events import BackgroundTaskProgress as BackgroundTaskProgress
from ._run_events import BackgroundTaskStarted as BackgroundTaskStarted
from ._run_events import BackgroundTaskStatus as BackgroundTaskStatus
from ._run_events import FinishStep as FinishStep
from ._run_events import StartStep as StartStep
from ._run_events import ToolApprovalRequest as ToolApprovalRequest
from ._run_events import ToolApprovalResponse as ToolApprovalResponse
from ._run_events import ToolOutputAvailable as ToolOutputAvailable
from ._run_events import ToolOutputDenied as ToolOutputDenied
from ._run_events import ToolOutputError as ToolOutputError
from ._run_events import ToolResumed as ToolResumed
from ._run_events import ToolResumeError as ToolResumeError
from ._run_events import ToolSuspended as ToolSuspended
from ._source_events import SOURCE_EVENT_CLASSES, source_event_from_dict
from ._source_events import File as File
from ._source_events import SourceDocument as SourceDocument
from ._source_events import SourceUrl as SourceUrl


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
    _position: int = field(default=0, repr=False, compare=False)

    @property
    def partial_input(self) -> Any:
        """Best-effort parsed input so far.

        Computed when read. Read while iterating, it is the parser's live value (copy it to
        keep it); read later, it is recomputed from the text as it stood at this delta.
        """
        return self._partial.partial_value(self._position)

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
        name = SNAKE_FIELDS.get(key, key)
        if name not in allowed:
            raise ValueError(f"{kind!r} events have no field {key!r}")
        kwargs[name] = Usage.from_dict(value) if name == "usage" and isinstance(value, Mapping) else value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {kind!r} event: {exc}") from None
