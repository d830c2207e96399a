"""Specification of `toolwire.mcp.load_tools`: MCP servers' tools as toolwire Tools run by the toolwire runtime."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from toolwire import ConfigurationError, create_tool, results
from toolwire.mcp import McpCallOutput, McpToolError, StructuredDict, build_server, load_tools, load_tools_sync
from toolwire.runtime import AbortSignal, ToolContext, execute_tool
from toolwire.tools import McpProperties, ToolAnnotations

PNG = "iVBORw0KGgo="


class Forecast(BaseModel):
    location: str
    temperature_celsius: float


WEATHER = create_tool(
    id="weather",
    description="Get the current weather for a location",
    input_schema={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
    output_schema=Forecast,
    strict=True,
    input_examples=[{"input": {"location": "Paris"}}],
    provider_options={"anthropic": {"cache_control": {"type": "ephemeral"}}},
    execute=lambda value: Forecast(location=value["location"], temperature_celsius=21.5),
    mcp={"annotations": {"title": "Weather Lookup", "readOnlyHint": True}, "_meta": {"version": "1.0.0"}},
)
CHART = create_tool(
    id="chart",
    description="Draw a chart",
    execute=lambda value: "ignored",
    to_model_output=lambda raw: results.content("Here:", results.image_data(PNG, "image/png")),
)


def _fail(value: Any) -> None:
    raise ValueError("the city is under water")


BROKEN = create_tool(id="broken", description="Always fails", execute=_fail)


def call(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"toolCallId": "call_1", "toolName": tool_name, "input": arguments}


async def loaded(server: Any, connect: Callable[..., Client], **options: Any) -> dict[str, Any]:
    async with connect(server) as client:
        return {tool.id: tool for tool in await load_tools(client, **options)}


class TestDefinitions:
    async def test_loaded_tool_carries_the_listed_definition(self, connect: Callable[..., Client]) -> None:
        """Name, description, both schemas, strict, examples, annotations and `_meta` come back."""
        server = build_server([WEATHER], name="demo", version="1.0.0")
        async with connect(server) as client:
            (tool,) = await load_tools(client)
        assert (tool.id, tool.description, tool.strict) == ("weather", "Get the current weather for a location", True)
        assert tool.input_schema.json_schema == WEATHER.input_schema.json_schema
        assert tool.output_schema is not None
        assert WEATHER.output_schema is not None
        assert tool.output_schema.json_schema == WEATHER.output_schema.json_schema
        assert tool.input_examples == WEATHER.input_examples
        assert tool.mcp == McpProperties(
            annotations=ToolAnnotations(title="Weather Lookup", read_only_hint=True, open_world_hint=True),
            meta={"version": "1.0.0"},
        )
        assert tool.provider_options == {}

    async def test_provider_options_are_restored_only_from_a_trusted_server(
        self, connect: Callable[..., Client]
    ) -> None:
        """They are merged into provider requests as given, so the caller opts in."""
        server = build_server([WEATHER], name="demo", version="1.0.0")
        tools = await loaded(server, connect, trust_provider_options=True)
        assert tools["weather"].provider_options == {"anthropic": {"cache_control": {"type": "ephemeral"}}}

    async def test_description_falls_back_to_the_title_then_the_name(self, connect: Callable[..., Client]) -> None:
        """MCP descriptions are optional; toolwire tools always have one."""
        listing = [
            mcp_types.Tool(name="a", title="Tool A", input_schema={"type": "object"}),
            mcp_types.Tool(name="b", input_schema={"type": "object"}),
        ]
        tools = await loaded(_static_server(listing), connect)
        assert [tools["a"].description, tools["b"].description] == ["Tool A", "The MCP tool 'b'."]

    async def test_input_examples_that_fail_the_schema_are_dropped_with_a_warning(
        self, connect: Callable[..., Client], caplog: pytest.LogCaptureFixture
    ) -> None:
        """A server's bad examples cost the examples, not the tool."""
        listing = [
            mcp_types.Tool(
                name="a",
                description="d",
                input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
                _meta={"toolwire/inputExamples": [{"input": {"n": "one"}}]},
            )
        ]
        with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
            tools = await loaded(_static_server(listing), connect)
        assert tools["a"].input_examples == ()
        assert caplog.messages == [
            "dropping the input examples of the MCP tool 'a': tool 'a': `input_examples[0]` does not match the input "
            "schema: at `n`: 'one' is not of type 'integer'"
        ]

    async def test_tool_with_an_invalid_schema_is_refused_by_name(self, connect: Callable[..., Client]) -> None:
        """The error names the MCP tool and what is wrong."""
        listing = [mcp_types.Tool(name="bad", description="d", input_schema=_INVALID_SCHEMA)]
        async with connect(_static_server(listing)) as client:
            with pytest.raises(
                ConfigurationError,
                match=r"^the MCP tool 'bad' cannot be loaded: tool 'bad': `input_schema` invalid JSON Schema: ",
            ):
                await load_tools(client)

    async def test_skip_invalid_loads_the_other_tools(self, connect: Callable[..., Client]) -> None:
        """One broken tool need not block a whole server."""
        listing = [
            mcp_types.Tool(name="bad", description="d", input_schema=_INVALID_SCHEMA),
            mcp_types.Tool(name="good", description="d", input_schema={"type": "object"}),
        ]
        tools = await loaded(_static_server(listing), connect, skip_invalid=True)
        assert list(tools) == ["good"]

    async def test_two_tools_with_one_name_are_refused(self, connect: Callable[..., Client]) -> None:
        """Calls could not be routed."""
        listing = [mcp_types.Tool(name="a", description="d", input_schema={"type": "object"})] * 2
        async with connect(_static_server(listing)) as client:
            with pytest.raises(ConfigurationError, match="the MCP server lists two tools named 'a'"):
                await load_tools(client)

    async def test_errors_from_a_per_call_connection_are_raised_as_themselves(self) -> None:
        """The SDK's task-group wrapping never reaches the caller."""
        listing = [mcp_types.Tool(name="a", description="d", input_schema={"type": "object"})] * 2
        with pytest.raises(ConfigurationError, match="the MCP server lists two tools named 'a'"):
            await load_tools(_static_server(listing))

    async def test_every_page_of_a_paginated_listing_is_loaded(self, connect: Callable[..., Client]) -> None:
        """`nextCursor` is followed to the end."""
        pages = {
            None: mcp_types.ListToolsResult(
                tools=[mcp_types.Tool(name="a", description="d", input_schema={"type": "object"})], next_cursor="p2"
            ),
            "p2": mcp_types.ListToolsResult(
                tools=[mcp_types.Tool(name="b", description="d", input_schema={"type": "object"})]
            ),
        }

        async def list_tools(ctx: Any, params: mcp_types.PaginatedRequestParams | None) -> mcp_types.ListToolsResult:
            return pages[params.cursor if params else None]

        tools = await loaded(Server("paged", version="1", on_list_tools=list_tools), connect)
        assert list(tools) == ["a", "b"]


_INVALID_SCHEMA = {"type": "object", "properties": {"n": {"type": "nonsense"}}}


def _static_server(listing: list[mcp_types.Tool], answer: mcp_types.CallToolResult | None = None) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        assert answer is not None
        return answer

    return Server("static", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


class TestExecution:
    async def test_text_result_is_a_text_output(self, connect: Callable[..., Client]) -> None:
        """The runtime runs a loaded tool like any other."""
        tool = create_tool(id="greet", description="d", execute=lambda value: f"hello {value['name']}")
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("greet", name="Ada"))
        assert result.output == {"type": "text", "value": "hello Ada"}
        assert isinstance(result.raw, McpCallOutput)

    async def test_structured_result_raw_is_the_structured_content_with_the_result_attached(
        self, connect: Callable[..., Client]
    ) -> None:
        """`raw` validates against the output schema and keeps the whole result on `.mcp`."""
        server = build_server([WEATHER], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("weather", location="Oslo"))
        assert result.raw == {"location": "Oslo", "temperature_celsius": 21.5}
        assert isinstance(result.raw, StructuredDict)
        assert result.raw.mcp.content == (
            {"type": "text", "text": '{"location": "Oslo", "temperature_celsius": 21.5}'},
        )
        assert result.output == {"type": "text", "value": '{"location": "Oslo", "temperature_celsius": 21.5}'}

    async def test_image_result_is_image_data_for_the_adapters(self, connect: Callable[..., Client]) -> None:
        """Images survive the trip as toolwire parts."""
        server = build_server([CHART], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("chart"))
        assert result.output == {
            "type": "content",
            "value": [{"type": "text", "text": "Here:"}, {"type": "image-data", "data": PNG, "mediaType": "image/png"}],
        }

    async def test_error_result_is_an_error_for_the_model(self, connect: Callable[..., Client]) -> None:
        """`isError` becomes an error result carrying the server's words; the exception keeps the details."""
        server = build_server([BROKEN], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("broken"))
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'broken' failed: McpToolError: Tool 'broken' failed: ValueError: the city is under water",
        }
        assert isinstance(result.error, McpToolError)
        assert result.error.output.is_error is True

    async def test_input_is_validated_before_the_server_is_called(self, connect: Callable[..., Client]) -> None:
        """The listed input schema is enforced locally; a bad call never leaves the process."""
        runs: list[Any] = []
        tool = create_tool(
            id="square",
            description="d",
            input_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            execute=lambda value: runs.append(value) or value["n"] ** 2,
        )
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("square", n="four"))
        assert result.is_error
        assert runs == []

    async def test_audio_and_resources_from_a_server_map_to_parts(self, connect: Callable[..., Client]) -> None:
        """Audio stays audio file data, resources become text or files, links become URLs."""
        answer = mcp_types.CallToolResult(
            content=[
                mcp_types.AudioContent(data="UklG", mime_type="audio/wav"),
                mcp_types.EmbeddedResource(
                    resource=mcp_types.TextResourceContents(uri="file:///a.txt", mime_type="text/plain", text="notes")
                ),
                mcp_types.EmbeddedResource(
                    resource=mcp_types.BlobResourceContents(
                        uri="file:///r.pdf", mime_type="application/pdf", blob="JVBE"
                    )
                ),
                mcp_types.ResourceLink(uri="https://x.test/p.png", name="p.png", mime_type="image/png"),
            ]
        )
        listing = [mcp_types.Tool(name="media", description="d", input_schema={"type": "object"})]
        async with connect(_static_server(listing, answer)) as client:
            (remote,) = await load_tools(client)
            result = await execute_tool(remote, call("media"))
        assert result.output == {
            "type": "content",
            "value": [
                {"type": "file-data", "data": "UklG", "mediaType": "audio/wav"},
                {"type": "text", "text": "notes"},
                {"type": "file-data", "data": "JVBE", "mediaType": "application/pdf", "filename": "r.pdf"},
                {"type": "image-url", "url": "https://x.test/p.png", "mediaType": "image/png"},
            ],
        }

    async def test_aborting_the_local_call_cancels_the_remote_tool(self, connect: Callable[..., Client]) -> None:
        """Abort signal -> task cancelled -> MCP cancellation -> the remote tool's abort signal."""
        started, stopped = threading.Event(), threading.Event()
        reasons: list[str | None] = []

        def slow(value: Any, context: ToolContext) -> str:
            started.set()
            if context.abort_signal.wait(timeout=30):
                reasons.append(context.abort_signal.reason)
            stopped.set()
            return "finished"

        server = build_server([create_tool(id="slow", description="d", execute=slow)], name="demo", version="1.0.0")
        signal = AbortSignal()
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            running = asyncio.ensure_future(execute_tool(remote, call("slow"), abort=signal))
            await anyio.to_thread.run_sync(started.wait, 30)
            signal.abort("user pressed stop")
            result = await running
            await anyio.to_thread.run_sync(stopped.wait, 30)
        assert result.output == {"type": "error-text", "value": "Tool 'slow' was aborted (user pressed stop)."}
        assert reasons == ["cancelled by the MCP client"]

    async def test_remote_progress_is_logged_on_the_local_call(
        self, connect: Callable[..., Client], caplog: pytest.LogCaptureFixture
    ) -> None:
        """`context.mcp.report_progress` on the server shows up in the caller's `context.observe` log."""

        async def work(value: Any, context: ToolContext) -> str:
            await context.mcp.report_progress(1, 2, "half way")
            return "done"

        server = build_server([create_tool(id="work", description="d", execute=work)], name="demo", version="1.0.0")
        async with connect(server) as client:
            (remote,) = await load_tools(client)
            with caplog.at_level(logging.INFO, logger="toolwire.tools"):
                await execute_tool(remote, call("work"))
        assert [(r.getMessage(), getattr(r, "fields", None)) for r in caplog.records] == [
            ("mcp progress", {"progress": 1.0, "total": 2.0, "status": "half way"})
        ]


class TestSources:
    async def test_a_server_source_opens_a_connection_per_call(self) -> None:
        """Given something to connect to, the tools keep working after `load_tools` returns."""
        tool = create_tool(id="greet", description="d", execute=lambda value: "hi")
        (remote,) = await load_tools(build_server([tool], name="demo", version="1.0.0"))
        first = await execute_tool(remote, call("greet"))
        second = await execute_tool(remote, call("greet"))
        assert [first.output, second.output] == [{"type": "text", "value": "hi"}] * 2

    async def test_protocol_error_on_a_per_call_connection_is_an_error_result(self) -> None:
        """An MCP error response reaches the model as itself, not wrapped in an exception group."""
        listing = [mcp_types.Tool(name="gone", description="d", input_schema={"type": "object"})]

        async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
            return mcp_types.ListToolsResult(tools=listing)

        async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
            raise MCPError(code=mcp_types.INVALID_PARAMS, message="Unknown tool: 'gone'")

        (remote,) = await load_tools(Server("s", version="1", on_list_tools=list_tools, on_call_tool=call_tool))
        result = await execute_tool(remote, call("gone"))
        assert result.output == {"type": "error-text", "value": "Tool 'gone' failed: MCPError: Unknown tool: 'gone'"}

    async def test_client_options_configure_the_per_call_connections(self) -> None:
        """`elicitation_callback` lets a loaded tool that needs approval run."""

        async def approve(context: Any, params: Any) -> mcp_types.ElicitResult:
            return mcp_types.ElicitResult(action="accept", content={})

        tool = create_tool(id="rm", description="d", require_approval=True, execute=lambda value: "removed")
        server = build_server([tool], name="demo", version="1.0.0")
        (remote,) = await load_tools(server, elicitation_callback=approve)
        result = await execute_tool(remote, call("rm"))
        assert result.output == {"type": "text", "value": "removed"}

    async def test_a_client_session_works_as_a_source(self) -> None:
        """The lower-level `ClientSession` serves as well as `mcp.Client`."""
        tool = create_tool(id="greet", description="d", execute=lambda value: "hi")
        async with Client(build_server([tool], name="demo", version="1.0.0"), mode="legacy") as client:
            (remote,) = await load_tools(client.session)
            result = await execute_tool(remote, call("greet"))
        assert result.output == {"type": "text", "value": "hi"}

    async def test_a_single_use_transport_is_refused_with_the_way_out(self) -> None:
        """Per-call connections need something that can be connected to again."""
        from mcp.client.streamable_http import streamable_http_client

        transport = streamable_http_client("http://127.0.0.1:9/mcp")
        with pytest.raises(
            ConfigurationError, match=r"open `mcp\.Client\(\.\.\.\)` on it yourself and pass the client"
        ):
            await load_tools(transport)

    def test_load_tools_sync_connects_from_sync_code(self) -> None:
        """No event loop needed for a server source."""
        tool = create_tool(id="greet", description="d", execute=lambda value: "hi")
        tools = load_tools_sync(build_server([tool], name="demo", version="1.0.0"))
        assert [t.id for t in tools] == ["greet"]

    async def test_load_tools_sync_refuses_an_open_session(self) -> None:
        """A session belongs to the loop that opened it."""
        server = build_server([CHART], name="demo", version="1.0.0")
        async with Client(server) as client:
            with pytest.raises(ConfigurationError, match=r"load_tools_sync\(\) needs server parameters or a URL"):
                load_tools_sync(client)
