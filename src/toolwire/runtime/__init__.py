"""The runtime: runs tool calls with validation, hooks, context, approvals and suspension."""

from __future__ import annotations

from .abort import AbortSignal
from .context import Observe, ToolContext
from .execute import ExecutionSettings, Outcome, execute_tool, execute_tool_sync, resume_tool
from .suspension import ResumeRefused, Suspension
from .toolbox import ApprovalRequest, Toolbox
from .transforms import transformed

__all__ = [
    "AbortSignal",
    "ApprovalRequest",
    "ExecutionSettings",
    "Observe",
    "Outcome",
    "ResumeRefused",
    "Suspension",
    "ToolContext",
    "Toolbox",
    "execute_tool",
    "execute_tool_sync",
    "resume_tool",
    "transformed",
]
