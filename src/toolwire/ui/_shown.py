"""What the client already shows of a conversation: the continued message's tool and suspension parts, dynamic calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import protocol
from .reading import ChatRequest


def tool_parts(request: ChatRequest) -> dict[str, tuple[str, Any]]:
    """Calls the continued assistant message already shows (call id → tool name and input)."""
    if request.last_assistant_id is None:
        return {}
    known: dict[str, tuple[str, Any]] = {}
    for part in request.ui_messages[-1].get("parts", []):
        kind = part.get("type", "") if isinstance(part, Mapping) else ""
        if isinstance(kind, str) and (kind.startswith("tool-") or kind == "dynamic-tool"):
            name = part.get("toolName") if kind == "dynamic-tool" else kind[len("tool-") :]
            known[str(part.get("toolCallId"))] = (str(name), part.get("input"))
    return known


def dynamic_calls(request: ChatRequest) -> set[str]:
    """Calls the client shows as `dynamic-tool` parts (announced again, they keep that kind)."""
    return {
        str(part.get("toolCallId"))
        for message in request.ui_messages
        for part in message.get("parts", [])
        if isinstance(part, Mapping) and part.get("type") == "dynamic-tool"
    }


def suspension_parts(request: ChatRequest) -> dict[str, dict[str, Any]]:
    """The suspension and card parts the continued message shows (call id → chunk), to update in place."""
    if request.last_assistant_id is None:
        return {}
    kinds = (protocol.SUSPENDED, protocol.ACTION_REQUIRED)
    return {
        str(part["id"]): {"type": part["type"], "data": dict(part["data"])}
        for part in request.ui_messages[-1].get("parts", [])
        if isinstance(part, Mapping)
        and part.get("type") in kinds
        and isinstance(part.get("id"), str)
        and isinstance(part.get("data"), Mapping)
    }
