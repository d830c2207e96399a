"""The events of a run rather than of a response: tool outputs, approvals, steps, pauses, background tasks.

The runtime and the agent loop emit them; `normalize` never does. Public through `toolwire.events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ._event_base import EventBase as _EventBase
from ._event_base import FinishReason, ProviderMetadata, Usage


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
