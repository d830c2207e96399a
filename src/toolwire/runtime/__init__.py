"""The runtime: runs tool calls with validation, hooks, context, approvals and suspension."""

from __future__ import annotations

from .abort import AbortSignal
from .approvals import ApprovalRequest
from .background import BackgroundContext, BackgroundTask
from .background_tasks import BackgroundTasks
from .context import Observe, ToolContext
from .display import display_event, display_stream_event
from .execute import ExecutionSettings, Outcome, execute_tool, execute_tool_sync, result_from_output, resume_tool
from .records import (
    ApprovalAnswered,
    ApprovalAsked,
    BackgroundStarted,
    Finished,
    Record,
    Resumed,
    ResumeInvalid,
    Suspended,
)
from .run_state import AgentContext, RunState, WorkflowContext
from .suspension import ResumeRefused, Suspension
from .toolbox import Toolbox
from .transforms import transformed

__all__ = [
    "AbortSignal",
    "AgentContext",
    "ApprovalAnswered",
    "ApprovalAsked",
    "ApprovalRequest",
    "BackgroundContext",
    "BackgroundStarted",
    "BackgroundTask",
    "BackgroundTasks",
    "ExecutionSettings",
    "Finished",
    "Observe",
    "Outcome",
    "Record",
    "ResumeInvalid",
    "ResumeRefused",
    "Resumed",
    "RunState",
    "Suspended",
    "Suspension",
    "ToolContext",
    "Toolbox",
    "WorkflowContext",
    "display_event",
    "display_stream_event",
    "execute_tool",
    "execute_tool_sync",
    "result_from_output",
    "resume_tool",
    "transformed",
]
