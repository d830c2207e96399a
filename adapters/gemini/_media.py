"""Images and files as Gemini parts: `inline_data` for bytes, `file_data` for URIs, and custom parts.

The objects inside use the SDK's field names (`inline_data`, `mime_type`, `file_uri`,
`display_name`); the part keys around them are camelCase (`PART_KEY`), as google/genai/models.py
`_Part_to_mldev` puts them on the body. A Files API id becomes its `v1beta/` URI.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Any

from toolwire.results import ContentPart

from ._wire import Note, request_base64

PART_KEY = {"inline_data": "inlineData", "file_data": "fileData"}
"""The part key of each media object kind."""

_FILES_HOST = "https://generativelanguage.googleapis.com/"
_FILES_API = _FILES_HOST + "v1beta/"


def media_object(part: ContentPart, note: Note, feature: str, where: str) -> tuple[str, dict[str, Any]]:
    """`("inline_data" | "file_data", object)` for an image or file content part.

    Raises:
        ConfigurationError: inline data that is not base64 (the message says `where`).
    """
    kind = part["type"]
    media_type = part.get("mediaType")
    if kind in ("image-data", "file-data"):
        blob: dict[str, Any] = {"mime_type": media_type, "data": request_base64(part["data"], f"{where} `data`")}
        if part.get("filename") and feature == "tool_result":
            blob["display_name"] = part["filename"]
        return "inline_data", blob
    if kind in ("file-id", "image-file-id"):
        uri = part["fileId"] if "://" in part["fileId"] else _FILES_API + part["fileId"].removeprefix("/")
    else:
        uri = part["url"]
        if not uri.startswith(("gs://", _FILES_HOST)):
            note(
                f"{feature}.url",
                "a URL that is neither gs:// nor a Files API URI was sent as file_data: the Gemini Developer API "
                "fetches only public http(s) URLs on recent models; upload the file or send its data if it fails",
            )
    data: dict[str, Any] = {"file_uri": uri}
    guessed = media_type or (None if uri.startswith(_FILES_HOST) else mimetypes.guess_type(uri)[0])
    if guessed:
        data["mime_type"] = guessed
    elif kind in ("image-url", "file-url"):
        note(f"{feature}.mime_type", "a file URL without a media type and no file extension was sent without mime_type")
    return "file_data", data


def custom_part(part: ContentPart, note: Note, feature: str) -> dict[str, Any] | None:
    """A custom content part as the Gemini part its `google` provider options spell (None: dropped, noted)."""
    options = part["providerOptions"].get("google")
    if isinstance(options, Mapping):
        return dict(options)
    note(feature, "a custom part without `google` provider options was dropped")
    return None
