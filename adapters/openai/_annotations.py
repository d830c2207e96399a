"""OpenAI text annotations as sources, and generated images as files.

Responses `output_text.annotations` (`openai/types/responses/response_output_text.py`):
`url_citation` is a web page; `file_citation`, `container_file_citation` and `file_path` name
files by id. Chat Completions `message.annotations` (and `delta.annotations`, streamed by search
models) hold `url_citation` objects (`openai/types/chat/chat_completion_message.py`); Perplexity's
compatible API lists `search_results` and `citations` on the chunk itself. An
`image_generation_call` item's `result` is the image, base64 (`response_output_item.py`).
"""

from __future__ import annotations

from typing import Any, Final

from toolwire.deltas import FileFound, SourceFound

from .._frames import field

_IMAGE_TYPES: Final[dict[str, str]] = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
    "svg": "image/svg+xml",
}
"""`image_generation_call.output_format` → media type (PNG when unset, the API's default)."""


def annotation_sources(annotations: Any) -> list[SourceFound]:
    """The sources of a list of annotations (dicts or SDK objects), in order; others are skipped."""
    if not isinstance(annotations, (list, tuple)):
        return []  # not a list: nothing readable (the text itself is kept)
    found: list[SourceFound] = []
    for annotation in annotations:
        source = annotation_source(annotation)
        if source is not None:
            found.append(source)
    return found


def annotation_source(annotation: Any) -> SourceFound | None:
    """One annotation as a source (None for kinds that name no source, or unreadable ones)."""
    if annotation is None or isinstance(annotation, (str, int, float, list)):
        return None
    kind = field(annotation, "type")
    if kind == "url_citation":
        # Chat nests the citation under `url_citation`; Responses has its fields on the annotation
        cited = field(annotation, "url_citation") or annotation
        url = _text(field(cited, "url"))
        return SourceFound("url", url=url, title=_text(field(cited, "title"))) if url else None
    if kind not in ("file_citation", "container_file_citation", "file_path"):
        return None
    file_id = _text(field(annotation, "file_id"))
    if file_id is None:
        return None
    filename = _text(field(annotation, "filename"))
    metadata: dict[str, Any] = {"type": kind, "fileId": file_id}
    container = _text(field(annotation, "container_id"))
    if container is not None:
        metadata["containerId"] = container
    return SourceFound(
        "document",
        title=filename or file_id,
        filename=filename,
        media_type="application/octet-stream" if kind == "file_path" else "text/plain",
        source_id=file_id if container is None else f"{container}/{file_id}",
        provider_metadata={"openai": metadata},
    )


def listed_sources(search_results: Any, citations: Any) -> list[SourceFound]:
    """Perplexity's chunk-level `search_results` (`title`, `url`) and `citations` (URLs), titled ones first."""
    found: list[SourceFound] = []
    for result in search_results if isinstance(search_results, list) else ():
        url = _text(field(result, "url"))
        if url is not None:
            found.append(SourceFound("url", url=url, title=_text(field(result, "title"))))
    for url in citations if isinstance(citations, list) else ():
        if _text(url) is not None:
            found.append(SourceFound("url", url=url))
    return found


def generated_image(item: Any) -> FileFound | None:
    """The image of a finished `image_generation_call` item (None while it has no result)."""
    result = _text(field(item, "result"))
    if result is None:
        return None
    output_format = field(item, "output_format")
    media_type = _IMAGE_TYPES.get(output_format, "image/png") if isinstance(output_format, str) else "image/png"
    metadata = {"openai": {"itemId": field(item, "id")}} if isinstance(field(item, "id"), str) else None
    return FileFound(f"data:{media_type};base64,{result}", media_type, provider_metadata=metadata)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
