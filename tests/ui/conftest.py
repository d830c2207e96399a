"""Fixtures of the UI bridge tests: the pinned AI SDK client, and scenario agents served over 127.0.0.1.

The packages of tests/ui/node/package-lock.json are installed once into a cache folder
(`$TOOLWIRE_NODE_DIR`, default `~/.cache/toolwire-node`, then a hash of the lock file); `.ci/run`
installs them ahead. Without node and npm the tests that need the real client skip, saying so.

The scenario server runs each bundled conformance scenario's agent behind `UIChat`, replayed
from its cassette: `POST /chat/{api}/{scenario}/{mode}` (`mode`: sync or async SDK client),
with `?variant=` to turn the weather tool into one that needs approval (`approve`), suspends
(`suspend`) or answers a card (`card`), or the chart tool into a browser-side one (`client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolwire.agent import Agent
from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.conformance.fixtures import ToolLog, WeatherInput, scenario_tools
from toolwire.conformance.runner import applicable, build_agent, replay_client
from toolwire.conformance.scenarios import SCENARIOS, scenario
from toolwire.runtime import ToolContext
from toolwire.tools import Tool, create_tool
from toolwire.ui import MemoryChatStore, UIChat

HARNESS = Path(__file__).parent / "node"
APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")
_STAMP = ".toolwire-installed"
CARD_KEY = b"toolwire-ui-tests-card-key-0123456789"
WEATHER = {"city": "Paris", "temperature": 18, "unit": "celsius", "conditions": "sunny"}


def scenario_cases() -> list[tuple[str, str]]:
    """Every (api, scenario) the bundled cassettes cover."""
    return [
        (api, item.name)
        for api in APIS
        for item in SCENARIOS
        if not applicable(api, item) and cassette_path(api, item.name).exists()
    ]


# -- an ASGI exchange without a server ---------------------------------------------------------------


class Exchange:
    """Drives an ASGI app: the request body first, then `http.disconnect` once `leave` is set."""

    def __init__(self, body: bytes = b"{}") -> None:
        self.body = body
        self.sent: list[dict[str, Any]] = []
        self.leave = asyncio.Event()
        self._asked = False

    async def receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    @property
    def text(self) -> str:
        return b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body").decode()

    @property
    def headers(self) -> dict[str, str]:
        start = next(m for m in self.sent if m["type"] == "http.response.start")
        return {k.decode(): v.decode() for k, v in start["headers"]}


SCOPE: dict[str, Any] = {
    "type": "http",
    "method": "POST",
    "path": "/api/chat",
    "query_string": b"",
    "headers": [(b"content-type", b"application/json")],
    "asgi": {"spec_version": "2.4"},
}
"""A POST to /api/chat."""


# -- a scripted Anthropic API ------------------------------------------------------------------------


def anthropic_sse(*events: dict[str, Any]) -> httpx2.Response:
    """An Anthropic SSE response (`event:` lines included)."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, content=body.encode(), headers={"content-type": "text/event-stream"})


def anthropic_message(blocks: list[dict[str, Any]], deltas: list[dict[str, Any]], stop: str) -> httpx2.Response:
    """A streamed Anthropic message: each block started, given one delta, stopped."""
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": []}
    start |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, (block, delta) in enumerate(zip(blocks, deltas, strict=True)):
        events += [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    usage = {"output_tokens": 5}
    events += [{"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage}]
    return anthropic_sse(*events, {"type": "message_stop"})


# -- the AI SDK client ---------------------------------------------------------------------------------


class Node:
    """Runs the harness scripts next to the installed packages."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def run(self, script: str, job: Any, timeout: float = 600) -> Any:
        """A harness script with a JSON job on stdin; its stdout is JSON."""
        done = subprocess.run(
            ["node", str(self.folder / "harness" / script)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise AssertionError(f"node {script} failed ({done.returncode}):\n{done.stderr[-4000:]}")
        return json.loads(done.stdout)


def node_cache_folder() -> Path:
    """Where this lock file's packages are installed."""
    digest = hashlib.sha256((HARNESS / "package-lock.json").read_bytes()).hexdigest()[:12]
    return Path(os.environ.get("TOOLWIRE_NODE_DIR", "~/.cache/toolwire-node")).expanduser() / digest


@pytest.fixture(scope="session")
def node() -> Node:
    """The pinned `ai` / `@ai-sdk/react` packages with the harness scripts (skips without node and npm)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the AI SDK client (the `ai` npm package) cannot run")
    folder = node_cache_folder()
    if not (folder / _STAMP).exists():
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(HARNESS / name, folder / name)
        install = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run(install, cwd=folder, check=True, timeout=600)
        (folder / _STAMP).write_text("ok\n", encoding="utf-8")
    scripts = folder / "harness"
    scripts.mkdir(exist_ok=True)
    for script in HARNESS.glob("*.mjs"):
        shutil.copy(script, scripts / script.name)
    return Node(folder)


# -- scenario agents behind UIChat -----------------------------------------------------------------------


def _suspending_weather(log: ToolLog) -> Tool:
    """get_weather that first asks which unit (suspends; the answer must name one), then answers like the fixture."""

    def execute(value: WeatherInput, context: ToolContext) -> dict[str, Any]:
        if context.resume_data is None:
            context.suspend({"question": "Which unit?", "options": ["celsius", "fahrenheit"]})
        log.calls.append(("get_weather", {**value.model_dump(), "unit": context.resume_data["unit"]}))
        return {**WEATHER, "unit": context.resume_data["unit"]}

    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    return create_tool(
        id="get_weather",
        description="Get the current weather for a city.",
        input_schema=WeatherInput,
        resume_schema={"type": "object", "properties": {"unit": unit}, "required": ["unit"]},
        execute=execute,
    )


def _card_weather(log: ToolLog) -> Tool:
    """get_weather as a builtin target that answers a card; its Confirm button's input is the weather."""
    from toolwire.targets import TargetHost

    def ask(value: dict[str, Any]) -> dict[str, Any]:
        log.calls.append(("get_weather", value))
        button = {"type": "button", "id": "confirm", "label": "Use Paris", "variant": "primary", "input": WEATHER}
        card = {"type": "action_required", "title": "Confirm the city", "description": "Paris, France?"}
        return {**card, "elements": [button]}

    # Every request builds its agent afresh: one card key lets a later request press the card.
    host = TargetHost(builtins={"weather": ask}, card_key=CARD_KEY)
    return create_tool(
        id="get_weather",
        description="Get the current weather for a city.",
        input_schema=WeatherInput,
        target={"type": "builtin", "name": "weather"},
        target_host=host,
    )


def scenario_agent(api: str, name: str, mode: str, variant: str, chat_id: str) -> Agent:
    """The scenario's agent, with the variant's tool swapped in."""
    item = scenario(name)
    log = ToolLog()
    client = replay_client(api, "async" if mode == "async" else "sync")  # offline; httpx even with aiohttp
    agent = build_agent(api, item, client, log)
    tools = scenario_tools(log)
    swap: dict[str, Tool] = {}
    if variant == "approve":
        swap["get_weather"] = dataclasses.replace(tools["get_weather"], require_approval=True)
    elif variant == "client":
        swap["make_chart"] = dataclasses.replace(tools["make_chart"], execute=None)
    elif variant == "suspend":
        swap["get_weather"] = _suspending_weather(log)
    elif variant == "card":
        swap["get_weather"] = _card_weather(log)
    if swap:
        chosen = [swap.get(tool_id, tools[tool_id]) for tool_id in item.tools]
        agent = Agent(
            api=api,
            client=client,
            model=agent.model,
            tools=chosen,
            tool_choice=item.tool_choice,
            max_steps=item.max_steps,
            request_options=agent.request_options,
            stream=item.stream,
            request_context={"thread_id": chat_id},
        )
    return agent


@dataclasses.dataclass
class ScenarioServer:
    """The running server: its base URL and the store its chats pause in."""

    url: str
    store: MemoryChatStore

    def chat_url(self, api: str, name: str, mode: str = "sync", variant: str = "") -> str:
        """The endpoint of one scenario."""
        query = f"?variant={variant}" if variant else ""
        return f"{self.url}/chat/{api}/{name}/{mode}{query}"


def scenario_app(store: MemoryChatStore) -> Starlette:
    """The Starlette app serving scenario agents (one cassette context per request, one request at a time)."""
    turn = threading.Lock()  # vcr patches globally: a cassette must be left before the next one is entered

    async def chat(request: Request) -> Response:
        api, name, mode = (request.path_params[k] for k in ("api", "name", "mode"))
        variant = request.query_params.get("variant", "")

        def factory(chat_request: Any) -> Agent:
            return scenario_agent(api, name, mode, variant, chat_request.chat_id)

        ui = UIChat(factory, store=store, run_mode=mode)
        # Answers arrive in later requests: body matching (not order) finds each recorded response.
        cassette = replay_vcr().use_cassette(str(cassette_path(api, name)), allow_playback_repeats=True)
        while not turn.acquire(blocking=False):
            await asyncio.sleep(0.005)
        cassette.__enter__()

        def leave() -> None:
            cassette.__exit__(None, None, None)
            turn.release()

        try:
            response = await ui.respond(request)
        except BaseException:
            leave()
            raise
        response.background = BackgroundTask(leave)
        return response

    return Starlette(routes=[Route("/chat/{api}/{name}/{mode}", chat, methods=["POST"])])


@contextlib.contextmanager
def served(app: Starlette) -> Iterator[str]:
    """The app served by uvicorn on 127.0.0.1 (an ephemeral port), in a thread; yields its base URL."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="error", lifespan="off", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        threading.Event().wait(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)


@pytest.fixture(scope="session")
def scenario_server() -> Iterator[ScenarioServer]:
    """Scenario agents behind UIChat, served on 127.0.0.1."""
    store = MemoryChatStore()
    with served(scenario_app(store)) as url:
        yield ScenarioServer(url, store)


# -- scripted chats ------------------------------------------------------------------------------------


@dataclasses.dataclass
class ScriptedServer:
    """Chats a test sets up (`UIChat`s on scripted or captured models), each at its own URL."""

    url: str
    chats: dict[str, UIChat]

    def serve(self, name: str, chat: UIChat) -> str:
        """The URL of `chat` (one per name)."""
        self.chats[name] = chat
        return f"{self.url}/chats/{name}"


@pytest.fixture(scope="session")
def scripted_server() -> Iterator[ScriptedServer]:
    """A server for the chats tests register with `serve`, on 127.0.0.1."""
    chats: dict[str, UIChat] = {}

    async def respond(request: Request) -> Response:
        return await chats[request.path_params["name"]].respond(request)

    async def resume(request: Request) -> Response:
        return await chats[request.path_params["name"]].respond_resume(request)

    routes = [
        Route("/chats/{name}", respond, methods=["POST"]),
        Route("/chats/{name}/{chat_id}/stream", resume, methods=["GET"]),
    ]
    with served(Starlette(routes=routes)) as url:
        yield ScriptedServer(url, chats)
