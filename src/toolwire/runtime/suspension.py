"""Suspended calls: `suspend(payload)` pauses a call; the state is JSON so it survives a restart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.exceptions import ResumeError, ToolwireError
from toolwire.tools import Tool


class ResumeRefused(ToolwireError):
    """Raised by `execute` when resume data is not for this call; nothing ran and the call stays suspended."""


class SuspendRequested(BaseException):
    """Raised by `context.suspend()`; a BaseException so `except Exception` in tools does not swallow it."""

    def __init__(self, payload: Any) -> None:
        self.payload = payload
        super().__init__("tool suspended")


@dataclass(frozen=True, slots=True, kw_only=True)
class Suspension:
    """A call paused by its tool, waiting for `resume(tool_call_id, resume_data)`."""

    tool_call_id: str
    tool_name: str
    input: Any
    """The call's input as JSON (execute gets it again, validated, on resume)."""
    payload: Any
    """What the tool passed to `suspend()` (validated against `suspend_schema`), as JSON."""
    display_payload: Any = None
    """The payload after the tool's `display.suspend` transform (what a UI may show)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form, enough to resume after a process restart."""
        data = {
            "type": "tool-suspended",
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "input": self.input,
            "payload": self.payload,
        }
        if self.display_payload is not None:
            data["displayPayload"] = self.display_payload
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Suspension:
        """Read the JSON form.

        Raises:
            ValueError: a required field is missing.
        """
        try:
            return cls(
                tool_call_id=str(data["toolCallId"]),
                tool_name=str(data["toolName"]),
                input=data["input"],
                payload=data.get("payload"),
                display_payload=data.get("displayPayload"),
            )
        except KeyError as exc:
            raise ValueError(f"suspended call state is missing {exc.args[0]!r}") from None


def suspended_tool(tools: Mapping[str, Tool], tool_call_id: str, tool_name: str, holder: str) -> Tool:
    """The tool that suspended a call (state imported where the tool is missing cannot resume).

    Raises:
        ResumeError: `holder` (a toolbox, an agent) does not hold the tool.
    """
    tool = tools.get(tool_name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        problem = f"was suspended by tool {tool_name!r}, which this {holder} does not hold (tools: {known})"
        raise ResumeError(tool_call_id, f"tool call {tool_call_id!r} {problem}")
    return tool
