"""Output items of a Responses stream: the item an event carries, checked, and what a call needs to be sent back."""

from __future__ import annotations

from typing import Any

from .._frames import field, object_of, wrong
from ._hosted import to_json


def item_of(frame: Any) -> Any:
    """The `item` of an `output_item` event."""
    item = object_of(frame, "item", "item")
    if item is None:
        raise wrong("item", "an object", None)
    return item


def checked_item(item: Any) -> Any:
    if item is None or isinstance(item, (str, int, float, list)):
        raise wrong("", "an object", item)
    return item


def call_metadata(item: Any) -> dict[str, Any]:
    """What `encode_messages` needs to send a call back: its item id, namespace, caller; custom or not."""
    openai: dict[str, Any] = {"itemId": field(item, "id")}
    if field(item, "type") == "custom_tool_call":
        openai["custom"] = True
    namespace = field(item, "namespace")
    if namespace is not None:
        openai["namespace"] = namespace
    caller = field(item, "caller")
    if caller is not None:
        openai["caller"] = to_json(caller)
    return {"openai": openai}
