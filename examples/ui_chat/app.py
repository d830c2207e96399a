"""A FastAPI backend serving toolwire's offline demo agent to an AI SDK `useChat` page.

The agent is the `toolwire demo` conversation (weather and chart tools; the chart is an image)
with one change: the weather tool needs the user's approval. It runs offline, its provider
answers replayed from the bundled cassette, so the page works without an API key as long as
the prompt is the demo's own (the page fills it in).

    node examples/ui_chat/build.mjs          # bundles web/main.jsx into static/app.js (once)
    uvicorn examples.ui_chat.app:app         # then open http://127.0.0.1:8000

With a real key, replace `demo_agent` by your own `Agent(...)`: the endpoint stays the same.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from toolwire import Agent
from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.conformance.fixtures import ToolLog, scenario_tools
from toolwire.conformance.runner import replay_client
from toolwire.conformance.scenarios import BASE_OPTIONS, DEFAULT_MODELS, scenario
from toolwire.ui import UIChat

HERE = Path(__file__).parent
DEMO = scenario("weather_and_chart")
PROMPT = DEMO.prompt


def demo_agent(api: str) -> Agent:
    """The demo conversation's agent on `api`, its weather tool waiting for approval."""
    tools = scenario_tools(ToolLog())
    tools["get_weather"] = dataclasses.replace(tools["get_weather"], require_approval=True)
    return Agent(
        api=api,
        client=replay_client(api, "async"),  # the SDK's client, on an offline transport
        model=DEMO.models.get(api, DEFAULT_MODELS[api]),
        tools=[tools[name] for name in DEMO.tools],
        max_steps=DEMO.max_steps,
        request_options={**BASE_OPTIONS.get(api, {}), **DEMO.options.get(api, {})},
    )


def create_app(api: str = "anthropic", static: Path = HERE / "static") -> FastAPI:
    """The app: the page, its bundle, and the chat endpoint."""

    @contextlib.asynccontextmanager
    async def offline(app: FastAPI) -> AsyncIterator[None]:
        # The provider's answers come from the recorded demo conversation (matched by request body).
        with replay_vcr().use_cassette(str(cassette_path(api, DEMO.name)), allow_playback_repeats=True):
            yield

    app = FastAPI(lifespan=offline)
    chat = UIChat(lambda: demo_agent(api))

    @app.post("/api/chat")
    async def endpoint(request: Request) -> Response:
        return await chat.respond(request)

    @app.get("/")
    async def page() -> FileResponse:
        return FileResponse(HERE / "web" / "index.html")

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")
    return app


app = create_app(os.environ.get("TOOLWIRE_DEMO_API", "anthropic"))
