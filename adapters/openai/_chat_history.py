"""Tool results and conversation history for Chat Completions.

A `role: "tool"` message takes text only (`openai/types/chat/chat_completion_tool_message_param.py`),
so a result's images and files get a placeholder in its tool message ("image 1 is attached
below") and travel in ONE `role: "user"` message after all the tool messages of the turn,
as real image/file parts: never as base64 pasted into text. Reasoning has no place in Chat
history and is dropped (reported); so are calls the provider ran itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    UserMessage,
)
from toolwire.names import OPENAI_NAMES, wire_name
from toolwire.results import ContentPart, ToolCall, ToolResult, output_text, part_kind
from toolwire.tools import free_form_input, object_input

from ._parts import chat_part

if TYPE_CHECKING:
    from toolwire.adapter import Adapter
    from toolwire.compat import Degradation

ATTACHMENTS_INTRO = "Attachments returned by the tool calls above:"


def compact_json(value: Any) -> str:
    """JSON text as OpenAI puts arguments on the wire: compact, UTF-8 kept."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def arguments_text(value: Any) -> str:
    """A call's input as argument text; raw text (input that never parsed) is sent back as it was."""
    return value if isinstance(value, str) else compact_json(value)


def error_text(text: str) -> str:
    """Error output for APIs without an error flag: marked as an error unless it says so already."""
    return text if text[:5].lower() == "error" else f"Error: {text}"


def result_text(output: dict[str, Any]) -> str:
    """Text-only rendering of a non-content output (text, json, errors, denial)."""
    kind = output["type"]
    if kind == "json":
        return compact_json(output["value"])
    if kind == "error-text":
        return error_text(str(output["value"]))
    if kind == "error-json":
        return error_text(compact_json(output["value"]))
    return output_text(output)


class ChatResultEncoder:
    """Tool messages for one turn of results, plus the follow-up user message for their media."""

    def __init__(self, adapter: Adapter, degradations: list[Degradation], *, file_parts: bool) -> None:
        self._adapter = adapter
        self._degradations = degradations
        self._file_parts = file_parts
        self._attachments: list[dict[str, Any]] = []
        self._counts = {"image": 0, "file": 0, "attachment": 0}

    def encode(self, results: Iterable[ToolResult]) -> list[dict[str, Any]]:
        """The turn's messages: one `tool` message per result, then at most one `user` message."""
        messages: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": result.tool_call_id, "content": self._content(result)}
            for result in results
        ]
        if self._attachments:
            messages.append(
                {"role": "user", "content": [{"type": "text", "text": ATTACHMENTS_INTRO}, *self._attachments]}
            )
        return messages

    def _content(self, result: ToolResult) -> str:
        output = result.output
        if output["type"] != "content":
            return result_text(output)
        pieces: list[str] = []
        for part in output["value"]:
            if part["type"] == "text":
                pieces.append(part["text"])
            else:
                pieces.append(self._attach(result, part))
        return "\n".join(p for p in pieces if p)

    def _attach(self, result: ToolResult, part: ContentPart) -> str:
        def degrade(feature: str, action: str) -> None:
            self._adapter.degrade(self._degradations, f"tool_result.{feature}", action, result.tool_name)

        label = "attachment" if part["type"] == "custom" else "image" if part_kind(part) == "image" else "file"
        mapped = chat_part(part, self._counts[label] + 1, degrade, file_parts=self._file_parts)
        if isinstance(mapped, str):
            return mapped
        self._counts[label] += 1
        name = f"{label} {self._counts[label]}"
        self._attachments.append({"type": "text", "text": f"{name} (from tool call {result.tool_call_id}):"})
        self._attachments.append(mapped)
        return f"[{name} is attached in the next message]"


def chat_messages(
    adapter: Adapter,
    messages: Sequence[Message],
    degradations: list[Degradation],
    *,
    file_parts: bool,
    raw_arguments: bool = True,
) -> list[dict[str, Any]]:
    """The `messages` list for a neutral conversation.

    `raw_arguments=False` replays a call whose input never parsed as `{}` (reported): several
    OpenAI-compatible servers reject a history whose arguments are not JSON.
    """
    encoded: list[dict[str, Any]] = []
    foreign: set[str] = set()
    for message in messages:
        if isinstance(message, SystemMessage):
            encoded.append({"role": "system", "content": message.content})
        elif isinstance(message, UserMessage):
            encoded.append(_user(adapter, message, degradations, file_parts=file_parts))
        elif isinstance(message, AssistantMessage):
            assistant = _assistant(adapter, message, degradations, foreign, raw_arguments)
            if assistant is not None:
                encoded.append(assistant)
        else:
            _note_foreign(foreign, [r.provider_metadata for r in message.content])
            encoded.extend(ChatResultEncoder(adapter, degradations, file_parts=file_parts).encode(message.content))
    for provider in sorted(foreign):
        adapter.degrade(
            degradations, "history.provider_metadata", f"dropped {provider} metadata: only {provider} understands it"
        )
    return encoded


def _user(
    adapter: Adapter, message: UserMessage, degradations: list[Degradation], *, file_parts: bool
) -> dict[str, Any]:
    if len(message.content) == 1 and isinstance(message.content[0], TextPart):
        return {"role": "user", "content": message.content[0].text}

    def degrade(feature: str, action: str) -> None:
        adapter.degrade(degradations, f"message.{feature}", action)

    parts: list[dict[str, Any]] = []
    for number, part in enumerate(message.content, start=1):
        if isinstance(part, TextPart):
            parts.append({"type": "text", "text": part.text})
            continue
        mapped = chat_part(part.part, number, degrade, file_parts=file_parts)
        if isinstance(mapped, str):
            if mapped:
                parts.append({"type": "text", "text": mapped})
        else:
            parts.append(mapped)
    return {"role": "user", "content": parts}


def _assistant(
    adapter: Adapter,
    message: AssistantMessage,
    degradations: list[Degradation],
    foreign: set[str],
    raw_arguments: bool,
) -> dict[str, Any] | None:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    dropped = {"reasoning": 0, "provider": 0, "file": 0}
    for part in message.content:
        _note_foreign(foreign, [part.provider_metadata])
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ReasoningPart):
            dropped["reasoning"] += 1
        elif isinstance(part, ToolCall) and not part.provider_executed:
            if not raw_arguments and not isinstance(part.input, dict):
                adapter.degrade(
                    degradations,
                    "tool_call.input",
                    f"call {part.tool_call_id!r} had input that is not a JSON object; replayed as {{}}",
                    part.tool_name,
                )
                part = ToolCall(tool_call_id=part.tool_call_id, tool_name=part.tool_name, input={})
            calls.append(_tool_call(part))
        elif isinstance(part, (ToolCall, ToolResult)):
            dropped["provider"] += 1
        elif isinstance(part, MediaPart):
            dropped["file"] += 1
    if dropped["reasoning"]:
        adapter.degrade(
            degradations, "history.reasoning", f"dropped {dropped['reasoning']} reasoning part(s): Chat has no field"
        )
    if dropped["provider"]:
        adapter.degrade(
            degradations,
            "history.provider_executed",
            f"dropped {dropped['provider']} provider-executed call/result part(s): Chat cannot replay them",
        )
    if dropped["file"]:
        adapter.degrade(
            degradations,
            "history.file",
            f"dropped {dropped['file']} file(s) the model returned: Chat takes no files in assistant messages",
        )
    if not texts and not calls:
        return None
    assistant: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    if calls:
        assistant["tool_calls"] = calls
    return assistant


def _tool_call(call: ToolCall) -> dict[str, Any]:
    name = wire_name(call.tool_name, OPENAI_NAMES)
    openai = (call.provider_metadata or {}).get("openai") or {}
    if openai.get("custom"):
        text = free_form_input(call.input) if isinstance(call.input, dict) else str(call.input)
        text = text if isinstance(text, str) else arguments_text(text)
        return {"id": call.tool_call_id, "type": "custom", "custom": {"name": name, "input": text}}
    return {
        "id": call.tool_call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments_text(_object_input(call.input, openai))},
    }


def _note_foreign(foreign: set[str], metadata: Iterable[Any]) -> None:
    for item in metadata:
        if item:
            foreign.update(provider for provider in item if provider != "openai")


def _object_input(value: Any, openai: Mapping[str, Any]) -> Any:
    """A free-form tool's text sent back as the `{"input": text}` object it was sent as (compatible servers)."""
    return object_input(value) if openai.get("freeForm") else value
