"""Specification of the real transports: stdio (a subprocess started by the SDK's client) and streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types
import pytest
import uvicorn
from mcp import Client, StdioServerParameters

from toolwire import create_tool
from toolwire.mcp import load_tools, serve_async, streamable_http_app, tool_listing
from toolwire.runtime import ToolContext, execute_tool

HERE = Path(__file__).parent


def stdio_params(*args: str) -> StdioServerParameters:
    """`python -m toolwire.mcp serve ...` with this folder importable."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolwire.mcp", "serve", *args],
        env={"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])},
    )


class TestStdio:
    async def test_round_trip_lists_and_calls_over_a_subprocess(
        self, mode: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The SDK client starts the server, lists its tools and calls them; stray prints stay off the wire."""
        async with Client(stdio_params("mcp_demo_tools:TOOLS"), mode=mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            echoed = await client.call_tool("echo", {"text": "over stdio"})
            divided = await client.call_tool("divide", {"a": 1, "b": 4})
            failed = await client.call_tool("divide", {"a": 1, "b": 0})
            image = await client.call_tool("dot", {})
        assert names == ["echo", "divide", "wait_for_abort", "last_abort", "dot"]
        assert echoed.content == [mcp_types.TextContent(text="over stdio")]
        assert divided.structured_content == {"quotient": 0.25}
        assert (failed.is_error, failed.content) == (
            True,
            [mcp_types.TextContent(text="Tool 'divide' failed: ZeroDivisionError: division by zero")],
        )
        assert image.content == [mcp_types.ImageContent(data="R0lGODlh", mime_type="image/gif")]
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []

    async def test_client_cancellation_reaches_the_tool_in_the_subprocess(self, mode: str) -> None:
        """Cancelling the call sends the cancellation over stdio; the tool's abort signal says why."""
        started = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            started.set()

        async with Client(stdio_params("mcp_demo_tools:TOOLS"), mode=mode) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(partial(client.call_tool, "wait_for_abort", {}, progress_callback=on_progress))
                await started.wait()
                group.cancel_scope.cancel()
            reasons = await client.call_tool("last_abort", {})
        assert reasons.content == [mcp_types.TextContent(text="['cancelled by the MCP client']")]

    async def test_server_is_named_after_the_module_and_versioned_by_it(self) -> None:
        """`serve_from_spec` defaults: the top-level module name and its `__version__`."""
        async with Client(stdio_params("mcp_demo_tools:TOOLS"), mode="legacy") as client:
            assert client.server_info == mcp_types.Implementation(name="mcp_demo_tools", version="3.1.4")

    async def test_name_and_version_options_win(self) -> None:
        """The command line overrides both."""
        params = stdio_params("mcp_demo_tools:TOOLS", "--name", "demo", "--version", "9.9")
        async with Client(params, mode="legacy") as client:
            assert client.server_info == mcp_types.Implementation(name="demo", version="9.9")

    async def test_loaded_stdio_tools_run_through_the_runtime(self) -> None:
        """`load_tools` with server parameters starts the server for each call."""
        (echo, *_) = await load_tools(stdio_params("mcp_demo_tools:TOOLS"))
        result = await execute_tool(echo, {"toolCallId": "c1", "toolName": "echo", "input": {"text": "hi"}})
        assert result.output == {"type": "text", "value": "hi"}

    def test_a_spec_that_names_no_tools_exits_with_a_usage_error(self) -> None:
        """The command says what is wrong and exits with status 2."""
        params = stdio_params("mcp_demo_tools:NOT_TOOLS")
        environment = {**os.environ, **(params.env or {})}
        done = subprocess.run(
            [params.command, *params.args], capture_output=True, text=True, env=environment, check=False
        )
        assert (done.returncode, done.stderr.strip()) == (
            2,
            "error: cannot serve 'mcp_demo_tools:NOT_TOOLS': "
            "it is a list, not a Tool, a list of Tools or a dict of Tools",
        )


def _slow_tool(started: threading.Event, stopped: threading.Event, reasons: list[str | None]) -> Any:
    def slow(value: Any, context: ToolContext) -> str:
        started.set()
        if context.abort_signal.wait(timeout=30):
            reasons.append(context.abort_signal.reason)
        stopped.set()
        return "finished"

    return create_tool(id="slow", description="Takes its time", execute=slow)


async def _accept(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={})


GREET = create_tool(
    id="greet",
    description="Say hello",
    input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    execute=lambda value, context: f"hello {value['name']} via {context.mcp.headers.get('user-agent', '?')[:6]}",
)


@asynccontextmanager
async def http_server(tools: list[Any], **options: Any) -> AsyncIterator[str]:
    """The tools served by uvicorn on a loopback port chosen by the OS; yields the MCP URL."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    app = streamable_http_app(tools, name="http-demo", version="1.0.0", **options)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    serving = asyncio.ensure_future(server.serve(sockets=[listener]))
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await serving
        listener.close()


class TestStreamableHttp:
    async def test_round_trip_lists_and_calls_over_http(self, protocol: str, mode: str) -> None:
        """Listing and calling work over HTTP, and `context.mcp.headers` shows the HTTP request."""
        async with http_server([GREET]) as url, Client(url, mode=mode) as client:
            listed = (await client.list_tools()).tools
            result = await client.call_tool("greet", {"name": "Ada"})
        assert [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed] == [
            tool_listing(GREET, protocol_version=protocol)
        ]
        assert result.content == [mcp_types.TextContent(text="hello Ada via python")]

    async def test_client_cancellation_over_http_aborts_the_tool(self, mode: str) -> None:
        """The cancellation crosses the network and reaches the tool's abort signal."""
        started, stopped = threading.Event(), threading.Event()
        reasons: list[str | None] = []
        async with http_server([_slow_tool(started, stopped, reasons)]) as url:
            async with Client(url, mode=mode) as client, anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "slow", {})
                await anyio.to_thread.run_sync(started.wait, 30)
                group.cancel_scope.cancel()
            await anyio.to_thread.run_sync(stopped.wait, 30)
        assert reasons == ["cancelled by the MCP client"]

    async def test_stateless_http_before_2026_07_28_refuses_approval_with_the_reason(self) -> None:
        """Stateless HTTP has no channel for a question mid-call on the handshake era: say so, do not run."""
        tool = create_tool(id="rm", description="d", require_approval=True, execute=lambda value: "removed")
        async with (
            http_server([tool], stateless=True) as url,
            Client(url, mode="legacy", elicitation_callback=_accept) as client,
        ):
            result = await client.call_tool("rm", {})
        assert (result.is_error, result.content) == (
            True,
            [
                mcp_types.TextContent(
                    text="Tool 'rm' needs the user's approval, but this connection cannot carry a question to the "
                    "MCP client (stateless HTTP before 2026-07-28); the tool did not run."
                )
            ],
        )

    async def test_stateless_http_on_2026_07_28_asks_through_input_rounds(self) -> None:
        """The stateless era carries questions in results, so approval works without a session."""
        tool = create_tool(id="rm", description="d", require_approval=True, execute=lambda value: "removed")
        async with (
            http_server([tool], stateless=True) as url,
            Client(url, mode="2026-07-28", elicitation_callback=_accept) as client,
        ):
            result = await client.call_tool("rm", {})
        assert (result.is_error, result.content) == (False, [mcp_types.TextContent(text="removed")])

    async def test_http_options_reach_the_sdk_app(self) -> None:
        """`http_options` configure the SDK's HTTP app (here: the request size limit)."""
        async with (
            http_server([GREET], http_options={"max_request_body_size": 64}) as url,
            httpx2.AsyncClient() as http,
        ):
            answer = await http.post(
                url,
                headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
                content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"padding":"'
                + b"x" * 100
                + b'"}}}',
            )
        assert answer.status_code == 413

    async def test_foreign_host_header_is_refused_on_loopback(self) -> None:
        """DNS-rebinding protection: a page on another origin cannot drive a local server."""
        async with http_server([GREET]) as url, httpx2.AsyncClient() as http:
            answer = await http.post(
                url,
                headers={"Host": "evil.example", "Content-Type": "application/json", "Accept": "application/json"},
                content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            )
        assert answer.status_code == 421


class TestServeAsync:
    async def test_loaded_http_tools_run_over_per_call_connections(self) -> None:
        """`load_tools(url)` needs nothing kept open."""
        async with http_server([GREET]) as url:
            (greet,) = await load_tools(url)
            result = await execute_tool(greet, {"toolCallId": "c1", "toolName": "greet", "input": {"name": "Bo"}})
        assert result.output == {"type": "text", "value": "hello Bo via python"}

    async def test_serve_async_serves_streamable_http_on_the_given_port(self) -> None:
        """What `toolwire mcp serve --transport streamable-http` runs, until its task is cancelled."""
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        serving = asyncio.ensure_future(
            serve_async([GREET], name="demo", version="1.0.0", transport="streamable-http", port=port)
        )
        try:
            listed = await _first_listing(f"http://127.0.0.1:{port}/mcp")
        finally:
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
        assert listed == ["greet"]


async def _first_listing(url: str) -> list[str]:
    """List the tools once the server accepts connections (it starts in the background)."""
    for _ in range(200):
        try:
            async with Client(url, mode="legacy") as client:
                return [tool.name for tool in (await client.list_tools()).tools]
        except Exception:
            await asyncio.sleep(0.05)
    raise AssertionError(f"nothing answered at {url}")
