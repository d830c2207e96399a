"""Benchmark of declarative targets, run by hand: `python benchmarks/targets.py`.

Not collected by pytest (no `test_` prefix). Measures what a target adds on top of a
hand-written `execute` that calls httpx2 directly:

- declaring: `create_tool(target=...)` (parse and check once per tool);
- preparing: resolving references into the request (per call, no I/O);
- a whole call in process (ASGI transport): toolwire target vs hand-written execute;
- a whole call over loopback TCP (uvicorn): toolwire target (one connection per call, and
  pooled inside `async with host:`) vs hand-written execute with a shared keep-alive client
  and with a client per call;
- redacting answers (every spelling of three env secrets and an 800-character identity token)
  against replacing the raw secrets only (`str.replace`), as a ratio in one run.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import uvicorn

from toolwire import create_tool
from toolwire.runtime import execute_tool
from toolwire.targets import TargetHost, binding_of
from toolwire.targets._context import ToolInvocation
from toolwire.targets._redact import Redactor
from toolwire.targets._request import prepare
from toolwire.targets._spec import HttpSpec

TARGET = {
    "type": "app",
    "component": "api",
    "path": "/items/${input.id}/notes",
    "method": "POST",
    "query": {"tag": "${input.tags}", "lang": "en"},
    "headers": {"X-Api-Key": "${env.KEY}", "X-Trace": "t-${input.id}"},
    "body": {"title": "${input.title}", "count": "${input.count}", "note": "Saved: ${input.title}"},
}
INPUT = {"id": "a/b 7", "tags": ["x", "y"], "title": 'He said "hi" </script>', "count": 3}
SCHEMA = {"type": "object"}


async def app(scope: Any, receive: Any, send: Any) -> None:
    """The smallest handler: drains the body, answers `{"content": "ok"}`."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"content":"ok"}'})


def measure(label: str, fn: Callable[[], Any], seconds: float = 0.5) -> None:
    """Median per-call time over several batches (sync)."""
    batches: list[float] = []
    for _ in range(5):
        gc.collect()
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            fn()
            count += 1
        batches.append((time.perf_counter() - start) / count)
    print(f"{label:<62} {statistics.median(batches) * 1e6:10.1f} µs")


async def ameasure(label: str, fn: Callable[[], Awaitable[Any]], seconds: float = 1.0) -> float:
    """Median per-call time over several batches (async)."""
    batches: list[float] = []
    for _ in range(5):
        gc.collect()
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            await fn()
            count += 1
        batches.append((time.perf_counter() - start) / count)
    median = statistics.median(batches)
    print(f"{label:<62} {median * 1e6:10.1f} µs")
    return median


def serve() -> tuple[str, uvicorn.Server]:
    """uvicorn on 127.0.0.1 in a background thread."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="off"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}", server


async def main() -> None:
    in_process = httpx2.ASGITransport(app)
    host = TargetHost(
        components={"api": "http://api.test"}, env={"KEY": "k-123"}, identity_token="tok", transport=in_process
    )
    measure(
        "declare: create_tool(target=...)",
        lambda: create_tool(id="t", description="d", target=TARGET, target_host=host),
    )

    tool = create_tool(id="t", description="d", input_schema=SCHEMA, target=TARGET, target_host=host)
    binding = binding_of(tool)
    spec = binding.spec if binding is not None else None
    assert isinstance(spec, HttpSpec)

    async def prepared() -> Any:
        return await prepare(
            spec,
            INPUT,
            host=host,
            redactor=Redactor(),
            tool_id="t",
            request_context=None,
            invocation=ToolInvocation("api"),
        )

    await ameasure("prepare: resolve references into the request", prepared)

    call = {"toolCallId": "c", "toolName": "t", "input": INPUT}
    target_time = await ameasure("in process: toolwire target, whole execute_tool", lambda: execute_tool(tool, call))

    async with httpx2.AsyncClient(transport=in_process, base_url="http://api.test") as client:

        async def by_hand(value: Any) -> str:
            response = await client.post(f"/items/{value['id']}/notes", json={"title": value["title"]})
            return str(response.json()["content"])

        hand = create_tool(id="t", description="d", input_schema=SCHEMA, execute=by_hand)
        hand_time = await ameasure(
            "in process: hand-written execute, shared httpx2 client", lambda: execute_tool(hand, call)
        )
    print(f"{'  -> target overhead per call':<62} {(target_time - hand_time) * 1e6:10.1f} µs")

    base, server = serve()
    live = TargetHost(components={"api": base}, env={"KEY": "k-123"}, identity_token="tok")
    live_tool = create_tool(id="t", description="d", input_schema=SCHEMA, target=TARGET, target_host=live)
    await ameasure("loopback TCP: toolwire target (new connection per call)", lambda: execute_tool(live_tool, call))
    async with live:
        await ameasure("loopback TCP: toolwire target inside `async with host:`", lambda: execute_tool(live_tool, call))
    async with httpx2.AsyncClient(base_url=base) as client:

        async def shared(value: Any) -> str:
            response = await client.post(f"/items/{value['id']}/notes", json={"title": value["title"]})
            return str(response.json()["content"])

        shared_tool = create_tool(id="t", description="d", input_schema=SCHEMA, execute=shared)
        await ameasure("loopback TCP: hand-written, shared keep-alive client", lambda: execute_tool(shared_tool, call))

    async def fresh(value: Any) -> str:
        async with httpx2.AsyncClient(base_url=base) as client:
            response = await client.post(f"/items/{value['id']}/notes", json={"title": value["title"]})
            return str(response.json()["content"])

    fresh_tool = create_tool(id="t", description="d", input_schema=SCHEMA, execute=fresh)
    await ameasure("loopback TCP: hand-written, new httpx2 client per call", lambda: execute_tool(fresh_tool, call))
    server.should_exit = True


def redaction() -> None:
    """Answer redaction against a raw-secret `str.replace`, on typical and on worst-case answers."""
    secrets_ = ["sk-live-9f8e7d6c5b4a", "another-secret-value-123", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"]
    token = "eyJ" + "x1Y2z3" * 130
    redactor = Redactor(secrets_)
    redactor.add(token, user_visible=True)
    item = {"name": 'café "q"', "url": "https://a.example/x%20y?z=1&w=2", "n": 7}
    answers = {
        "20 KB JSON text": json.dumps([item] * 200),
        "1 MB JSON text": json.dumps([item] * 10_000),
        "1 MB plain text": "lorem ipsum dolor sit amet " * 40_000,
        "300 KB percent-encoded bytes": "".join(f"%{b:02X}" for b in bytes(range(256)) * 400),
    }

    def literal(text: str) -> str:
        for secret in [*secrets_, token]:
            text = text.replace(secret, "[redacted]")
        return text

    for label, text in answers.items():
        seconds = 2.0 if len(text) > 100_000 else 0.5
        spelled = _median(lambda text=text: redactor.text(text), seconds)
        raw = _median(lambda text=text: literal(text), seconds)
        print(f"{'redact ' + label:<62} {spelled * 1e6:10.1f} µs  ({spelled / raw:.0f}x raw-only replace)")
    value = json.loads(answers["1 MB JSON text"])
    print(
        f"{'redact 1 MB JSON value (30,000 strings)':<62} {_median(lambda: redactor.json(value), 2.0) * 1e6:10.1f} µs"
    )


def _median(fn: Callable[[], Any], seconds: float) -> float:
    batches: list[float] = []
    for _ in range(5):
        gc.collect()
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            fn()
            count += 1
        batches.append((time.perf_counter() - start) / count)
    return statistics.median(batches)


if __name__ == "__main__":
    asyncio.run(main())
    redaction()
