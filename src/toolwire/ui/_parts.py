"""One UIMessage part → toolwire content: text, files (data and hosted URLs), reasoning, tool parts.

Every problem raises `UIMessageError` naming the message index, the part index and what is
wrong; a part toolwire cannot represent is refused, never skipped.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.events import ProviderMetadata
from toolwire.messages import MediaPart, ReasoningPart, TextPart, UserMessage, to_message
from toolwire.results import ContentPart, ModelOutput, ToolCall, ToolResult, default_output, normalize_output

from .protocol import BACKGROUND_RESULT, TOOLWIRE_METADATA


class UIMessageError(ValueError):
    """A UIMessage (or one of its parts) that cannot become part of the conversation."""

    def __init__(self, problem: str, message_index: int | None = None, part_index: int | None = None) -> None:
        self.problem = problem
        self.message_index = message_index
        self.part_index = part_index
        where = []
        if message_index is not None:
            where.append(f"message {message_index}")
        if part_index is not None:
            where.append(f"part {part_index}")
        super().__init__(f"{', '.join(where)}: {problem}" if where else problem)


ToolState = Literal[
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
]
TOOL_STATES: tuple[ToolState, ...] = (
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
)
OPEN_STATES = frozenset({"input-available", "approval-requested", "approval-responded"})


@dataclass(frozen=True, slots=True, kw_only=True)
class UIToolPart:
    """A tool part as the browser sent it: the call, its state, and its answer or result."""

    message_index: int
    part_index: int
    tool_call_id: str
    tool_name: str
    state: ToolState
    input: Any
    provider_executed: bool
    call_metadata: ProviderMetadata | None
    result_metadata: ProviderMetadata | None
    output: Any = None
    error_text: str | None = None
    approval: Mapping[str, Any] | None = None

    @property
    def is_open(self) -> bool:
        """Whether the call waits for something (an approval, its output) rather than having a result."""
        return self.state in OPEN_STATES and not (self.provider_executed and self.state == "input-available")

    @property
    def made_earlier(self) -> bool:
        """Whether the part repeats a call of an earlier message (`toolwire.earlierCall`): only its result is here."""
        return split_toolwire(self.call_metadata)[0].get("earlierCall") is True

    @property
    def input_failed(self) -> bool:
        """Whether the call never ran because its input was unusable (a `tool-input-error`)."""
        return self.state == "output-error" and bool(split_toolwire(self.result_metadata)[0].get("inputError"))

    def call(self) -> ToolCall:
        """The model's call."""
        metadata = self.call_metadata
        if self.input_failed:  # the SDK files a `tool-input-error`'s metadata with the results
            metadata = split_toolwire(self.result_metadata)[1] or metadata
        return ToolCall(
            tool_call_id=self.tool_call_id,
            tool_name=self.tool_name,
            input=self.input,
            provider_metadata=split_toolwire(metadata)[1],
            provider_executed=self.provider_executed,
        )

    def result(self) -> ToolResult | None:
        """The result the model read (None while the call is open)."""
        toolwire, metadata = split_toolwire(self.result_metadata)
        kept = toolwire.get("modelOutput")
        if self.state == "output-available":
            derived: ModelOutput = (
                {"type": "json", "value": self.output} if self.provider_executed else default_output(self.output)
            )
        elif self.state == "output-error":
            derived = {"type": "error-text", "value": self.error_text or ""}
        elif self.state == "output-denied":
            reason = (self.approval or {}).get("reason")
            derived = {"type": "execution-denied", **({"reason": reason} if isinstance(reason, str) else {})}
        else:
            return None
        try:
            output = normalize_output(kept) if kept is not None else derived
        except ValueError as exc:
            raise UIMessageError(f"`providerMetadata.toolwire.modelOutput` is invalid: {exc}", *self.where) from None
        return ToolResult(
            tool_call_id=self.tool_call_id,
            tool_name=self.tool_name,
            output=output,
            provider_metadata=None if self.input_failed else metadata,
        )

    @property
    def where(self) -> tuple[int, int]:
        """(message index, part index)."""
        return self.message_index, self.part_index


def split_toolwire(metadata: ProviderMetadata | None) -> tuple[Mapping[str, Any], ProviderMetadata | None]:
    """toolwire's own facts, and the provider metadata without them (checked by `provider_metadata`)."""
    if not metadata:
        return {}, metadata
    own = metadata.get(TOOLWIRE_METADATA) or {}
    rest = {k: v for k, v in metadata.items() if k != TOOLWIRE_METADATA}
    return own, rest or None


# -- readers per part type -------------------------------------------------------------------------


def text_part(part: Mapping[str, Any], where: tuple[int, int]) -> TextPart:
    """A `text` part."""
    metadata = provider_metadata(part, "providerMetadata", where)
    return TextPart(text=_string(part, "text", where), provider_metadata=metadata)


def reasoning_part(part: Mapping[str, Any], where: tuple[int, int]) -> ReasoningPart:
    """A `reasoning` part (signatures and item ids are in its provider metadata)."""
    metadata = provider_metadata(part, "providerMetadata", where)
    return ReasoningPart(text=_string(part, "text", where), provider_metadata=metadata)


def file_part(part: Mapping[str, Any], where: tuple[int, int], *, returned: bool = False) -> MediaPart:
    """A `file` part: a data URL becomes inline data, an http(s) URL a link; images by media type.

    `returned`: the model returned it (an assistant message's file), so its provider metadata is kept.
    """
    media_type = _string(part, "mediaType", where)
    url = _string(part, "url", where)
    filename = part.get("filename")
    if filename is not None and not isinstance(filename, str):
        raise UIMessageError("`filename` must be a string", *where)
    if part.get("providerReference") is not None:
        raise UIMessageError("files uploaded with `providerReference` are not supported; send the file's URL", *where)
    is_image = media_type == "image" or media_type.startswith("image/")
    content: ContentPart
    if url.startswith("data:"):
        data, url_media_type = _data_url(url, where)
        kind = "image-data" if is_image else "file-data"
        content = {"type": kind, "data": data, "mediaType": _full_type(media_type, url_media_type)}
    elif urllib.parse.urlsplit(url).scheme in ("http", "https"):
        content = {"type": "image-url" if is_image else "file-url", "url": url, "mediaType": media_type}
    else:
        scheme = urllib.parse.urlsplit(url).scheme or "none"
        raise UIMessageError(f"a file URL must be a data: or http(s) URL, not {scheme!r}", *where)
    if filename is not None:
        content["filename"] = filename
    if content["type"] == "image-url":
        content.pop("filename", None)  # image links carry no file name in toolwire's forms
    metadata = provider_metadata(part, "providerMetadata", where) if returned else None
    return MediaPart(part=content, provider_metadata=metadata)


_UNSUPPORTED = {
    "custom": "provider-specific custom parts",
    "reasoning-file": "reasoning files",
    "steering-message": "steering messages",
}


def assistant_media(part: Mapping[str, Any], where: tuple[int, int]) -> list[MediaPart]:
    """An assistant's `file` part, or nothing for a (display-only) source; any other part is refused."""
    kind = part["type"]
    if kind == "file":
        return [file_part(part, where, returned=True)]
    if kind in ("source-url", "source-document"):
        source_part(part, where)
        return []
    what = _UNSUPPORTED.get(kind, f"{kind!r} parts")
    raise UIMessageError(f"toolwire cannot send {what} back to a model", *where)


def source_part(part: Mapping[str, Any], where: tuple[int, int]) -> None:
    """Check a `source-url` or `source-document` part, which is display-only (never sent to the model)."""
    _string(part, "sourceId", where)
    required = ("url",) if part["type"] == "source-url" else ("mediaType", "title")
    for key in required:
        _string(part, key, where)
    for key in ("title", "filename"):
        if part.get(key) is not None:
            _string(part, key, where)
    provider_metadata(part, "providerMetadata", where)


def tool_part(part: Mapping[str, Any], where: tuple[int, int]) -> UIToolPart:
    """A `tool-<name>` or `dynamic-tool` part, in any state."""
    kind = str(part["type"])
    name = _string(part, "toolName", where) if kind == "dynamic-tool" else kind[len("tool-") :]
    if not name:
        raise UIMessageError("a tool part needs a tool name after `tool-`", *where)
    state = part.get("state")
    if state not in TOOL_STATES:
        raise UIMessageError(f"tool part state {state!r} is not one of {list(TOOL_STATES)}", *where)
    approval = part.get("approval")
    if approval is not None and not (isinstance(approval, Mapping) and isinstance(approval.get("id"), str)):
        raise UIMessageError("`approval` must be an object with a string `id`", *where)
    if state in ("approval-requested", "approval-responded", "output-denied") and approval is None:
        raise UIMessageError(f"a tool part in state {state!r} needs its `approval`", *where)
    if state == "approval-responded" and not isinstance((approval or {}).get("approved"), bool):
        raise UIMessageError("an answered approval needs `approved`: true or false", *where)
    error_text = part.get("errorText")
    if state == "output-error" and not isinstance(error_text, str):
        raise UIMessageError("a tool part in state 'output-error' needs a string `errorText`", *where)
    if state == "output-available" and "output" not in part:
        raise UIMessageError("a tool part in state 'output-available' needs its `output`", *where)
    provider_executed = part.get("providerExecuted", False)
    if not isinstance(provider_executed, bool):
        raise UIMessageError("`providerExecuted` must be true or false", *where)
    return UIToolPart(
        message_index=where[0],
        part_index=where[1],
        tool_call_id=_string(part, "toolCallId", where),
        tool_name=name,
        state=state,
        input=part.get("input", part.get("rawInput", {})),
        provider_executed=provider_executed,
        call_metadata=provider_metadata(part, "callProviderMetadata", where),
        result_metadata=provider_metadata(part, "resultProviderMetadata", where),
        output=part.get("output"),
        error_text=error_text if isinstance(error_text, str) else None,
        approval=approval,
    )


def background_placeholder(task_id: str, tool_call_id: str) -> str:
    """What stands for a background result the browser was not shown (`UIChat` puts the real one back)."""
    return f"[Background task {task_id}] (call {tool_call_id}): its result is kept on the server."


def background_result(part: Mapping[str, Any], where: tuple[int, int]) -> UserMessage:
    """The user message a `data-background-result` part carries (a placeholder when its content was hidden)."""
    data = part.get("data")
    if not isinstance(data, Mapping):
        data = {}
    task_id, call_id = data.get("taskId"), data.get("toolCallId")
    if not isinstance(task_id, str) or not isinstance(call_id, str):
        raise UIMessageError(f"a `{BACKGROUND_RESULT}` part needs string `data.taskId` and `data.toolCallId`", *where)
    content = data.get("content")
    if content is None:
        return UserMessage(content=(TextPart(text=background_placeholder(task_id, call_id)),))
    if not isinstance(content, list) or not content:
        raise UIMessageError(f"`data.content` of a `{BACKGROUND_RESULT}` part must be a non-empty list", *where)
    try:
        message = to_message({"role": "user", "content": content})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UIMessageError(f"`data.content` of a `{BACKGROUND_RESULT}` part cannot be read: {exc}", *where) from None
    assert isinstance(message, UserMessage)
    return message


def provider_metadata(part: Mapping[str, Any], key: str, where: tuple[int, int]) -> ProviderMetadata | None:
    """`{provider: {field: value}}` or None; anything else is refused."""
    value = part.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
        raise UIMessageError(f"`{key}` must be an object of objects ({{provider: {{...}}}})", *where)
    return {str(k): dict(v) for k, v in value.items()}


def _string(part: Mapping[str, Any], key: str, where: tuple[int, int]) -> str:
    value = part.get(key)
    if not isinstance(value, str):
        raise UIMessageError(f"`{key}` must be a string, got {type(value).__name__}", *where)
    return value


def _data_url(url: str, where: tuple[int, int]) -> tuple[str, str]:
    """The base64 data and media type of a `data:` URL."""
    header, comma, payload = url[len("data:") :].partition(",")
    if not comma:
        raise UIMessageError("a data URL needs a comma before its data", *where)
    fields = header.split(";")
    media_type = fields[0] or "text/plain"
    if "base64" in fields[1:]:
        try:
            raw = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise UIMessageError("the data URL's base64 data is invalid", *where) from None
    else:
        raw = urllib.parse.unquote_to_bytes(payload)
    return base64.b64encode(raw).decode("ascii"), media_type


def _full_type(declared: str, from_url: str) -> str:
    """The part's media type, or the data URL's when the part gives only a top-level type (`image`)."""
    return declared if "/" in declared or "/" not in from_url else from_url
