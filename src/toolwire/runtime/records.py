"""What happened to a call, with its raw payloads: the one source of display events and transcripts.

A `Toolbox` notes a record at each step of a call's life. Views are computed from records by
the tool's transforms (`toolwire.runtime.display` for UI events, the agent's transcript for
saved messages), so every surface applies the same transform to the same raw value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from toolwire.results import ToolResult

from .approvals import ApprovalRequest, Decision
from .suspension import Suspension


@dataclass(frozen=True, slots=True)
class ApprovalAsked:
    """A call waits for approval; the raw approval payload is the call's input."""

    request: ApprovalRequest

    @property
    def tool_call_id(self) -> str:
        return self.request.call.tool_call_id


@dataclass(frozen=True, slots=True)
class ApprovalAnswered:
    """Someone approved or denied a waiting call."""

    request: ApprovalRequest
    decision: Decision

    @property
    def tool_call_id(self) -> str:
        return self.request.call.tool_call_id


@dataclass(frozen=True, slots=True)
class Suspended:
    """A call paused itself with a payload."""

    suspension: Suspension

    @property
    def tool_call_id(self) -> str:
        return self.suspension.tool_call_id


@dataclass(frozen=True, slots=True)
class Resumed:
    """A suspended call continues with resume data (validated)."""

    suspension: Suspension
    resume_data: Any

    @property
    def tool_call_id(self) -> str:
        return self.suspension.tool_call_id


@dataclass(frozen=True, slots=True)
class ResumeInvalid:
    """Resume data was refused (it fails the resume schema, or the tool refused it); the call stays suspended."""

    suspension: Suspension
    error_text: str

    @property
    def tool_call_id(self) -> str:
        return self.suspension.tool_call_id


@dataclass(frozen=True, slots=True)
class Finished:
    """A call has its result (output, error or denial)."""

    result: ToolResult

    @property
    def tool_call_id(self) -> str:
        return self.result.tool_call_id


@dataclass(frozen=True, slots=True)
class BackgroundStarted:
    """A call now runs as a background task; `result` is the acknowledgement the model reads at once.

    `result.raw` is `{"status": "running", "taskId", "message"}`, not the tool's output: no
    `output` transform applies to it.
    """

    task_id: str
    result: ToolResult

    @property
    def tool_call_id(self) -> str:
        return self.result.tool_call_id


Record: TypeAlias = (
    ApprovalAsked | ApprovalAnswered | Suspended | Resumed | ResumeInvalid | Finished | BackgroundStarted
)
