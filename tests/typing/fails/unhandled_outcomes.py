"""A tool that may ask for approval, or suspend, does not give a bare ToolResult."""

from __future__ import annotations

from typing import Any

from toolwire import ToolContext, create_tool
from toolwire.runtime import execute_tool

CALL: dict[str, Any] = {"toolCallId": "c1", "toolName": "t", "input": {}}
guarded = create_tool(id="delete", description="D.", execute=lambda args: True, require_approval=True)


def ask(args: Any, context: ToolContext) -> str:
    return "asked"


asking = create_tool(id="ask", description="A.", execute=ask)


async def main() -> None:
    # expected by mypy: union-attr
    # expected by pyright: reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType
    waiting = (await execute_tool(guarded, CALL)).output
    # expected by mypy: union-attr
    # expected by pyright: reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType
    paused = (await execute_tool(asking, CALL, approved=True)).output
    del waiting, paused
