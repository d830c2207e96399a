"""MCP both ways: serve toolwire tools to MCP clients, and use MCP servers' tools through every adapter.

Serving: `serve(tools, name=..., version=..., transport="stdio" | "streamable-http")`,
`serve_async`, `streamable_http_app` (an ASGI app to mount), `build_server` (the SDK's
low-level `Server`, for any transport) and `serve_from_spec("module:attribute")`. Calls run
through the toolwire runtime; `context.mcp` is a `McpContext` (elicitation, progress, headers).
On 2026-07-28 each round's `requestState` is answered once (`RoundLedger`, shared by workers
that share the state's keys); error texts reach the client without host paths and bounded.

Using: `await load_tools(client_or_server_params)` gives Tools any adapter can send and the
runtime can run over MCP. `tool_listing(tool)` is a tool's `tools/list` entry.

The content mappings are tabled in `_to_mcp` (toolwire -> MCP) and `_from_mcp` (MCP -> toolwire).
`tool_listing` and the mappings need no `mcp` package; everything that talks MCP imports the
SDK when first used, so `import toolwire` and `import toolwire.mcp` stay SDK-free. Install it
with `pip install 'toolwire[mcp]'`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolwire._extras import optional_imports

from ._from_mcp import McpCallOutput, StructuredDict, StructuredList, call_output
from ._listing import META_INPUT_EXAMPLES, META_PROVIDER_OPTIONS, META_STRICT, listed_annotations, tool_listing
from ._to_mcp import call_tool_result

if TYPE_CHECKING:
    from ._client import McpToolError, load_tools, load_tools_sync
    from ._context import Elicitation, ElicitationError, ElicitationUnavailable, McpContext
    from ._ledger import MemoryRoundLedger, RoundLedger
    from ._serve import load_spec, serve, serve_async, serve_from_spec, streamable_http_app
    from ._server import build_server

_LAZY = {
    "McpToolError": "._client",
    "load_tools": "._client",
    "load_tools_sync": "._client",
    "Elicitation": "._context",
    "ElicitationError": "._context",
    "ElicitationUnavailable": "._context",
    "McpContext": "._context",
    "MemoryRoundLedger": "._ledger",
    "RoundLedger": "._ledger",
    "load_spec": "._serve",
    "serve": "._serve",
    "serve_async": "._serve",
    "serve_from_spec": "._serve",
    "streamable_http_app": "._serve",
    "build_server": "._server",
}

__all__ = [
    "META_INPUT_EXAMPLES",
    "META_PROVIDER_OPTIONS",
    "META_STRICT",
    "Elicitation",
    "ElicitationError",
    "ElicitationUnavailable",
    "McpCallOutput",
    "McpContext",
    "McpToolError",
    "MemoryRoundLedger",
    "RoundLedger",
    "StructuredDict",
    "StructuredList",
    "build_server",
    "call_output",
    "call_tool_result",
    "listed_annotations",
    "load_spec",
    "load_tools",
    "load_tools_sync",
    "serve",
    "serve_async",
    "serve_from_spec",
    "streamable_http_app",
    "tool_listing",
]


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'toolwire.mcp' has no attribute {name!r}")
    with optional_imports(f"toolwire.mcp.{name}", "mcp"):
        module = importlib.import_module(module_name, __name__)
    value = getattr(module, name)
    globals()[name] = value
    return value
