"""MCP through every adapter: served-and-loaded tools encode like the originals; MCP results reach each provider."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any, Literal

import mcp_types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from pydantic import BaseModel, Field

from toolwire import CompatibilityWarning, create_tool, get_adapter
from toolwire.mcp import build_server, load_tools
from toolwire.runtime import execute_tool

APIS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


class Order(BaseModel):
    """An order to place."""

    sku: str = Field(description="Stock keeping unit")
    quantity: int = Field(ge=1, le=100)
    gift: bool = False
    ship_to: Address
    priority: Literal["low", "normal", "high"] = "normal"
    tags: list[str] = []


class Receipt(BaseModel):
    order_id: str
    total_cents: int


ORIGINALS = [
    create_tool(
        id="place_order",
        description="Place an order for one product",
        input_schema=Order,
        output_schema=Receipt,
        strict=True,
        input_examples=[{"input": {"sku": "A-1", "quantity": 2, "ship_to": {"street": "1 Main St", "city": "Oslo"}}}],
        execute=lambda value: Receipt(order_id="o-1", total_cents=100),
        mcp={"annotations": {"title": "Place order", "destructiveHint": False}},
    ),
    create_tool(
        id="get_weather",
        description="Get the current weather for a location",
        input_schema={
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name or coordinates"},
                "unit": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["location"],
        },
        provider_options={"anthropic": {"cache_control": {"type": "ephemeral"}}},
        execute=lambda value: "sunny",
    ),
    create_tool(id="ping", description="Check that the service is up", execute=lambda value: "pong"),
    create_tool(id="weird name/with spaces", description="An id no provider takes as it is", execute=lambda v: 1),
]


async def _loaded(connect: Callable[..., Client]) -> list[Any]:
    server = build_server(ORIGINALS, name="shop", version="1.0.0")
    async with connect(server) as client:
        return await load_tools(client, trust_provider_options=True)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("options", [{}, {"strict": True}, {"auto_strict": True}], ids=["default", "strict", "auto"])
async def test_definitions_equal_those_of_the_original_tools(
    api: str, options: dict[str, Any], connect: Callable[..., Client]
) -> None:
    """Same request fragment, same reported degradations, for each api and encoding option."""
    loaded = await _loaded(connect)
    adapter = get_adapter(api)
    original = adapter.encode_tools(ORIGINALS, **options)
    round_tripped = adapter.encode_tools(loaded, **options)
    assert dict(round_tripped) == dict(original)
    assert round_tripped.warnings == original.warnings


MEDIA = mcp_types.CallToolResult(
    content=[
        mcp_types.TextContent(text="Here is the recording and the chart."),
        mcp_types.AudioContent(data="UklGRiQAAABXQVZF", mime_type="audio/wav"),
        mcp_types.ImageContent(data="iVBORw0KGgoAAAAN", mime_type="image/png"),
        mcp_types.EmbeddedResource(
            resource=mcp_types.BlobResourceContents(
                uri="file:///r/report.pdf", mime_type="application/pdf", blob="JVBERi0x"
            )
        ),
    ]
)


def _media_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(
            tools=[mcp_types.Tool(name="record", description="d", input_schema={"type": "object"})]
        )

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return MEDIA

    return Server("media", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("api", APIS)
async def test_mcp_media_results_are_carried_or_reported_for_every_api(api: str) -> None:
    """Audio, image and PDF from an MCP server reach each provider's tool results, or a degradation says why not."""
    (remote,) = await load_tools(_media_server())
    result = await execute_tool(remote, {"toolCallId": "call_1", "toolName": "record", "input": {}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        encoded = json.dumps(get_adapter(api).encode_tool_results([result]))
    reported = [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]
    carried = {
        "Here is the recording": "text/plain",
        "UklGRiQAAABXQVZF": "audio/wav",
        "iVBORw0KGgoAAAAN": "image/png",
        "JVBERi0x": "application/pdf",
    }
    for payload, media_type in carried.items():
        assert payload in encoded or any(d.api == api and media_type in d.action for d in reported), (
            f"{api} dropped the {media_type} part without reporting it"
        )
