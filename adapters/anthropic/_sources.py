"""Anthropic web search results and text citations as sources.

Web search results (`web_search_tool_result` blocks of `web_search_result` items), fetched pages
(`web_fetch_tool_result`'s `web_fetch_result`) and `web_search_result_location` citations are
web pages; `char_location` (plain text documents),
`page_location` (PDF pages), `content_block_location` (custom content documents) and
`search_result_location` citations name documents of the prompt by index
(`anthropic/types/citation_*.py`, `citations_*.py`). The citations themselves still travel in
the text part's `providerMetadata` (the offsets and cited text a display may want).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from toolwire._source_events import derived_source_id
from toolwire.deltas import SourceFound

_DOCUMENT_TYPES: Final[dict[str, str]] = {
    "char_location": "text/plain",
    "page_location": "application/pdf",
    "content_block_location": "text/plain",
}
"""Citation type → the media type of the document it points into (pages only exist in PDFs)."""


RESULT_SOURCES: Final = frozenset({"web_search_tool_result", "web_fetch_tool_result"})
"""Result blocks of provider-run tools that name the pages they read."""


def result_sources(content: Any) -> list[SourceFound]:
    """The pages of a web search or web fetch result block's content (an error object has none)."""
    if isinstance(content, dict) and content.get("type") == "web_fetch_result":
        url, document = content.get("url"), content.get("content")
        title = _text(document.get("title")) if isinstance(document, dict) else None
        return [SourceFound("url", url=url, title=title)] if isinstance(url, str) and url else []
    if not isinstance(content, list):
        return []
    found: list[SourceFound] = []
    for item in content:
        if not isinstance(item, dict) or item.get("type") != "web_search_result":
            continue
        url = item.get("url")
        if isinstance(url, str) and url:
            page_age = item.get("page_age")
            metadata = {"anthropic": {"pageAge": page_age}} if isinstance(page_age, str) else None
            found.append(SourceFound("url", url=url, title=_text(item.get("title")), provider_metadata=metadata))
    return found


def citation_sources(citations: Iterable[Any]) -> list[SourceFound]:
    """The sources a text block's citations (JSON dicts) point at, in citation order."""
    found: list[SourceFound] = []
    for citation in citations:
        source = _citation_source(citation) if isinstance(citation, dict) else None
        if source is not None:
            found.append(source)
    return found


def _citation_source(citation: dict[str, Any]) -> SourceFound | None:
    kind = citation.get("type")
    if kind == "web_search_result_location":
        url = citation.get("url")
        return SourceFound("url", url=url, title=_text(citation.get("title"))) if isinstance(url, str) and url else None
    if kind == "search_result_location":
        return _search_result(citation)
    media_type = _DOCUMENT_TYPES.get(kind) if isinstance(kind, str) else None
    index = citation.get("document_index")
    if media_type is None or type(index) is not int:
        return None
    metadata: dict[str, Any] = {"documentIndex": index}
    file_id = citation.get("file_id")
    if isinstance(file_id, str):
        metadata["fileId"] = file_id
    return SourceFound(
        "document",
        title=_text(citation.get("document_title")) or f"Document {index}",
        media_type=media_type,
        source_id=derived_source_id("anthropic-document", str(index)),
        provider_metadata={"anthropic": metadata},
    )


def _search_result(citation: dict[str, Any]) -> SourceFound | None:
    """A `search_result` block of the prompt: a web page when its `source` is a URL, else a document."""
    source = citation.get("source")
    index = citation.get("search_result_index")
    if not isinstance(source, str) or type(index) is not int:
        return None
    title = _text(citation.get("title"))
    metadata = {"anthropic": {"searchResultIndex": index}}
    if source.startswith(("https://", "http://")):
        return SourceFound("url", url=source, title=title, provider_metadata=metadata)
    return SourceFound(
        "document",
        title=title or source,
        media_type="text/plain",
        source_id=derived_source_id("anthropic-search-result", str(index)),
        provider_metadata={"anthropic": {**metadata["anthropic"], "source": source}},
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
