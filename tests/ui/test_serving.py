"""Serving: SSE frames, the ASGI response's headers, and a client that leaves aborting the run."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from starlette.requests import Request

from toolwire.agent import Agent
from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.conformance.fixtures import WeatherInput
from toolwire.conformance.runner import FAKE_KEY
from toolwire.registry import get_adapter
from toolwire.runtime import ToolContext
from toolwire.tools import create_tool
from toolwire.ui import UIChat, UIMessageStreamResponse, aencode_sse, encode_sse
from toolwire.ui.protocol import UI_MESSAGE_STREAM_HEADERS

from .conftest import SCOPE, Exchange


class TestSse:
    def test_chunks_are_data_frames_then_done(self) -> None:
        """`data: {json}\\n\\n` per chunk, then `data: [DONE]`."""
        frames = list(encode_sse([{"type": "start"}, {"type": "text-delta", "id": "0", "delta": "a\nb"}]))
        assert frames == [
            b'data: {"type":"start"}\n\n',
            b'data: {"type":"text-delta","id":"0","delta":"a\\nb"}\n\n',
            b"data: [DONE]\n\n",
        ]

    async def test_the_async_encoder_gives_the_same_frames(self) -> None:
        """`aencode_sse` over an async chunk stream."""

        async def chunks() -> AsyncIterator[dict[str, Any]]:
            yield {"type": "start"}

        assert [f async for f in aencode_sse(chunks())] == [b'data: {"type":"start"}\n\n', b"data: [DONE]\n\n"]


class TestResponse:
    async def test_the_protocol_headers_are_sent(self) -> None:
        """content-type, the stream version, no caching, no proxy buffering."""
        exchange = Exchange()
        await UIMessageStreamResponse(encode_sse([{"type": "start"}]))(SCOPE, exchange.receive, exchange.send)
        assert {k: exchange.headers[k] for k in UI_MESSAGE_STREAM_HEADERS} == dict(UI_MESSAGE_STREAM_HEADERS)
        assert exchange.text == 'data: {"type":"start"}\n\ndata: [DONE]\n\n'

    async def test_a_client_leaving_cancels_an_async_body_where_it_waits(self) -> None:
        """The body is cancelled while it awaits, not only when the next write fails."""
        exchange = Exchange()
        seen: list[str] = []

        async def body() -> AsyncIterator[bytes]:
            yield b"data: {}\n\n"
            exchange.leave.set()
            try:
                await asyncio.Event().wait()  # a tool that would never end
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        response = UIMessageStreamResponse(body(), on_disconnect=lambda: seen.append("left"))
        await asyncio.wait_for(response(SCOPE, exchange.receive, exchange.send), 5)
        assert sorted(seen) == ["cancelled", "left"]

    async def test_a_client_leaving_closes_a_sync_body_at_its_next_step(self) -> None:
        """A sync body runs in a thread; once the client is gone it is closed instead of resumed."""
        exchange = Exchange()
        release = threading.Event()
        seen: list[str] = []

        def body() -> Iterator[bytes]:
            try:
                yield b"data: {}\n\n"
                release.wait(5)
                yield b"data: {}\n\n"
                seen.append("resumed after the client left")
            finally:
                seen.append("closed")

        async def leave_then_release() -> None:
            while not exchange.sent[1:]:
                await asyncio.sleep(0.01)
            exchange.leave.set()
            await asyncio.sleep(0.05)
            release.set()

        response = UIMessageStreamResponse(body(), on_disconnect=lambda: seen.append("left"))
        await asyncio.wait_for(
            asyncio.gather(response(SCOPE, exchange.receive, exchange.send), leave_then_release()), 5
        )
        for _ in range(100):
            if "closed" in seen:
                break
            await asyncio.sleep(0.01)
        assert seen == ["left", "closed"]


def _hanging_weather(started: threading.Event, outcome: list[str]) -> Any:
    """A sync weather tool that waits until its abort signal fires (or gives up after 5 s)."""

    def execute(value: WeatherInput, context: ToolContext) -> dict[str, Any]:
        started.set()
        aborted = context.abort_signal.wait(5)
        outcome.append(f"the tool saw its abort signal: {context.abort_signal.reason}" if aborted else "never aborted")
        return {}

    return create_tool(
        id="get_weather", description="Get the current weather for a city.", input_schema=WeatherInput, execute=execute
    )


BODY = {
    "id": "c",
    "trigger": "submit-message",
    "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "What is the weather in Paris?"}]}],
}


@pytest.mark.parametrize("asynchronous", [True, False], ids=["async client", "sync client"])
async def test_a_client_that_leaves_aborts_the_agent_run_and_its_tool(asynchronous: bool) -> None:
    """UIChat.respond: the browser goes away while a tool runs; the tool's abort signal fires, nothing is saved."""
    started, outcome = threading.Event(), []

    def factory() -> Agent:
        client = get_adapter("anthropic").sdk_client(api_key=FAKE_KEY, asynchronous=asynchronous)
        tools = [_hanging_weather(started, outcome)]
        return Agent(
            api="anthropic", client=client, model="claude-sonnet-4-6", tools=tools, request_options={"max_tokens": 1024}
        )

    chat = UIChat(factory)
    exchange = Exchange(json.dumps(BODY).encode())
    with replay_vcr().use_cassette(str(cassette_path("anthropic", "single_call"))):
        response = await chat.respond(Request(SCOPE, exchange.receive))

        async def leave_when_the_tool_runs() -> None:
            while not started.is_set():
                await asyncio.sleep(0.01)
            exchange.leave.set()

        await asyncio.wait_for(
            asyncio.gather(response(SCOPE, exchange.receive, exchange.send), leave_when_the_tool_runs()), 10
        )
        for _ in range(500):  # a sync tool answers from its worker thread
            if outcome:
                break
            await asyncio.sleep(0.01)
    assert outcome == ["the tool saw its abort signal: the browser went away"]
    assert '"type":"tool-input-available"' in exchange.text
    assert "[DONE]" not in exchange.text
    assert len(chat.store) == 0


async def test_a_body_that_is_not_json_is_refused() -> None:
    """400 with a JSON error, before any agent is built."""
    exchange = Exchange(b"{not json")
    response = await UIChat(lambda: None).respond(Request(SCOPE, exchange.receive))  # type: ignore[arg-type, return-value]
    await response(SCOPE, exchange.receive, exchange.send)
    assert (response.status_code, exchange.text) == (400, '{"error":"the request body is not JSON"}')


async def test_an_unreadable_message_is_refused_with_its_position() -> None:
    """400 naming the message and part."""
    body = {
        "id": "c",
        "messages": [
            {"id": "u", "role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": "ftp://x"}]}
        ],
    }
    exchange = Exchange(json.dumps(body).encode())
    response = await UIChat(lambda: None).respond(Request(SCOPE, exchange.receive))  # type: ignore[arg-type, return-value]
    await response(SCOPE, exchange.receive, exchange.send)
    assert response.status_code == 400
    assert json.loads(exchange.text) == {
        "error": "message 0, part 0: a file URL must be a data: or http(s) URL, not 'ftp'"
    }


class TestFramesJsonCannotCarry:
    def test_nan_and_infinities_are_written_as_null_as_json_stringify_does(self) -> None:
        frame = next(
            iter(
                encode_sse(
                    [{"type": "tool-output-available", "toolCallId": "c", "output": [float("nan"), float("-inf")]}]
                )
            )
        )
        assert frame == b'data: {"type":"tool-output-available","toolCallId":"c","output":[null,null]}\n\n'

    def test_a_lone_surrogate_is_escaped_and_reads_back(self) -> None:
        frame = next(iter(encode_sse([{"type": "text-delta", "id": "0", "delta": "a\ud83d"}])))
        assert frame == b'data: {"type":"text-delta","id":"0","delta":"a\\ud83d"}\n\n'
        assert json.loads(frame[len(b"data: ") :]) == {"type": "text-delta", "id": "0", "delta": "a\ud83d"}

    def test_a_chunk_no_serializer_can_write_becomes_an_error_chunk_and_the_stream_goes_on(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(value: Any, **options: Any) -> Any:
            raise ValueError("refused")

        monkeypatch.setattr("toolwire.ui.sse.pydantic_core.to_json", refuse)
        monkeypatch.setattr("toolwire.ui.sse.pydantic_core.to_jsonable_python", refuse)
        frames = list(encode_sse([{"type": "tool-output-available", "output": 1}]))
        assert frames == [
            b'data: {"type":"error","errorText":"a tool-output-available chunk could not be written as JSON: '
            b'ValueError"}\n\n',
            b"data: [DONE]\n\n",
        ]
