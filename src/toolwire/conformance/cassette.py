"""Cassettes as people can read them, and the vcrpy configuration that replays them.

Request bodies are stored as compact JSON text (what OpenAI and Anthropic send) or as the
SDK's own text (google-genai's spaced JSON); streams as YAML literal blocks, or double-quoted
when they carry the CRLF framing Gemini really uses. Requests match on method, URL and the
JSON of the body; a mismatch names the cassette and shows a JSON diff.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from toolwire._extras import optional_imports

with optional_imports("the conformance suite", "conformance"):
    import vcr
    import vcr.request
    import yaml

SECRET_HEADERS = (
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "openai-organization",
    "openai-project",
    "cookie",
    "set-cookie",
)
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "json_body")


def cassette_root() -> Path:
    """The bundled cassettes: `cassettes/` beside the source tree, or the installed package data."""
    checkout = Path(__file__).resolve().parents[3] / "cassettes"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("toolwire") / "cassettes"))


def cassette_path(api: str, scenario: str, root: Path | None = None) -> Path:
    """Where the cassette of a scenario lives."""
    return (root or cassette_root()) / api / f"{scenario}.yaml"


def events_path(api: str, scenario: str, root: Path | None = None) -> Path:
    """Where the expected events of a scenario live."""
    return (root or cassette_root()) / api / f"{scenario}.events.jsonl"


class _LiteralDumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks; strings with CR double-quoted so the bytes survive."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\r" in value or any(ord(c) < 32 and c not in "\n\t" for c in value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_LiteralDumper.add_representer(str, _represent_str)


class ReadableSerializer:
    """vcrpy serializer writing `_LiteralDumper` YAML (any vcrpy YAML cassette reads back)."""

    @staticmethod
    def serialize(cassette: Mapping[str, Any]) -> str:
        """Cassette dict to YAML text."""
        return yaml.dump(
            _text_bodies(dict(cassette)), Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=10_000
        )

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        """YAML text to a cassette dict."""
        data: dict[str, Any] = yaml.load(text, Loader=vcr.serializers.yamlserializer._CassetteLoader)
        return data


def _text_bodies(value: Any) -> Any:
    """Bytes bodies as text where they are UTF-8 (vcr gives bytes when it records)."""
    if isinstance(value, dict):
        return {k: _text_bodies(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_text_bodies(v) for v in value]
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value
    return value


def json_body(live: vcr.request.Request, recorded: vcr.request.Request) -> None:
    """vcrpy matcher: the bodies are equal as JSON (raw bytes when either is not JSON)."""
    if isinstance(live.body, _KEPT_BODIES) and isinstance(recorded.body, _KEPT_BODIES):
        difference = _body_difference(live.body, recorded.body)
    else:  # a file-like body is read once, never kept
        difference = _body_difference.__wrapped__(live.body, recorded.body)
    if difference is not None:
        raise AssertionError(difference)


_KEPT_BODIES = (bytes, str, type(None))


@lru_cache(maxsize=256)
def _body_difference(live: Any, recorded: Any) -> str | None:
    """None when the bodies are equal as JSON, else a diff; kept, as vcrpy asks the same pair 2-4 times a request.

    vcrpy matches every request against every recorded one and words each mismatch at once: a
    multi-step cassette asked for a diff of each other step's body, over and over.
    """
    mine, theirs = _parsed(live), _parsed(recorded)
    if mine == theirs:
        return None
    left = json.dumps(theirs, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    right = json.dumps(mine, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    diff = "\n".join(difflib.unified_diff(left, right, "recorded request", "request sent now", lineterm="", n=2))
    return f"request bodies differ:\n{diff}"


def _parsed(body: Any) -> Any:
    if body is None:
        return None
    raw = body.read() if hasattr(body, "read") else body
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
    try:
        return json.loads(text)
    except ValueError:
        return text


def replay_vcr(**overrides: Any) -> vcr.VCR:
    """A VCR that only replays, matching bodies as JSON."""
    config: dict[str, Any] = {
        "record_mode": "none",
        "match_on": MATCH_ON,
        "filter_headers": list(SECRET_HEADERS),
        "decode_compressed_response": True,
        "serializer": "toolwire",
    }
    config.update(overrides)
    recorder = vcr.VCR(**config)
    recorder.register_matcher("json_body", json_body)
    recorder.register_serializer("toolwire", ReadableSerializer)
    return recorder


def load_cassette(path: Path) -> dict[str, Any]:
    """A cassette file as a dict."""
    return ReadableSerializer.deserialize(path.read_text(encoding="utf-8"))


def save_cassette(path: Path, cassette: Mapping[str, Any]) -> None:
    """Write a cassette dict in the readable form."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ReadableSerializer.serialize(cassette), encoding="utf-8")


def redactor(secrets: list[str]) -> Callable[[Any], Any]:
    """A vcr hook that removes secret strings from URIs and bodies."""

    def scrub(value: Any) -> Any:
        if isinstance(value, bytes):
            for secret in secrets:
                value = value.replace(secret.encode(), b"REDACTED")
        elif isinstance(value, str):
            for secret in secrets:
                value = value.replace(secret, "REDACTED")
        return value

    def hook(item: Any) -> Any:
        if isinstance(item, vcr.request.Request):
            item.uri = scrub(item.uri)
            if item.body is not None:
                item.body = scrub(item.body)
            return item
        body = item.get("body", {})
        if isinstance(body, dict) and "string" in body:
            body["string"] = scrub(body["string"])
        headers = item.get("headers", {})
        for name in list(headers):
            if name.lower() in SECRET_HEADERS:
                del headers[name]
        return item

    return hook
