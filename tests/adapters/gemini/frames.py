"""Builders for Gemini `GenerateContentResponse` chunks, in the camelCase JSON the API streams."""

from __future__ import annotations

from typing import Any


def chunk(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    response_id: str | None = "resp-1",
    message: str | None = None,
) -> dict[str, Any]:
    """One response chunk with one candidate."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    if message is not None:
        candidate["finishMessage"] = message
    frame: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-3-flash-preview"}
    if usage is not None:
        frame["usageMetadata"] = usage
    if response_id is not None:
        frame["responseId"] = response_id
    return frame


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


def thought(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, "thought": True, **extra}


def call(name: str, args: dict[str, Any] | None = None, call_id: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if args is not None:
        body["args"] = args
    if call_id is not None:
        body["id"] = call_id
    return {"functionCall": body, **extra}


def partial(*args: dict[str, Any], more: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"partialArgs": list(args)}
    if more:
        body["willContinue"] = True
    return {"functionCall": body}


def start(name: str, **extra: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "willContinue": True}, **extra}


def arg(path: str, **value: Any) -> dict[str, Any]:
    return {"jsonPath": path, **value}


END: dict[str, Any] = {"functionCall": {}}
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 22, "thoughtsTokenCount": 7}
USAGE_EVENT = {"inputTokens": 10, "outputTokens": 12, "totalTokens": 22, "reasoningTokens": 7}
START_EVENT = {
    "type": "start",
    "messageId": "resp-1",
    "providerMetadata": {"google": {"modelVersion": "gemini-3-flash-preview"}},
}


def finish_event(reason: str, raw: str = "STOP", usage: dict[str, Any] | None = None, **google: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "finish", "finishReason": reason}
    if usage is not None:
        event["usage"] = usage
    event["providerMetadata"] = {"google": {"finishReason": raw, **google}}
    return event
