"""Wire bodies for the streaming benchmark: one tool call of about `size` bytes on every API.

The arguments are a realistic object (records, a unicode string, escapes) cut into 4-20
character deltas; each API's body carries them the way the provider streams them, with the
fields real recordings have (ids, `obfuscation`, sequence numbers, Vertex's per-chunk
metadata), and restates them where the provider does (Responses' `.done`, `output_item.done`
and `response.completed`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

APIS = ("anthropic", "openai-chat", "openai-responses", "gemini")


def make_arguments(size: int, seed: int = 7) -> str:
    """A realistic argument object of about `size` bytes: records, a unicode string, escapes."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    text: list[str] = []
    length = 0
    while length < size * 0.35:
        text.append(rng.choice(["é", "日本語", "😀", "\n", "\t", '"', "\\", "word ", "tool calls "]))
        length += len(text[-1])
    dumped = 2  # len(json.dumps(records)), kept as a running total: dumping all again per record is quadratic
    while dumped < size * 0.5:
        records.append(
            {
                "id": len(records),
                "score": rng.random() * 100,
                "ok": rng.random() > 0.5,
                "none": None,
                "tags": [rng.choice("abcdef") * rng.randint(1, 5) for _ in range(3)],
                "nested": {"depth": {"more": {"x": rng.randint(0, 10**6)}}},
                "description": "lorem ipsum " * rng.randint(4, 30),
            }
        )
        dumped += len(json.dumps(records[-1])) + (2 if len(records) > 1 else 0)
    value = {"records": records, "content": "".join(text), "notes": "escaped \u00e9\u65e5\U0001f600 " * (size // 400)}
    return json.dumps(value, ensure_ascii=False)


def split(text: str, seed: int = 11) -> list[str]:
    """Cut text into 4-20 character deltas."""
    rng = random.Random(seed)
    pieces, position = [], 0
    while position < len(text):
        step = rng.randint(4, 20)
        pieces.append(text[position : position + step])
        position += step
    return pieces


def _sse(frames: list[tuple[str | None, dict[str, Any]]], newline: str = "\n") -> bytes:
    blocks = []
    for name, data in frames:
        event = f"event: {name}{newline}" if name else ""
        blocks.append(f"{event}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}{newline}{newline}")
    return "".join(blocks).encode()


def anthropic(arguments: str) -> tuple[bytes, int]:
    """Anthropic Messages SSE (`event:` + `data:` blocks) and its number of argument deltas."""
    deltas = split(arguments)
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_bench", "name": "write", "input": {}}
    frames: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
    ]
    frames += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}},
        )
        for d in deltas
    ]
    frames += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(frames), len(deltas)


def openai_chat(arguments: str) -> tuple[bytes, int]:
    """Chat Completions SSE (`data:` lines, `[DONE]`) and its number of argument deltas."""
    deltas = split(arguments)
    head = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1766084492,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_e413f45763",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, obfuscation: str = "dWAirJS") -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice], "usage": None, "obfuscation": obfuscation}

    first = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"index": 0, "id": "call_bench", "type": "function", "function": {"name": "write", "arguments": ""}}
        ],
        "refusal": None,
    }
    frames: list[tuple[str | None, dict[str, Any]]] = [(None, chunk(first))]
    frames += [
        (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": d}}]}, obfuscation="zW")) for d in deltas
    ]
    frames.append((None, chunk({}, "tool_calls")))
    return _sse(frames) + b"data: [DONE]\n\n", len(deltas)


def openai_responses(arguments: str) -> tuple[bytes, int]:
    """Responses SSE: argument deltas, then the whole text three more times, as the API sends it."""
    deltas = split(arguments)
    item = {"id": "fc_bench", "type": "function_call", "status": "in_progress", "arguments": ""}
    item |= {"call_id": "call_bench", "name": "write"}
    response = {"id": "resp_bench", "object": "response", "created_at": 1796029201, "status": "in_progress"}
    response |= {"model": "gpt-5-mini-2025-08-07", "output": [], "usage": None}
    frames: list[tuple[str | None, dict[str, Any]]] = []
    sequence = iter(range(10**9))

    def add(kind: str, **fields: Any) -> None:
        frames.append((kind, {"type": kind, **fields, "sequence_number": next(sequence)}))

    add("response.created", response=response)
    add("response.in_progress", response=response)
    add("response.output_item.added", item=item, output_index=0)
    for d in deltas:
        add("response.function_call_arguments.delta", item_id="fc_bench", output_index=0, delta=d, obfuscation="zW4k")
    add("response.function_call_arguments.done", item_id="fc_bench", output_index=0, arguments=arguments)
    done_item = {**item, "status": "completed", "arguments": arguments}
    add("response.output_item.done", item=done_item, output_index=0)
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    add("response.completed", response={**response, "status": "completed", "output": [done_item], "usage": usage})
    return _sse(frames), len(deltas)


def _pairs(value: Any, path: str, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Vertex `partialArgs` for a value in document order: strings in 4-20 character pieces, then `""`."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _pairs(item, f"{path}.{key}", rng)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _pairs(item, f"{path}[{index}]", rng)
    elif isinstance(value, str):
        position = 0
        while position < len(value):
            step = rng.randint(4, 20)
            yield {"jsonPath": path, "stringValue": value[position : position + step], "willContinue": True}
            position += step
        yield {"jsonPath": path, "stringValue": ""}
    elif value is None:
        yield {"jsonPath": path, "nullValue": "NULL_VALUE"}
    elif isinstance(value, bool):
        yield {"jsonPath": path, "boolValue": value}
    else:
        yield {"jsonPath": path, "numberValue": value}


def gemini(arguments: str) -> tuple[bytes, int]:
    """Vertex streamed function-call arguments (`partialArgs`), SSE with CRLF framing as Google sends it."""
    meta = {
        "usageMetadata": {"trafficType": "ON_DEMAND"},
        "modelVersion": "gemini-3.1-pro-preview",
        "createTime": "2026-04-02T17:03:50.399550Z",
        "responseId": "dqHOab6xGLzWodAPkPuViA4",
    }

    def chunk(call: dict[str, Any], **candidate: Any) -> dict[str, Any]:
        part = {"functionCall": call}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, **candidate}], **meta}

    pairs = list(_pairs(json.loads(arguments), "$", random.Random(11)))
    frames: list[tuple[str | None, dict[str, Any]]] = [(None, chunk({"name": "write", "willContinue": True}))]
    frames += [(None, chunk({"partialArgs": [pair], "willContinue": True})) for pair in pairs]
    frames.append((None, chunk({})))
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15, "trafficType": "ON_DEMAND"}
    frames.append((None, {**chunk({}, finishReason="STOP"), "usageMetadata": usage}))
    return _sse(frames, "\r\n"), len(pairs)


BUILDERS = {"anthropic": anthropic, "openai-chat": openai_chat, "openai-responses": openai_responses, "gemini": gemini}


def body(api: str, arguments: str) -> tuple[bytes, int]:
    """The SSE body of `api` carrying one call with these arguments, and its number of deltas."""
    return BUILDERS[api](arguments)


def data_frames(raw: bytes) -> list[dict[str, Any]]:
    """The JSON of every `data:` line (what an SDK parses), `[DONE]` left out."""
    frames = []
    for line in raw.split(b"\n"):
        if line.startswith(b"data: ") and not line.startswith(b"data: [DONE]"):
            frames.append(json.loads(line[6:]))
    return frames


def sdk_objects(api: str, raw: bytes) -> list[Any]:
    """The official SDK's own event objects for a body, built the way its stream class builds them."""
    frames = data_frames(raw)
    if api == "anthropic":
        from anthropic._models import construct_type
        from anthropic.types import RawMessageStreamEvent

        return [construct_type(type_=RawMessageStreamEvent, value=frame) for frame in frames]
    if api == "openai-chat":
        from openai._models import construct_type as openai_construct
        from openai.types.chat import ChatCompletionChunk

        return [openai_construct(type_=ChatCompletionChunk, value=frame) for frame in frames]
    if api == "openai-responses":
        from openai._models import construct_type as openai_construct
        from openai.types.responses import ResponseStreamEvent

        return [openai_construct(type_=ResponseStreamEvent, value=frame) for frame in frames]
    from google.genai import types

    return [types.GenerateContentResponse._from_response(response=frame, kwargs={}) for frame in frames]
