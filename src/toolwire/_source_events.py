"""Sources a response cites and files it returns: the `source-url`, `source-document` and `file` events.

Shaped like the AI SDK's UI message chunks of the same types (`uiMessageChunkSchema` in the `ai`
package), so `toolwire.ui` sends them as they are. Kept apart from `events` (which re-exports
them) because they carry no tool or part state: a decoder finds them, the core dedupes and names them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

ProviderMetadata: TypeAlias = Mapping[str, Mapping[str, Any]]
"""The same alias as `toolwire.events.ProviderMetadata` (repeated: `events` imports this module)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceUrl:
    """A web page the response cites or was grounded on; shown with the answer, never sent back to the model."""

    type: ClassVar[str] = "source-url"
    source_id: str
    url: str
    title: str | None = None
    provider_metadata: ProviderMetadata | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`sourceId`, `url`, then `title` and `providerMetadata` when set)."""
        data: dict[str, Any] = {"type": self.type, "sourceId": self.source_id, "url": self.url}
        if self.title is not None:
            data["title"] = self.title
        if self.provider_metadata is not None:
            data["providerMetadata"] = self.provider_metadata
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceDocument:
    """A document (an uploaded file, a PDF in the prompt) the response cites; shown, never sent back."""

    type: ClassVar[str] = "source-document"
    source_id: str
    media_type: str
    title: str
    filename: str | None = None
    provider_metadata: ProviderMetadata | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`sourceId`, `mediaType`, `title`, then `filename` and `providerMetadata` when set)."""
        data: dict[str, Any] = {
            "type": self.type,
            "sourceId": self.source_id,
            "mediaType": self.media_type,
            "title": self.title,
        }
        if self.filename is not None:
            data["filename"] = self.filename
        if self.provider_metadata is not None:
            data["providerMetadata"] = self.provider_metadata
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class File:
    """A file the model returned (a generated image): `url` is a `data:` URL for inline bytes."""

    type: ClassVar[str] = "file"
    url: str
    media_type: str
    provider_metadata: ProviderMetadata | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`url`, `mediaType`, then `providerMetadata` when set)."""
        data: dict[str, Any] = {"type": self.type, "url": self.url, "mediaType": self.media_type}
        if self.provider_metadata is not None:
            data["providerMetadata"] = self.provider_metadata
        return data


SourceEvent: TypeAlias = SourceUrl | SourceDocument | File

_JSON_FIELDS: dict[str, dict[str, str]] = {
    "source-url": {"sourceId": "source_id", "url": "url", "title": "title", "providerMetadata": "provider_metadata"},
    "source-document": {
        "sourceId": "source_id",
        "mediaType": "media_type",
        "title": "title",
        "filename": "filename",
        "providerMetadata": "provider_metadata",
    },
    "file": {"url": "url", "mediaType": "media_type", "providerMetadata": "provider_metadata"},
}
SOURCE_EVENT_CLASSES: dict[str, type[SourceEvent]] = {
    "source-url": SourceUrl,
    "source-document": SourceDocument,
    "file": File,
}


def source_event_from_dict(data: Mapping[str, Any]) -> SourceEvent:
    """Read the JSON form of one of these events.

    Raises:
        ValueError: a field that does not belong to the type, or a missing or mistyped one.
    """
    kind = str(data.get("type"))
    names = _JSON_FIELDS[kind]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in names:
            raise ValueError(f"{kind!r} events have no field {key!r}")
        if key != "providerMetadata" and not isinstance(value, str):
            raise ValueError(f"bad {kind!r} event: {key!r} must be a string, not {type(value).__name__}")
        kwargs[names[key]] = value
    try:
        return SOURCE_EVENT_CLASSES[kind](**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {kind!r} event: {exc}") from None


def derived_source_id(*key: str) -> str:
    """A stable id for a source the provider gave none: the same cited URL or document gets the same id."""
    digest = hashlib.blake2b("\x1f".join(key).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"src_{digest}"
