"""Specification of `builtin` targets: host-registered Python handlers behind a tool."""

from __future__ import annotations

from typing import Any

import pydantic

from toolwire import create_tool
from toolwire.runtime import ToolContext
from toolwire.targets import TargetHost

BUILTIN = {"type": "builtin", "name": "handler"}


def _host(handler: Any, **settings: Any) -> TargetHost:
    return TargetHost(builtins={"handler": handler}, **settings)


async def test_a_sync_handler_gets_the_input(make_tool: Any, call: Any) -> None:
    """`handler(input)` returning text is the content."""
    result = await call(make_tool(BUILTIN, _host(lambda value: f"hello {value['name']}")), {"name": "Ada"})
    assert result.output == {"type": "text", "value": "hello Ada"}


async def test_an_async_handler_gets_the_context(make_tool: Any, call: Any) -> None:
    """`async handler(input, context)` sees the host's request context."""

    async def handler(value: Any, context: ToolContext) -> dict[str, Any]:
        return {"content": {"user": context.request_context["user"]}, "markdown": "**hi**"}

    result = await call(make_tool(BUILTIN, _host(handler)), {}, {"user": "ada"})
    assert (result.output, result.raw) == (
        {"type": "json", "value": {"user": "ada"}},
        {"content": {"user": "ada"}, "markdown": "**hi**"},
    )


async def test_a_pydantic_input_reaches_the_handler_as_json(call: Any) -> None:
    """Typed inputs are turned into JSON before any target sees them."""

    class Input(pydantic.BaseModel):
        url: str
        tags: list[str] = []

    seen: list[Any] = []
    tool = create_tool(
        id="typed",
        description="d",
        input_schema=Input,
        target=BUILTIN,
        target_host=_host(lambda value: seen.append(value) or "ok"),
    )
    await call(tool, {"url": "https://x.example"})
    assert seen == [{"url": "https://x.example", "tags": []}]


async def test_a_handler_answer_outside_the_contract_fails(make_tool: Any, call: Any) -> None:
    """Builtins follow the same answer contract as HTTP handlers."""
    result = await call(make_tool(BUILTIN, _host(lambda value: 42)), {})
    assert result.output["value"] == (
        "Tool 'probe' failed: TargetResponseError: builtin 'handler' answered a number; "
        'answer text, {"content": ...} or an action_required card'
    )


async def test_a_handler_exception_is_an_error_result(make_tool: Any, call: Any) -> None:
    """A failing handler fails the call like any execute."""

    def handler(value: Any) -> str:
        raise ValueError("no such bookmark")

    result = await call(make_tool(BUILTIN, _host(handler)), {})
    assert result.output["value"] == "Tool 'probe' failed: ValueError: no such bookmark"
