"""Background calls: the model is told at once that a call runs, and reads its result in a later turn.

A tool with `background={...}` (the seed's `ToolBackgroundConfig`) is not awaited by the turn
that calls it. The toolbox answers the call with an acknowledgement (`{task_id}` included, so
the model can refer to it), and a `BackgroundTasks` runner executes it: concurrently with other
tasks and the conversation, under the agent's and the tool's concurrency limits, with the tool's
timeout per attempt, its retries after failures, and cancellation. Each task reports
`background-task-started`, `-progress` (from `context.background.progress(data)`) and
`-finished` events. When it ends, its result — an error text the model can read for a failure,
a timeout, a cancellation or a lost task — enters the conversation before the next model call.

`toolwire.runtime.background_tasks.BackgroundTasks` keeps tasks in-process as asyncio tasks (no
dependency); a durable engine (`toolwire.durable`) subclasses it to run them on its own queue.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.events import (
    BACKGROUND_TASK_STATUSES,
    BackgroundTaskFinished,
    BackgroundTaskStarted,
    BackgroundTaskStatus,
)
from toolwire.exceptions import ToolwireError
from toolwire.results import ToolCall, ToolResult, normalize_output, output_text
from toolwire.schema import SchemaValidationError
from toolwire.tools import BackgroundConfig, Tool

from ._invoke import TimedOut
from .abort import AbortSignal
from .display import jsonable
from .suspension import Suspension
from .transforms import shown_error, shown_output

TaskState = Literal["running", "completed", "failed", "timed-out", "cancelled", "lost"]

DEFAULT_ACKNOWLEDGEMENT = (
    "Started in the background as task {task_id}. Its result will arrive in a later message; "
    "go on without waiting for it."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundTask:
    """One background call: running, or ended with the result the model will read."""

    task_id: str
    call: ToolCall
    status: TaskState = "running"
    result: ToolResult | None = None
    """Set once the task ended (an error result unless `completed`)."""
    attempts: int = 0
    """How many times `execute` started."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the result keeps its raw value as JSON, for the transcript transforms)."""
        data: dict[str, Any] = {
            "taskId": self.task_id,
            "call": self.call.to_dict(),
            "status": self.status,
            "attempts": self.attempts,
        }
        if self.result is not None:
            data["result"] = {**self.result.to_dict(), "raw": jsonable(self.result.raw)}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BackgroundTask:
        """Read the JSON form.

        Raises:
            ValueError: a missing field, an unknown status or an output that is not a model-output form.
        """
        try:
            call_data = data["call"]
            call = ToolCall(
                tool_call_id=str(call_data["toolCallId"]),
                tool_name=str(call_data["toolName"]),
                input=call_data.get("input"),
                provider_metadata=call_data.get("providerMetadata"),
            )
            status = data["status"]
            task_id = str(data["taskId"])
        except KeyError as exc:
            raise ValueError(f"background task state is missing {exc.args[0]!r}") from None
        if status != "running" and status not in BACKGROUND_TASK_STATUSES:
            raise ValueError(f"background task {task_id!r} has an unknown status {status!r}")
        result_data = data.get("result")
        result = None
        if result_data is not None:
            result = dataclasses.replace(ToolResult.from_dict(result_data), raw=result_data.get("raw"))
        return cls(task_id=task_id, call=call, status=status, result=result, attempts=int(data.get("attempts", 0)))


@dataclass(frozen=True, slots=True)
class BackgroundContext:
    """`context.background` inside a background call."""

    task_id: str
    attempt: int
    """1 for the first attempt, 2 for the first retry, ..."""
    report: Callable[[Any], None]

    def progress(self, data: Any) -> None:
        """Report progress (JSON); a `background-task-progress` event carries it as given."""
        self.report(jsonable(data))


def runs_in_background(tool: Tool) -> bool:
    """Whether calls to this tool are run as background tasks."""
    return tool.background is not None and tool.background.enabled and tool.execute is not None


def acknowledgement(tool: Tool, task: BackgroundTask) -> ToolResult:
    """The result the model reads at once for a call that now runs in the background.

    Raises:
        ValueError: the tool's `acknowledgement` callable returned no text and no model output.
    """
    config = tool.background or BackgroundConfig()
    custom = config.acknowledgement
    if callable(custom):
        value = custom(task)
        output = {"type": "text", "value": value} if isinstance(value, str) else normalize_output(value)
    else:
        template = custom if custom is not None else DEFAULT_ACKNOWLEDGEMENT
        text = template.format(task_id=task.task_id, tool_name=tool.id, tool_call_id=task.call.tool_call_id)
        output = {"type": "text", "value": text}
    raw = {"status": "running", "taskId": task.task_id, "message": output_text(output)}
    call = task.call
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=tool.id,
        output=output,
        raw=raw,
        provider_metadata=call.provider_metadata,
    )


def lost_result(task: BackgroundTask) -> ToolResult:
    """What the model reads for a task whose process stopped before it ended."""
    text = (
        f"Background task {task.task_id} was lost: the process running it stopped before it finished. "
        "Call the tool again if its result is still needed."
    )
    return error_result_for(task.call, text)


def cancelled_result(task: BackgroundTask, reason: str | None) -> ToolResult:
    """What the model reads for a task cancelled before it ended."""
    why = f" ({reason})" if reason else ""
    return error_result_for(task.call, f"Background task {task.task_id} was cancelled{why} before it finished.")


def ended(outcome: ToolResult | Suspension, signal: AbortSignal, task: BackgroundTask) -> tuple[TaskState, ToolResult]:
    """How an attempt ended and the result the model reads for it."""
    call = task.call
    if isinstance(outcome, Suspension):
        text = f"Tool {call.tool_name!r} called suspend() in background task {task.task_id}; it cannot wait for data."
        return "failed", error_result_for(call, text)
    if signal.aborted and outcome.is_error:
        return "cancelled", cancelled_result(task, signal.reason)
    if isinstance(outcome.error, TimedOut):
        return "timed-out", outcome
    return ("failed" if outcome.is_error else "completed"), outcome


def retryable(status: TaskState, result: ToolResult) -> bool:
    """A timeout or an exception from `execute` is retried; a `ToolError` or a schema problem is an answer."""
    if status == "timed-out":
        return True
    error = result.error
    return (
        status == "failed"
        and isinstance(error, Exception)
        and not isinstance(error, (ToolwireError, SchemaValidationError))
    )


def finished_event(tool: Tool | None, task: BackgroundTask) -> BackgroundTaskFinished:
    """The `background-task-finished` event of an ended task (display transforms applied)."""
    call = task.call
    status: BackgroundTaskStatus = "failed" if task.status == "running" else task.status
    result = task.result
    output: Any = None
    error_text: str | None = None
    if result is not None and status == "completed":
        output = jsonable(shown_output(tool, "display", result.raw, call.tool_call_id))
    elif result is not None:
        error_text = shown_error(tool, "display", output_text(result.output), call.tool_call_id)
    return BackgroundTaskFinished(
        task_id=task.task_id,
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        status=status,
        output=output,
        error_text=error_text,
    )


def started_event(task: BackgroundTask) -> BackgroundTaskStarted:
    """The `background-task-started` event of a task."""
    call = task.call
    return BackgroundTaskStarted(task_id=task.task_id, tool_call_id=call.tool_call_id, tool_name=call.tool_name)


def error_result_for(call: ToolCall, text: str) -> ToolResult:
    """An error result the model reads for a background call."""
    return ToolResult(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        output={"type": "error-text", "value": text},
        provider_metadata=call.provider_metadata,
    )
