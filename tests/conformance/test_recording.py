"""The live re-recording path, run against a fake provider on 127.0.0.1 (no key ever leaves here)."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from toolwire.conformance.cassette import load_cassette
from toolwire.conformance.record import record_scenario
from toolwire.conformance.runner import replay
from toolwire.conformance.scenarios import scenario

SECRET = "sk-ant-test-0123456789abcdef"


def _sse(frames: list[dict[str, object]]) -> bytes:
    return "".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n" for f in frames).encode()


CALL = _sse(
    [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Rec",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_01Rec", "name": "get_weather", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
)
ANSWER = _sse(
    [
        {
            "type": "message_start",
            "message": {
                "id": "msg_02Rec",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 20, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "18C in Paris."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
)


class _FakeAnthropic(BaseHTTPRequestHandler):
    """Answers like the live API: gzip SSE, a cookie, the key echoed in a header; checks the key."""

    bodies: ClassVar[list[bytes]] = []
    seen_keys: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        _FakeAnthropic.seen_keys.append(self.headers.get("authorization", "") + self.headers.get("x-api-key", ""))
        body = gzip.compress(_FakeAnthropic.bodies.pop(0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("content-encoding", "gzip")
        self.send_header("set-cookie", f"session={SECRET}")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads the cassette, not the log."""


@pytest.fixture
def fake_provider() -> Iterator[str]:
    _FakeAnthropic.bodies = [CALL, ANSWER]
    _FakeAnthropic.seen_keys = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeAnthropic)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def recorded(fake_provider: str, tmp_path: Path) -> Path:
    return record_scenario("anthropic", scenario("single_call"), api_key=SECRET, base_url=fake_provider, root=tmp_path)


def test_the_key_reaches_the_server_but_never_the_cassette(recorded: Path) -> None:
    """The live call is authenticated; the stored file holds no trace of the key or the cookie."""
    assert all(SECRET in key for key in _FakeAnthropic.seen_keys)
    text = recorded.read_text()
    assert SECRET not in text
    assert "authorization" not in text.lower()
    assert "set-cookie" not in text.lower()


def test_compressed_streams_are_stored_decoded_and_readable(recorded: Path) -> None:
    """The SSE body is plain text in a literal block, and the gzip header is gone."""
    cassette = load_cassette(recorded)
    response = cassette["interactions"][0]["response"]
    assert "content-encoding" not in {name.lower() for name in response["headers"]}
    assert response["body"]["string"] == CALL.decode()
    assert "event: message_start\n" in recorded.read_text()


def test_the_requests_and_events_are_stored_for_review(recorded: Path) -> None:
    """Both requests are recorded, and the expected events are written beside the cassette."""
    cassette = load_cassette(recorded)
    bodies = [json.loads(i["request"]["body"]) for i in cassette["interactions"]]
    assert [b["messages"][-1]["role"] for b in bodies] == ["user", "user"]
    assert bodies[1]["messages"][-1]["content"][0]["type"] == "tool_result"
    events = recorded.with_name("single_call.events.jsonl").read_text().splitlines()
    assert json.loads(events[-1]) == {
        "step": 1,
        "type": "finish",
        "finishReason": "stop",
        "usage": {"inputTokens": 30, "outputTokens": 14, "totalTokens": 44},
    }


def test_a_recording_replays_offline(recorded: Path, fake_provider: str) -> None:
    """The recorded cassette replays with record mode none (the fake server gets no request)."""
    _FakeAnthropic.bodies = []
    run = replay("anthropic", scenario("single_call"), recorded, mode="sync", base_url=fake_provider)
    assert run.text == "18C in Paris."
    assert run.log.calls == [("get_weather", {"city": "Paris", "unit": "celsius"})]
