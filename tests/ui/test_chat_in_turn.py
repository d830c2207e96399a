"""A chat's requests in turn: the next request reads what the response before it saved, once it has ended."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from toolwire.agent import Agent
from toolwire.deltas import StepFinished
from toolwire.runtime import ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, call
from toolwire.testing.scripted import answer as model_answer
from toolwire.tools import create_tool
from toolwire.ui import UIChat
from toolwire.ui._running import RunningResponses

from .test_chat import as_message, user_body

TOPIC = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
LATE_CLOSE = 0.3
"""How long after the user moved on the stopped response is closed (the server seeing the browser leave)."""


def _endless(args: dict[str, Any], context: ToolContext) -> str:
    while not context.abort_signal.aborted:
        time.sleep(0.01)
    return "unfinished"


ENDLESS = create_tool(
    id="endless_research", description="Research forever.", input_schema=TOPIC, execute=_endless, background=True
)
CANCELLED = "Tool 'endless_research' (call c1) was cancelled."
WHY = "was cancelled (the run that started it ended) before it finished."


def chat_of(run_mode: str, settle_timeout: float = 10.0) -> tuple[UIChat, ScriptedAdapter]:
    adapter = ScriptedAdapter(
        [
            [call("c1", "endless_research", '{"topic": "tides"}'), StepFinished("tool-calls")],
            model_answer("Started; it may take a while."),
            model_answer("The research was cancelled."),
        ]
    )
    chat = UIChat(
        lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[ENDLESS]),
        run_mode=run_mode,  # type: ignore[arg-type]
        settle_timeout=settle_timeout,
    )
    return chat, adapter


def until_waiting(frames: Iterator[bytes]) -> list[dict[str, Any]]:
    """The chunks up to the model's answer after it started the task: the run now waits for it, the user stops."""
    chunks: list[dict[str, Any]] = []
    for frame in frames:
        chunks.append(json.loads(frame[len(b"data: ") :]))
        if chunks[-1]["type"] == "text-end":
            return chunks
    raise AssertionError("the run never answered")


async def auntil_waiting(frames: AsyncIterator[bytes]) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    async for frame in frames:
        chunks.append(json.loads(frame[len(b"data: ") :]))
        if chunks[-1]["type"] == "text-end":
            return chunks
    raise AssertionError("the run never answered")


def next_body(first: list[dict[str, Any]]) -> dict[str, Any]:
    """What the browser posts after the stop: the stopped message, then the user's new one."""
    body = user_body(text="Research tides")
    again = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Any news?"}]}
    return {**body, "messages": [*body["messages"], as_message(first), again]}


def cancelled_then_prompt(adapter: ScriptedAdapter) -> tuple[dict[str, Any], dict[str, Any]]:
    cancelled, prompt = adapter.requests[2]["messages"][-2:]
    return cancelled, prompt


def test_a_request_sent_before_the_stopped_response_ended_reads_its_cancelled_task() -> None:
    chat, adapter = chat_of("sync")
    first = chat.sse(user_body(text="Research tides"))
    chunks = until_waiting(first)
    closer = threading.Timer(LATE_CLOSE, first.close)  # type: ignore[attr-defined]
    closer.start()
    second = chat.sse(next_body(chunks))
    closer.join()
    assert json.loads(list(second)[-2][len(b"data: ") :])["type"] == "finish"
    cancelled, prompt = cancelled_then_prompt(adapter)
    assert cancelled["role"] == "user"
    assert CANCELLED in cancelled["content"][0]["text"]
    assert WHY in cancelled["content"][0]["text"]
    assert prompt == {"role": "user", "content": [{"type": "text", "text": "Any news?"}]}


def test_an_async_request_waits_for_the_stopped_response_without_blocking_the_loop() -> None:
    chat, adapter = chat_of("async")

    async def scenario() -> None:
        first = chat.asse(user_body(text="Research tides"))
        chunks = await auntil_waiting(first)

        async def close_late() -> None:
            await asyncio.sleep(LATE_CLOSE)
            await first.aclose()  # type: ignore[attr-defined]

        closing = asyncio.create_task(close_late())
        second = [frame async for frame in chat.asse(next_body(chunks))]
        await closing
        assert json.loads(second[-2][len(b"data: ") :])["type"] == "finish"

    asyncio.run(scenario())
    cancelled, prompt = cancelled_then_prompt(adapter)
    assert cancelled["role"] == "user"
    assert CANCELLED in cancelled["content"][0]["text"]
    assert WHY in cancelled["content"][0]["text"]
    assert prompt == {"role": "user", "content": [{"type": "text", "text": "Any news?"}]}


def test_a_response_that_does_not_end_holds_the_next_request_only_for_the_settle_timeout() -> None:
    chat, adapter = chat_of("sync", settle_timeout=0.2)
    first = chat.sse(user_body(text="Research tides"))
    chunks = until_waiting(first)
    try:
        second = list(chat.sse(next_body(chunks)))  # the first is still open: its task is not saved yet
    finally:
        first.close()  # type: ignore[attr-defined]
    assert json.loads(second[-2][len(b"data: ") :])["type"] == "finish"
    assert adapter.requests[2]["messages"][-1] == {"role": "user", "content": [{"type": "text", "text": "Any news?"}]}
    assert all(CANCELLED not in json.dumps(message) for message in adapter.requests[2]["messages"])


def test_a_response_of_another_chat_holds_no_request() -> None:
    chat, adapter = chat_of("sync", settle_timeout=30)
    waited: list[bool] = []
    wait = chat.responses.wait
    chat.responses.wait = lambda key, timeout: waited.append(wait(key, timeout)) or waited[-1]  # type: ignore[method-assign]
    first = chat.sse(user_body(chat_id="chat-1", text="Research tides"))
    until_waiting(first)
    try:
        other = list(chat.sse(user_body(chat_id="chat-2", text="Hello")))
    finally:
        first.close()  # type: ignore[attr-defined]
    assert waited == [True, True]  # nothing in progress for chat-1 when it started, nor for chat-2 after
    assert json.loads(other[-2][len(b"data: ") :])["type"] == "finish"
    assert adapter.requests[2]["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}]


def test_a_response_whose_save_fails_still_lets_the_next_request_go() -> None:
    chat, _ = chat_of("async", settle_timeout=30)
    store = chat.store
    failures: list[str] = []

    def failing_save(key: str, record: dict[str, Any]) -> None:
        failures.append(key)
        raise OSError("the store is down")

    async def scenario() -> bool:
        turn = await chat.aprepare(user_body(text="Research tides"))
        chunks = turn.achunks()
        async for chunk in chunks:
            if chunk["type"] == "text-end":  # the run waits for its task; the browser leaves
                break
        chat.store.save = failing_save  # type: ignore[method-assign]
        with pytest.raises(OSError, match="the store is down"):
            await chunks.aclose()  # type: ignore[attr-defined]
        chat.store.save = store.save  # type: ignore[method-assign]
        return await chat.responses.await_ended("chat-1", 30)

    assert asyncio.run(scenario()) is True
    assert failures == ["chat-1"]


def test_waiting_coroutines_hold_no_thread_of_the_loop() -> None:
    """The response waited for may need the loop's executor (sync tools, DNS): waiting must leave it free."""
    responses = RunningResponses()

    async def scenario() -> tuple[str, list[bool]]:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=1))
        token = responses.begin("chat-1")
        waiting = [asyncio.create_task(responses.await_ended("chat-1", 30)) for _ in range(3)]
        await asyncio.sleep(0)
        ran = await loop.run_in_executor(None, lambda: "ran")
        responses.end("chat-1", token)
        return ran, list(await asyncio.gather(*waiting))

    assert asyncio.run(scenario()) == ("ran", [True, True, True])


def test_a_wait_that_runs_out_says_so() -> None:
    responses = RunningResponses()
    responses.begin("chat-1")
    assert asyncio.run(responses.await_ended("chat-1", 0.01)) is False
    assert responses.wait("chat-1", 0.01) is False
    assert responses.wait("chat-2", 0.01) is True


def test_sync_prepare_on_an_event_loop_does_not_wait() -> None:
    """Blocking the loop would keep the response waited for from ending: the wait is skipped there."""
    chat, _ = chat_of("sync", settle_timeout=30)
    waits: list[str] = []
    chat.responses.wait = lambda key, timeout: bool(waits.append(key)) or True  # type: ignore[method-assign]

    async def on_the_loop() -> None:
        chat.prepare(user_body(text="Research tides"))

    asyncio.run(on_the_loop())
    chat.prepare(user_body(text="Research tides"))
    assert waits == ["chat-1"]
