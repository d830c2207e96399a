"""One agent run as one assistant UI message, for hosts that keep the conversation themselves.

`UIChat` reads requests and keeps paused runs; these only stream a run of an agent you hold:
what the model read of each result, the run's degradations as warnings, the model facts in the
metadata, and `paused` in the finish metadata when calls wait (answer them on the agent, then
stream `prompt=None` into the same message id: the client's message shows the calls since the
last user message already). A call of an earlier message whose output comes in this run is
announced again from the agent's conversation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolwire.agent import Agent

from ._agent import RunAgent
from ._tool_chunks import Chunk
from .stream import UIMessageStream


def _stream(run: RunAgent, prompt: Any, settings: dict[str, Any]) -> UIMessageStream:
    """Without a prompt the run continues the last assistant message: the client shows its calls already."""
    current = run.current_calls() if prompt is None else {}
    return UIMessageStream(
        tools=run.tools,
        client_tools=run.client_tools,
        tool_result=run.tool_result,
        background_result=run.background_result,
        ended_tasks=run.undelivered_tasks(),
        known_calls={call_id: shown.tool_name for call_id, shown in current.items()},
        known_inputs={call_id: shown.input for call_id, shown in current.items()},
        history=list(run.messages),
        **{**run.facts(), **settings},
    )


def _warnings(run: RunAgent, stream: UIMessageStream) -> list[Chunk]:
    return [chunk for degradation in run.new_warnings() for chunk in stream.warn(degradation)]


def agent_chunks(agent: Agent, prompt: Any = None, **settings: Any) -> Iterator[Chunk]:
    """The chunks of `agent.stream(prompt)` (sync SDK client); settings are `UIMessageStream`'s."""
    run = RunAgent(agent)
    stream = _stream(run, prompt, settings)
    yield from stream.start()
    events = run.events(prompt)
    try:
        for event in events:
            yield from [*_warnings(run, stream), *stream.feed(event)]
    except Exception as exc:  # the run failed: a safe error for the browser, the details in the log
        yield from stream.fail(exc)
    finally:
        events.close()
    yield from [*_warnings(run, stream), *stream.close(paused=agent.result().paused)]


async def aagent_chunks(agent: Agent, prompt: Any = None, **settings: Any) -> AsyncIterator[Chunk]:
    """The chunks of `agent.astream(prompt)` (async SDK client)."""
    run = RunAgent(agent)
    stream = _stream(run, prompt, settings)
    for chunk in stream.start():
        yield chunk
    events = run.aevents(prompt)
    try:
        async for event in events:
            for chunk in [*_warnings(run, stream), *stream.feed(event)]:
                yield chunk
    except Exception as exc:  # the run failed: a safe error for the browser, the details in the log
        for chunk in stream.fail(exc):
            yield chunk
    finally:
        await events.aclose()
    for chunk in [*_warnings(run, stream), *stream.close(paused=agent.result().paused)]:
        yield chunk
