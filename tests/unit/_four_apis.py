"""Canned whole (non-streamed) responses of the four apis, served offline to their own SDK clients."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from toolwire import get_adapter
from toolwire.testing.capture import RequestCapture

APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")
MODELS = {
    "openai-chat": "gpt-4.1-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic": "claude-x",
    "gemini": "gemini-x",
}
OPTIONS: dict[str, dict[str, Any]] = {"anthropic": {"max_tokens": 64}}


def calls_reply(api: str, calls: list[tuple[str, str, dict[str, Any]]]) -> httpx2.Response:
    """One response asking for `calls` (id, tool name, input)."""
    if api == "openai-chat":
        wire = [{"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls]
        message = {"role": "assistant", "content": None, "tool_calls": wire}
        return _chat(message, "tool_calls")
    if api == "openai-responses":
        items = [
            {
                "type": "function_call",
                "id": f"fc_{i}",
                "call_id": i,
                "name": n,
                "arguments": json.dumps(a),
                "status": "completed",
            }
            for i, n, a in calls
        ]
        return _responses(items)
    if api == "anthropic":
        blocks = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
        return _anthropic(blocks, "tool_use")
    parts = [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]
    return _gemini(parts)


def text_reply(api: str, text: str) -> httpx2.Response:
    """One response answering `text`."""
    if api == "openai-chat":
        return _chat({"role": "assistant", "content": text}, "stop")
    if api == "openai-responses":
        item = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return _responses([item])
    if api == "anthropic":
        return _anthropic([{"type": "text", "text": text}], "end_turn")
    return _gemini([{"text": text}])


def _chat(message: dict[str, Any], finish: str) -> httpx2.Response:
    body = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
    }
    return httpx2.Response(200, json=body)


def _responses(output: list[dict[str, Any]]) -> httpx2.Response:
    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4.1-mini",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
    return httpx2.Response(200, json=body)


def _anthropic(blocks: list[dict[str, Any]], stop: str) -> httpx2.Response:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return httpx2.Response(200, json=body)


def _gemini(parts: list[dict[str, Any]]) -> httpx2.Response:
    body = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
    return httpx2.Response(200, json=body)


def client(api: str, capture: RequestCapture, *, asynchronous: bool = False) -> Any:
    """The api's SDK client sending through `capture`."""
    http = capture.async_client() if asynchronous else capture.client()
    return get_adapter(api).sdk_client(api_key="k", asynchronous=asynchronous, http_client=http)
