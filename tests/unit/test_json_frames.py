"""Specification: frames parsed with jiter are exactly what `json.loads` gives, on the texts where they differ too.

Lone surrogate escapes, NaN and infinities, duplicate keys, big integers, raw control characters
and invalid UTF-8: jiter decides where it agrees with `json.loads`, `json.loads` everywhere else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import get_adapter
from toolwire._json_frames import FrameError
from toolwire._json_text import loads, loads_text
from toolwire._sources import iter_frames
from toolwire.events import TextDelta, ToolInputAvailable

_TEXTS = [
    pytest.param(b'{"a":"\\ud800"}', id="lone-high-surrogate"),
    pytest.param(b'{"a":"\\udc00x"}', id="lone-low-surrogate"),
    pytest.param(b'{"a":"\\ud83d\\ude00"}', id="surrogate-pair"),
    pytest.param(b'{"a":NaN}', id="nan"),
    pytest.param(b'{"a":Infinity,"b":-Infinity}', id="infinities"),
    pytest.param(b'{"a":1e400}', id="float-overflow"),
    pytest.param(b'{"a":1,"a":2}', id="duplicate-keys"),
    pytest.param(b'{"a":' + b"9" * 4300 + b"}", id="int-at-the-digit-limit"),
    pytest.param(b'{"a":123456789012345678901234567890}', id="big-int"),
    pytest.param(b'{"a":-0.0,"b":5e-324,"c":0.1}', id="float-edges"),
    pytest.param('{"é":"😀"}'.encode(), id="multi-byte"),
]
_REFUSED = [
    pytest.param(b'{"a":' + b"9" * 5000 + b"}", id="int-over-the-digit-limit"),
    pytest.param(b'{"a":"x\ty"}', id="raw-control-character"),
    pytest.param(b'{"a":1,}', id="trailing-comma"),
    pytest.param(b'{"a":01}', id="leading-zero"),
    pytest.param(b'{"a":1} x', id="extra-data"),
]


def _error(parse: Callable[[], Any]) -> ValueError:
    """The ValueError `parse` raises."""
    try:
        parse()
    except ValueError as exc:
        return exc
    raise AssertionError("no ValueError")


def _same(left: Any, right: Any) -> bool:
    """Equal, NaN included (`nan != nan`)."""
    return repr(left) == repr(right)


class TestValues:
    @pytest.mark.parametrize("text", _TEXTS)
    def test_a_text_json_loads_accepts_gives_its_value(self, text: bytes) -> None:
        expected = json.loads(text)
        assert _same(loads(text), expected)
        assert _same(loads_text(text), expected)

    @pytest.mark.parametrize("text", _REFUSED)
    def test_a_text_json_loads_refuses_raises_its_value_error(self, text: bytes) -> None:
        assert str(_error(lambda: loads(text))) == str(_error(lambda: json.loads(text)))

    @pytest.mark.parametrize("text", _TEXTS)
    def test_an_sse_event_carries_the_value_json_loads_gives(self, text: bytes) -> None:
        (frame,) = list(iter_frames(b"data: " + text + b"\n\n", lambda item: item))
        assert _same(frame, json.loads(text))

    @pytest.mark.parametrize("text", _REFUSED)
    def test_an_sse_event_json_loads_refuses_is_a_frame_error(self, text: bytes) -> None:
        (frame,) = list(iter_frames(b"data: " + text + b"\n\n", lambda item: item))
        assert isinstance(frame, FrameError)
        assert frame.offset == 0

    def test_invalid_utf8_in_sse_data_reads_as_replacement_characters(self) -> None:
        (frame,) = list(iter_frames(b'data: {"a":"x\xffy"}\n\n', lambda item: item))
        assert frame == {"a": "x\ufffdy"}


def _anthropic(text: str, arguments: str) -> bytes:
    """A text part with `text` (JSON-escaped already) and one call with `arguments`; NaN in the usage."""
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {}}
    text_block = {"type": "text", "text": ""}
    call_block = {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}
    events = [
        ("message_start", json.dumps({"type": "message_start", "message": message})),
        ("content_block_start", json.dumps({"type": "content_block_start", "index": 0, "content_block": text_block})),
        (
            "content_block_delta",
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"' + text + '"}}',
        ),
        ("content_block_stop", '{"type":"content_block_stop","index":0}'),
        ("content_block_start", json.dumps({"type": "content_block_start", "index": 1, "content_block": call_block})),
        (
            "content_block_delta",
            json.dumps(
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": arguments},
                }
            ),
        ),
        ("content_block_stop", '{"type":"content_block_stop","index":1}'),
        ("message_delta", '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"x":NaN}}'),
        ("message_stop", '{"type":"message_stop"}'),
    ]
    return "".join(f"event: {name}\ndata: {data}\n\n" for name, data in events).encode()


class TestThroughNormalize:
    @pytest.mark.parametrize("partial", [False, True])
    def test_a_lone_surrogate_escape_in_text_is_kept_as_json_loads_reads_it(self, partial: bool) -> None:
        events = list(get_adapter("anthropic").normalize(_anthropic("\\ud800 x", "{}"), partial=partial))
        assert [event.delta for event in events if isinstance(event, TextDelta)] == ["\ud800 x"]

    @pytest.mark.parametrize("partial", [False, True])
    @pytest.mark.parametrize(
        ("arguments", "expected"),
        [
            ('{"a":"\\ud800"}', {"a": "\ud800"}),
            ('{"a":1,"a":2}', {"a": 2}),
            ('{"a":' + "9" * 4300 + "}", {"a": int("9" * 4300)}),
            ('{"a":-Infinity}', {"a": -math.inf}),
        ],
        ids=["lone-surrogate", "duplicate-keys", "big-int", "infinity"],
    )
    def test_call_arguments_read_as_json_loads_reads_them(self, arguments: str, expected: Any, partial: bool) -> None:
        events = list(get_adapter("anthropic").normalize(_anthropic("x", arguments), partial=partial))
        (available,) = [event for event in events if isinstance(event, ToolInputAvailable)]
        assert available.input == expected

    @pytest.mark.parametrize("partial", [False, True])
    def test_nan_in_call_arguments_is_kept_as_json_loads_reads_it(self, partial: bool) -> None:
        events = list(get_adapter("anthropic").normalize(_anthropic("x", '{"a":NaN}'), partial=partial))
        (available,) = [event for event in events if isinstance(event, ToolInputAvailable)]
        assert math.isnan(available.input["a"])
