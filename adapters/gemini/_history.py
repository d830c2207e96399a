"""Conversation history as Gemini `contents`, the way google-genai sends it.

Part-level keys are camelCase (`functionCall`, `functionResponse`, `thoughtSignature`,
`executableCode`, `toolCall`); the objects inside are the SDK's field names (`tool_type`) and
bytes are URL-safe base64, as google/genai/models.py `_Part_to_mldev` puts them on the body.
Tool results are encoded by `_results`, images and files by `_media`.

History: system messages become `systemInstruction`; assistant turns are `model` contents with
text, thought parts and calls carrying their `thoughtSignature` on the exact part they came on;
tool messages are matched to the preceding calls (same order, same count: Gemini requires it);
consecutive contents of one role are merged. Metadata other providers wrote is dropped and
reported; a call Gemini did not produce gets the documented `skip_thought_signature_validator`
signature (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs) so Gemini 3 accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic_core

from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
    to_messages,
)
from toolwire.names import GEMINI_NAMES, wire_name
from toolwire.results import ToolCall, ToolResult, output_text
from toolwire.tools import object_input

from ._media import PART_KEY, custom_part, media_object
from ._results import function_responses
from ._wire import CODE_EXECUTION, GENERATED_ID_PREFIX, Note, request_base64

SKIP_SIGNATURE = "skip_thought_signature_validator"
SERVER_TOOLS = frozenset({"google_search_web", "google_search_image", "url_context", "google_maps", "file_search"})
"""Gemini server-side tools (google/genai/types.py `ToolType`), as the decoder names their calls."""


class HistoryEncoder:
    """One `encode_messages` call: contents, the system instruction and what was degraded."""

    def __init__(self, note: Note, *, nested_media: bool, signature_placeholder: bool) -> None:
        self._note = note
        self._nested_media = nested_media
        self._placeholder = signature_placeholder
        self._contents: list[dict[str, Any]] = []
        self._system: list[dict[str, Any]] = []

    def encode(self, messages: Sequence[Message | Mapping[str, Any]]) -> dict[str, Any]:
        """`{"contents": [...], "systemInstruction"?: {...}}`."""
        calls: list[ToolCall] = []
        for index, message in enumerate(to_messages(messages)):
            if isinstance(message, SystemMessage):
                if self._contents:
                    self._note(
                        "system_message.position",
                        "Gemini has no system role inside contents: a system message after the first turn was "
                        "moved into systemInstruction",
                    )
                self._system.append({"text": message.content})
            elif isinstance(message, UserMessage):
                self._add("user", self._user_parts(message, index))
            elif isinstance(message, AssistantMessage):
                parts, calls = self._model_parts(message)
                self._add("model", parts)
            elif isinstance(message, ToolMessage):
                self._add(
                    "user",
                    function_responses(
                        self._paired(message.content, calls), self._note, nested_media=self._nested_media
                    ),
                )
                calls = []
        encoded: dict[str, Any] = {"contents": self._contents}
        if self._system:
            encoded["systemInstruction"] = {"parts": self._system}
        return encoded

    def _add(self, role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if self._contents and self._contents[-1]["role"] == role:
            self._contents[-1]["parts"].extend(parts)
        else:
            self._contents.append({"role": role, "parts": parts})

    def _user_parts(self, message: UserMessage, index: int) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for position, part in enumerate(message.content):
            if isinstance(part, TextPart):
                parts.append({"text": part.text})
            elif part.part["type"] == "custom":
                custom = custom_part(part.part, self._note, "user.custom")
                if custom is not None:
                    parts.append(custom)
            else:
                where = f"gemini: message {index}, part {position} ({part.part['type']})"
                key, media = media_object(part.part, self._note, "user", where)
                parts.append({PART_KEY[key]: media})
        return parts

    def _model_parts(self, message: AssistantMessage) -> tuple[list[dict[str, Any]], list[ToolCall]]:
        parts: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        executed: dict[str, ToolCall] = {}
        for item in message.content:
            if isinstance(item, TextPart):
                self._text_part(item.text, item.provider_metadata, parts)
            elif isinstance(item, ReasoningPart):
                self._reasoning_part(item, parts)
            elif isinstance(item, ToolCall) and not item.provider_executed:
                calls.append(item)
                parts.append(self._call_part(item))
            elif isinstance(item, ToolCall):
                executed[item.tool_call_id] = item
                self._executed_call(item, parts)
            elif isinstance(item, MediaPart):
                self._returned_file(item, parts)
            else:
                self._executed_result(item, executed.get(item.tool_call_id), parts)
        if calls and self._placeholder:
            self._sign_foreign_calls(calls, parts)
        return parts, calls

    def _returned_file(self, item: MediaPart, parts: list[dict[str, Any]]) -> None:
        """A file the model returned (image output), sent back as it came, with its thought signature."""
        where = f"gemini: a file the model returned ({item.part['type']})"
        key, media = media_object(item.part, self._note, "history.file", where)
        part: dict[str, Any] = {PART_KEY[key]: media}
        signature = self._signature(item.provider_metadata)
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)

    def _text_part(self, text: str, metadata: Any, parts: list[dict[str, Any]]) -> None:
        signature = self._signature(metadata)
        if not text and signature is None:
            return
        part: dict[str, Any] = {"text": text}
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)

    def _reasoning_part(self, item: ReasoningPart, parts: list[dict[str, Any]]) -> None:
        metadata = item.provider_metadata or {}
        if metadata and "google" not in metadata:
            self._note(
                "reasoning",
                f"reasoning from another provider ({', '.join(sorted(metadata))}) was dropped: Gemini cannot verify it",
            )
            return
        signature = self._signature(metadata)
        if not item.text:
            if signature is not None:
                parts.append({"text": "", "thoughtSignature": signature})
            return
        part: dict[str, Any] = {"text": item.text, "thought": True}
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)

    def _call_part(self, call: ToolCall) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if call.tool_call_id and not call.tool_call_id.startswith(GENERATED_ID_PREFIX):
            body["id"] = call.tool_call_id
        body["name"] = wire_name(call.tool_name, GEMINI_NAMES)
        body["args"] = self._arguments(call)
        part: dict[str, Any] = {"functionCall": body}
        signature = self._signature(call.provider_metadata)
        if signature is not None:
            part["thoughtSignature"] = signature
        return part

    def _arguments(self, call: ToolCall) -> Any:
        value = pydantic_core.to_jsonable_python(call.input)
        if isinstance(value, dict):
            return value
        google = (call.provider_metadata or {}).get("google") or {}
        if isinstance(value, str) and google.get("freeForm"):
            return object_input(value)  # a free-form tool's text, sent as the object the model wrote
        self._note(
            "tool_call.input",
            "a call whose input was not a JSON object (the model's invalid arguments) was sent as "
            '{"invalid_arguments": <its text>}: Gemini function-call args must be an object',
            call.tool_name,
        )
        return {"invalid_arguments": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}

    def _sign_foreign_calls(self, calls: list[ToolCall], parts: list[dict[str, Any]]) -> None:
        call_parts = [p for p in parts if "functionCall" in p]
        if any("thoughtSignature" in p for p in call_parts):
            return
        if all(_from_gemini(call) for call in calls):
            return
        call_parts[0]["thoughtSignature"] = SKIP_SIGNATURE
        self._note(
            "thought_signature",
            "calls Gemini did not produce carry no thought signature: the first was sent with the documented "
            f"{SKIP_SIGNATURE!r} signature so Gemini 3 accepts the history",
        )

    def _executed_call(self, call: ToolCall, parts: list[dict[str, Any]]) -> None:
        signature = self._signature(call.provider_metadata)
        name = call.tool_name
        if name == CODE_EXECUTION and isinstance(call.input, Mapping):
            body: dict[str, Any] = {"code": call.input.get("code", "")}
            if call.input.get("language"):
                body["language"] = call.input["language"]
            part: dict[str, Any] = {"executableCode": body}
        elif name in SERVER_TOOLS:
            body = {"tool_type": name.upper(), "args": pydantic_core.to_jsonable_python(call.input)}
            part = {"toolCall": body}
        else:
            self._note(
                "provider_executed_call",
                f"a {name!r} call another provider ran itself was dropped, with its result: Gemini cannot replay it",
                name,
            )
            return
        if not call.tool_call_id.startswith(GENERATED_ID_PREFIX):
            body["id"] = call.tool_call_id
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)

    def _executed_result(self, result: ToolResult, call: ToolCall | None, parts: list[dict[str, Any]]) -> None:
        if call is None:
            self._note(
                "provider_executed_result",
                "a provider-executed result without its call in the same message was dropped",
                result.tool_name,
            )
            return
        if call.tool_name != CODE_EXECUTION and call.tool_name not in SERVER_TOOLS:
            return
        output = result.output
        value = output.get("value")
        body: dict[str, Any]
        if call.tool_name == CODE_EXECUTION:
            google = (result.provider_metadata or {}).get("google", {})
            if isinstance(value, Mapping):
                body = {"outcome": value.get("outcome", "OUTCOME_OK"), "output": value.get("output", "")}
            else:
                body = {"outcome": google.get("outcome", "OUTCOME_FAILED"), "output": output_text(output)}
            key = "codeExecutionResult"
        else:
            body = {"tool_type": call.tool_name.upper(), "response": value if isinstance(value, dict) else {}}
            key = "toolResponse"
        if not result.tool_call_id.startswith(GENERATED_ID_PREFIX):
            body["id"] = result.tool_call_id
        parts.append({key: body})

    def _paired(self, results: Sequence[ToolResult], calls: list[ToolCall]) -> list[ToolResult]:
        """Results in the order of the calls they answer, one per call (Gemini checks the count)."""
        if not calls:
            return list(results)
        by_id = {result.tool_call_id: result for result in results}
        paired: list[ToolResult] = []
        for call in calls:
            result = by_id.pop(call.tool_call_id, None)
            if result is None:
                self._note(
                    "tool_result.missing",
                    "a call had no result: an error response was sent for it (Gemini needs one response per call)",
                    call.tool_name,
                )
                result = ToolResult(
                    tool_call_id=call.tool_call_id,
                    tool_name=call.tool_name,
                    output={"type": "error-text", "value": "No result was recorded for this call."},
                )
            paired.append(result)
        if by_id:
            self._note(
                "tool_result.unmatched",
                f"results for calls the previous turn did not make ({', '.join(sorted(by_id))}) were dropped: "
                "Gemini needs exactly one response per call",
            )
        return paired

    def _signature(self, metadata: Any) -> str | None:
        if not metadata:
            return None
        for provider in metadata:
            if provider != "google":
                self._note(
                    f"provider_metadata.{provider}",
                    f"metadata only {provider} understands was dropped",
                )
        google = metadata.get("google")
        if not isinstance(google, Mapping) or not google.get("thoughtSignature"):
            return None
        return request_base64(str(google["thoughtSignature"]), "gemini: providerMetadata.google.thoughtSignature")


def _from_gemini(call: ToolCall) -> bool:
    return bool(call.provider_metadata and "google" in call.provider_metadata) or call.tool_call_id.startswith(
        GENERATED_ID_PREFIX
    )
