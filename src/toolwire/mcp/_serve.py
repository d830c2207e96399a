"""Running the MCP server: stdio, streamable HTTP, an ASGI app to mount, and `module:attribute` specs."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.metadata
import logging
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from toolwire.exceptions import ConfigurationError
from toolwire.loading import tools_from_module
from toolwire.tools import Tool

from ._server import build_server

if TYPE_CHECKING:
    from starlette.applications import Starlette

logger = logging.getLogger("toolwire.mcp")

Transport = Literal["stdio", "streamable-http"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "streamable-http")


def serve(
    tools: Sequence[Tool] | Mapping[str, Tool],
    *,
    name: str,
    version: str,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    **options: Any,
) -> None:
    """Serve the tools over MCP until the client disconnects (stdio) or the process is stopped (HTTP).

    `options` go to `build_server` (`instructions`, `request_context`, `request_context_factory`,
    `settings`, `max_concurrency`, `request_state_security`, `round_ledger`) and, for HTTP, to
    `streamable_http_app` (`json_response`, `stateless`, `http_options` such as `auth`).

    Raises:
        ConfigurationError: an unknown transport, or tools `build_server` refuses.
    """
    asyncio.run(
        serve_async(tools, name=name, version=version, transport=transport, host=host, port=port, path=path, **options)
    )


async def serve_async(
    tools: Sequence[Tool] | Mapping[str, Tool],
    *,
    name: str,
    version: str,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    **options: Any,
) -> None:
    """`serve` inside a running event loop.

    Raises:
        ConfigurationError: an unknown transport, or tools `build_server` refuses.
    """
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        server = build_server(tools, name=name, version=version, **options)
        async with stdio_server() as (read_stream, write_stream):
            # Tools that print must not write into the protocol stream.
            with contextlib.redirect_stdout(sys.stderr):
                await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    if transport == "streamable-http":
        import uvicorn

        app = streamable_http_app(tools, name=name, version=version, host=host, path=path, **options)
        logger.info("serving %d tool(s) over MCP at http://%s:%d%s", len(tools), host, port, path)
        http = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        serving = asyncio.ensure_future(http.serve())
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            # uvicorn closes its sockets and runs the app's shutdown only when asked to exit.
            http.should_exit = True
            await serving
            raise
        return
    raise ConfigurationError(f"unknown MCP transport {transport!r}; use one of {list(TRANSPORTS)}")


def streamable_http_app(
    tools: Sequence[Tool] | Mapping[str, Tool],
    *,
    name: str,
    version: str,
    host: str = "127.0.0.1",
    path: str = "/mcp",
    json_response: bool = False,
    stateless: bool = False,
    http_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> Starlette:
    """An ASGI app serving the tools over streamable HTTP at `path` (mount it or run it with any ASGI server).

    On a loopback `host`, the SDK's DNS-rebinding protection is on (only loopback `Host` and
    `Origin` headers pass); bind elsewhere only behind authentication: `http_options` go to the
    SDK's `Server.streamable_http_app` (`auth`, `token_verifier`, `transport_security`,
    `max_request_body_size`, `event_store`, ...). `options` go to `build_server`.

    Raises:
        ConfigurationError: tools `build_server` refuses.
    """
    server = build_server(tools, name=name, version=version, **options)
    return server.streamable_http_app(
        streamable_http_path=path,
        json_response=json_response,
        stateless_http=stateless,
        host=host,
        **dict(http_options or {}),
    )


def load_spec(spec: str) -> list[Tool]:
    """The tools a `module:attribute` spec names: a Tool, a list of Tools or a dict of Tools.

    Raises:
        ConfigurationError: a malformed spec, a module or attribute that does not exist, or
            an attribute that is not tools.
    """
    return tools_from_module(spec, purpose="serve")


def serve_from_spec(
    spec: str,
    *,
    transport: Transport = "stdio",
    name: str | None = None,
    version: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
) -> None:
    """Serve the tools named by `module:attribute` (what `toolwire mcp serve` runs).

    `name` defaults to the module's top-level package, `version` to that distribution's
    version (or the module's `__version__`, else `"0.0.0"`).

    Raises:
        ConfigurationError: see `load_spec` and `serve`.
    """
    tools = load_spec(spec)
    module_name = spec.partition(":")[0]
    server_name = name or module_name.split(".")[0]
    serve(
        tools,
        name=server_name,
        version=version or _version_of(module_name),
        transport=transport,
        host=host,
        port=port,
    )


def _version_of(module_name: str) -> str:
    try:
        return importlib.metadata.version(module_name.split(".")[0])
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(importlib.import_module(module_name), "__version__", "0.0.0"))
