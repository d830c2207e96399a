"""The conformance suite's cassette plumbing: readable YAML, the JSON body matcher, secret filtering."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import vcr.request

from toolwire.conformance.cassette import ReadableSerializer, json_body, load_cassette, redactor, save_cassette
from toolwire.conformance.runner import split_steps, write_expected_events
from toolwire.conformance.scenarios import SCENARIOS, scenario
from toolwire.events import Finish, StartStep, TextDelta

SSE = 'event: ping\ndata: {"type": "ping"}\n\n'
GEMINI_SSE = 'data: {"candidates": []}\r\n\r\n'


def _cassette(body: str) -> dict[str, object]:
    return {
        "version": 1,
        "interactions": [
            {
                "request": {"method": "POST", "uri": "https://api.example.com/v1", "body": '{"a":1}', "headers": {}},
                "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": body}},
            }
        ],
    }


def test_sse_bodies_are_stored_as_literal_blocks() -> None:
    """A stream with LF framing is a readable `|+` block (final blank line kept) in the file."""
    text = ReadableSerializer.serialize(_cassette(SSE))
    assert 'string: |+\n        event: ping\n        data: {"type": "ping"}\n\n' in text


def test_crlf_bodies_survive_a_round_trip() -> None:
    """Gemini's CRLF framing is kept byte for byte (double-quoted scalar)."""
    text = ReadableSerializer.serialize(_cassette(GEMINI_SSE))
    loaded = ReadableSerializer.deserialize(text)
    assert loaded["interactions"][0]["response"]["body"]["string"] == GEMINI_SSE


def test_bytes_bodies_are_written_as_text(tmp_path: Path) -> None:
    """What vcr records as bytes is stored as UTF-8 text and read back equal."""
    path = tmp_path / "c.yaml"
    save_cassette(path, _cassette(SSE.encode()))  # type: ignore[arg-type]
    assert load_cassette(path)["interactions"][0]["response"]["body"]["string"] == SSE


def _request(body: bytes) -> vcr.request.Request:
    return vcr.request.Request("POST", "https://api.example.com/v1", body, {"content-type": "application/json"})


def test_bodies_equal_as_json_match_whatever_their_spacing() -> None:
    """Key order and whitespace do not matter, values do."""
    json_body(_request(b'{"a": 1, "b": [1, 2]}'), _request(b'{"b":[1,2],"a":1}'))


def test_a_different_body_fails_with_a_json_diff() -> None:
    """The failure shows the changed line between the recorded and the sent request."""
    with pytest.raises(AssertionError) as raised:
        json_body(_request(b'{"a": 1, "b": 2}'), _request(b'{"a": 1, "b": 3}'))
    message = str(raised.value)
    assert '-  "b": 3' in message
    assert '+  "b": 2' in message


def test_a_repeated_mismatch_fails_with_the_same_diff() -> None:
    """vcrpy asks the same pair several times a request: the kept answer is the one worked out the first time."""
    messages = []
    for _ in range(3):
        with pytest.raises(AssertionError) as raised:
            json_body(_request(b'{"a": 1, "b": 2}'), _request(b'{"a": 1, "b": 4}'))
        messages.append(str(raised.value))
    assert messages == [messages[0]] * 3
    assert '-  "b": 4' in messages[0]
    assert '+  "b": 2' in messages[0]


def test_file_like_bodies_are_read_each_time_never_kept() -> None:
    """A stream body cannot key the kept answers (vcrpy gives a new stream at each read): each match reads it."""
    for sent, matches in ((b'{"a": 1}', True), (b'{"a": 2}', False), (b'{"a":1}', True)):
        live = vcr.request.Request("POST", "https://api.example.com/v1", io.BytesIO(sent), {})
        if matches:
            json_body(live, _request(b'{"a": 1}'))
        else:
            with pytest.raises(AssertionError, match="request bodies differ"):
                json_body(live, _request(b'{"a": 1}'))


def test_the_redactor_removes_keys_from_uris_bodies_and_headers() -> None:
    """Secrets vanish from request URIs and bodies and from response bodies; auth headers go."""
    scrub = redactor(["sk-secret"])
    request = scrub(vcr.request.Request("POST", "https://x.example/v1?key=sk-secret", b'{"k": "sk-secret"}', {}))
    assert "sk-secret" not in request.uri
    assert request.body == b'{"k": "REDACTED"}'
    response = scrub({"headers": {"Set-Cookie": ["a=b"], "x-ok": ["1"]}, "body": {"string": b"token sk-secret"}})
    assert response == {"headers": {"x-ok": ["1"]}, "body": {"string": b"token REDACTED"}}


def test_events_are_split_per_model_call() -> None:
    """A start-step begins a new step; events are stored in JSON form."""
    steps = split_steps([StartStep(), TextDelta(id="t", delta="hi"), StartStep(), Finish(finish_reason="stop")])
    assert steps == [
        [{"type": "start-step"}, {"type": "text-delta", "id": "t", "delta": "hi"}],
        [{"type": "start-step"}, {"type": "finish", "finishReason": "stop"}],
    ]


def test_expected_events_are_json_lines_with_their_step(tmp_path: Path) -> None:
    """The events file has one event per line, tagged with its step."""
    path = tmp_path / "e.jsonl"
    write_expected_events(path, [[{"type": "start-step"}], [{"type": "finish", "finishReason": "stop"}]])
    assert (
        path.read_text() == '{"step": 0, "type": "start-step"}\n{"step": 1, "type": "finish", "finishReason": "stop"}\n'
    )


def test_scenario_names_are_unique_and_found_by_name() -> None:
    """Each scenario has one name; an unknown name lists the known ones."""
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    with pytest.raises(KeyError, match="single_call"):
        scenario("nope")
