"""Every way a Gemini response can arrive gives the same events: dicts, SSE bytes (whole or split at any
byte), JSON-array streams, whole bodies, and google-genai's own objects (streamed or not)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from toolwire.adapter import Adapter

from .frames import USAGE, call, chunk, text, thought

Decode = Callable[..., list[dict[str, Any]]]

SIGNATURE = "Eqo+Cqc/Ab4+9vtg"
"""A thought signature with `+` and `/`: standard base64 as the API sends it (the SDK re-encodes URL-safe)."""

STREAM = [
    chunk(thought("Think about é and 日本.")),
    chunk(text("Let me check.")),
    chunk(
        call("get_weather", {"city": "Paris", "days": [1, 2]}, "fc_1", thoughtSignature=SIGNATURE),
        call("get_time", {}, "fc_2"),
    ),
    chunk(text("", thoughtSignature=SIGNATURE), finish="STOP", usage=USAGE),
]

WHOLE = chunk(
    thought("Think about é and 日本."),
    text("Let me check."),
    call("get_weather", {"city": "Paris", "days": [1, 2]}, "fc_1", thoughtSignature=SIGNATURE),
    call("get_time", {}, "fc_2"),
    text("", thoughtSignature=SIGNATURE),
    finish="STOP",
    usage=USAGE,
)


def calls(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (e["toolCallId"], e["toolName"], e["input"], e.get("providerMetadata"))
        for e in events
        if e["type"] == "tool-input-available"
    ]


class TestRawBytes:
    def test_sse_bytes_give_the_events_of_the_frames(self, decode: Decode, sse: Callable[..., bytes]) -> None:
        assert decode(sse(STREAM)) == decode(STREAM)

    def test_sse_split_at_every_byte_gives_the_same_events(self, decode: Decode, sse: Callable[..., bytes]) -> None:
        body = sse(STREAM)
        expected = decode(STREAM)
        for cut in range(1, len(body)):
            assert decode([body[:cut], body[cut:]]) == expected, cut

    def test_sse_in_single_byte_chunks_gives_the_same_events(self, decode: Decode, sse: Callable[..., bytes]) -> None:
        body = sse(STREAM)
        assert decode([body[i : i + 1] for i in range(len(body))]) == decode(STREAM)

    def test_a_json_array_stream_without_alt_sse_gives_the_same_events(self, decode: Decode) -> None:
        body = ("[" + ",\r\n".join(json.dumps(f, indent=2) for f in STREAM) + "]").encode()
        expected = decode(STREAM)
        assert decode(body) == expected
        for cut in range(1, len(body), 7):
            assert decode([body[:cut], body[cut:]]) == expected, cut

    def test_newline_delimited_chunks_give_the_same_events(self, decode: Decode) -> None:
        body = "\n".join(json.dumps(f) for f in STREAM).encode()
        assert decode(body) == decode(STREAM)

    def test_a_stream_cut_inside_a_chunk_reports_the_byte_and_still_finishes(
        self, decode: Decode, sse: Callable[..., bytes]
    ) -> None:
        body = sse(STREAM[:2])
        events = decode(body[:-10])
        assert [e["type"] for e in events] == [
            "start",
            "reasoning-start",
            "reasoning-delta",
            "error",
            "reasoning-end",
            "finish",
        ]
        assert events[3]["errorText"].startswith("gemini: malformed JSON in SSE event")
        assert events[3]["errorText"].endswith(f"at byte {len(sse(STREAM[:1]))}")
        assert events[-1] == {"type": "finish", "finishReason": "error"}

    def test_a_whole_body_gives_the_calls_of_the_stream(self, decode: Decode) -> None:
        assert calls(decode(json.dumps(WHOLE).encode())) == calls(decode(STREAM))

    def test_a_whole_body_gives_the_text_and_reasoning_of_the_stream(self, decode: Decode) -> None:
        def parts(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
            return [
                (e["type"], e.get("delta", e.get("providerMetadata")))
                for e in events
                if e["type"].startswith(("text", "reasoning"))
            ]

        assert parts(decode(WHOLE)) == parts(decode(STREAM))


class TestSdkObjects:
    def test_streamed_sdk_chunks_give_the_events_of_the_wire_frames(
        self, decode: Decode, sse: Callable[..., bytes], sdk_chunks: Callable[..., list[Any]]
    ) -> None:
        chunks = sdk_chunks(sse(STREAM))
        assert type(chunks[0]).__name__ == "GenerateContentResponse"
        assert decode(chunks) == decode(STREAM)

    def test_signatures_from_sdk_bytes_come_out_as_the_wire_text(
        self, decode: Decode, sse: Callable[..., bytes], sdk_chunks: Callable[..., list[Any]]
    ) -> None:
        chunks = sdk_chunks(sse(STREAM))
        signed = [c for c in calls(decode(chunks)) if c[3]]
        assert signed[0][3] == {"google": {"thoughtSignature": SIGNATURE}}

    def test_a_whole_sdk_response_gives_the_events_of_the_wire_body(
        self, decode: Decode, sdk_response: Callable[[Any], Any]
    ) -> None:
        assert decode(sdk_response(WHOLE)) == decode(WHOLE)

    def test_an_async_iterable_of_sdk_chunks_gives_the_same_events(
        self, adapter: Adapter, sse: Callable[..., bytes], sdk_chunks: Callable[..., list[Any]]
    ) -> None:
        chunks = sdk_chunks(sse(STREAM))

        async def produce() -> Any:
            for item in chunks:
                yield item

        async def collect() -> list[dict[str, Any]]:
            return [event.to_dict() async for event in adapter.anormalize(produce())]

        assert asyncio.run(collect()) == [event.to_dict() for event in adapter.normalize(STREAM)]
