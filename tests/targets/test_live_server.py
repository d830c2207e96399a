"""The same targets over real sockets: a uvicorn handler app on 127.0.0.1 and the default transport."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolwire import ToolDefinitionError
from toolwire.targets import TOOL_CONTEXT_HEADER, EgressBlocked, TargetHost, TargetLimits, TargetTimeout, tool_context

HITS: list[str] = []


async def _save_bookmark(request: Request) -> Response:
    HITS.append(request.url.path)
    data = await request.json()
    source = tool_context(request).source if TOOL_CONTEXT_HEADER in request.headers else "no context"
    identity = "identity" if "authorization" in request.headers else "no identity"
    return JSONResponse({"content": f"Saved {data['title']} ({source}, {identity})"})


async def _peer(request: Request) -> Response:
    assert request.client is not None
    return JSONResponse({"content": request.client.port})


async def _trickle(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        while True:
            yield b"x"
            await asyncio.sleep(0.01)

    return StreamingResponse(body(), media_type="text/plain")


async def _stall(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b"partial"
        await asyncio.Event().wait()

    return StreamingResponse(body(), media_type="text/plain")


APP = Starlette(
    routes=[
        Route("/tools/save-bookmark", _save_bookmark, methods=["POST"]),
        Route("/trickle", _trickle),
        Route("/peer", _peer),
        Route("/stall", _stall),
    ]
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The handler app served by uvicorn on 127.0.0.1 (an ephemeral port) in a background thread."""
    config = uvicorn.Config(
        APP, host="127.0.0.1", port=0, log_level="error", lifespan="off", timeout_graceful_shutdown=1
    )
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    while not instance.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        threading.Event().wait(0.01)
    port = instance.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(5)


@pytest.fixture(autouse=True)
def _fresh_hits() -> None:
    HITS.clear()


async def test_an_app_target_reaches_the_live_component(server: str, make_tool: Any, call: Any) -> None:
    """The seed's bookmark tool over TCP: the body, identity and context headers all arrive."""
    host = TargetHost(components={"api": server}, identity_token="tok")
    target = {"type": "app", "component": "api", "path": "/tools/save-bookmark", "method": "POST", "body": "${input}"}
    result = await call(make_tool(target, host), {"url": "https://example.com", "title": "Example"})
    assert result.output == {"type": "text", "value": "Saved Example (api, identity)"}


def test_a_url_target_to_the_loopback_server_is_refused_at_creation(server: str, make_tool: Any) -> None:
    """Without an allow-list entry the live server's origin cannot be declared."""
    with pytest.raises(ToolDefinitionError) as caught:
        make_tool({"type": "url", "url": f"{server}/tools/save-bookmark", "method": "GET"}, TargetHost())
    assert caught.value.problem == f"must be https on port 443 unless the host allow-lists {server}"


async def test_a_name_resolving_to_the_loopback_server_never_connects(server: str, make_tool: Any, call: Any) -> None:
    """DNS pointing a public-looking name at 127.0.0.1 is refused before any connection."""

    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    target = {
        "type": "url",
        "url": "https://tools.example.com/tools/save-bookmark",
        "method": "POST",
        "body": "${input}",
    }
    result = await call(make_tool(target, TargetHost(resolver=resolver)), {"title": "x"})
    assert (result.error.__class__, HITS) == (EgressBlocked, [])


async def test_an_allow_listed_local_origin_is_reachable(server: str, make_tool: Any, call: Any) -> None:
    """The host can allow-list an internal origin for `url` targets (http and any port included)."""
    target = {"type": "url", "url": f"{server}/tools/save-bookmark", "method": "POST", "body": "${input}"}
    host = TargetHost(allowed_origins=[server])
    result = await call(make_tool(target, host), {"title": "Local"}, {"thread_id": "t"})
    assert (result.output, HITS) == (
        {"type": "text", "value": "Saved Local (no context, no identity)"},
        ["/tools/save-bookmark"],
    )


async def test_a_trickling_handler_hits_the_total_deadline(server: str, make_tool: Any, call: Any) -> None:
    """A byte every few milliseconds never trips the read timeout; the total deadline ends it."""
    host = TargetHost(components={"api": server}, limits=TargetLimits(total_timeout=0.3))
    result = await call(make_tool({"type": "app", "component": "api", "path": "/trickle", "method": "GET"}, host))
    assert (result.error.__class__, str(result.error)) == (
        TargetTimeout,
        f"the request to {server} took longer than 0.3 seconds",
    )


async def test_a_stalled_handler_hits_the_read_timeout(server: str, make_tool: Any, call: Any) -> None:
    """Silence longer than `read_timeout` fails the call."""
    host = TargetHost(components={"api": server}, limits=TargetLimits(read_timeout=0.2, total_timeout=30))
    result = await call(make_tool({"type": "app", "component": "api", "path": "/stall", "method": "GET"}, host))
    assert (result.error.__class__, str(result.error)) == (
        TargetTimeout,
        f"the request to {server} timed out (ReadTimeout)",
    )


async def test_each_call_uses_its_own_connection_by_default(server: str, make_tool: Any, call: Any) -> None:
    """Without `async with host:` nothing is kept open between calls."""
    tool = make_tool(
        {"type": "app", "component": "api", "path": "/peer", "method": "GET"}, TargetHost(components={"api": server})
    )
    first, second = await call(tool), await call(tool)
    assert first.raw["content"] != second.raw["content"]


async def test_calls_inside_async_with_host_share_a_keep_alive_connection(
    server: str, make_tool: Any, call: Any
) -> None:
    """`async with host:` pools connections for the block and closes them on exit."""
    host = TargetHost(components={"api": server})
    tool = make_tool({"type": "app", "component": "api", "path": "/peer", "method": "GET"}, host)
    async with host:
        async with host:
            first = await call(tool)
        second = await call(tool)
    assert (first.raw["content"] == second.raw["content"], host.pooled_transport()) == (True, None)
