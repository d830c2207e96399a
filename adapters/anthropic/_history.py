"""Tool results and conversation history as Messages API request fields.

Results of one turn go in ONE user message, every `tool_result` block first
(`anthropic/types/tool_result_block_param.py`); errors and denials set `is_error`. History:
leading system messages become the top-level `system`, later ones stay in place as
`{"role": "system"}` messages (`anthropic/types/system_message_param.py`); consecutive messages
of one role are merged, since the API wants user and assistant turns to alternate. Assistant
parts keep their order: thinking (only with the signature Anthropic issued), redacted thinking,
text, `tool_use`, and provider-run calls and results when their metadata says how to replay them.
Metadata of other providers is dropped and reported.

A call whose input was not a JSON object (the model sent broken JSON) is replayed as
`{"INVALID_JSON": "<raw text>"}`: `tool_use.input` must be an object, and the model needs to see
what it sent to understand the error result next to it (the approach of dust-tt/dust#24414).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import pydantic

from toolwire.exceptions import ConfigurationError
from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    UserMessage,
    to_message,
)
from toolwire.names import ANTHROPIC_NAMES, wire_name
from toolwire.results import ERROR_TYPES, ToolCall, ToolResult, normalize_output, output_text
from toolwire.tools import STRING_INPUT_KEY

from ._parts import content_block

Degrade = Callable[[str, str, str | None], None]
"""Records one degradation: `(feature, action, tool_id)`."""

_ID_OUTSIDE_ALPHABET: Final = re.compile(r"[^a-zA-Z0-9_-]")
ORIGINS: Final = {"openai": "the OpenAI APIs", "google": "Gemini"}


def wire_call_id(call_id: str) -> str:
    """A call id in the alphabet `tool_use.id` accepts (`^[a-zA-Z0-9_-]+$`); other providers' ids may not be."""
    if call_id and not _ID_OUTSIDE_ALPHABET.search(call_id):
        return call_id
    return _ID_OUTSIDE_ALPHABET.sub("_", call_id) or "toolu_unnamed"


# -- tool results ------------------------------------------------------------------------------


def tool_results_message(results: Iterable[ToolResult | Mapping[str, Any]], degrade: Degrade) -> dict[str, Any] | None:
    """One user message with a `tool_result` block per result, in the order given."""
    blocks = [tool_result_block(_as_result(r), degrade) for r in results]
    return {"role": "user", "content": blocks} if blocks else None


def tool_result_block(result: ToolResult, degrade: Degrade) -> dict[str, Any]:
    """One `tool_result` block."""
    try:
        output = normalize_output(result.output)
    except ValueError as exc:
        raise ConfigurationError(f"the result of call {result.tool_call_id!r} ({result.tool_name}): {exc}") from None
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_call_id(result.tool_call_id)}
    kind = output["type"]
    if kind == "content":
        content = _blocks(output["value"], "tool_result", result.tool_name, degrade)
        if content:
            block["content"] = content
    else:
        text = output_text(output)
        if text:
            block["content"] = text
    if kind in ERROR_TYPES:
        block["is_error"] = True
    return block


def _as_result(value: ToolResult | Mapping[str, Any]) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    try:
        return ToolResult.from_dict(value)
    except ValueError as exc:
        raise ConfigurationError(f"not a tool result: {exc}") from None


def _blocks(
    parts: Sequence[Mapping[str, Any]], where: str, tool_id: str | None, degrade: Degrade
) -> list[dict[str, Any]]:
    def report(kind: str, action: str) -> None:
        degrade(f"{where}.{kind}", action, tool_id)

    blocks = [content_block(dict(part), report) for part in parts]
    return [block for block in blocks if block is not None]


# -- history -------------------------------------------------------------------------------------


def encode_history(messages: Sequence[Message | Mapping[str, Any]], degrade: Degrade) -> dict[str, Any]:
    """`{"system"?: ..., "messages": [...]}` for a neutral conversation."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    calls: list[str] = []
    for position, value in enumerate(messages):
        message = _read_message(position, value)
        if isinstance(message, SystemMessage):
            if not message.content:
                continue
            if out:
                out.append({"role": "system", "content": message.content})
            else:
                system.append(message.content)
        elif isinstance(message, UserMessage):
            _append(out, "user", _user_blocks(message, degrade))
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, degrade)
            turn = [b["id"] for b in blocks if b["type"] == "tool_use"]
            calls = calls + turn if out and out[-1]["role"] == "assistant" else turn
            _append(out, "assistant", blocks)
        else:
            ordered = sorted(message.content, key=lambda r: _position(calls, wire_call_id(r.tool_call_id)))
            _append(out, "user", [tool_result_block(r, degrade) for r in ordered])
    fields: dict[str, Any] = {}
    if system:
        fields["system"] = system[0] if len(system) == 1 else [{"type": "text", "text": s} for s in system]
    fields["messages"] = [_finished(m) for m in out]
    return fields


def _read_message(position: int, value: Message | Mapping[str, Any]) -> Message:
    try:
        return to_message(value)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigurationError(f"message {position} cannot be read: {exc}") from None


def _position(calls: list[str], call_id: str) -> int:
    return calls.index(call_id) if call_id in calls else len(calls)


def _append(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)
    else:
        out.append({"role": role, "content": blocks})


def _finished(message: dict[str, Any]) -> dict[str, Any]:
    """Tool results first in a user message (the API's rule); a lone plain text as a string."""
    content = message["content"]
    if not isinstance(content, list):
        return message
    if message["role"] == "user":
        results = [b for b in content if b["type"] == "tool_result"]
        if results:
            content = results + [b for b in content if b["type"] != "tool_result"]
    if len(content) == 1 and content[0].keys() == {"type", "text"} and content[0]["type"] == "text":
        return {"role": message["role"], "content": content[0]["text"]}
    return {"role": message["role"], "content": content}


def _user_blocks(message: UserMessage, degrade: Degrade) -> list[dict[str, Any]]:
    parts: list[Mapping[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            _foreign_metadata(part.provider_metadata, "text", None, degrade)
            parts.append({"type": "text", "text": part.text})
        else:
            parts.append(part.part)
    return _blocks(parts, "message", None, degrade)


def _assistant_blocks(message: AssistantMessage, degrade: Degrade) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    dropped: set[str] = set()
    for part in message.content:
        if isinstance(part, TextPart):
            _foreign_metadata(part.provider_metadata, "text", None, degrade)
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ReasoningPart):
            block = _reasoning_block(part, degrade)
            if block is not None:
                blocks.append(block)
        elif isinstance(part, ToolCall):
            block = _call_block(part, degrade)
            if block is None:
                dropped.add(part.tool_call_id)
            else:
                blocks.append(block)
        elif isinstance(part, MediaPart):
            degrade(
                "history.file",
                f"dropped a file the model returned ({part.part['type']}): Anthropic takes no files in assistant turns",
                None,
            )
        elif part.tool_call_id not in dropped:
            block = _provider_result_block(part, degrade)
            if block is not None:
                blocks.append(block)
    return blocks


def _reasoning_block(part: ReasoningPart, degrade: Degrade) -> dict[str, Any] | None:
    ours = _ours(part.provider_metadata)
    if isinstance(ours.get("signature"), str):
        return {"type": "thinking", "thinking": part.text, "signature": ours["signature"]}
    if isinstance(ours.get("redactedData"), str):
        return {"type": "redacted_thinking", "data": ours["redactedData"]}
    origin = _origin(part.provider_metadata)
    degrade(
        "reasoning",
        f"dropped a reasoning part{origin}: Anthropic takes thinking back only with the signature it issued",
        None,
    )
    return None


def _call_block(call: ToolCall, degrade: Degrade) -> dict[str, Any] | None:
    ours = _ours(call.provider_metadata)
    name = wire_name(call.tool_name, ANTHROPIC_NAMES)
    if not call.provider_executed:
        _foreign_metadata(call.provider_metadata, "tool call", call.tool_name, degrade)
        block: dict[str, Any] = {"type": "tool_use", "id": wire_call_id(call.tool_call_id), "name": name}
        block["input"] = _call_input(call, degrade)
        if "toolsetName" in ours:
            block["toolset_name"] = ours["toolsetName"]
    else:
        kind = ours.get("blockType")
        if kind not in ("server_tool_use", "mcp_tool_use"):
            degrade(
                "history.provider_tool",
                f"dropped the provider-executed call {call.tool_name!r}{_origin(call.provider_metadata)} and its "
                "result: Anthropic can replay only calls its own server ran",
                call.tool_name,
            )
            return None
        block = {"type": kind, "id": call.tool_call_id, "name": call.tool_name, "input": _call_input(call, degrade)}
        if kind == "mcp_tool_use":
            block["server_name"] = ours.get("serverName", "")
    if "caller" in ours:
        block["caller"] = ours["caller"]
    return block


def _call_input(call: ToolCall, degrade: Degrade) -> dict[str, Any]:
    value = call.input
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and _ours(call.provider_metadata).get("freeForm"):
        return {STRING_INPUT_KEY: value}  # a free-form tool's text, sent as the object the model wrote
    degrade(
        "tool_call.input",
        f'call {call.tool_call_id!r} had input that is not a JSON object; replayed as {{"INVALID_JSON": ...}}',
        call.tool_name,
    )
    return {"INVALID_JSON": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}


def _provider_result_block(result: ToolResult, degrade: Degrade) -> dict[str, Any] | None:
    kind = _ours(result.provider_metadata).get("blockType")
    if not isinstance(kind, str) or not kind.endswith("_tool_result"):
        degrade(
            "history.provider_tool",
            f"dropped the result of provider-executed call {result.tool_call_id!r}{_origin(result.provider_metadata)}: "
            "Anthropic can replay only results its own server produced",
            result.tool_name,
        )
        return None
    output = result.output
    content: Any = output.get("value")
    failed = output.get("type") in ERROR_TYPES
    if failed and kind != "mcp_tool_result" and isinstance(content, str):
        content = _json_or_text(content)  # the error object the decoder serialized (e.g. web_search_tool_result_error)
    block: dict[str, Any] = {"type": kind, "tool_use_id": result.tool_call_id, "content": content}
    if kind == "mcp_tool_result":
        block["is_error"] = failed
    return block


def _json_or_text(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, (dict, list)) else text


def _ours(metadata: Mapping[str, Any] | None) -> Mapping[str, Any]:
    ours = metadata.get("anthropic") if metadata else None
    return ours if isinstance(ours, Mapping) else {}


def _origin(metadata: Mapping[str, Any] | None) -> str:
    others = [p for p in (metadata or {}) if p != "anthropic"]
    return f" from {', '.join(ORIGINS.get(p, p) for p in others)}" if others else ""


def _foreign_metadata(metadata: Mapping[str, Any] | None, what: str, tool_id: str | None, degrade: Degrade) -> None:
    for provider, values in (metadata or {}).items():
        if provider != "anthropic":
            keys = ", ".join(sorted(values)) if isinstance(values, Mapping) else "?"
            degrade(
                "history.metadata",
                f"dropped {provider} metadata ({keys}) of a {what}: only {ORIGINS.get(provider, provider)} "
                "understands it",
                tool_id,
            )
