"""Images and files (toolwire content parts) as OpenAI content parts, for both surfaces.

Chat Completions takes `image_url` (URL or data URL) and `file` (`file_data` as a data URL,
or `file_id`) parts (`openai/types/chat/chat_completion_content_part_param.py`); Responses
takes `input_image` (`image_url` or `file_id`) and `input_file` (`file_data`, `file_url`,
`file_id`) (`openai/types/responses/response_input_image_content_param.py`,
`response_input_file_content_param.py`). A part a surface cannot take becomes a short text
placeholder and a reported degradation, never base64 pasted into text.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable, Mapping
from typing import Any

from toolwire.results import ContentPart, part_kind

Degrade = Callable[[str, str], None]
"""Records one degradation: `(feature, action)`; the caller prefixes the feature (`tool_result.`, `message.`)."""


def data_url(part: ContentPart) -> str:
    """A `data:` URL for an inline part."""
    return f"data:{part['mediaType']};base64,{part['data']}"


def filename(part: ContentPart, number: int) -> str:
    """The part's filename, or `file-<n>` with an extension from its media type (OpenAI wants one)."""
    given = part.get("filename")
    if given:
        return str(given)
    extension = mimetypes.guess_extension(str(part.get("mediaType") or "")) or ""
    return f"file-{number}{extension}"


def openai_options(part: ContentPart) -> dict[str, Any]:
    """The part's `providerOptions.openai`, or an empty dict."""
    options = part.get("providerOptions")
    value = options.get("openai") if isinstance(options, Mapping) else None
    return dict(value) if isinstance(value, Mapping) else {}


def chat_part(part: ContentPart, number: int, degrade: Degrade, *, file_parts: bool) -> dict[str, Any] | str:
    """A Chat Completions user content part, or the text that stands in for it (degradation reported)."""
    kind = part["type"]
    options = openai_options(part)
    if kind == "text":
        return {"type": "text", "text": part["text"], **options}
    if kind == "custom":
        if options:
            return options
        degrade("custom", "dropped a custom part without providerOptions.openai")
        return ""
    image = part_kind(part) == "image"
    if kind in ("image-url", "image-data") or (image and kind in ("file-url", "file-data")):
        url = part["url"] if "url" in part else data_url(part)
        detail = {"detail": options.pop("detail")} if "detail" in options else {}
        return {"type": "image_url", "image_url": {"url": url, **detail}, **options}
    if kind == "image-file-id":
        degrade("image_file_id", "Chat Completions cannot show an image by file id: named it in text instead")
        return f"[image file {part['fileId']} (not viewable here)]"
    if kind == "file-url":
        degrade("file_url", "Chat Completions takes files only as data or file ids: gave the URL as text")
        return f"[file at {part['url']}]"
    if not file_parts:
        degrade("file", "this server profile takes no file parts: named the file in text instead")
        name = part.get("filename") or part.get("fileId") or part.get("mediaType")
        return f"[file {name} (not readable here)]"
    if kind == "file-id":
        return {"type": "file", "file": {"file_id": part["fileId"]}, **options}
    return {"type": "file", "file": {"file_data": data_url(part), "filename": filename(part, number)}, **options}


def responses_part(part: ContentPart, number: int, degrade: Degrade, *, message: bool) -> dict[str, Any] | None:
    """A Responses `input_*` part (message content, or a function output when `message` is False)."""
    kind = part["type"]
    options = openai_options(part)
    if kind == "text":
        return {"type": "input_text", "text": part["text"], **options}
    if kind == "custom":
        if options:
            return options
        degrade("custom", "dropped a custom part without providerOptions.openai")
        return None
    # `detail` is required on message images (`response_input_image_param.py`), optional in outputs.
    detail = {"detail": options.pop("detail", "auto")} if message or "detail" in options else {}
    if part_kind(part) == "image":
        if kind in ("image-file-id", "file-id"):
            return {"type": "input_image", "file_id": part["fileId"], **detail, **options}
        url = part["url"] if "url" in part else data_url(part)
        return {"type": "input_image", "image_url": url, **detail, **options}
    if kind == "file-url":
        return {"type": "input_file", "file_url": part["url"], **options}
    if kind == "file-id":
        return {"type": "input_file", "file_id": part["fileId"], **options}
    return {"type": "input_file", "file_data": data_url(part), "filename": filename(part, number), **options}
