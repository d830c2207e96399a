"""Gemini grounding chunks as sources, and inline data the model returns as files.

`candidates[].groundingMetadata.groundingChunks[]` (`google/genai/types.py` `GroundingChunk`)
holds `web` pages, `maps` places, `image` results and `retrievedContext` (RAG or file search):
a context whose `uri` is a web address is a page, otherwise a document named after its file.
An `inlineData` part in the model's content (image output) is a file; its `thoughtSignature`
rides along in the metadata so the part can be sent back as it came.
"""

from __future__ import annotations

from typing import Any, Final

from toolwire._source_events import derived_source_id
from toolwire.deltas import FileFound, SourceFound

from .._frames import field

_DOCUMENT_TYPES: Final[dict[str, str]] = {
    "pdf": "application/pdf",
    "txt": "text/plain",
    "md": "text/markdown",
    "html": "text/html",
    "csv": "text/csv",
    "json": "application/json",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
"""File extension of a retrieved document → its media type (others: `application/octet-stream`)."""


def grounding_sources(metadata: Any) -> list[SourceFound]:
    """The sources of a candidate's `groundingMetadata` (camelCase JSON), in chunk order."""
    chunks = field(metadata, "groundingChunks")
    if not isinstance(chunks, list):
        return []
    found: list[SourceFound] = []
    for chunk in chunks:
        source = _chunk_source(chunk) if isinstance(chunk, dict) else None
        if source is not None:
            found.append(source)
    return found


def _chunk_source(chunk: dict[str, Any]) -> SourceFound | None:
    for kind in ("web", "maps"):
        page = chunk.get(kind)
        if isinstance(page, dict) and _text(page.get("uri")):
            return SourceFound("url", url=page["uri"], title=_text(page.get("title")))
    image = chunk.get("image")
    if isinstance(image, dict) and _text(image.get("sourceUri")):
        return SourceFound("url", url=image["sourceUri"], title=_text(image.get("title")))
    context = chunk.get("retrievedContext")
    if isinstance(context, dict):
        return _retrieved(context)
    return None


def _retrieved(context: dict[str, Any]) -> SourceFound | None:
    uri = _text(context.get("uri"))
    title = _text(context.get("title"))
    if uri is not None and uri.startswith(("https://", "http://")):
        return SourceFound("url", url=uri, title=title)
    name = uri or _text(context.get("documentName")) or _text(context.get("fileSearchStore"))
    if name is None and title is None:
        return None
    filename = (name or "").rstrip("/").rsplit("/", 1)[-1] or None
    extension = filename.rsplit(".", 1)[-1].lower() if filename and "." in filename else ""
    metadata = {key: context[key] for key in ("uri", "documentName", "fileSearchStore") if _text(context.get(key))}
    return SourceFound(
        "document",
        title=title or filename or "Document",
        filename=filename,
        media_type=_DOCUMENT_TYPES.get(extension, "application/octet-stream"),
        source_id=derived_source_id("gemini-document", name or "", title or ""),
        provider_metadata={"google": metadata} if metadata else None,
    )


def inline_file(part: dict[str, Any], signature: str | None) -> FileFound | None:
    """An `inlineData` part (`mimeType`, base64 `data`) as a file; None for other parts, or without data."""
    inline = part.get("inlineData")
    if not isinstance(inline, dict):
        return None
    data = _text(inline.get("data"))
    if data is None:
        return None
    media_type = _text(inline.get("mimeType")) or "application/octet-stream"
    google: dict[str, Any] = {}
    if signature is not None:
        google["thoughtSignature"] = signature
    if part.get("thought") is True:
        google["thought"] = True
    return FileFound(f"data:{media_type};base64,{data}", media_type, {"google": google} if google else None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
