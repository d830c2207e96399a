"""google-genai response objects, and snake_case recordings, read into the camelCase JSON the API streams.

The decoder reads the wire's shape. A `GenerateContentResponse` is read field by field (attribute
access, no pydantic serialization: this is the per-chunk path) into that shape, except its
`Part`s: text and function calls, the per-delta path, are read in place by the decoder, and
other parts become JSON through `part_json`. Enums become their wire text and
`thought_signature` bytes standard base64, as in the response JSON (`model_dump` would give
URL-safe base64). Recordings made with snake_case keys are renamed key by key; call arguments
and tool responses are user data and are never renamed.
"""

from __future__ import annotations

import base64
from typing import Any

_SNAKE_TO_CAMEL = {
    "usage_metadata": "usageMetadata",
    "response_id": "responseId",
    "model_version": "modelVersion",
    "prompt_feedback": "promptFeedback",
    "block_reason": "blockReason",
    "block_reason_message": "blockReasonMessage",
    "finish_reason": "finishReason",
    "finish_message": "finishMessage",
    "thought_signature": "thoughtSignature",
    "function_call": "functionCall",
    "partial_args": "partialArgs",
    "json_path": "jsonPath",
    "string_value": "stringValue",
    "number_value": "numberValue",
    "bool_value": "boolValue",
    "null_value": "nullValue",
    "will_continue": "willContinue",
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "tool_call": "toolCall",
    "tool_response": "toolResponse",
    "tool_type": "toolType",
    "prompt_token_count": "promptTokenCount",
    "candidates_token_count": "candidatesTokenCount",
    "total_token_count": "totalTokenCount",
    "thoughts_token_count": "thoughtsTokenCount",
    "cached_content_token_count": "cachedContentTokenCount",
    "tool_use_prompt_token_count": "toolUsePromptTokenCount",
    "inline_data": "inlineData",
    "mime_type": "mimeType",
    "grounding_metadata": "groundingMetadata",
    "grounding_chunks": "groundingChunks",
    "retrieved_context": "retrievedContext",
    "document_name": "documentName",
    "file_search_store": "fileSearchStore",
    "source_uri": "sourceUri",
}
_CAMEL = frozenset(_SNAKE_TO_CAMEL.values())
_USER_DATA = frozenset({"args", "response"})


def key_style(value: Any) -> bool | None:
    """True for a snake_case frame, False for camelCase, None when no key tells (e.g. text-only chunks)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _SNAKE_TO_CAMEL:
                return True
            if key in _CAMEL:
                return False
            if key not in _USER_DATA:
                found = key_style(item)
                if found is not None:
                    return found
    elif isinstance(value, list):
        for item in value:
            found = key_style(item)
            if found is not None:
                return found
    return None


def camel_frame(value: Any) -> Any:
    """A snake_case frame with the response's own keys renamed (user data left alone)."""
    if isinstance(value, dict):
        return {
            _SNAKE_TO_CAMEL.get(key, key): item if key in _USER_DATA else camel_frame(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [camel_frame(item) for item in value]
    return value


def response_frame(obj: Any) -> Any:
    """A `GenerateContentResponse` as its response JSON; other objects as they are."""
    candidates = getattr(obj, "candidates", obj)
    if candidates is obj:
        return obj
    frame: dict[str, Any] = {}
    if candidates:
        frame["candidates"] = [_candidate(c) for c in candidates]
    usage = obj.usage_metadata
    if usage is not None and (usage.total_token_count is not None or usage.prompt_token_count is not None):
        frame["usageMetadata"] = _usage(usage)
    feedback = getattr(obj, "prompt_feedback", None)
    if feedback is not None and feedback.block_reason is not None:
        frame["promptFeedback"] = {
            "blockReason": _enum(feedback.block_reason),
            "blockReasonMessage": feedback.block_reason_message,
        }
    if obj.response_id is not None:
        frame["responseId"] = obj.response_id
    if obj.model_version is not None:
        frame["modelVersion"] = obj.model_version
    return frame


def _candidate(candidate: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    content = candidate.content
    if content is not None and content.parts:
        out["content"] = {"parts": content.parts}  # the decoder reads `Part` objects in place
    if candidate.index is not None:
        out["index"] = candidate.index
    grounding = getattr(candidate, "grounding_metadata", None)
    if grounding is not None:
        out["groundingMetadata"] = grounding.model_dump(mode="json", by_alias=True, exclude_none=True)
    if candidate.finish_reason is not None:
        out["finishReason"] = _enum(candidate.finish_reason)
        if candidate.finish_message is not None:
            out["finishMessage"] = candidate.finish_message
    return out


def part_json(part: Any, signature: str | None) -> dict[str, Any]:
    """A `Part` other than text and function calls as its JSON (`signature` already as text)."""
    out: dict[str, Any] = {} if signature is None else {"thoughtSignature": signature}
    code = part.executable_code
    if code is not None:
        out["executableCode"] = {"code": code.code, "language": _enum(code.language), "id": code.id}
        return out
    result = part.code_execution_result
    if result is not None:
        out["codeExecutionResult"] = {"outcome": _enum(result.outcome), "output": result.output, "id": result.id}
        return out
    server = part.tool_call
    if server is not None:
        out["toolCall"] = {"id": server.id, "toolType": _enum(server.tool_type), "args": server.args}
        return out
    response = part.tool_response
    if response is not None:
        out["toolResponse"] = {"id": response.id, "toolType": _enum(response.tool_type), "response": response.response}
        return out
    inline = part.inline_data
    if inline is not None:
        data = inline.data
        text = base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data
        out["inlineData"] = {"mimeType": inline.mime_type, "data": text}
        if part.thought is not None:
            out["thought"] = part.thought
    return out


def _usage(usage: Any) -> dict[str, Any]:
    return {
        "promptTokenCount": usage.prompt_token_count,
        "candidatesTokenCount": usage.candidates_token_count,
        "totalTokenCount": usage.total_token_count,
        "thoughtsTokenCount": usage.thoughts_token_count,
        "cachedContentTokenCount": usage.cached_content_token_count,
        "toolUsePromptTokenCount": usage.tool_use_prompt_token_count,
    }


def _enum(value: Any) -> Any:
    return getattr(value, "value", value)
