"""MCP benchmarks, run by hand: `python benchmarks/mcp.py`.

Measures what toolwire adds on top of the `mcp` SDK: listing, result mapping both ways, and
an in-process `tools/call` round trip against the SDK's own high-level `MCPServer` with the
same tool, and against a bare low-level handler that validates nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from toolwire import create_tool, results
from toolwire.mcp import build_server, call_output, call_tool_result, load_tools, tool_listing
from toolwire.results import ToolResult


class Forecast(BaseModel):
    location: str
    temperature_celsius: float


def _forecast(value: dict[str, Any]) -> Forecast:
    return Forecast(location=value["location"], temperature_celsius=21.5)


async def _async_forecast(value: dict[str, Any]) -> Forecast:
    return _forecast(value)


def _tools(count: int, execute: Callable[..., Any] = _forecast) -> list[Any]:
    return [
        create_tool(
            id=f"weather_{i}",
            description="Get the current weather for a location",
            input_schema={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
            output_schema=Forecast,
            execute=execute,
            mcp={"annotations": {"readOnlyHint": True}, "_meta": {"v": 1}},
        )
        for i in range(count)
    ]


def _per_call(function: Callable[[], Any], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - start) / repeat * 1e6


async def _async_per_call(function: Callable[[], Awaitable[Any]], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        await function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def _mcpserver_peer() -> MCPServer:
    """The SDK's own high-level server with the same tool (validation and structured output included)."""
    peer = MCPServer("peer")

    @peer.tool(name="weather_0", description="Get the current weather for a location")
    def weather(location: str) -> Forecast:
        return Forecast(location=location, temperature_celsius=21.5)

    return peer


def _baseline_server(listed: Any) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=[mcp_types.Tool.model_validate(tool_listing(listed))])

    async def call_tool(ctx: Any, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
        forecast = Forecast(location=(params.arguments or {})["location"], temperature_celsius=21.5)
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(text=forecast.model_dump_json())], structured_content=forecast.model_dump()
        )

    return Server("baseline", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    tools = _tools(50)
    print(f"tool_listing, 50 tools: {_per_call(lambda: [tool_listing(t) for t in tools], 200):.0f} µs")
    image = results.content("chart", results.image_data(b"\x89PNG" * 1000, "image/png"))
    result = ToolResult(tool_call_id="c", tool_name=tools[0].id, output=image, raw=None)
    mapping = _per_call(lambda: call_tool_result(tools[0], result, None), 5000)
    print(f"call_tool_result (text + 4 KB image): {mapping:.1f} µs")
    wire = {"content": [{"type": "text", "text": "x"}, {"type": "image", "data": "iVBO", "mimeType": "image/png"}]}
    print(f"call_output (text + image): {_per_call(lambda: call_output(wire, 't'), 20000):.1f} µs")
    async_tool = _tools(1, _async_forecast)[0]
    for mode in ("legacy", "2026-07-28"):
        timings = []
        for server in (
            build_server(tools[:1], name="b", version="1"),
            build_server([async_tool], name="b", version="1"),
        ):
            async with Client(server, mode=mode) as client:
                timings.append(await _async_per_call(lambda: client.call_tool("weather_0", {"location": "Oslo"}), 500))
        async with Client(_baseline_server(tools[0]), mode=mode) as client:
            baseline = await _async_per_call(lambda: client.call_tool("weather_0", {"location": "Oslo"}), 500)
        async with Client(_mcpserver_peer(), mode=mode) as client:
            peer = await _async_per_call(lambda: client.call_tool("weather_0", {"location": "Oslo"}), 500)
        print(
            f"tools/call round trip [{mode}], median: toolwire sync tool {timings[0]:.0f} µs, "
            f"async tool {timings[1]:.0f} µs; SDK MCPServer sync tool {peer:.0f} µs; bare SDK handler {baseline:.0f} µs"
        )
    distinct = [
        create_tool(
            id=f"t{i}",
            description="d",
            input_schema={"type": "object", "properties": {f"p{i}": {"type": "string"}}},
            execute=_forecast,
        )
        for i in range(50)
    ]
    async with Client(build_server(distinct, name="b", version="1"), mode="legacy") as client:
        await client.list_tools()
        for label in ("first load", "reload"):
            start = time.perf_counter()
            await load_tools(client)
            print(f"load_tools, 50 tools with distinct schemas, {label}: {(time.perf_counter() - start) * 1e3:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
