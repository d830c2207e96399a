"""The transcript: the conversation as a user may see it, every payload through the `transcript` transforms.

Entries are message dicts (the `message_to_dict` form). Tool payloads are replaced by what the
tool's transcript transforms show, each transform receiving the raw value of its phase (see
`toolwire.runtime.transforms`). What the runtime does between an assistant message and its
results is noted as it happens, in the AI SDK's vocabulary where it has a word for it:

- the assistant entry gets `{"type": "tool-approval-request", "approvalId", "toolCallId",
  "approvalDescriptor"}` parts;
- the turn's tool entry collects, in time order, `tool-approval-response`, `tool-suspended`
  (`payload`), `tool-resumed` (`resumeData`, only through a `resume` transform) and
  `tool-result` parts (`output`: the `output` transform's value, or the model-facing output
  without one; errors as `{"type": "error-text", "value": ...}` through the `error` transform;
  a background call's acknowledgement carries its `taskId`);
- a background task's result is a user entry with one `background-task-result` part (`taskId`,
  `status`, and `output` as for a `tool-result`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from toolwire.messages import Message, message_to_dict
from toolwire.results import ToolResult, output_text
from toolwire.runtime import (
    ApprovalAnswered,
    ApprovalAsked,
    BackgroundStarted,
    BackgroundTask,
    Finished,
    Record,
    Resumed,
    ResumeInvalid,
    Suspended,
)
from toolwire.runtime.display import jsonable
from toolwire.runtime.transforms import (
    shown_approval,
    shown_error,
    shown_input,
    shown_output,
    shown_resume,
    shown_suspend,
)
from toolwire.tools import Tool

from ._state import Conversation, Turn


class Transcript:
    """Writes the conversation's transcript entries."""

    def __init__(self, conversation: Conversation, tools: Mapping[str, Tool]) -> None:
        self._conversation = conversation
        self._tools = tools

    def message(self, message: Message) -> int:
        """Append a message (tool-call inputs through the `input` transform); returns its index."""
        entry = message_to_dict(message)
        for part in entry.get("content", []):
            if isinstance(part, dict) and part.get("type") == "tool-call" and not part.get("providerExecuted"):
                tool = self._tools.get(str(part.get("toolName")))
                part["input"] = jsonable(shown_input(tool, "transcript", part.get("input"), str(part["toolCallId"])))
        entries = self._conversation.transcript
        entries.append(entry)
        return len(entries) - 1

    def note(self, record: Record, turn: Turn) -> None:
        """Note what the runtime did with one of the turn's calls."""
        call_id = record.tool_call_id
        match record:
            case ApprovalAsked(request=request):
                tool = self._tools.get(request.call.tool_name)
                descriptor = jsonable(shown_approval(tool, "transcript", request.call.input, call_id))
                part = {
                    "type": "tool-approval-request",
                    "approvalId": request.approval_id,
                    "toolCallId": call_id,
                    "approvalDescriptor": descriptor,
                }
                self._assistant_entry(turn)["content"].append(part)
            case ApprovalAnswered(request=request, decision=decision):
                answer: dict[str, Any] = {
                    "type": "tool-approval-response",
                    "approvalId": request.approval_id,
                    "approved": decision.approved,
                }
                if decision.reason is not None:
                    answer["reason"] = decision.reason
                self._tool_part(turn, answer)
            case Suspended(suspension=suspension):
                tool = self._tools.get(suspension.tool_name)
                payload = jsonable(shown_suspend(tool, "transcript", suspension.payload, call_id))
                self._tool_part(turn, _call_part("tool-suspended", call_id, suspension.tool_name, payload=payload))
            case Resumed(suspension=suspension, resume_data=data):
                shown = jsonable(shown_resume(self._tools.get(suspension.tool_name), "transcript", data, call_id))
                extra = {} if shown is None else {"resumeData": shown}
                self._tool_part(turn, _call_part("tool-resumed", call_id, suspension.tool_name, **extra))
            case ResumeInvalid():
                return  # the call stays suspended; the refused data is not part of the conversation
            case Finished(result=result):
                self._tool_part(turn, self._result_part(result))
            case BackgroundStarted(task_id=task_id, result=result):
                part = _call_part("tool-result", call_id, result.tool_name, output=result.output, taskId=task_id)
                self._tool_part(turn, part)
            case _:
                assert_never(record)

    def background_result(self, task: BackgroundTask, at: int | None = None) -> None:
        """Note the result of an ended background task (inserted at `at`, or appended)."""
        if task.result is None:
            return
        part = {**self._result_part(task.result), "type": "background-task-result"}
        part.update(taskId=task.task_id, status=task.status)
        entry = {"role": "user", "content": [part]}
        entries = self._conversation.transcript
        if at is None:
            entries.append(entry)
        else:
            entries.insert(at, entry)

    def _result_part(self, result: ToolResult) -> dict[str, Any]:
        tool = self._tools.get(result.tool_name)
        call_id = result.tool_call_id
        if result.output.get("type") == "execution-denied":
            output: Any = result.output
        elif result.is_error:
            output = {
                "type": "error-text",
                "value": shown_error(tool, "transcript", output_text(result.output), call_id),
            }
        elif tool is not None and tool.transform is not None and tool.transform.transcript.output is not None:
            output = jsonable(shown_output(tool, "transcript", result.raw, call_id))
        else:
            output = result.output
        return _call_part("tool-result", call_id, result.tool_name, output=output)

    def _assistant_entry(self, turn: Turn) -> dict[str, Any]:
        entries = self._conversation.transcript
        if turn.assistant_entry is None or turn.assistant_entry >= len(entries):
            entries.append({"role": "assistant", "content": []})
            turn.assistant_entry = len(entries) - 1
        entry: dict[str, Any] = entries[turn.assistant_entry]
        return entry

    def _tool_part(self, turn: Turn, part: dict[str, Any]) -> None:
        entries = self._conversation.transcript
        if turn.tool_entry is None or turn.tool_entry >= len(entries):
            entries.append({"role": "tool", "content": []})
            turn.tool_entry = len(entries) - 1
        entries[turn.tool_entry]["content"].append(part)


def _call_part(kind: str, tool_call_id: str, tool_name: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "toolCallId": tool_call_id, "toolName": tool_name, **fields}
