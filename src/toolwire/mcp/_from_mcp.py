"""MCP `CallToolResult` JSON mapped to toolwire model-output parts, explicitly and lossily only where it must be.

| MCP block | toolwire part |
| --- | --- |
| `text` | `text` |
| `image` | `image-data` |
| `audio` | `file-data` with its `audio/*` type (toolwire has no audio part; see below) |
| embedded `resource` with `text` | `text` (the resource's text; its URI and type are dropped) |
| embedded `resource` with `blob`, `image/*` type | `image-data` |
| embedded `resource` with `blob`, other type | `file-data` (filename from the URI's last segment) |
| `resource_link` to `http(s):` | `image-url` for images, else `file-url` |
| `resource_link` with a `data:` URI | `image-data` / `file-data` |
| `resource_link`, any other scheme | `text` naming the link (degradation `tool_result.resource_link`) |
| a block whose `annotations.audience` leaves out `"assistant"` | left out (it is meant for the user) |
| an unknown block type | `text` naming it (degradation `tool_result.unknown`) |

Audio stays audio: each adapter sends `audio/*` file data where the provider takes audio in
tool results (Gemini) and reports a degradation elsewhere. No provider can fetch a link
outside `http(s):`, so such links reach the model as text naming them.

The model output is `text` for a single text block, `json` for structured content without
blocks, and `content` otherwise. Provider adapters then map or degrade the parts they can't
take (`encode_tool_results`).
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from toolwire.compat import Degradation
from toolwire.results import ContentPart, ModelOutput

from ._to_mcp import parse_data_url

_FETCHABLE = ("http", "https")


@dataclass(frozen=True, slots=True, kw_only=True)
class McpCallOutput:
    """What an MCP tool returned, mapped for toolwire (the `raw` of a loaded tool without output schema)."""

    content: tuple[ContentPart, ...]
    """The blocks meant for the model, as toolwire parts."""
    structured_content: Any = None
    """`structuredContent`, when the server sent one."""
    is_error: bool = False
    meta: Mapping[str, Any] | None = None
    """The result's `_meta`."""
    wire: Mapping[str, Any] = field(default_factory=dict)
    """The whole `CallToolResult` as JSON (camelCase), for what the mapping leaves out."""
    degradations: tuple[Degradation, ...] = ()
    """What could not be mapped as it was."""

    def model_output(self) -> ModelOutput:
        """The model-facing form: `text` for one text block, `json` for structure only, else `content`."""
        if len(self.content) == 1 and self.content[0]["type"] == "text":
            return {"type": "text", "value": self.content[0]["text"]}
        if not self.content and self.structured_content is not None:
            return {"type": "json", "value": self.structured_content}
        if not self.content:
            return {"type": "text", "value": ""}
        return {"type": "content", "value": list(self.content)}

    def error_text(self) -> str:
        """The failure as the model should read it."""
        texts = [part["text"] for part in self.content if part["type"] == "text"]
        if texts:
            return "\n".join(texts)
        if self.structured_content is not None:
            return json.dumps(self.structured_content, ensure_ascii=False)
        return "the MCP server reported an error without details"


class StructuredDict(dict[str, Any]):
    """`structuredContent` (an object) that also carries the whole result on `.mcp`."""

    __slots__ = ("mcp",)

    def __init__(self, value: Mapping[str, Any], mcp: McpCallOutput) -> None:
        super().__init__(value)
        self.mcp = mcp


class StructuredList(list[Any]):
    """`structuredContent` (an array, 2026-07-28) that also carries the whole result on `.mcp`."""

    __slots__ = ("mcp",)

    def __init__(self, value: Sequence[Any], mcp: McpCallOutput) -> None:
        super().__init__(value)
        self.mcp = mcp


def call_output(wire: Mapping[str, Any], tool_id: str) -> McpCallOutput:
    """Map one `CallToolResult` (wire JSON) for the tool `tool_id`."""
    degradations: list[Degradation] = []
    parts: list[ContentPart] = []
    for block in wire.get("content") or ():
        if isinstance(block, Mapping) and _for_model(block):
            parts.append(content_part(block, tool_id, degradations))
    return McpCallOutput(
        content=tuple(parts),
        structured_content=wire.get("structuredContent"),
        is_error=bool(wire.get("isError")),
        meta=wire.get("_meta"),
        wire=wire,
        degradations=tuple(degradations),
    )


def _for_model(block: Mapping[str, Any]) -> bool:
    annotations = block.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, Mapping) else None
    return not isinstance(audience, list) or "assistant" in audience


def content_part(block: Mapping[str, Any], tool_id: str, degradations: list[Degradation]) -> ContentPart:
    """One MCP content block as a toolwire part (see the module table)."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if kind == "image":
        return {"type": "image-data", "data": block["data"], "mediaType": block["mimeType"]}
    if kind == "audio":
        return {"type": "file-data", "data": block["data"], "mediaType": block["mimeType"]}
    if kind == "resource":
        return _embedded(block["resource"])
    if kind == "resource_link":
        return _link(block, tool_id, degradations)
    degradations.append(
        Degradation(
            api="mcp", feature="tool_result.unknown", action=f"sent an MCP {kind!r} block as text", tool_id=tool_id
        )
    )
    return {"type": "text", "text": f"[unsupported MCP content of type {kind!r}]"}


def _embedded(resource: Mapping[str, Any]) -> ContentPart:
    if "text" in resource:
        return {"type": "text", "text": str(resource["text"])}
    media_type = str(resource.get("mimeType") or "application/octet-stream")
    if media_type.startswith("image/"):
        return {"type": "image-data", "data": resource["blob"], "mediaType": media_type}
    part: ContentPart = {"type": "file-data", "data": resource["blob"], "mediaType": media_type}
    filename = _filename(str(resource.get("uri", "")))
    if filename:
        part["filename"] = filename
    return part


def _filename(uri: str) -> str | None:
    """The file name a URI names: its last path segment (for `toolwire://result/N/name`, `name`)."""
    parts = urlsplit(uri)
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme == "toolwire":
        return unquote(segments[-1]) if len(segments) >= 2 else None
    return unquote(segments[-1]) if segments else None


def _link(block: Mapping[str, Any], tool_id: str, degradations: list[Degradation]) -> ContentPart:
    uri = str(block["uri"])
    media_type = block.get("mimeType") or mimetypes.guess_type(urlsplit(uri).path)[0]
    inline = parse_data_url(uri)
    if inline is not None:
        inline_type = media_type or inline[0]
        kind = "image-data" if inline_type.startswith("image/") else "file-data"
        return {"type": kind, "data": inline[1], "mediaType": inline_type}
    if urlsplit(uri).scheme.lower() in _FETCHABLE:
        if media_type and media_type.startswith("image/"):
            return {"type": "image-url", "url": uri, "mediaType": media_type}
        part: ContentPart = {"type": "file-url", "url": uri}
        if media_type:
            part["mediaType"] = media_type
        name = block.get("name")
        if isinstance(name, str) and name and name != uri:
            part["filename"] = name
        return part
    degradations.append(
        Degradation(
            api="mcp",
            feature="tool_result.resource_link",
            action=f"sent the link {uri!r} as text: no provider can fetch that URI",
            tool_id=tool_id,
        )
    )
    return {"type": "text", "text": _describe_link(block, uri, media_type)}


def _describe_link(block: Mapping[str, Any], uri: str, media_type: str | None) -> str:
    label = block.get("title") or block.get("name") or uri
    text = f"Resource {label!s} <{uri}>"
    if media_type:
        text += f" ({media_type})"
    description = block.get("description")
    return f"{text}: {description}" if description else text
