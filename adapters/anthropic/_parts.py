"""Neutral content parts (text, images, files, custom) as Messages API content blocks.

Shared by tool results (`anthropic/types/tool_result_block_param.py`) and user messages. Images:
`image_block_param.py` with base64 (`base64_image_source_param.py`: jpeg, png, gif, webp only),
url and file sources. Files: `document_block_param.py` with base64 PDF, plain-text, url (PDF) and
file sources. What has no block is replaced by a short text note the model can read, and reported.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Callable, Mapping
from typing import Any, Final

from toolwire.exceptions import ConfigurationError
from toolwire.results import ContentPart

IMAGE_MEDIA_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Media types of base64 image sources (`anthropic/types/base64_image_source_param.py`)."""

_MEDIA_ALIASES: Final[dict[str, str]] = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}
"""Common non-standard spellings, sent under their registered names."""

Report = Callable[[str, str], None]
"""Records one degradation of the part being encoded: `(kind, action)`; kind is image, file or custom."""


def content_block(part: ContentPart, report: Report) -> dict[str, Any] | None:
    """The block for one part (None for an empty text part, which the API refuses)."""
    kind = part["type"]
    block: dict[str, Any] | None
    if kind == "text":
        block = {"type": "text", "text": part["text"]} if part["text"] else None
    elif kind == "custom":
        return _custom(part, report)
    else:
        block = _media(part, report)
    if block is None:
        return None
    options = _anthropic_options(part)
    if options:
        clash = {"type", "source", "text"} & options.keys()
        if clash:
            raise ConfigurationError(
                f"a {kind} part's providerOptions.anthropic sets {sorted(clash)}, which toolwire derives from the part"
            )
        block.update(options)
    return block


def _media(part: ContentPart, report: Report) -> dict[str, Any]:
    kind = part["type"]
    media_type = part.get("mediaType")
    if kind == "image-url":
        return _image({"type": "url", "url": part["url"]})
    if kind == "image-file-id":
        return _image({"type": "file", "file_id": part["fileId"]})
    if kind in ("image-data", "file-data"):
        return _data(part, report)
    if kind == "file-id":
        source = {"type": "file", "file_id": part["fileId"]}
        if (media_type or "").startswith("image/"):
            return _image(source)
        return _document(source, part)
    # file-url
    media_type = media_type or mimetypes.guess_type(part["url"])[0] or ""
    if media_type.startswith("image/"):
        return _image({"type": "url", "url": part["url"]})
    if media_type == "application/pdf":
        return _document({"type": "url", "url": part["url"]}, part)
    return _note(
        part,
        report,
        "file",
        f"Anthropic fetches only PDFs and images by URL; the file is at {part['url']}",
    )


def _data(part: ContentPart, report: Report) -> dict[str, Any]:
    media_type: str = _MEDIA_ALIASES.get(part["mediaType"]) or part["mediaType"]
    if media_type.startswith("image/"):
        if media_type in IMAGE_MEDIA_TYPES:
            return _image({"type": "base64", "media_type": media_type, "data": part["data"]})
        return _note(part, report, "image", "Anthropic takes images only as JPEG, PNG, GIF or WebP")
    if media_type == "application/pdf":
        return _document({"type": "base64", "media_type": media_type, "data": part["data"]}, part)
    if media_type.startswith("text/"):
        text = _decoded_text(part["data"])
        if text is not None:
            return _document({"type": "text", "media_type": "text/plain", "data": text}, part)
        return _note(part, report, "file", "its data is not UTF-8 text")
    return _note(part, report, "file", "Anthropic takes files only as PDF or plain-text documents")


def _image(source: dict[str, Any]) -> dict[str, Any]:
    return {"type": "image", "source": source}


def _document(source: dict[str, Any], part: ContentPart) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if part.get("filename"):
        block["title"] = part["filename"]
    return block


def _note(part: ContentPart, report: Report, kind: str, reason: str) -> dict[str, Any]:
    """A text block that tells the model what was left out, and why."""
    name = f" {part['filename']!r}" if part.get("filename") else ""
    what = f"{part.get('mediaType') or 'unknown type'}{name}"
    report(kind, f"the {part['type']} part ({what}) was replaced by a text note: {reason}")
    return {"type": "text", "text": f"[{kind} omitted ({what}): {reason}]"}


def _custom(part: ContentPart, report: Report) -> dict[str, Any] | None:
    block = _anthropic_options(part)
    if block:
        return dict(block)
    providers = ", ".join(sorted(part["providerOptions"])) or "none"
    report("custom", f"a custom part without an `anthropic` block was left out (it has options for: {providers})")
    return None


def _anthropic_options(part: ContentPart) -> Mapping[str, Any] | None:
    options = part.get("providerOptions")
    block = options.get("anthropic") if isinstance(options, Mapping) else None
    return block if isinstance(block, Mapping) else None


def _decoded_text(data: str) -> str | None:
    try:
        return base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
