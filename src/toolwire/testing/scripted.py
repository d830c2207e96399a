"""A scripted adapter: an `Agent` (or a UI bridge) runs offline against canned model responses.

```python
from toolwire.testing.scripted import ScriptedAdapter, answer, call

adapter = ScriptedAdapter([[call("c1", "get_weather", '{"city": "Paris"}')], answer("18C")])
agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[weather])
```

Each model call takes the next script entry: a list of deltas (`toolwire.deltas`), or a
`ScriptedStream`, which can stop at a point until released or closed (to test aborts). The
requests the agent built are kept as JSON in `adapter.requests`.

With `by_turn=True` a call takes the entry of its turn instead — the number of assistant
messages in the history it was given — so the same conversation gets the same answers in any
process, in any order (a durable run replayed after a restart asks again from where it was).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

from toolwire.adapter import Adapter, EncodedTools, EncodeOptions, StreamDecoder
from toolwire.capabilities import Capabilities
from toolwire.compat import Degradation
from toolwire.deltas import (
    Delta,
    StepFinished,
    TextPiece,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
)
from toolwire.messages import Message, message_to_dict
from toolwire.names import OPENAI_NAMES, NameMap
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

SCRIPTED_CLIENT = object()
"""A stand-in client: the scripted adapter never calls it."""


class ScriptedStream:
    """One response: its deltas one by one, optionally holding after `hold_after` of them."""

    def __init__(self, deltas: Sequence[Delta], *, hold_after: int | None = None) -> None:
        self.deltas = list(deltas)
        self.hold_after = hold_after
        self.closed = False
        """Whether the consumer (the agent) closed the stream."""
        self.holding = threading.Event()
        """Set when the stream reached its hold point."""
        self._release = threading.Event()

    def release(self) -> None:
        """Let a holding stream go on."""
        self._release.set()

    def close(self) -> None:
        """What SDK streams offer: stop, freeing the connection."""
        self.closed = True
        self._release.set()

    def __iter__(self) -> Iterator[Delta]:
        for index, delta in enumerate(self.deltas):
            if index == self.hold_after:
                self.holding.set()
                self._release.wait()
            if self.closed:
                return
            yield delta

    async def __aiter__(self) -> AsyncIterator[Delta]:
        for index, delta in enumerate(self.deltas):
            if index == self.hold_after:
                self.holding.set()
                while not self._release.is_set():  # polled: a thread blocked here could outlive the test
                    await asyncio.sleep(0.001)
            if self.closed:
                return
            yield delta

    async def aclose(self) -> None:
        """The async SDK streams' way to close."""
        self.close()


class _PassThrough:
    def feed(self, frame: Any) -> Iterable[Delta]:
        return [frame]

    def close(self) -> Iterable[Delta]:
        return []


class ScriptedAdapter(Adapter):
    """Each model call returns the next scripted response; requests are recorded as JSON."""

    api = "scripted"
    provider = "scripted"
    name_rules = OPENAI_NAMES
    capabilities = Capabilities(
        strict_tools=True,
        native_input_examples=True,
        output_schema=True,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=True,
        streamed_arguments=True,
        image_tool_results=True,
        file_tool_results=True,
        reasoning=True,
        server_tools=True,
    )

    def __init__(self, script: Sequence[Sequence[Delta] | ScriptedStream], *, by_turn: bool = False) -> None:
        self.script = list(script)
        self.by_turn = by_turn
        self.requests: list[dict[str, Any]] = []
        self.streams: list[ScriptedStream] = []
        """Every response handed out, in order (to check which were closed)."""

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """`{"name": ...}`."""
        return {"name": wire_name}

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        """`{"tools": [...]}`."""
        return {"tools": entries}

    def new_decoder(self) -> StreamDecoder:
        """Frames are deltas already."""
        return _PassThrough()

    def encode_history(
        self, messages: Sequence[Message], degradations: list[Degradation], /, **options: Any
    ) -> dict[str, Any]:
        """`{"messages": [...]}` in the neutral JSON form."""
        return {"messages": [message_to_dict(m) for m in messages]}

    def build_request(
        self,
        *,
        model: str,
        messages: Sequence[Message],
        tools: EncodedTools | None,
        options: Mapping[str, Any],
        stream: bool,
        degradations: list[Degradation] | None = None,
    ) -> dict[str, Any]:
        """Model, history, tools and options."""
        history = self._history_fields(messages, degradations)
        return {"model": model, **history, **(dict(tools) if tools else {}), **options}

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The next scripted response (an `AssertionError` when the script is over)."""
        sent = json.loads(json.dumps(request, default=str))
        self.requests.append(sent)
        if self.by_turn:
            turn = sum(1 for m in sent.get("messages", []) if m.get("role") == "assistant")
            if turn >= len(self.script):
                raise AssertionError(f"the script has no response for turn {turn}")
            entry = self.script[turn]
            if isinstance(entry, ScriptedStream):  # a stream is consumed once: a new one each call
                entry = ScriptedStream(entry.deltas, hold_after=entry.hold_after)
        elif not self.script:
            raise AssertionError(f"the script has no response for model call {len(self.requests)}")
        else:
            entry = self.script.pop(0)
        response = entry if isinstance(entry, ScriptedStream) else ScriptedStream(entry)
        self.streams.append(response)
        return response

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """`invoke`, for async runs (the response is an async iterable too)."""
        return self.invoke(client, request, stream=stream)


def call(call_id: str, name: str, arguments: str) -> ToolCallComplete:
    """A complete tool call delta."""
    return ToolCallComplete(key=call_id, tool_call_id=call_id, name=name, arguments=arguments)


def streamed_call(call_id: str, name: str, pieces: Sequence[str]) -> list[Delta]:
    """A tool call whose arguments stream in `pieces` (each a `tool-input-delta`)."""
    deltas: list[Delta] = [ToolCallStarted(key=call_id, tool_call_id=call_id, name=name)]
    deltas.extend(ToolArgsPiece(key=call_id, text=piece) for piece in pieces)
    deltas.append(ToolCallFinished(key=call_id))
    return deltas


def answer(text: str) -> list[Delta]:
    """A text answer that ends the turn."""
    return [TextPiece("t", text), StepFinished("stop")]
