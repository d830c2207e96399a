"""Fixtures for target tests: the seed's handler app, hosts wired to it, a scripted DNS."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from toolwire import Tool, create_tool
from toolwire.results import ToolResult
from toolwire.runtime import Suspension, execute_tool
from toolwire.targets import TargetHost, is_thread_invocation, set_default_host, tool_context

API = "http://api.test"
"""The `api` component's base URL (served in-process by the handler app)."""
PUBLIC_IP = "93.184.216.34"
"""A public address the scripted DNS gives for external hosts."""
BOMB = gzip.compress(b"\0" * (24 * 1024 * 1024), compresslevel=9)
"""24 MiB of zeros in about 24 KiB of gzip."""

ANY_OBJECT = {"type": "object"}


@dataclass
class Seen:
    """What the handler app received, one entry per request."""

    method: str
    path: str
    query: str
    headers: list[tuple[str, str]]
    body: bytes
    host: str

    def header(self, name: str) -> list[str]:
        """Every value of one header (names compared case-insensitively)."""
        return [v for k, v in self.headers if k == name.lower()]


@dataclass
class HandlerApp:
    """The handler app as an ASGI app that logs every request it receives."""

    app: Starlette
    seen: list[Seen] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        self.seen.append(
            Seen(
                method=scope["method"],
                path=scope["raw_path"].decode("ascii"),
                query=scope["query_string"].decode("ascii"),
                headers=[(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]],
                body=body,
                host=dict(scope["headers"]).get(b"host", b"").decode("latin-1"),
            )
        )
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                await asyncio.Event().wait()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _echo(request: Request) -> Response:
    body = (await request.body()).decode("utf-8")
    return JSONResponse(
        {
            "content": {
                "method": request.method,
                "path": request.scope["raw_path"].decode("ascii"),
                "query": request.scope["query_string"].decode("ascii"),
                "body": body,
            }
        }
    )


async def _save_bookmark(request: Request) -> Response:
    data = await request.json()
    return JSONResponse({"content": f"Saved {data['title']}"})


async def _gmail_search(request: Request) -> Response:
    context = tool_context(request)
    if not is_thread_invocation(context):
        return JSONResponse(
            {"code": "connect_required", "error": "Gmail must be connected before this tool can run."}, status_code=409
        )
    return JSONResponse(
        {
            "type": "action_required",
            "title": "Connect Gmail",
            "description": "Connect Gmail before Kazzle can search messages.",
            "elements": [
                {
                    "type": "button",
                    "id": "connect",
                    "label": "Connect Gmail",
                    "variant": "primary",
                    "input": {"scope": "gmail.readonly"},
                    "target": {
                        "type": "app",
                        "component": "api",
                        "path": "/oauth/start",
                        "method": "POST",
                        "body": "${input}",
                    },
                },
                {"type": "button", "id": "later", "label": "Not now", "variant": "secondary", "input": {"later": True}},
            ],
        }
    )


async def _oauth_start(request: Request) -> Response:
    data = await request.json()
    context = tool_context(request)
    return JSONResponse({"content": f"Connected with {data['scope']} in thread {context.thread_id}"})


async def _redirect(request: Request) -> Response:
    return Response(status_code=int(request.query_params["status"]), headers={"location": request.query_params["to"]})


async def _reflect(request: Request) -> Response:
    """Answers what the request asks for: `{"answer": ..., "status"?: int, "media"?: str}`."""
    data = await request.json()
    status = data.get("status", 200)
    if "media" in data:
        return Response(data["answer"], media_type=data["media"], status_code=status)
    return JSONResponse(data["answer"], status_code=status)


def _fixed_redirect(location: str) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        return Response(status_code=302, headers={"location": location})

    return endpoint


async def _status(request: Request) -> Response:
    code = int(request.path_params["code"])
    if request.query_params.get("kind") == "text":
        return PlainTextResponse("upstream exploded", status_code=code)
    return JSONResponse({"code": "quota_exceeded", "error": "The daily quota is used up."}, status_code=code)


async def _never(request: Request) -> Response:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def _fixed(body: bytes | str, media_type: str, **headers: str) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        return Response(body, media_type=media_type, headers=headers)

    return endpoint


def _answer(payload: Any) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        return JSONResponse(payload)

    return endpoint


def build_app() -> HandlerApp:
    """The seed's bookmark handler plus echo, rich answers, cards, redirects, errors and limits."""
    routes = [
        Route("/tools/save-bookmark", _save_bookmark, methods=["POST"]),
        Route("/tools/gmail-search", _gmail_search, methods=["POST"]),
        Route("/oauth/start", _oauth_start, methods=["POST"]),
        Route("/echo/{rest:path}", _echo, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
        Route("/echo", _echo, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
        Route("/redirect", _redirect, methods=["GET", "POST"]),
        Route("/scoped/redirect", _redirect, methods=["GET", "POST"]),
        Route("/reflect", _reflect, methods=["POST"]),
        Route("/loop", _fixed_redirect("/loop"), methods=["GET"]),
        Route("/scoped/jump", _fixed_redirect("/echo/outside"), methods=["GET"]),
        Route("/scoped/inside", _fixed_redirect("/scoped/echo"), methods=["GET"]),
        Route("/scoped/echo", _echo, methods=["GET"]),
        Route("/status/{code:int}", _status, methods=["GET", "POST"]),
        Route("/never", _never, methods=["GET"]),
        Route("/text", _fixed("plain words", "text/plain; charset=utf-8"), methods=["GET"]),
        Route("/latin1", _fixed("caf\xe9".encode("latin-1"), "text/plain; charset=iso-8859-1"), methods=["GET"]),
        Route("/png", _fixed(b"\x89PNG\r\n\x1a\n\0\0", "image/png"), methods=["GET"]),
        Route("/nul", _fixed(b"text\0with nul", "text/plain"), methods=["GET"]),
        Route("/big", _fixed(b"x" * (2 * 1024 * 1024), "text/plain"), methods=["GET"]),
        Route("/bomb", _fixed(BOMB, "text/plain", **{"content-encoding": "gzip"}), methods=["GET"]),
        Route("/brotli", _fixed(b"\x0b\x02\x80hello\x03", "text/plain", **{"content-encoding": "br"}), methods=["GET"]),
        Route("/bad-json", _fixed(b'{"content": ', "application/json"), methods=["GET"]),
        Route("/empty", _fixed(b"", "text/plain"), methods=["GET"]),
    ]
    return HandlerApp(Starlette(routes=routes))


@pytest.fixture
def handler() -> HandlerApp:
    """A fresh handler app (its request log starts empty)."""
    return build_app()


@dataclass
class FakeDNS:
    """A scripted resolver: each name answers the next list of its script (the last one repeats)."""

    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    calls: list[tuple[str, int]] = field(default_factory=list)

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls.append((host, port))
        script = self.answers.get(host)
        if script is None:
            raise OSError(f"no such host {host!r}")
        return script.pop(0) if len(script) > 1 else script[0]


@pytest.fixture
def dns() -> FakeDNS:
    """DNS that knows `tools.example.com` (public) and nothing else unless a test adds it."""
    return FakeDNS({"tools.example.com": [[PUBLIC_IP]]})


@pytest.fixture
def make_host(handler: HandlerApp, dns: FakeDNS) -> Callable[..., TargetHost]:
    """TargetHost factory wired to the in-process handler app and the scripted DNS."""

    def make(**overrides: Any) -> TargetHost:
        settings: dict[str, Any] = {
            "components": {"api": API},
            "identity_token": "identity-token-for-alice",
            "transport": httpx2.ASGITransport(handler),
            "resolver": dns,
        }
        settings.update(overrides)
        return TargetHost(**settings)

    return make


@pytest.fixture(autouse=True)
def _no_default_host() -> Any:
    """Every test starts and ends without a default host."""
    set_default_host(None)
    yield
    set_default_host(None)


def _make_tool(target: Any, host: TargetHost | None, tool_id: str = "probe", **kwargs: Any) -> Tool:
    kwargs.setdefault("input_schema", ANY_OBJECT)
    return create_tool(id=tool_id, description="A probe tool.", target=target, target_host=host, **kwargs)


@pytest.fixture
def make_tool() -> Callable[..., Tool]:
    """`make_tool(target, host, tool_id="probe", **create_tool_kwargs)`: a tool with a free-form input schema."""
    return _make_tool


async def _call(tool: Tool, value: Any = None, request_context: Any = None) -> ToolResult:
    outcome = await execute_tool(
        tool, {"toolCallId": "call-1", "toolName": tool.id, "input": value or {}}, request_context=request_context
    )
    assert isinstance(outcome, ToolResult), outcome
    return outcome


@pytest.fixture
def call() -> Callable[..., Any]:
    """`await call(tool, input, request_context)`: run one call that must finish with a result."""
    return _call


async def _suspend(tool: Tool, value: Any = None, request_context: Any = None) -> Suspension:
    outcome = await execute_tool(
        tool, {"toolCallId": "call-1", "toolName": tool.id, "input": value or {}}, request_context=request_context
    )
    assert isinstance(outcome, Suspension), outcome
    return outcome


@pytest.fixture
def suspend() -> Callable[..., Any]:
    """`await suspend(tool, input, request_context)`: run one call that must suspend."""
    return _suspend
