"""Specification of serving toolwire tools over MCP, proven with the `mcp` SDK's own client in-process."""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from toolwire import CompatibilityWarning, ConfigurationError, create_tool, results
from toolwire.mcp import build_server, tool_listing
from toolwire.runtime import ToolContext

PNG = base64.b64encode(b"\x89PNG fake").decode()


class Forecast(BaseModel):
    location: str
    temperature_celsius: float


def _forecast(value: dict[str, Any]) -> Forecast:
    return Forecast(location=value["location"], temperature_celsius=21.5)


WEATHER = create_tool(
    id="weather",
    description="Get the current weather for a location",
    input_schema={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
    output_schema=Forecast,
    execute=_forecast,
    mcp={"annotations": {"title": "Weather Lookup", "readOnlyHint": True}, "_meta": {"version": "1.0.0"}},
)
CHART = create_tool(
    id="chart",
    description="Draw a chart",
    execute=lambda value: base64.b64decode(PNG),
    to_model_output=lambda raw: results.content("Here is the chart.", results.image_data(raw, "image/png")),
)
DELETE = create_tool(
    id="delete_file",
    description="Delete a file",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    execute=lambda value: f"deleted {value['path']}",
)


def _fail(value: dict[str, Any]) -> None:
    raise ValueError("the city is under water")


BROKEN = create_tool(id="broken", description="Always fails", execute=_fail)


class TestListTools:
    async def test_tools_list_gives_each_tools_listing(
        self, connect: Callable[..., Client], protocol: str, dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """`tools/list` is exactly `tool_listing` of each tool, in order."""
        server = build_server([WEATHER, CHART, DELETE], name="demo", version="1.0.0")
        async with connect(server) as client:
            listed = dump(await client.list_tools())["tools"]
        assert listed == [tool_listing(tool, protocol_version=protocol) for tool in (WEATHER, CHART, DELETE)]

    async def test_annotations_are_listed_with_the_spec_defaults(self, connect: Callable[..., Client]) -> None:
        """A write tool with no annotations is listed as destructive, non-idempotent, open-world."""
        server = build_server([WEATHER, DELETE], name="demo", version="1.0.0")
        async with connect(server) as client:
            listed = {t.name: t.annotations for t in (await client.list_tools()).tools}
        assert listed == {
            "weather": mcp_types.ToolAnnotations(title="Weather Lookup", read_only_hint=True, open_world_hint=True),
            "delete_file": mcp_types.ToolAnnotations(
                read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
            ),
        }

    async def test_server_identifies_itself_with_name_and_version(self) -> None:
        """The handshake carries the server's name and version."""
        server = build_server([DELETE], name="files", version="2.1.0", instructions="Be careful.")
        async with Client(server, mode="legacy") as client:
            info = client.server_info
            assert (info.name if info else None, info.version if info else None) == ("files", "2.1.0")
            assert client.instructions == "Be careful."


class TestCallTool:
    async def test_structured_output_comes_with_its_json_text(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """A tool with an output schema answers with text and `structuredContent`."""
        server = build_server([WEATHER], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("weather", {"location": "Paris"})
        assert dump(result) == {
            "content": [{"type": "text", "text": '{"location": "Paris", "temperature_celsius": 21.5}'}],
            "structuredContent": {"location": "Paris", "temperature_celsius": 21.5},
            "isError": False,
        }

    async def test_image_content_is_sent_as_an_image_block(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """`to_model_output` content parts become MCP content blocks."""
        server = build_server([CHART], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("chart", {})
        assert dump(result) == {
            "content": [
                {"type": "text", "text": "Here is the chart."},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ],
            "isError": False,
        }

    async def test_tool_exception_is_an_is_error_result_naming_the_tool(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """Failures are results the model can act on, not protocol errors."""
        server = build_server([BROKEN], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("broken", {})
        assert dump(result) == {
            "content": [{"type": "text", "text": "Tool 'broken' failed: ValueError: the city is under water"}],
            "isError": True,
        }

    async def test_invalid_arguments_are_an_is_error_result_with_the_schema(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """The runtime validates input and tells the model how to fix it."""
        server = build_server([DELETE], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("delete_file", {"path": 7})
        assert dump(result) == {
            "content": [
                {
                    "type": "text",
                    "text": "Invalid input for tool 'delete_file': at `path`: 7 is not of type 'string'. Call it again "
                    'with input matching {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}',
                }
            ],
            "isError": True,
        }

    async def test_unknown_tool_is_a_protocol_error(self, connect: Callable[..., Client]) -> None:
        """Finding the tool is the protocol's job (spec: an error response)."""
        server = build_server([DELETE], name="demo", version="1.0.0")
        async with connect(server) as client:
            with pytest.raises(MCPError, match="Unknown tool: 'nope'"):
                await client.call_tool("nope", {})

    async def test_missing_arguments_count_as_an_empty_object(self, connect: Callable[..., Client]) -> None:
        """`arguments` is optional on the wire."""
        server = build_server([CHART], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("chart")
        assert result.is_error is False

    async def test_invalid_custom_mcp_block_is_an_error_result_naming_the_tool(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """A hand-written MCP block the SDK rejects never breaks the connection."""
        tool = create_tool(
            id="odd",
            description="d",
            execute=lambda value: None,
            to_model_output=lambda raw: results.content(results.custom({"mcp": {"type": "image", "data": "x"}})),
        )
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("odd", {})
        assert dump(result)["isError"] is True
        assert dump(result)["content"][0]["text"].startswith(
            "Tool 'odd' produced content that is not a valid MCP content block ("
        )

    async def test_parts_mcp_cannot_carry_are_reported_as_compatibility_warnings(
        self, connect: Callable[..., Client], dump: Callable[[Any], dict[str, Any]]
    ) -> None:
        """A provider file id reaches the client as text, and the server says so."""
        tool = create_tool(
            id="upload",
            description="d",
            execute=lambda value: None,
            to_model_output=lambda raw: results.content(results.file_id("file-9")),
        )
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server) as client:
            with pytest.warns(CompatibilityWarning) as caught:
                result = await client.call_tool("upload", {})
        assert dump(result)["content"] == [{"type": "text", "text": "[file file-9]"}]
        assert [str(w.message) for w in caught] == [
            "[mcp] tool 'upload': tool_result.file-id: "
            "sent the text `[file file-9]`: MCP has no provider file references"
        ]


class TestRuntimeIntegration:
    async def test_context_mcp_tells_execute_the_protocol_version(
        self, connect: Callable[..., Client], protocol: str
    ) -> None:
        """`context.mcp` is set for async and sync tools alike."""

        async def async_version(value: Any, context: ToolContext) -> str:
            return str(context.mcp.protocol_version)

        def sync_version(value: Any, context: ToolContext) -> str:
            return str(context.mcp.protocol_version)

        server = build_server(
            [
                create_tool(id="a", description="d", execute=async_version),
                create_tool(id="s", description="d", execute=sync_version),
            ],
            name="demo",
            version="1.0.0",
        )
        async with connect(server) as client:
            texts = [(await client.call_tool(name, {})).content[0] for name in ("a", "s")]
        assert texts == [mcp_types.TextContent(text=protocol), mcp_types.TextContent(text=protocol)]

    async def test_static_request_context_reaches_execute(self, connect: Callable[..., Client]) -> None:
        """The host's request context is the tool's `context.request_context`."""
        tool = create_tool(id="who", description="d", execute=lambda value, context: context.request_context["user"])
        server = build_server([tool], name="demo", version="1.0.0", request_context={"user": "ada"})
        async with connect(server) as client:
            result = await client.call_tool("who", {})
        assert result.content == [mcp_types.TextContent(text="ada")]

    async def test_request_context_factory_builds_it_from_the_mcp_request(self, connect: Callable[..., Client]) -> None:
        """The factory sees the MCP request (here: the client's name) and may be async."""

        async def from_request(mcp: Any) -> dict[str, Any]:
            return {"client": mcp.client_info["name"]}

        tool = create_tool(id="who", description="d", execute=lambda value, context: context.request_context["client"])
        server = build_server([tool], name="demo", version="1.0.0", request_context_factory=from_request)
        async with connect(server, client_info=mcp_types.Implementation(name="inspector", version="9")) as client:
            result = await client.call_tool("who", {})
        assert result.content == [mcp_types.TextContent(text="inspector")]

    async def test_failing_request_context_factory_is_an_error_result(
        self, connect: Callable[..., Client], caplog: pytest.LogCaptureFixture
    ) -> None:
        """The host's bug is logged in full; the model learns only that the call could not run."""

        def broken_factory(mcp: Any) -> Any:
            raise KeyError("tenant")

        tool = create_tool(id="who", description="d", execute=lambda value: "ran")
        server = build_server([tool], name="demo", version="1.0.0", request_context_factory=broken_factory)
        async with connect(server) as client:
            with caplog.at_level(logging.ERROR, logger="toolwire.mcp"):
                result = await client.call_tool("who", {})
        assert (result.is_error, result.content) == (
            True,
            [mcp_types.TextContent(text="Tool 'who' cannot run: the server failed to build its request context.")],
        )
        assert caplog.messages == ["building the request context for tool 'who' failed"]

    async def test_request_context_failing_its_schema_is_an_error_result(self, connect: Callable[..., Client]) -> None:
        """`request_context_schema` is enforced before `execute` runs."""
        tool = create_tool(
            id="who",
            description="d",
            request_context_schema={"type": "object", "required": ["user"]},
            execute=lambda value: "ran",
        )
        server = build_server([tool], name="demo", version="1.0.0", request_context={})
        async with connect(server) as client:
            result = await client.call_tool("who", {})
        assert (result.is_error, result.content) == (
            True,
            [
                mcp_types.TextContent(
                    text="Tool 'who' cannot run: the request context is invalid: "
                    "at `(root)`: 'user' is a required property."
                )
            ],
        )

    async def test_hooks_fire_with_the_validated_input_and_the_raw_output(self, connect: Callable[..., Client]) -> None:
        """`on_input_available` and `on_output` run for MCP calls as for any other."""
        seen: list[tuple[str, Any]] = []
        tool = create_tool(
            id="weather",
            description="d",
            input_schema={"type": "object", "properties": {"location": {"type": "string"}}},
            execute=lambda value: {"t": 21},
            on_input_available=lambda input: seen.append(("input", input)),
            on_output=lambda output: seen.append(("output", output)),
        )
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server) as client:
            await client.call_tool("weather", {"location": "Oslo"})
        assert seen == [("input", {"location": "Oslo"}), ("output", {"t": 21})]

    async def test_max_concurrency_runs_calls_one_at_a_time(self, connect: Callable[..., Client]) -> None:
        """With `max_concurrency=1` no two executions overlap, though the client sends them together."""
        peak = await _peak_concurrency(connect, max_concurrency=1)
        assert peak == 1

    async def test_without_a_limit_calls_overlap(self, connect: Callable[..., Client]) -> None:
        """The contrast that makes the test above meaningful."""
        peak = await _peak_concurrency(connect, max_concurrency=None)
        assert peak == 3


async def _peak_concurrency(connect: Callable[..., Client], max_concurrency: int | None) -> int:
    state = {"active": 0, "peak": 0, "entered": 0}
    all_in = asyncio.Event()

    async def busy(value: Any) -> str:
        state["active"] += 1
        state["entered"] += 1
        state["peak"] = max(state["peak"], state["active"])
        if state["entered"] == 3 or max_concurrency == 1:
            all_in.set()
        await all_in.wait()
        await asyncio.sleep(0)
        state["active"] -= 1
        return "done"

    tool = create_tool(id="busy", description="d", execute=busy)
    server = build_server([tool], name="demo", version="1.0.0", max_concurrency=max_concurrency)
    async with connect(server) as client, anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(client.call_tool, "busy", {})
    return state["peak"]


class TestBuildServer:
    def test_no_tools_is_refused(self) -> None:
        """An empty server is a mistake worth naming."""
        with pytest.raises(ConfigurationError, match="an MCP server needs at least one tool"):
            build_server([], name="demo", version="1.0.0")

    def test_tool_without_execute_is_refused(self) -> None:
        """A declaration-only tool cannot answer `tools/call`."""
        declared = create_tool(id="remote_only", description="d")
        with pytest.raises(ConfigurationError, match="tool 'remote_only' has no `execute`"):
            build_server([declared], name="demo", version="1.0.0")

    def test_both_request_context_sources_are_refused(self) -> None:
        """One source of truth for the request context."""
        with pytest.raises(ConfigurationError, match="give `request_context` or `request_context_factory`, not both"):
            build_server([DELETE], name="demo", version="1.0.0", request_context={}, request_context_factory=dict)

    def test_tool_id_outside_the_mcp_name_alphabet_is_served_with_a_warning(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Ids stay as they are (calls must name the tool), but clients may refuse them: say so."""
        tool = create_tool(id="send mail", description="d", execute=lambda value: None)
        with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
            build_server([tool], name="demo", version="1.0.0")
        assert caplog.messages == [
            "tool id 'send mail' is served as is, though MCP clients may refuse it: Tool name contains spaces, "
            "which may cause parsing issues; Tool name contains invalid characters: ' '; Allowed characters are: "
            "A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)"
        ]

    def test_two_tools_with_one_id_are_refused(self) -> None:
        """Names must identify tools."""
        twin = create_tool(id="delete_file", description="other", execute=lambda value: None)
        with pytest.raises(ConfigurationError, match="two different tools have the id 'delete_file'"):
            build_server([DELETE, twin], name="demo", version="1.0.0")
