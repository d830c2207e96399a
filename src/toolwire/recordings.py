"""Reading recorded HTTP exchanges: vcrpy cassettes (all common dialects), HAR files, chunk logs, bodies.

Used by `toolwire replay` and by the tests that run real recordings. Bodies come back as the
bytes the client saw: gzip undone, base64 undone, pydantic-ai's `parsed_body` re-serialized.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlparse

from ._extras import optional_imports


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedExchange:
    """One request and its response."""

    index: int
    """Position in the recording."""
    method: str = "POST"
    uri: str = ""
    request_body: bytes | None = None
    status: int = 200
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""

    @property
    def api(self) -> str | None:
        """The toolwire api this exchange speaks, guessed from the URL and the body."""
        return guess_api(self.uri, self.response_body)


def guess_api(uri: str, body: bytes = b"") -> str | None:
    """`openai-chat`, `openai-responses`, `anthropic` or `gemini` from a URL (or a body when no URL)."""
    path = urlparse(uri).path
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages") and "anthropic" in uri:
        return "anthropic"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    head = body[:4096]
    if b'"message_start"' in head or b'"type":"message"' in head or b'"type": "message"' in head:
        return "anthropic"
    if b'"response.created"' in head or b'"object": "response"' in head or b'"object":"response"' in head:
        return "openai-responses"
    if b"chat.completion" in head:
        return "openai-chat"
    if b'"candidates"' in head or b'"usageMetadata"' in head:
        return "gemini"
    return None


def read_recording(path: str | Path) -> list[RecordedExchange]:
    """Every exchange in a recording file, in order.

    Raises:
        ValueError: the file is none of the known formats.
    """
    file = Path(path)
    data = file.read_bytes()
    name = file.name
    if name.endswith((".yaml", ".yml")):
        return _read_cassette(data)
    if name.endswith(".har"):
        return _read_har(json.loads(data))
    if name.endswith(".chunks.txt"):
        return [RecordedExchange(index=i, response_body=s) for i, s in enumerate(split_chunk_log(data))]
    if name.endswith(".json"):
        return [RecordedExchange(index=0, response_body=data)]
    raise ValueError(f"{file}: not a cassette (.yaml), HAR (.har), chunk log (.chunks.txt) or body (.json)")


def split_chunk_log(data: bytes) -> list[bytes]:
    """Split a log of JSON events (one per line) into responses, at each response's first event."""
    segments: list[list[bytes]] = []
    for line in data.splitlines():
        text = line.strip()
        if not text:
            continue
        if not segments or (_starts_response(text) and segments[-1]):
            segments.append([])
        segments[-1].append(text)
    return [b"\n".join(s) + b"\n" for s in segments if s]


def _starts_response(line: bytes) -> bool:
    head = line[:80]
    return b'"message_start"' in head or b'"response.created"' in head


def _yaml_loader() -> Any:
    with optional_imports("reading vcrpy cassettes"):
        import yaml

    class Loader(yaml.SafeLoader):
        """Safe loading plus the non-standard `!binary` tag some cassette writers use."""

    def binary(loader: yaml.SafeLoader, node: yaml.Node) -> bytes:
        return base64.b64decode(str(loader.construct_scalar(cast(yaml.ScalarNode, node))))

    Loader.add_constructor("!binary", binary)
    return Loader


def _read_cassette(data: bytes) -> list[RecordedExchange]:
    with optional_imports("reading vcrpy cassettes"):
        import yaml

    document = yaml.load(data, Loader=_yaml_loader())
    interactions = document.get("interactions", []) if isinstance(document, Mapping) else []
    exchanges: list[RecordedExchange] = []
    for index, interaction in enumerate(interactions):
        request = interaction.get("request", {})
        response = interaction.get("response", {})
        headers = _headers(response.get("headers", {}))
        exchanges.append(
            RecordedExchange(
                index=index,
                method=str(request.get("method", "POST")),
                uri=str(request.get("uri", "")),
                request_body=_body(request),
                status=int((response.get("status") or {}).get("code", 200)),
                response_headers=headers,
                response_body=_decode(_body(response) or b"", headers.get("content-encoding", "")),
            )
        )
    return exchanges


def _body(part: Mapping[str, Any]) -> bytes | None:
    if "parsed_body" in part:
        return json.dumps(part["parsed_body"]).encode()
    body = part.get("body")
    if isinstance(body, Mapping):
        body = body.get("string")
    if body is None:
        return None
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def _headers(raw: Mapping[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for key, value in raw.items():
        headers[str(key).lower()] = str(value[0]) if isinstance(value, list) and value else str(value)
    return headers


def _decode(body: bytes, encoding: str) -> bytes:
    """Undo gzip/deflate when the stored bytes are still compressed (some writers decode and keep the header)."""
    if body[:2] == b"\x1f\x8b":
        return gzip.decompress(body)
    if "deflate" in encoding:
        try:
            return zlib.decompress(body)
        except zlib.error:
            return body
    return body


def _read_har(document: Mapping[str, Any]) -> list[RecordedExchange]:
    exchanges: list[RecordedExchange] = []
    for index, entry in enumerate(document.get("log", {}).get("entries", [])):
        request = entry.get("request", {})
        response = entry.get("response", {})
        content = response.get("content", {})
        text = content.get("text", "")
        body = base64.b64decode(text) if content.get("encoding") == "base64" else str(text).encode("utf-8")
        post = request.get("postData", {}) or {}
        headers = {str(h["name"]).lower(): str(h["value"]) for h in response.get("headers", [])}
        exchanges.append(
            RecordedExchange(
                index=index,
                method=str(request.get("method", "POST")),
                uri=str(request.get("url", "")),
                request_body=str(post["text"]).encode() if "text" in post else None,
                status=int(response.get("status", 200)),
                response_headers=headers,
                response_body=_decode(body, headers.get("content-encoding", "")),
            )
        )
    return exchanges
