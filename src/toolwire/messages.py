"""The neutral conversation: system, user, assistant and tool messages that every adapter encodes.

Shapes follow the AI SDK's model messages, so a transcript can be stored as JSON and replayed
to any provider. `provider_metadata` keeps what must round-trip (Gemini thought signatures,
Anthropic thinking signatures, Responses item ids and encrypted reasoning), namespaced by
provider; an adapter ignores (and reports) what only another provider understands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .events import (
    Event,
    File,
    ProviderMetadata,
    ReasoningDelta,
    ReasoningEnd,
    TextDelta,
    TextEnd,
    ToolInputAvailable,
    ToolInputError,
    ToolOutputAvailable,
    ToolOutputError,
)
from .exceptions import ArgumentError
from .results import ContentPart, ToolCall, ToolResult, normalize_part


@dataclass(frozen=True, slots=True, kw_only=True)
class TextPart:
    """Text in a user or assistant message."""

    text: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningPart:
    """Model reasoning; signatures, redacted data and item ids live in `provider_metadata`."""

    text: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MediaPart:
    """An image or file of a user message, or one the model returned, as a content-part dict (`image-data`, ...)."""

    part: ContentPart
    provider_metadata: ProviderMetadata | None = None
    """What a returned file needs to be sent back as it came (a Gemini `thoughtSignature`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemMessage:
    """Instructions for the model."""

    content: str
    role: Literal["system"] = "system"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    """What the user said: text and media parts."""

    content: tuple[TextPart | MediaPart, ...]
    role: Literal["user"] = "user"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    """What the model said: text, reasoning, files it returned, tool calls (and results of provider-executed calls)."""

    content: tuple[TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult, ...]
    provider_metadata: ProviderMetadata | None = None
    """Response-level metadata (e.g. the Responses `id` of the output message)."""
    role: Literal["assistant"] = "assistant"

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The calls toolwire must run (provider-executed ones excluded)."""
        return [p for p in self.content if isinstance(p, ToolCall) and not p.provider_executed]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMessage:
    """Results of the previous assistant turn's calls, grouped as one turn."""

    content: tuple[ToolResult, ...]
    role: Literal["tool"] = "tool"


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def user(*parts: str | ContentPart) -> UserMessage:
    """A user message from strings and content-part dicts."""
    built: list[TextPart | MediaPart] = []
    for part in parts:
        if isinstance(part, str):
            built.append(TextPart(text=part))
        elif part.get("type") == "text":
            built.append(TextPart(text=str(part["text"])))
        else:
            built.append(MediaPart(part=normalize_part(part)))
    return UserMessage(content=tuple(built))


def system(text: str) -> SystemMessage:
    """A system message."""
    return SystemMessage(content=text)


def to_message(value: Message | Mapping[str, Any]) -> Message:
    """A message object from itself or its dict form.

    Raises:
        ValueError: an unknown role or part type.
        KeyError: no `content`.
        TypeError: content of the wrong kind for the role.
    """
    if isinstance(value, (SystemMessage, UserMessage, AssistantMessage, ToolMessage)):
        return value
    role = value.get("role")
    if role not in _CONTENT_KINDS:
        raise ValueError(f"unknown message role {role!r}; roles: system, user, assistant, tool")
    raw = _content(role, value["content"])  # a KeyError names it: a message without content is not an empty one
    if role == "system":
        return SystemMessage(content=raw)
    if role == "user":
        return user(*([raw] if isinstance(raw, str) else raw))
    if role == "assistant":
        items = [{"type": "text", "text": raw}] if isinstance(raw, str) else list(raw)
        return AssistantMessage(
            content=tuple(_assistant_part(p) for p in items), provider_metadata=value.get("providerMetadata")
        )
    return ToolMessage(content=tuple(ToolResult.from_dict(p) for p in raw))


def _content(role: Any, raw: Any) -> Any:
    kinds, expected = _CONTENT_KINDS[role]
    if not isinstance(raw, kinds):
        raise TypeError(f"a {role} message's content must be {expected}; got {type(raw).__name__}")
    return raw


_CONTENT_KINDS: dict[Any, tuple[tuple[type, ...], str]] = {
    "system": ((str,), "a string"),
    "user": ((str, list, tuple), "a string or a list of parts"),
    "assistant": ((str, list, tuple), "a string or a list of parts"),
    "tool": ((list, tuple), "a list of tool results"),
}


def _assistant_part(part: Mapping[str, Any]) -> TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult:
    kind = part.get("type")
    metadata = part.get("providerMetadata")
    if kind == "text":
        return TextPart(text=str(part["text"]), provider_metadata=metadata)
    if kind == "reasoning":
        return ReasoningPart(text=str(part.get("text", "")), provider_metadata=metadata)
    if kind == "tool-call":
        return ToolCall(
            tool_call_id=str(part["toolCallId"]),
            tool_name=str(part["toolName"]),
            input=part.get("input", {}),
            provider_metadata=metadata,
            provider_executed=bool(part.get("providerExecuted", False)),
        )
    if kind == "tool-result":
        return ToolResult.from_dict(part)
    if kind in _FILE_PARTS:
        return MediaPart(
            part=normalize_part({k: v for k, v in part.items() if k != "providerMetadata"}), provider_metadata=metadata
        )
    kinds = ", ".join(("text", "reasoning", "tool-call", "tool-result", *_FILE_PARTS))
    raise ValueError(f"unknown assistant part type {kind!r}; types: {kinds}")


_FILE_PARTS = ("image-data", "file-data", "image-url", "file-url")
"""The content-part forms of a file the model returned (inline bytes, or a link)."""


def to_messages(values: Sequence[Message | Mapping[str, Any]]) -> list[Message]:
    """Messages from objects or dicts."""
    return [to_message(v) for v in values]


_MESSAGE_LIST = "a list of messages (Message objects, or dicts with `role` and `content`)"
_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)


def parse_messages(values: Any, argument: str = "messages") -> list[Message]:
    """Messages from objects or dicts, refusing anything else with an error naming the argument and item.

    Raises:
        ArgumentError: not a list (a bare string is not a conversation), or an item that cannot be read.
    """
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        hint = "; wrap a prompt as [{'role': 'user', 'content': ...}]" if isinstance(values, str) else ""
        raise ArgumentError(argument, _MESSAGE_LIST, detail=f"got {type(values).__name__}{hint}")
    messages: list[Message] = []
    for index, value in enumerate(values):
        if isinstance(value, _MESSAGE_TYPES):
            messages.append(value)  # read already (a history re-encoded at every step is all of these)
            continue
        if not isinstance(value, Mapping):
            problem = f"message {index} cannot be read: it is a {type(value).__name__}, not a Message or a dict"
            raise ArgumentError(argument, _MESSAGE_LIST, detail=problem)
        try:
            messages.append(to_message(value))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            text = f"missing {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
            raise ArgumentError(argument, _MESSAGE_LIST, detail=f"message {index} cannot be read: {text}") from None
    return messages


def message_to_dict(message: Message) -> dict[str, Any]:
    """The JSON form of a message (what `to_message` reads)."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": message.content}
    if isinstance(message, UserMessage):
        return {
            "role": "user",
            "content": [
                {"type": "text", "text": p.text} if isinstance(p, TextPart) else p.part for p in message.content
            ],
        }
    if isinstance(message, ToolMessage):
        return {"role": "tool", "content": [r.to_dict() for r in message.content]}
    parts: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, (ToolCall, ToolResult)):
            parts.append(part.to_dict())
        elif isinstance(part, MediaPart):
            media = dict(part.part)
            if part.provider_metadata:
                media["providerMetadata"] = part.provider_metadata
            parts.append(media)
        else:
            item: dict[str, Any] = {"type": "text" if isinstance(part, TextPart) else "reasoning", "text": part.text}
            if part.provider_metadata:
                item["providerMetadata"] = part.provider_metadata
            parts.append(item)
    data: dict[str, Any] = {"role": "assistant", "content": parts}
    if message.provider_metadata:
        data["providerMetadata"] = message.provider_metadata
    return data


@dataclass(slots=True)
class _PartBuilder:
    kind: Literal["text", "reasoning"]
    chunks: list[str] = field(default_factory=list)
    metadata: ProviderMetadata | None = None


UNKNOWN_TOOL_NAME = "unknown"
"""The tool name of a provider-executed result whose call is neither in its response nor in the history given."""


def assistant_message(events: Iterable[Event], history: Sequence[Message | Mapping[str, Any]] = ()) -> AssistantMessage:
    """The assistant message a response's events describe (text, reasoning, files, calls, provider results).

    Sources (`source-url`, `source-document`) are for display only and are not kept.

    Calls whose input failed keep their raw input, so the next request can show the model
    its mistake next to the error result. A provider-executed result is named after its call:
    the one in the same response, else the latest with its id in `history` (the conversation
    before this response: a result may come a response after its call, as after Anthropic's
    `pause_turn`), else `UNKNOWN_TOOL_NAME`.

    Raises:
        ArgumentError: `history` is not a list of messages (objects or dicts).
    """
    earlier = _EarlierCalls(history)
    order: list[Any] = []
    open_parts: dict[str, _PartBuilder] = {}
    for event in events:
        if isinstance(event, (TextDelta, ReasoningDelta)):
            builder = open_parts.get(event.id)
            if builder is None:
                builder = _PartBuilder("text" if isinstance(event, TextDelta) else "reasoning")
                open_parts[event.id] = builder
                order.append(builder)
            builder.chunks.append(event.delta)
        elif isinstance(event, (TextEnd, ReasoningEnd)):
            builder = open_parts.pop(event.id, None)
            if builder is None and event.provider_metadata:
                # Redacted or signature-only reasoning; an empty text part carrying a signature (Gemini).
                builder = _PartBuilder("reasoning" if isinstance(event, ReasoningEnd) else "text")
                order.append(builder)
            if builder is not None:
                builder.metadata = event.provider_metadata
        elif isinstance(event, (ToolInputAvailable, ToolInputError)):
            order.append(
                ToolCall(
                    tool_call_id=event.tool_call_id,
                    tool_name=event.tool_name,
                    input=event.input,
                    provider_metadata=event.provider_metadata,
                    provider_executed=event.provider_executed,
                )
            )
        elif isinstance(event, (ToolOutputAvailable, ToolOutputError)) and event.provider_executed:
            order.append(_provider_result(event, order, earlier))
        elif isinstance(event, File):
            order.append(returned_file(event.url, event.media_type, event.provider_metadata))
    content: list[TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult] = []
    for item in order:
        if isinstance(item, _PartBuilder):
            text = "".join(item.chunks)
            if item.kind == "text":
                content.append(TextPart(text=text, provider_metadata=item.metadata))
            else:
                content.append(ReasoningPart(text=text, provider_metadata=item.metadata))
        else:
            content.append(item)
    return AssistantMessage(content=tuple(content))


def returned_file(url: str, media_type: str, metadata: ProviderMetadata | None) -> MediaPart:
    """A file the model returned as a content part: a `data:` URL's bytes inline, any other URL as a link."""
    is_image = media_type.startswith("image/")
    head, comma, data = url.partition(",")
    if url.startswith("data:") and comma and head.endswith(";base64"):
        part: ContentPart = {"type": "image-data" if is_image else "file-data", "data": data, "mediaType": media_type}
    else:
        part = {"type": "image-url" if is_image else "file-url", "url": url, "mediaType": media_type}
    return MediaPart(part=part, provider_metadata=metadata)


def _provider_result(
    event: ToolOutputAvailable | ToolOutputError, order: list[Any], earlier: _EarlierCalls
) -> ToolResult:
    name = next((c.tool_name for c in order if isinstance(c, ToolCall) and c.tool_call_id == event.tool_call_id), None)
    if name is None:
        name = earlier.name(event.tool_call_id)
    if isinstance(event, ToolOutputError):
        output: dict[str, Any] = {"type": "error-text", "value": event.error_text}
    else:
        output = {"type": "json", "value": event.output}
    return ToolResult(
        tool_call_id=event.tool_call_id, tool_name=name, output=output, provider_metadata=event.provider_metadata
    )


class _EarlierCalls:
    """The tool names of the calls in earlier assistant messages, read only if a result needs one."""

    def __init__(self, history: Sequence[Message | Mapping[str, Any]]) -> None:
        self._messages = parse_messages(history, "history")
        self._names: dict[str, str] | None = None

    def name(self, tool_call_id: str) -> str:
        if self._names is None:
            self._names = {
                part.tool_call_id: part.tool_name
                for message in self._messages
                if isinstance(message, AssistantMessage)
                for part in message.content
                if isinstance(part, ToolCall)
            }
        return self._names.get(tool_call_id, UNKNOWN_TOOL_NAME)
