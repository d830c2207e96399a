"""Tool results in the model-output forms of `toolwire.results`, as MCP `CallToolResult` JSON.

| toolwire | MCP |
| --- | --- |
| `text`, `json` | one `text` block (JSON serialized) |
| `error-text`, `error-json`, `execution-denied` | one `text` block, `isError: true` |
| part `text` | `text` |
| part `image-data`, `file-data` with an `image/*` type | `image` (base64) |
| part `file-data` with an `audio/*` type | `audio` (base64) |
| part `file-data` with a text type (`text/*`, JSON, XML, YAML) | embedded `resource` with `text` |
| part `file-data`, any other type | embedded `resource` with `blob` |
| part `image-url`, `file-url` (`data:` URLs decoded as above) | `resource_link` |
| part `custom` with `providerOptions.mcp` = a content block | that block, as given |
| part `file-id`, `image-file-id`, other `custom` | degraded (reported): a text mention, or dropped |

`structuredContent` is the tool's raw output in JSON form, sent when the tool has an output
schema the client's protocol version accepts (an object schema before 2026-07-28).
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pydantic_core

from toolwire.compat import Degradation
from toolwire.results import ContentPart, ToolResult, output_text
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

from ._listing import has_structured_output

_TEXT_MEDIA_TYPES = frozenset(
    {"application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript"}
)


def call_tool_result(
    tool: Tool, result: ToolResult, protocol_version: str | None
) -> tuple[dict[str, Any], list[Degradation]]:
    """The `CallToolResult` wire JSON for one result, and what could not be carried as asked."""
    degradations: list[Degradation] = []
    output = result.output
    kind = output["type"]
    wire: dict[str, Any]
    if kind == "content":
        blocks = [_block(tool, part, i, degradations) for i, part in enumerate(output["value"])]
        wire = {"content": [b for b in blocks if b is not None], "isError": False}
    elif kind == "json":
        wire = {"content": [_text(json.dumps(output["value"], ensure_ascii=False))], "isError": False}
    elif kind == "text":
        wire = {"content": [_text(output["value"])], "isError": False}
    else:
        return {"content": [_text(output_text(output))], "isError": True}, degradations
    structured = _structured(tool, result, protocol_version)
    if structured is not _ABSENT:
        wire["structuredContent"] = structured
    return wire, degradations


def error_result(message: str) -> dict[str, Any]:
    """An `isError` result the model can read (for failures outside the tool's own run)."""
    return {"content": [_text(message)], "isError": True}


_ABSENT = object()


def _structured(tool: Tool, result: ToolResult, protocol_version: str | None) -> Any:
    schema = tool.output_schema
    if schema is None or not has_structured_output(tool, protocol_version):
        return _ABSENT
    try:
        return schema.to_json(schema.validate(result.raw))
    except SchemaValidationError:
        # Reached only with `output_validation="warn"`: the host chose to let such output through.
        return pydantic_core.to_jsonable_python(result.raw)


def _text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def _block(tool: Tool, part: ContentPart, position: int, degradations: list[Degradation]) -> dict[str, Any] | None:
    kind = part["type"]
    if kind == "text":
        return _text(part["text"])
    if kind in ("image-data", "file-data"):
        return _inline(part["data"], part["mediaType"], part.get("filename"), position)
    if kind in ("image-url", "file-url"):
        return _url_block(part, position)
    if kind == "custom":
        return _custom(tool, part, degradations)
    file_ref = part["fileId"]
    degradations.append(
        Degradation(
            api="mcp",
            feature=f"tool_result.{kind}",
            action=f"sent the text `[file {file_ref}]`: MCP has no provider file references",
            tool_id=tool.id,
        )
    )
    return _text(f"[file {file_ref}]")


def _inline(data: str, media_type: str, filename: str | None, position: int) -> dict[str, Any]:
    main_type = media_type.split("/", 1)[0]
    if main_type == "image":
        return {"type": "image", "data": data, "mimeType": media_type}
    if main_type == "audio":
        return {"type": "audio", "data": data, "mimeType": media_type}
    uri = f"toolwire://result/{position}" + (f"/{quote(filename)}" if filename else "")
    if is_text_media_type(media_type):
        decoded = _decode_text(data)
        if decoded is not None:
            return {"type": "resource", "resource": {"uri": uri, "mimeType": media_type, "text": decoded}}
    return {"type": "resource", "resource": {"uri": uri, "mimeType": media_type, "blob": data}}


def is_text_media_type(media_type: str) -> bool:
    """Whether content of this media type is text (so MCP can carry it unencoded)."""
    base = media_type.split(";", 1)[0].strip().lower()
    return base.startswith("text/") or base in _TEXT_MEDIA_TYPES or base.endswith(("+json", "+xml"))


def _decode_text(data: str) -> str | None:
    try:
        return base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _url_block(part: ContentPart, position: int) -> dict[str, Any]:
    url: str = part["url"]
    inline = parse_data_url(url)
    if inline is not None:
        declared: str | None = part.get("mediaType")
        return _inline(inline[1], declared or inline[0], part.get("filename"), position)
    name = part.get("filename") or _last_segment(url) or url
    block: dict[str, Any] = {"type": "resource_link", "uri": url, "name": name}
    media_type: str | None = part.get("mediaType") or mimetypes.guess_type(urlsplit(url).path)[0]
    if media_type:
        block["mimeType"] = media_type
    return block


def parse_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 data) of a `data:` URL, or None for any other URL."""
    if not url.startswith("data:") or "," not in url:
        return None
    header, payload = url[5:].split(",", 1)
    params = header.split(";")
    media_type = params[0] or "text/plain"
    if "base64" in params[1:]:
        return media_type, payload
    return media_type, base64.b64encode(unquote(payload).encode("utf-8")).decode("ascii")


def _last_segment(url: str) -> str | None:
    segments = [s for s in urlsplit(url).path.split("/") if s]
    return unquote(segments[-1]) if segments else None


def _custom(tool: Tool, part: ContentPart, degradations: list[Degradation]) -> dict[str, Any] | None:
    block = part["providerOptions"].get("mcp")
    if isinstance(block, Mapping) and isinstance(block.get("type"), str):
        return dict(block)
    degradations.append(
        Degradation(
            api="mcp",
            feature="tool_result.custom",
            action="dropped a custom part without `providerOptions.mcp` (an MCP content block)",
            tool_id=tool.id,
        )
    )
    return None
