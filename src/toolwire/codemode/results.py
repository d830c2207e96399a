"""What a code-mode run returns: `CodeModeToolResult`, and the compact form the model reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from toolwire.results import ModelOutput

CallStatus = Literal["ok", "error", "refused", "cancelled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeModeError:
    """Why a program failed: the exception's name, its message and the line of the model's code."""

    message: str
    name: str | None = None
    """The exception type (`NameError`, `ToolError`, `TimeoutError`, `SandboxError`, ...)."""
    line: int | None = None
    """1-based line in the model's program, when the failure has one."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form without unset fields."""
        data: dict[str, Any] = {"message": self.message}
        if self.name is not None:
            data["name"] = self.name
        if self.line is not None:
            data["line"] = self.line
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """One `external_*` call the program made, for the host's traces and timeouts."""

    tool: str
    """The original tool id."""
    status: CallStatus
    """`ok`; `error` (the tool failed); `refused` (never ran); `cancelled` (stopped when the run ended)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeModeToolResult:
    """The outcome of one program (Mastra's `CodeModeToolResult`, plus the calls it made)."""

    success: bool
    result: Any = None
    """The program's JSON result (None when it failed)."""
    logs: tuple[str, ...] = ()
    """Console output in order: stdout lines, then `[stderr] `-prefixed stderr and logging lines."""
    error: CodeModeError | None = None
    calls: tuple[CallRecord, ...] = ()
    """Every call, in the order the program made them (kept for the host, not shown to the model)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what the model sees, plus nothing hidden but `calls`)."""
        data: dict[str, Any] = {"success": self.success}
        if self.success:
            data["result"] = self.result
        if self.logs:
            data["logs"] = list(self.logs)
        if self.error is not None:
            data["error"] = self.error.to_dict()
        return data

    def to_model_output(self) -> ModelOutput:
        """`json` on success, `error-json` on failure, so providers flag failed runs to the model."""
        return {"type": "json" if self.success else "error-json", "value": self.to_dict()}
