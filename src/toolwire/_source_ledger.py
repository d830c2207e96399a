"""The sources and files of one response: each sent once, with an id that does not change between runs.

Providers repeat a source wherever it is cited (every Anthropic citation of one page, a Responses
annotation streamed then restated in the finished item, Gemini grounding on every stream chunk),
so the assembler passes every `SourceFound` and `FileFound` through here.
"""

from __future__ import annotations

from ._source_events import File, SourceDocument, SourceEvent, SourceUrl, derived_source_id
from .deltas import FileFound, SourceFound


class SourceLedger:
    """What one response has shown so far."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: set[tuple[str, ...]] = set()

    def source(self, delta: SourceFound) -> SourceEvent | None:
        """The event for a source not shown yet in this response, else None."""
        if delta.kind == "url":
            url = delta.url
            if not url or not self._first(("url", url)):
                return None  # a page without an address cannot be shown
            return SourceUrl(
                source_id=delta.source_id or derived_source_id("url", url),
                url=url,
                title=delta.title or None,
                provider_metadata=delta.provider_metadata,
            )
        media_type = delta.media_type or "application/octet-stream"
        title = delta.title or delta.filename or "Document"
        identity = delta.source_id or derived_source_id("document", media_type, title, delta.filename or "")
        if not self._first(("document", identity)):
            return None
        return SourceDocument(
            source_id=identity,
            media_type=media_type,
            title=title,
            filename=delta.filename or None,
            provider_metadata=delta.provider_metadata,
        )

    def file(self, delta: FileFound) -> File | None:
        """The event for a file not shown yet in this response, else None."""
        if not self._first(("file", delta.url)):
            return None
        return File(url=delta.url, media_type=delta.media_type, provider_metadata=delta.provider_metadata)

    def _first(self, key: tuple[str, ...]) -> bool:
        if key in self._seen:
            return False
        self._seen.add(key)
        return True
