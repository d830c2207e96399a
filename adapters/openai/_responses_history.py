"""Tool results and conversation history for Responses (`input` items).

Items (`openai/types/responses/response_input_item_param.py`): user and system messages with
`input_text` / `input_image` / `input_file` content; the assistant's turn as the items the API
produced (`reasoning` with its id and encrypted content, `message` with its id and `phase`,
`function_call` / `custom_tool_call` with item id, `namespace`, `caller`), built from the
`providerMetadata.openai` the decoder put on each part; results as `function_call_output` /
`custom_tool_call_output`, whose output is a string or a list of input parts.

Options: `instructions=True` sends system messages as the `instructions` field instead of
`system` message items; `store=False` says the conversation is not stored by OpenAI, so items
can only be sent in full (provider-executed items, which would need an `item_reference`, and
reasoning without encrypted content are dropped and reported).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
)
from toolwire.names import OPENAI_NAMES, wire_name
from toolwire.results import ToolCall, ToolResult
from toolwire.tools import free_form_input, object_input

from ._chat_history import arguments_text, result_text
from ._parts import responses_part

if TYPE_CHECKING:
    from toolwire.adapter import Adapter
    from toolwire.compat import Degradation


def openai_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `openai` namespace of a part's provider metadata."""
    value = (metadata or {}).get("openai")
    return dict(value) if isinstance(value, Mapping) else {}


def tool_outputs(
    adapter: Adapter,
    results: Iterable[ToolResult],
    degradations: list[Degradation],
    calls: Mapping[str, ToolCall] | None = None,
) -> list[dict[str, Any]]:
    """One `function_call_output` (or `custom_tool_call_output`) item per result."""
    items: list[dict[str, Any]] = []
    for result in results:
        call = (calls or {}).get(result.tool_call_id)
        openai = {
            **openai_metadata(call.provider_metadata if call else None),
            **openai_metadata(result.provider_metadata),
        }
        custom = bool(openai.get("custom"))
        item: dict[str, Any] = {
            "type": "custom_tool_call_output" if custom else "function_call_output",
            "call_id": result.tool_call_id,
            "output": _output(adapter, result, degradations),
        }
        if openai.get("caller") is not None:
            item["caller"] = openai["caller"]
        items.append(item)
    return items


def _output(adapter: Adapter, result: ToolResult, degradations: list[Degradation]) -> str | list[dict[str, Any]]:
    output = result.output
    if output["type"] != "content":
        return result_text(output)

    def degrade(feature: str, action: str) -> None:
        adapter.degrade(degradations, f"tool_result.{feature}", action, result.tool_name)

    parts = [responses_part(part, n, degrade, message=False) for n, part in enumerate(output["value"], start=1)]
    return [part for part in parts if part is not None]


class ResponsesHistory:
    """Encodes one conversation into `input` items (and `instructions`)."""

    def __init__(self, adapter: Adapter, degradations: list[Degradation], *, instructions: bool, store: bool) -> None:
        self._adapter = adapter
        self._degradations = degradations
        self._use_instructions = instructions
        self._store = store
        self._items: list[dict[str, Any]] = []
        self._instructions: list[str] = []
        self._calls: dict[str, ToolCall] = {}
        self._foreign: set[str] = set()

    def encode(self, messages: Sequence[Message]) -> dict[str, Any]:
        """`{"input": [...]}`, plus `instructions` when asked for."""
        for message in messages:
            if isinstance(message, SystemMessage):
                if self._use_instructions:
                    self._instructions.append(message.content)
                else:
                    self._items.append({"role": "system", "content": message.content})
            elif isinstance(message, UserMessage):
                self._items.append(self._user(message))
            elif isinstance(message, AssistantMessage):
                self._assistant(message)
            else:
                self._tool(message)
        for provider in sorted(self._foreign):
            self._degrade("history.provider_metadata", f"dropped {provider} metadata: only {provider} understands it")
        fields: dict[str, Any] = {"input": self._items}
        if self._instructions:
            fields["instructions"] = "\n\n".join(self._instructions)
        return fields

    def _degrade(self, feature: str, action: str) -> None:
        self._adapter.degrade(self._degradations, feature, action)

    def _note(self, metadata: Mapping[str, Any] | None) -> None:
        if metadata:
            self._foreign.update(provider for provider in metadata if provider != "openai")

    def _user(self, message: UserMessage) -> dict[str, Any]:
        if len(message.content) == 1 and isinstance(message.content[0], TextPart):
            return {"role": "user", "content": message.content[0].text}
        content: list[dict[str, Any]] = []
        for number, part in enumerate(message.content, start=1):
            if isinstance(part, TextPart):
                content.append({"type": "input_text", "text": part.text})
                continue
            mapped = responses_part(part.part, number, lambda f, a: self._degrade(f"message.{f}", a), message=True)
            if mapped is not None:
                content.append(mapped)
        return {"role": "user", "content": content}

    def _tool(self, message: ToolMessage) -> None:
        for result in message.content:
            self._note(result.provider_metadata)
        self._items.extend(tool_outputs(self._adapter, message.content, self._degradations, self._calls))

    # -- the assistant's turn ----------------------------------------------------------------

    def _assistant(self, message: AssistantMessage) -> None:
        items: list[dict[str, Any]] = []
        referenced: set[str] = set()
        dropped_reasoning = dropped_executed = dropped_files = 0
        for part in message.content:
            self._note(part.provider_metadata)
            openai = openai_metadata(part.provider_metadata)
            if isinstance(part, ReasoningPart):
                dropped_reasoning += not self._reasoning(items, part, openai)
            elif isinstance(part, TextPart):
                self._text(items, part, openai)
            elif isinstance(part, ToolCall) and not part.provider_executed:
                self._calls[part.tool_call_id] = part
                items.append(_call_item(part, openai))
            elif isinstance(part, MediaPart):
                # a generated image is its image_generation_call item, sent back by reference
                dropped_files += openai.get("itemId") not in referenced
            elif isinstance(part, ToolCall):
                item_id = openai.get("itemId")
                if self._store and item_id and item_id not in referenced:
                    referenced.add(item_id)
                    items.append({"type": "item_reference", "id": item_id})
                elif not (self._store and item_id):
                    dropped_executed += 1
        if dropped_reasoning:
            for item in items:  # a call item sent by id needs its reasoning item: send the call without its id
                if item.get("type") in ("function_call", "custom_tool_call"):
                    item.pop("id", None)
            self._degrade(
                "history.reasoning",
                f"dropped {dropped_reasoning} reasoning part(s) Responses cannot replay (no OpenAI reasoning item id"
                + (" or encrypted content, with store=False)" if not self._store else ")")
                + "; the turn's calls are sent without their item ids, which would require them",
            )
        if dropped_executed:
            self._degrade(
                "history.provider_executed",
                f"dropped {dropped_executed} provider-executed call(s): "
                + ("not stored by OpenAI (store=False)" if not self._store else "no OpenAI item id to reference"),
            )
        if dropped_files:
            self._degrade(
                "history.file",
                f"dropped {dropped_files} file(s) the model returned: Responses takes no files in assistant messages "
                "(only a generated image stored by OpenAI is sent back, as its image_generation_call item)",
            )
        self._items.extend(items)

    def _reasoning(self, items: list[dict[str, Any]], part: ReasoningPart, openai: dict[str, Any]) -> bool:
        item_id = openai.get("itemId")
        encrypted = openai.get("reasoningEncryptedContent")
        if not item_id or (not self._store and not encrypted):
            return False
        last = items[-1] if items else None
        if last is None or last.get("type") != "reasoning" or last.get("id") != item_id:
            last = {"type": "reasoning", "id": item_id, "summary": []}
            items.append(last)
        if encrypted:
            last["encrypted_content"] = encrypted
        if openai.get("reasoningContent"):
            last.setdefault("content", []).append({"type": "reasoning_text", "text": part.text})
        elif part.text:
            last["summary"].append({"type": "summary_text", "text": part.text})
        return True

    def _text(self, items: list[dict[str, Any]], part: TextPart, openai: dict[str, Any]) -> None:
        item_id = openai.get("itemId")
        if not item_id:
            items.append({"role": "assistant", "content": part.text})
            return
        entry: dict[str, Any] = (
            {"type": "refusal", "refusal": part.text}
            if openai.get("refusal")
            else {"type": "output_text", "text": part.text, "annotations": []}
        )
        last = items[-1] if items else None
        if last is not None and last.get("type") == "message" and last.get("id") == item_id:
            last["content"].append(entry)
            return
        message: dict[str, Any] = {"type": "message", "role": "assistant", "id": item_id, "status": "completed"}
        message["content"] = [entry]
        if openai.get("phase"):
            message["phase"] = openai["phase"]
        items.append(message)


def _call_item(call: ToolCall, openai: Mapping[str, Any]) -> dict[str, Any]:
    name = wire_name(call.tool_name, OPENAI_NAMES)
    if openai.get("custom"):
        text = free_form_input(call.input) if isinstance(call.input, dict) else str(call.input)
        text = text if isinstance(text, str) else arguments_text(text)
        item: dict[str, Any] = {"type": "custom_tool_call", "call_id": call.tool_call_id, "name": name, "input": text}
    else:
        item = {
            "type": "function_call",
            "call_id": call.tool_call_id,
            "name": name,
            "arguments": arguments_text(_object_input(call.input, openai)),
        }
    if openai.get("namespace"):
        item["namespace"] = openai["namespace"]
    if openai.get("itemId"):
        item["id"] = openai["itemId"]
    if openai.get("caller") is not None:
        item["caller"] = openai["caller"]
    return item


def _object_input(value: Any, openai: Mapping[str, Any]) -> Any:
    """A free-form tool's text sent back as the `{"input": text}` object it was sent as (compatible servers)."""
    return object_input(value) if openai.get("freeForm") else value
