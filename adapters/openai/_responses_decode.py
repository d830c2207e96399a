"""Responses streams (and whole `response` objects) mapped to deltas.

Every part is keyed by its output item id: a function call by its `fc_...` item (its
`call_id` becomes the tool call id), text by `<msg id>:<content index>`, a reasoning summary
by `<rs id>:summary:<index>`. Event shapes: `openai/types/responses/response_stream_event.py`.

- Function calls: `output_item.added` starts, `function_call_arguments.delta` streams,
  `.done` (or `output_item.done`) ends with the full text, which wins over the fragments.
- Custom tools send raw text, not JSON; toolwire reports their input as `{"input": text}`
  (`_custom`: a tool whose input schema is a string gets the text itself) and streams it as
  the JSON text of that object, so every `tool-input-delta` is JSON text.
- Reasoning: summaries (and raw `reasoning_text`) become reasoning parts; each ends with
  `providerMetadata.openai.itemId` (and `reasoningEncryptedContent` on the item's first part),
  so `encode_messages` can send the reasoning item back. A reasoning item with no text still
  yields an empty reasoning part carrying that metadata.
- Items of built-in tools are provider-executed calls (`_hosted`).
- `response.completed` / `incomplete` / `failed` and `error` give the finish reason and usage;
  an HTTP error body (`{"error": {...}}`), the `error` event and a failed response become an
  `error` event with the provider's code and message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from toolwire.deltas import (
    Delta,
    MessageStarted,
    PartFinished,
    ReasoningPiece,
    StreamFailed,
    TextPiece,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
)
from toolwire.exceptions import MalformedFrameError

from .._frames import Skipped, error_text, field, int_of, items_of, maybe_text, object_of, restated_text, text_of
from ._annotations import annotation_source, annotation_sources, generated_image
from ._custom import custom_input
from ._hosted import HOSTED, OUTPUT_ITEMS, call_id_of, completed, output_item, started
from ._responses_end import error_event, finished, response_metadata
from ._responses_items import call_metadata as _call_metadata
from ._responses_items import checked_item as _checked_item
from ._responses_items import item_of as _item_of

API = "openai-responses"
_ARGUMENTS_DELTA = "response.function_call_arguments.delta"
_CUSTOM_OPEN = '{"input":"'
_CUSTOM_CLOSE = '"}'
_RESTATED_ARGUMENTS = frozenset({("response", "output", "*", "arguments")})
RESTATED: dict[str, frozenset[tuple[str, ...]]] = {
    "response.function_call_arguments.done": frozenset({("arguments",)}),
    "response.output_item.done": frozenset({("item", "arguments")}),
    "response.completed": _RESTATED_ARGUMENTS,
    "response.incomplete": _RESTATED_ARGUMENTS,
    "response.failed": _RESTATED_ARGUMENTS,
}
"""Where a stream restates a function call's arguments (`Adapter.restated_strings`)."""


class _Item:
    """What the decoder remembers about one output item."""

    __slots__ = ("custom_open", "finished", "kind", "parts")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[Hashable] = []
        self.custom_open = False
        self.finished = False
        """A call whose `.done` event already ended it (`output_item.done` then adds nothing)."""


class ResponsesDecoder:
    """Per-response state for the Responses API."""

    __slots__ = ("_client_action", "_done", "_handlers", "_items", "_last_tool_search", "_started")

    def __init__(self) -> None:
        self._items: dict[str, _Item] = {}
        self._started = False
        self._done = False
        self._client_action = False
        self._last_tool_search: str | None = None
        self._handlers: dict[str, Callable[[Any], list[Delta]]] = {
            "response.output_text.delta": self._text_delta,
            "response.reasoning_summary_text.delta": self._summary_delta,
            "response.reasoning_text.delta": self._reasoning_text_delta,
            "response.refusal.delta": self._refusal_delta,
            "response.custom_tool_call_input.delta": self._custom_delta,
            "response.function_call_arguments.done": self._arguments_done,
            "response.custom_tool_call_input.done": self._custom_done,
            "response.reasoning_summary_part.added": self._summary_part,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.output_text.annotation.added": self._annotation_added,
            "response.created": self._created,
            "response.in_progress": self._created,
            "response.queued": self._created,
            "response.completed": self._ended,
            "response.incomplete": self._ended,
            "response.failed": self._ended,
            "error": self._error,
        }

    def feed(self, frame: Any) -> list[Delta]:
        """Deltas for one stream event or one whole `response` object."""
        attributes = frame if type(frame) is dict else getattr(frame, "__dict__", None) or {}
        kind = attributes.get("type")
        if kind == _ARGUMENTS_DELTA:  # the hot path
            delta = attributes.get("delta")
            if type(delta) is str:
                return [ToolArgsPiece(attributes.get("item_id"), delta)]
            return [ToolArgsPiece(attributes.get("item_id"), text_of(frame, "delta", "delta"))]
        if kind is None:
            if field(frame, "object") == "response":
                return self._whole(frame)
            error = field(frame, "error")
            if error is not None:  # an HTTP error body
                self._done = True
                return [StreamFailed(error_text(API, error))]
            return []
        handler = self._handlers.get(kind) if type(kind) is str else None
        return handler(frame) if handler is not None else []

    def close(self) -> list[Delta]:
        """A stream that started but never said how it ended was cut off: say so (its open calls are refused)."""
        if self._started and not self._done:
            return [
                StreamFailed("the openai-responses stream ended before its response.completed event: it was cut off")
            ]
        return []

    # -- deltas ------------------------------------------------------------------------------

    def _text_delta(self, frame: Any) -> list[Delta]:
        key = self._part(frame, "message", ":", "content_index")
        return [TextPiece(key, text_of(frame, "delta", "delta"))]

    def _refusal_delta(self, frame: Any) -> list[Delta]:
        key = self._part(frame, "message", ":refusal:", "content_index")
        return [TextPiece(key, text_of(frame, "delta", "delta"))]

    def _annotation_added(self, frame: Any) -> list[Delta]:
        source = annotation_source(field(frame, "annotation"))
        return [source] if source is not None else []

    def _summary_part(self, frame: Any) -> list[Delta]:
        key = self._part(frame, "reasoning", ":summary:", "summary_index")
        return [ReasoningPiece(key, "")]

    def _summary_delta(self, frame: Any) -> list[Delta]:
        key = self._part(frame, "reasoning", ":summary:", "summary_index")
        return [ReasoningPiece(key, text_of(frame, "delta", "delta"))]

    def _reasoning_text_delta(self, frame: Any) -> list[Delta]:
        key = self._part(frame, "reasoning", ":content:", "content_index")
        return [ReasoningPiece(key, text_of(frame, "delta", "delta"))]

    def _part(self, frame: Any, kind: str, infix: str, index_name: str) -> str:
        """The key of the text or reasoning part a delta event names (item id, infix, index)."""
        item_id = maybe_text(frame, "item_id", "item_id")
        return self._part_key(str(item_id), kind, f"{infix}{int_of(frame, index_name, index_name)}")

    def _part_key(self, item_id: str, kind: str, suffix: str) -> str:
        """The key of a text or reasoning part, remembered on its item so the item's end closes it."""
        key = f"{item_id}{suffix}"
        item = self._items.get(item_id)
        if item is None:
            item = self._items[item_id] = _Item(kind)
        if key not in item.parts:
            item.parts.append(key)
        return key

    def _custom_delta(self, frame: Any) -> list[Delta]:
        item_id = maybe_text(frame, "item_id", "item_id")
        item = self._items.get(item_id) if item_id is not None else None
        if item is None:  # never added: its `output_item.done` brings the whole call
            return []
        text = json.dumps(text_of(frame, "delta", "delta"), ensure_ascii=False)[1:-1]
        if not item.custom_open:
            item.custom_open = True
            text = _CUSTOM_OPEN + text
        return [ToolArgsPiece(item_id, text)]

    def _arguments_done(self, frame: Any) -> list[Delta]:
        item_id = maybe_text(frame, "item_id", "item_id")
        item = self._items.get(item_id) if item_id is not None else None
        if item is None:  # never added: its `output_item.done` brings the whole call
            return []
        arguments = restated_text(frame, "arguments", "arguments")
        item.finished = True
        return [ToolCallFinished(item_id, arguments=arguments)]

    def _custom_done(self, frame: Any) -> list[Delta]:
        item_id = maybe_text(frame, "item_id", "item_id")
        item = self._items.get(item_id) if item_id is not None else None
        if item is None or item_id is None:
            return []
        return self._custom_end(item_id, item, text_of(frame, "input", "input"))

    def _custom_end(self, item_id: str, item: _Item, text: str) -> list[Delta]:
        deltas: list[Delta] = []
        if item.custom_open:
            deltas.append(ToolArgsPiece(item_id, _CUSTOM_CLOSE))
        item.finished = True
        deltas.append(ToolCallFinished(item_id, input=custom_input(text), has_input=True))
        return deltas

    # -- items -------------------------------------------------------------------------------

    def _item_added(self, frame: Any) -> list[Delta]:
        item = _item_of(frame)
        kind = field(item, "type")
        item_id = maybe_text(item, "id", "item.id")
        if kind in ("function_call", "custom_tool_call"):
            # read before anything is remembered: a malformed call is skipped whole, with one error
            call_id = maybe_text(item, "call_id", "item.call_id")
            name = maybe_text(item, "name", "item.name")
            arguments = text_of(item, "arguments", "item.arguments") if kind == "function_call" else ""
            if item_id is not None and item_id not in self._items:
                self._items[item_id] = _Item(kind)
            deltas: list[Delta] = [ToolCallStarted(item_id, call_id, name, provider_metadata=_call_metadata(item))]
            if arguments:
                deltas.append(ToolArgsPiece(item_id, arguments))
            return deltas
        if item_id is not None and item_id not in self._items and type(kind) is str:
            self._items[item_id] = _Item(kind)
        spec = HOSTED.get(kind) if type(kind) is str else None
        if spec is not None:
            return [started(item, spec)]
        return []

    def _item_done(self, frame: Any) -> list[Delta]:
        item = _item_of(frame)
        item_id = maybe_text(item, "id", "item.id")
        known = self._items.get(item_id) if item_id is not None else None
        if known is not None and known.finished:
            return []
        return self._item(item, opened=known is not None)

    def _item(self, item: Any, *, opened: bool) -> list[Delta]:
        """Deltas that end an item (`opened`: its start was streamed; else it arrives whole)."""
        kind = field(item, "type")
        item_id = maybe_text(item, "id", "item.id")
        if kind == "function_call":
            arguments = restated_text(item, "arguments", "item.arguments")
            if opened:
                return [ToolCallFinished(item_id, arguments=arguments)]
            return [
                ToolCallComplete(
                    item_id,
                    maybe_text(item, "call_id", "item.call_id"),
                    maybe_text(item, "name", "item.name"),
                    arguments,
                    provider_metadata=_call_metadata(item),
                )
            ]
        if kind == "custom_tool_call":
            text = text_of(item, "input", "item.input")
            known = self._items.get(item_id) if opened and item_id is not None else None
            if known is not None:
                return self._custom_end(str(item_id), known, text)
            return [
                ToolCallComplete(
                    item_id,
                    maybe_text(item, "call_id", "item.call_id"),
                    maybe_text(item, "name", "item.name"),
                    input=custom_input(text),
                    has_input=True,
                    provider_metadata=_call_metadata(item),
                )
            ]
        if kind == "message":
            return self._message_done(item, opened=opened)
        if kind == "reasoning":
            return self._reasoning_done(item, opened=opened)
        spec = HOSTED.get(kind) if type(kind) is str else None
        if spec is not None:
            if spec.runs_on(item) == "client":
                self._client_action = True
            if kind == "tool_search_call":
                self._last_tool_search = call_id_of(item)
            if kind == "image_generation_call":
                image = generated_image(item)
                return [*completed(item, spec, opened=opened), *([image] if image is not None else [])]
            return completed(item, spec, opened=opened)
        if type(kind) is str and kind in OUTPUT_ITEMS:
            call_id = field(item, "call_id") or (self._last_tool_search if kind == "tool_search_output" else None)
            return [output_item(item, str(call_id))] if call_id else []
        return []

    def _message_done(self, item: Any, *, opened: bool) -> list[Delta]:
        item_id = field(item, "id")
        end: dict[str, Any] = {"itemId": item_id}
        phase = field(item, "phase")
        if phase is not None:
            end["phase"] = phase
        state = self._items.pop(item_id, None)
        deltas: list[Delta] = []
        content = items_of(item, "content", "item.content")
        if not opened or state is None or not state.parts:
            for index, part in enumerate(content):
                kind = field(part, "type")
                if kind not in ("output_text", "refusal"):
                    continue
                key = f"{item_id}:{index}" if kind == "output_text" else f"{item_id}:refusal:{index}"
                name = "text" if kind == "output_text" else "refusal"
                deltas.append(TextPiece(key, text_of(part, name, f"item.content[{index}].{name}")))
                deltas.append(PartFinished(key, _end(end, kind)))
                deltas.extend(annotation_sources(field(part, "annotations", ())))
            return deltas
        for part_key in state.parts:
            kind = "refusal" if ":refusal:" in str(part_key) else "output_text"
            deltas.append(PartFinished(part_key, _end(end, kind)))
        for part in content:  # streamed already, unless the stream skipped them (the core sends each source once)
            deltas.extend(annotation_sources(field(part, "annotations", ())))
        return deltas

    def _reasoning_done(self, item: Any, *, opened: bool) -> list[Delta]:
        item_id = field(item, "id")
        first: dict[str, Any] = {"itemId": item_id}
        encrypted = field(item, "encrypted_content")
        if encrypted is not None:
            first["reasoningEncryptedContent"] = encrypted
        state = self._items.pop(item_id, None)
        keys = list(state.parts) if opened and state is not None else []
        deltas: list[Delta] = []
        if not keys:
            for index, summary in enumerate(items_of(item, "summary", "item.summary")):
                keys.append(f"{item_id}:summary:{index}")
                deltas.append(ReasoningPiece(keys[-1], text_of(summary, "text", f"item.summary[{index}].text")))
            for index, content in enumerate(items_of(item, "content", "item.content")):
                keys.append(f"{item_id}:content:{index}")
                deltas.append(ReasoningPiece(keys[-1], text_of(content, "text", f"item.content[{index}].text")))
        if not keys:
            keys.append(item_id)
            deltas.append(ReasoningPiece(item_id, ""))
        for position, key in enumerate(keys):
            end: dict[str, Any] = dict(first) if position == 0 else {"itemId": item_id}
            if ":content:" in str(key):
                end["reasoningContent"] = True
            deltas.append(PartFinished(key, {"openai": end}))
        return deltas

    # -- the response ------------------------------------------------------------------------

    def _created(self, frame: Any) -> list[Delta]:
        if self._started:
            return []
        self._started = True
        response = object_of(frame, "response", "response")
        response_id = maybe_text(response, "id", "response.id") if response is not None else None
        return [MessageStarted(message_id=response_id, provider_metadata=response_metadata(response_id))]

    def _ended(self, frame: Any) -> list[Delta]:
        self._done = True
        response = object_of(frame, "response", "response")
        if response is None and field(frame, "type") == "response.failed":
            return [StreamFailed(f"{API} error: the response failed (no details)")]
        return self._finish(response)

    def _finish(self, response: Any) -> list[Delta]:
        self._done = True
        return [] if response is None else finished(response, client_action=self._client_action)

    def _error(self, frame: Any) -> list[Delta]:
        self._done = True
        return [error_event(frame)]

    def _whole(self, response: Any) -> list[Delta]:
        """A non-streaming `response` object: the same deltas its stream would give."""
        deltas = self._created({"response": response})
        skipped = Skipped("output items")
        for position, item in enumerate(items_of(response, "output", "output")):
            try:
                deltas.extend(self._item(_checked_item(item), opened=False))
            except MalformedFrameError as exc:
                skipped.add(position, exc)
        skipped.report(API, deltas)
        deltas.extend(self._finish(response))
        return deltas


def _end(end: dict[str, Any], kind: str) -> dict[str, Any]:
    return {"openai": {**end, "refusal": True}} if kind == "refusal" else {"openai": dict(end)}
