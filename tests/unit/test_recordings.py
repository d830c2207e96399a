"""Specification of recording readers: vcrpy dialects, HAR, chunk logs and bodies give back the bytes the client saw."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
import yaml

from toolwire.recordings import RecordedExchange, guess_api, read_recording, split_chunk_log

CHAT_BODY = b'{"id":"chatcmpl-1","object":"chat.completion","choices":[]}'
SSE_BODY = b'data: {"type":"response.created"}\n\ndata: [DONE]\n\n'


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class TestVcrCassettes:
    def test_a_standard_cassette_with_string_bodies(self, tmp_path: Path) -> None:
        """vcrpy's own format: `body.string` on the response, a plain string on the request."""
        cassette = _write(
            tmp_path,
            "chat.yaml",
            """interactions:
- request:
    body: '{"model":"gpt-4o"}'
    headers:
      Content-Type: [application/json]
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body:
      string: '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}'
    headers:
      Content-Type: [application/json]
      X-Request-Id: [req_1]
    status: {code: 200, message: OK}
version: 1
""",
        )
        assert read_recording(cassette) == [
            RecordedExchange(
                index=0,
                method="POST",
                uri="https://api.openai.com/v1/chat/completions",
                request_body=b'{"model":"gpt-4o"}',
                status=200,
                response_headers={"content-type": "application/json", "x-request-id": "req_1"},
                response_body=CHAT_BODY,
            )
        ]
        assert read_recording(cassette)[0].api == "openai-chat"

    def test_a_gzip_binary_body_is_decompressed(self, tmp_path: Path) -> None:
        """`!!binary` gzip bytes with `Content-Encoding: gzip` come back as the decoded body."""
        packed = base64.b64encode(gzip.compress(SSE_BODY)).decode()
        cassette = _write(
            tmp_path,
            "gzip.yml",
            f"""interactions:
- request:
    body: null
    method: POST
    uri: https://api.openai.com/v1/responses
  response:
    body:
      string: !!binary |
        {packed}
    headers:
      Content-Encoding: [gzip]
    status: {{code: 200}}
""",
        )
        (exchange,) = read_recording(cassette)
        assert (exchange.request_body, exchange.response_body) == (None, SSE_BODY)
        assert exchange.response_headers == {"content-encoding": "gzip"}

    def test_the_non_standard_binary_tag_is_read(self, tmp_path: Path) -> None:
        """Some writers emit `!binary` (one bang); it is base64 too."""
        cassette = _write(
            tmp_path,
            "one-bang.yaml",
            f"""interactions:
- request: {{method: POST, uri: "https://api.anthropic.com/v1/messages"}}
  response:
    body: {{string: !binary "{base64.b64encode(b'{"type":"message"}').decode()}"}}
    status: {{code: 200}}
""",
        )
        (exchange,) = read_recording(cassette)
        assert exchange.response_body == b'{"type":"message"}'
        assert exchange.api == "anthropic"

    def test_pydantic_ai_parsed_bodies_are_serialized_back_to_json(self, tmp_path: Path) -> None:
        """`parsed_body` holds decoded JSON; it comes back as JSON bytes."""
        cassette = _write(
            tmp_path,
            "pydantic-ai.yaml",
            """interactions:
- request:
    method: POST
    uri: https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent
    parsed_body:
      contents: [{role: user, parts: [{text: hi}]}]
  response:
    headers: {content-type: [application/json]}
    parsed_body:
      candidates: []
    status: {code: 429, message: Too Many Requests}
""",
        )
        (exchange,) = read_recording(cassette)
        assert json.loads(exchange.request_body or b"") == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
        assert json.loads(exchange.response_body) == {"candidates": []}
        assert (exchange.status, exchange.api) == (429, "gemini")

    def test_every_interaction_is_read_in_order(self, tmp_path: Path) -> None:
        """Multi-step cassettes keep their order and indexes."""
        one = (
            "- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions'}\n"
            "  response: {body: {string: 'a'}}\n"
        )
        cassette = _write(tmp_path, "two.yaml", "interactions:\n" + one + one.replace("'a'", "'b'"))
        assert [(e.index, e.response_body) for e in read_recording(cassette)] == [(0, b"a"), (1, b"b")]

    def test_a_cassette_cannot_run_code_through_python_yaml_tags(self, tmp_path: Path) -> None:
        """Cassettes are loaded with a safe loader: object-constructing tags are refused, never executed."""
        marker = tmp_path / "executed"
        cassette = _write(
            tmp_path,
            "evil.yaml",
            f"interactions:\n- request: !!python/object/apply:os.system ['touch {marker}']\n  response: {{}}\n",
        )
        with pytest.raises(yaml.YAMLError, match=r"python/object/apply:os\.system"):
            read_recording(cassette)
        assert not marker.exists()

    def test_a_cassette_without_interactions_has_no_exchanges(self, tmp_path: Path) -> None:
        """An empty document is not an error."""
        assert read_recording(_write(tmp_path, "empty.yaml", "version: 1\n")) == []


class TestOtherFormats:
    def test_a_har_file_with_base64_content(self, tmp_path: Path) -> None:
        """Browser and proxy captures: base64 response content, post data as text."""
        har = {
            "log": {
                "entries": [
                    {
                        "request": {
                            "method": "POST",
                            "url": "https://api.anthropic.com/v1/messages",
                            "postData": {"text": '{"stream":true}'},
                        },
                        "response": {
                            "status": 200,
                            "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                            "content": {"text": base64.b64encode(SSE_BODY).decode(), "encoding": "base64"},
                        },
                    },
                    {"request": {"url": "https://x/y"}, "response": {"content": {"text": "plain"}}},
                ]
            }
        }
        path = tmp_path / "capture.har"
        path.write_text(json.dumps(har))
        assert read_recording(path) == [
            RecordedExchange(
                index=0,
                uri="https://api.anthropic.com/v1/messages",
                request_body=b'{"stream":true}',
                response_headers={"content-type": "text/event-stream"},
                response_body=SSE_BODY,
            ),
            RecordedExchange(index=1, uri="https://x/y", response_body=b"plain"),
        ]

    def test_a_chunk_log_is_split_at_each_response_start(self, tmp_path: Path) -> None:
        """`message_start` and `response.created` begin a new response; blank lines are dropped."""
        log = (
            b'{"type":"message_start","message":{}}\n{"type":"content_block_delta"}\n\n'
            b'{"type":"message_start","message":{}}\n'
            b'{"type":"response.created","response":{}}\n{"type":"response.completed"}\n'
        )
        path = tmp_path / "run.chunks.txt"
        path.write_bytes(log)
        assert [e.response_body for e in read_recording(path)] == [
            b'{"type":"message_start","message":{}}\n{"type":"content_block_delta"}\n',
            b'{"type":"message_start","message":{}}\n',
            b'{"type":"response.created","response":{}}\n{"type":"response.completed"}\n',
        ]

    def test_a_chunk_log_without_start_events_is_one_response(self) -> None:
        """Lines before any start event form the first response."""
        assert split_chunk_log(b'{"a":1}\n{"b":2}') == [b'{"a":1}\n{"b":2}\n']

    def test_a_json_file_is_one_response_body(self, tmp_path: Path) -> None:
        """A saved body is read as is."""
        path = tmp_path / "body.json"
        path.write_bytes(CHAT_BODY)
        assert read_recording(path) == [RecordedExchange(index=0, response_body=CHAT_BODY)]

    def test_an_unknown_extension_is_refused_naming_the_formats(self, tmp_path: Path) -> None:
        """Guessing a format from content is not attempted."""
        path = tmp_path / "notes.txt"
        path.write_text("x")
        with pytest.raises(ValueError, match=r"notes\.txt: not a cassette \(\.yaml\), HAR \(\.har\), chunk log"):
            read_recording(path)


class TestGuessApi:
    @pytest.mark.parametrize(
        ("uri", "api"),
        [
            ("https://api.openai.com/v1/chat/completions", "openai-chat"),
            ("http://localhost:8000/v1/chat/completions?x=1", "openai-chat"),
            ("https://api.openai.com/v1/responses", "openai-responses"),
            ("https://api.anthropic.com/v1/messages", "anthropic"),
            ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent", "gemini"),
            ("https://aiplatform.googleapis.com/v1/projects/p/models/g:streamGenerateContent?alt=sse", "gemini"),
        ],
    )
    def test_the_url_decides_first(self, uri: str, api: str) -> None:
        """Endpoint paths identify the API surface."""
        assert guess_api(uri) == api

    @pytest.mark.parametrize(
        ("body", "api"),
        [
            (b'event: message_start\ndata: {"type":"message_start"}', "anthropic"),
            (b'{"id":"msg_1","type": "message"}', "anthropic"),
            (b'data: {"type":"response.created"}', "openai-responses"),
            (b'{"id":"resp_1","object":"response"}', "openai-responses"),
            (b'{"object":"chat.completion.chunk"}', "openai-chat"),
            (b'[{"candidates":[]}]', "gemini"),
            (b'{"usageMetadata":{}}', "gemini"),
            (b"<html>", None),
        ],
    )
    def test_without_a_known_url_the_body_decides(self, body: bytes, api: str | None) -> None:
        """A proxy URL falls back to sniffing the first bytes of the body."""
        assert guess_api("https://proxy.internal/v1/messages", body) == api
