"""Misspelled keywords, and an outcome type that is not an outcome, are refused."""

from __future__ import annotations

from typing import Any

from toolwire import Tool, create_tool
from toolwire.runtime import execute_tool_sync

CALL: dict[str, Any] = {"toolCallId": "c1", "toolName": "pong", "input": {}}
# expected by mypy: call-overload
# expected by pyright: reportCallIssue, reportUnknownLambdaType, reportUnknownVariableType
ping = create_tool(id="ping", descripton="Ping.", execute=lambda args: 1)
pong = create_tool(id="pong", description="Pong.", execute=lambda args: 1)
# expected by mypy: call-overload
# expected by pyright: reportCallIssue, reportUnknownVariableType
outcome = execute_tool_sync(pong, CALL, aproved=True)
# expected by mypy: type-var
# expected by pyright: reportInvalidTypeArguments
wrong: Tool[int, int, int]
