"""Tools served by the subprocess in the stdio tests (`python -m toolwire.mcp serve mcp_demo_tools:TOOLS`)."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

from toolwire import create_tool, results
from toolwire.runtime import ToolContext

__version__ = "3.1.4"


def _echo(value: dict[str, Any]) -> str:
    print("stray output must not corrupt the stdio protocol")
    return str(value["text"])


_aborted = threading.Event()
_abort_reasons: list[str | None] = []


async def _wait_for_abort(value: dict[str, Any], context: ToolContext) -> str:
    await context.mcp.report_progress(0, None, "started")
    try:
        await asyncio.Event().wait()
    finally:
        _abort_reasons.append(context.abort_signal.reason)
        _aborted.set()
    return "never"


def _last_abort(value: dict[str, Any]) -> str:
    _aborted.wait(timeout=30)
    return repr(_abort_reasons)


def _divide(value: dict[str, Any]) -> dict[str, float]:
    return {"quotient": value["a"] / value["b"]}


TOOLS = {
    "echo": create_tool(
        id="echo",
        description="Repeat the text",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        execute=_echo,
        mcp={"annotations": {"readOnlyHint": True}},
    ),
    "divide": create_tool(
        id="divide",
        description="Divide a by b",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
        output_schema={"type": "object", "properties": {"quotient": {"type": "number"}}, "required": ["quotient"]},
        execute=_divide,
    ),
    "wait_for_abort": create_tool(id="wait_for_abort", description="Wait until cancelled", execute=_wait_for_abort),
    "last_abort": create_tool(id="last_abort", description="Why the last wait ended", execute=_last_abort),
    "dot": create_tool(
        id="dot",
        description="A one-pixel image",
        execute=lambda value: None,
        to_model_output=lambda raw: results.content(results.image_data(b"GIF89a", "image/gif")),
    ),
}

ECHO = TOOLS["echo"]
BUNDLE = SimpleNamespace(tools=[TOOLS["divide"], TOOLS["dot"]])
NOT_TOOLS = [1, 2]
