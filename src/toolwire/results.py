"""Tool calls, tool results and the model-facing output forms of the seed's `toModelOutput`.

The dict forms are the contract (`{"type": "text", "value": ...}`, content parts with
`mediaType`, ...); the helpers (`text`, `image_data`, ...) only build them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .events import ProviderMetadata, ToolInputAvailable

ModelOutput: TypeAlias = dict[str, Any]
"""`text | json | content | error-text | error-json | execution-denied` (see `normalize_output`)."""
ContentPart: TypeAlias = dict[str, Any]

OUTPUT_TYPES = ("text", "json", "content", "error-text", "error-json", "execution-denied")
PART_TYPES = ("text", "image-url", "image-data", "file-url", "file-data", "file-id", "image-file-id", "custom")
ERROR_TYPES = ("error-text", "error-json", "execution-denied")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A call the model asked for, with its parsed input."""

    tool_call_id: str
    tool_name: str
    """The tool's own id (never the provider-sanitized name)."""
    input: Any
    """The input as JSON, or the validated value (a model instance) when it came from a stream."""
    provider_metadata: ProviderMetadata | None = None
    provider_executed: bool = False
    input_hook_fired: bool = False
    """True when the stream already fired `on_input_available` for this call."""

    @classmethod
    def from_event(cls, event: ToolInputAvailable) -> ToolCall:
        """The call of a `tool-input-available` event (its hooks already fired by the stream)."""
        return cls(
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            input=event.input,
            provider_metadata=event.provider_metadata,
            provider_executed=event.provider_executed,
            input_hook_fired=True,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form (a `tool-call` content part)."""
        data: dict[str, Any] = {
            "type": "tool-call",
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "input": self.input,
        }
        if self.provider_metadata:
            data["providerMetadata"] = self.provider_metadata
        if self.provider_executed:
            data["providerExecuted"] = True
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """The outcome of one call, in the form the model will see."""

    tool_call_id: str
    tool_name: str
    output: ModelOutput
    """Model-facing form: `{"type": "text"|"json"|"content"|"error-text"|"error-json"|"execution-denied", ...}`."""
    raw: Any = None
    """What `execute` returned, kept for the application (never sent)."""
    provider_metadata: ProviderMetadata | None = None
    error: BaseException | None = field(default=None, compare=False)
    """The exception behind an error result, for the host (never sent)."""

    @property
    def is_error(self) -> bool:
        """Whether the model should read this as a failure."""
        return self.output.get("type") in ERROR_TYPES

    def to_dict(self) -> dict[str, Any]:
        """JSON form (a `tool-result` content part); `raw` and `error` stay behind."""
        data: dict[str, Any] = {
            "type": "tool-result",
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "output": self.output,
        }
        if self.provider_metadata:
            data["providerMetadata"] = self.provider_metadata
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolResult:
        """Read the JSON form.

        Raises:
            ValueError: a missing field or an output that is not a model-output form.
        """
        try:
            return cls(
                tool_call_id=str(data["toolCallId"]),
                tool_name=str(data["toolName"]),
                output=normalize_output(data["output"]),
                provider_metadata=data.get("providerMetadata"),
            )
        except KeyError as exc:
            raise ValueError(f"tool-result is missing {exc.args[0]!r}") from None


def default_output(raw: Any) -> ModelOutput:
    """What the model sees without `to_model_output`: a string as text, anything else as JSON."""
    if isinstance(raw, str):
        return {"type": "text", "value": raw}
    return {"type": "json", "value": raw}


def normalize_output(value: Any) -> ModelOutput:
    """Check a model-output dict and return it with parts normalized.

    Raises:
        ValueError: not one of the forms, or a part with missing or mistyped fields.
    """
    if not isinstance(value, Mapping) or value.get("type") not in OUTPUT_TYPES:
        raise ValueError(f"a model output must be a dict with type in {list(OUTPUT_TYPES)}, got {_short(value)}")
    kind = value["type"]
    if kind in ("text", "error-text"):
        if not isinstance(value.get("value"), str):
            raise ValueError(f"a {kind!r} output needs a string `value`")
        return {"type": kind, "value": value["value"]}
    if kind in ("json", "error-json"):
        if "value" not in value:
            raise ValueError(f"a {kind!r} output needs a `value`")
        try:
            json.dumps(value["value"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"a {kind!r} output value must be JSON-serializable: {exc}") from None
        return {"type": kind, "value": value["value"]}
    if kind == "execution-denied":
        reason = value.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise ValueError("an 'execution-denied' reason must be a string")
        return {"type": kind} if reason is None else {"type": kind, "reason": reason}
    parts = value.get("value")
    if not isinstance(parts, Sequence) or isinstance(parts, (str, bytes)):
        raise ValueError("a 'content' output needs a list of parts as `value`")
    return {"type": "content", "value": [normalize_part(p, i) for i, p in enumerate(parts)]}


_PART_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "text": (("text",), ("providerOptions",)),
    "image-url": (("url",), ("mediaType", "providerOptions")),
    "image-data": (("data", "mediaType"), ("filename", "providerOptions")),
    "file-url": (("url",), ("mediaType", "filename", "providerOptions")),
    "file-data": (("data", "mediaType"), ("filename", "providerOptions")),
    "file-id": (("fileId",), ("mediaType", "filename", "providerOptions")),
    "image-file-id": (("fileId",), ("mediaType", "providerOptions")),
    "custom": (("providerOptions",), ()),
}


def normalize_part(part: Any, position: int = 0) -> ContentPart:
    """Check one content part; `data` given as bytes is base64-encoded.

    Raises:
        ValueError: unknown type, missing or mistyped fields.
    """
    if not isinstance(part, Mapping) or part.get("type") not in _PART_FIELDS:
        raise ValueError(f"content part {position} must have type in {list(PART_TYPES)}, got {_short(part)}")
    kind = part["type"]
    required, optional = _PART_FIELDS[kind]
    result: dict[str, Any] = {"type": kind}
    for name in required:
        if name not in part:
            raise ValueError(f"content part {position} ({kind}) needs {name!r}")
    for name in (*required, *optional):
        if name in part and part[name] is not None:
            result[name] = part[name]
    if "data" in result:
        data = result["data"]
        if isinstance(data, (bytes, bytearray, memoryview)):
            result["data"] = base64.b64encode(bytes(data)).decode("ascii")
        elif not isinstance(data, str):
            raise ValueError(f"content part {position} ({kind}) `data` must be base64 text or bytes")
    for name in ("text", "url", "fileId", "mediaType", "filename"):
        if name in result and not isinstance(result[name], str):
            raise ValueError(f"content part {position} ({kind}) `{name}` must be a string")
    if "providerOptions" in result and not isinstance(result["providerOptions"], Mapping):
        raise ValueError(f"content part {position} ({kind}) `providerOptions` must be a dict")
    return result


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def output_text(output: ModelOutput) -> str:
    """A plain-text rendering of an output (for providers or logs that only take text)."""
    kind = output["type"]
    if kind in ("text", "error-text"):
        return str(output["value"])
    if kind in ("json", "error-json"):
        return json.dumps(output["value"], ensure_ascii=False)
    if kind == "execution-denied":
        reason = output.get("reason")
        return f"The user denied this tool call{': ' + reason if reason else '.'}"
    return "\n".join(p["text"] for p in output["value"] if p["type"] == "text")


# -- helpers that build the dict forms -----------------------------------------------------


def text(value: str) -> ModelOutput:
    """`{"type": "text", "value": ...}`."""
    return {"type": "text", "value": value}


def json_output(value: Any) -> ModelOutput:
    """`{"type": "json", "value": ...}`."""
    return {"type": "json", "value": value}


def content(*parts: ContentPart | str) -> ModelOutput:
    """`{"type": "content", "value": [...]}`; bare strings become text parts."""
    return normalize_output({"type": "content", "value": [text_part(p) if isinstance(p, str) else p for p in parts]})


def error_text(value: str) -> ModelOutput:
    """An error the model reads as text."""
    return {"type": "error-text", "value": value}


def error_json(value: Any) -> ModelOutput:
    """An error the model reads as JSON."""
    return {"type": "error-json", "value": value}


def execution_denied(reason: str | None = None) -> ModelOutput:
    """The user denied the call."""
    return {"type": "execution-denied"} if reason is None else {"type": "execution-denied", "reason": reason}


def text_part(value: str) -> ContentPart:
    """A text content part."""
    return {"type": "text", "text": value}


def image_url(url: str, media_type: str | None = None) -> ContentPart:
    """An image by URL."""
    return normalize_part({"type": "image-url", "url": url, "mediaType": media_type})


def image_data(data: bytes | str, media_type: str, filename: str | None = None) -> ContentPart:
    """An inline image (bytes, or base64 text)."""
    return normalize_part({"type": "image-data", "data": data, "mediaType": media_type, "filename": filename})


def file_url(url: str, media_type: str | None = None, filename: str | None = None) -> ContentPart:
    """A file by URL."""
    return normalize_part({"type": "file-url", "url": url, "mediaType": media_type, "filename": filename})


def file_data(data: bytes | str, media_type: str, filename: str | None = None) -> ContentPart:
    """An inline file (bytes, or base64 text)."""
    return normalize_part({"type": "file-data", "data": data, "mediaType": media_type, "filename": filename})


def file_id(value: str, media_type: str | None = None, filename: str | None = None) -> ContentPart:
    """A file uploaded to the provider's files API."""
    return normalize_part({"type": "file-id", "fileId": value, "mediaType": media_type, "filename": filename})


def image_file_id(value: str, media_type: str | None = None) -> ContentPart:
    """An image uploaded to the provider's files API."""
    return normalize_part({"type": "image-file-id", "fileId": value, "mediaType": media_type})


def custom(provider_options: Mapping[str, Any]) -> ContentPart:
    """A provider-specific part, given per provider: `{"anthropic": {...block...}}`."""
    return normalize_part({"type": "custom", "providerOptions": dict(provider_options)})


PartKind = Literal["text", "image", "file"]


def part_kind(part: ContentPart) -> PartKind:
    """Whether a part is text, an image or another file (images given as files count as images)."""
    kind = part["type"]
    if kind == "text":
        return "text"
    if kind in ("image-url", "image-data", "image-file-id"):
        return "image"
    media_type = part.get("mediaType") or ""
    return "image" if media_type.startswith("image/") else "file"
