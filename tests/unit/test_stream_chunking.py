"""Specification: a stream's events do not depend on how its bytes are cut, sync or async, partial or not.

Every API's wire body for one tool call (arguments with escapes and multi-byte characters, in
LF or CRLF framing) is cut at random points, including inside a CRLF, inside a multi-byte UTF-8
character and inside a data line; the events must be the ones of the whole body.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import get_adapter
from toolwire.events import Event, ToolInputAvailable, ToolInputDelta

APIS = ("anthropic", "openai-chat", "openai-responses", "gemini")

_keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)  # escapes, quotes, 4-byte UTF-8
_leaves = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(-1e6, 1e6, allow_nan=False) | _text
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, min_size=1, max_size=3) | st.dictionaries(_keys, inner, min_size=1, max_size=3),
    max_leaves=8,
)
_arguments = st.dictionaries(_keys, _values, min_size=1, max_size=4)


def _sse(frames: Sequence[tuple[str | None, dict[str, Any]]], newline: str) -> bytes:
    blocks = []
    for name, data in frames:
        event = f"event: {name}{newline}" if name else ""
        blocks.append(f"{event}data: {json.dumps(data, ensure_ascii=False)}{newline}{newline}")
    return "".join(blocks).encode()


def _pieces(text: str, step: int) -> list[str]:
    return [text[i : i + step] for i in range(0, len(text), step)]


def _anthropic(arguments: dict[str, Any], step: int, newline: str) -> bytes:
    text = json.dumps(arguments, ensure_ascii=False)
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {}}
    block = {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}
    frames: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
    ]
    for piece in _pieces(text, step):
        delta = {"type": "input_json_delta", "partial_json": piece}
        frames.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
    frames += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(frames, newline)


def _openai_chat(arguments: dict[str, Any], step: int, newline: str) -> bytes:
    text = json.dumps(arguments, ensure_ascii=False)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}
        ]}  # fmt: skip

    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write", "arguments": ""}}
    frames = [chunk({"role": "assistant", "tool_calls": [call]})]
    frames += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in _pieces(text, step)]
    frames.append(chunk({}, "tool_calls"))
    return _sse(frames, newline) + f"data: [DONE]{newline}{newline}".encode()


def _openai_responses(arguments: dict[str, Any], step: int, newline: str) -> bytes:
    text = json.dumps(arguments, ensure_ascii=False)
    item = {"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1"}
    item["name"] = "write"
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m", "output": []}
    frames: list[tuple[str | None, dict[str, Any]]] = []

    def add(kind: str, **fields: Any) -> None:
        frames.append((kind, {"type": kind, **fields, "sequence_number": len(frames)}))

    add("response.created", response=response)
    add("response.output_item.added", item=item, output_index=0)
    for piece in _pieces(text, step):
        add("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=piece)
    add("response.function_call_arguments.done", item_id="fc_1", output_index=0, arguments=text)
    done = {**item, "status": "completed", "arguments": text}
    add("response.output_item.done", item=done, output_index=0)
    add("response.completed", response={**response, "status": "completed", "output": [done]})
    return _sse(frames, newline)


def _pairs(value: Any, path: str, step: int) -> Iterator[dict[str, Any]]:
    """Vertex `partialArgs` for a value, in document order; strings in `step`-character pieces."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _pairs(item, f"{path}.{key}", step)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _pairs(item, f"{path}[{index}]", step)
    elif isinstance(value, str):
        for piece in _pieces(value, step):
            yield {"jsonPath": path, "stringValue": piece, "willContinue": True}
        yield {"jsonPath": path, "stringValue": ""}
    elif value is None:
        yield {"jsonPath": path, "nullValue": "NULL_VALUE"}
    elif isinstance(value, bool):
        yield {"jsonPath": path, "boolValue": value}
    else:
        yield {"jsonPath": path, "numberValue": value}


def _gemini(arguments: dict[str, Any], step: int, newline: str) -> bytes:
    def chunk(call: dict[str, Any], **candidate: Any) -> tuple[None, dict[str, Any]]:
        content = {"role": "model", "parts": [{"functionCall": call}]}
        return None, {"candidates": [{"content": content, **candidate}], "responseId": "r1"}

    frames = [chunk({"name": "write", "willContinue": True})]
    frames += [chunk({"partialArgs": [pair], "willContinue": True}) for pair in _pairs(arguments, "$", step)]
    frames.append(chunk({}))
    frames.append(chunk({}, finishReason="STOP"))
    return _sse(frames, newline)


_BODIES = {"anthropic": _anthropic, "openai-chat": _openai_chat, "openai-responses": _openai_responses}
_BODIES["gemini"] = _gemini


def _cut(body: bytes, cuts: Sequence[int]) -> list[bytes]:
    bounds = [0, *sorted(c % (len(body) + 1) for c in cuts), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def _events(api: str, source: Any, *, partial: bool = False) -> list[Event]:
    return list(get_adapter(api).normalize(source, partial=partial))


def _aevents(api: str, chunks: list[bytes]) -> list[Event]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[Event]:
        return [event async for event in get_adapter(api).anormalize(source())]

    return asyncio.run(collect())


def _plain(events: list[Event]) -> list[dict[str, Any]]:
    """The JSON of each event without `partialInput` (what partial=True adds)."""
    return [{k: v for k, v in event.to_dict().items() if k != "partialInput"} for event in events]


_bodies = st.builds(
    lambda api, arguments, step, newline: (api, arguments, _BODIES[api](arguments, step, newline)),
    st.sampled_from(APIS),
    _arguments,
    st.integers(1, 9),
    st.sampled_from(["\n", "\r\n"]),
)


class TestChunking:
    @settings(max_examples=150, deadline=None)
    @given(case=_bodies, cuts=st.lists(st.integers(0, 100_000), max_size=30))
    def test_the_events_are_those_of_the_whole_body_however_the_bytes_are_cut(
        self, case: tuple[str, dict[str, Any], bytes], cuts: list[int]
    ) -> None:
        """Random split points give the events of the whole body, and the call's input is the arguments."""
        api, arguments, body = case
        whole = _events(api, body)
        assert _events(api, _cut(body, cuts)) == whole
        available = [event for event in whole if isinstance(event, ToolInputAvailable)]
        assert [event.input for event in available] == [arguments]

    @settings(max_examples=60, deadline=None)
    @given(case=_bodies, cuts=st.lists(st.integers(0, 100_000), max_size=30))
    def test_an_async_source_gives_the_events_of_the_sync_one(
        self, case: tuple[str, dict[str, Any], bytes], cuts: list[int]
    ) -> None:
        """`anormalize` over chunks arriving one by one gives what `normalize` gives for the whole body."""
        api, _, body = case
        assert _aevents(api, _cut(body, cuts)) == _events(api, body)

    @pytest.mark.parametrize("api", APIS)
    @pytest.mark.parametrize("newline", ["\n", "\r\n"])
    def test_every_single_cut_inside_a_line_ending_a_character_or_a_field_name_gives_the_same_events(
        self, api: str, newline: str
    ) -> None:
        """Two chunks, cut at each byte of a CRLF, of a multi-byte character, or of `data:` / `event:`."""
        body = _BODIES[api]({"text": 'é日😀"\\\n', "n": [1, 2.5, None, True]}, 3, newline)
        whole = _events(api, body)
        tricky = {i for i, byte in enumerate(body) if byte in b"\r\n" or byte >= 0x80}
        for name in (b"data:", b"event:"):
            start = body.find(name)
            tricky.update(range(start, start + len(name) + 1))
        for position in sorted(tricky):
            assert _events(api, [body[:position], body[position:]]) == whole, position


class TestPartial:
    @settings(max_examples=100, deadline=None)
    @given(case=_bodies, cuts=st.lists(st.integers(0, 100_000), max_size=10), read=st.booleans())
    def test_partial_true_gives_the_events_of_partial_false(
        self, case: tuple[str, dict[str, Any], bytes], cuts: list[int], read: bool
    ) -> None:
        """The same events (without `partialInput`) whether or not the partial values are read."""
        api, arguments, body = case
        events: list[Event] = []
        live: list[Any] = []
        for event in get_adapter(api).normalize(_cut(body, cuts), partial=True):
            events.append(event)
            if read and isinstance(event, ToolInputDelta):
                live.append(json.loads(json.dumps(event.partial_input)))  # a copy: the live value changes
        assert _plain(events) == _plain(_events(api, body))
        if read:
            later = [event.partial_input for event in events if isinstance(event, ToolInputDelta)]
            assert later == live  # recomputed from the text at each delta
            assert live[-1] == arguments  # the last delta completes the arguments
