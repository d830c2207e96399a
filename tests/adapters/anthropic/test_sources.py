"""One response through every kind of source gives the same events; streamed and whole give the same calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anthropic
import httpx2
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import assistant_message
from toolwire.adapter import Adapter
from toolwire.events import Event, Finish
from toolwire.messages import AssistantMessage, ReasoningPart, TextPart
from toolwire.results import ToolCall, ToolResult
from toolwire.testing.capture import RequestCapture

SIGNATURE = "EqQBCgYIARgCIkBsig"
USAGE = {"input_tokens": 25, "output_tokens": 1, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0}

# A thinking block, text, two parallel calls (one without arguments), a web search with its result.
FRAMES: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": USAGE,
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "Weather in two cities, "},
    },
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "é 日本 ✓."}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": SIGNATURE}},
    {"type": "content_block_stop", "index": 0},
    {"type": "ping"},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Checking "}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "both."}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
    },
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": '{"query": "forecast"}'},
    },
    {"type": "content_block_stop", "index": 2},
    {
        "type": "content_block_start",
        "index": 3,
        "content_block": {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://weather.example",
                    "title": "Forecast",
                    "encrypted_content": "Ep0B",
                    "page_age": None,
                }
            ],
        },
    },
    {"type": "content_block_stop", "index": 3},
    {
        "type": "content_block_start",
        "index": 4,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}},
    },
    {"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": '{"city": "Pa'}},
    {"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": 'ris \\u00e9"}'}},
    {"type": "content_block_stop", "index": 4},
    {
        "type": "content_block_start",
        "index": 5,
        "content_block": {"type": "tool_use", "id": "toolu_02", "name": "get_time", "input": {}},
    },
    {"type": "content_block_delta", "index": 5, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {"type": "content_block_stop", "index": 5},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 88, "output_tokens_details": {"thinking_tokens": 12}},
    },
    {"type": "message_stop"},
]

# The same content as a non-streamed response (`anthropic/types/message.py`).
MESSAGE: dict[str, Any] = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [
        {"type": "thinking", "thinking": "Weather in two cities, é 日本 ✓.", "signature": SIGNATURE},
        {"type": "text", "text": "Checking both."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "forecast"}},
        FRAMES[15]["content_block"],
        {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris é"}},
        {"type": "tool_use", "id": "toolu_02", "name": "get_time", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {**USAGE, "output_tokens": 88, "output_tokens_details": {"thinking_tokens": 12}},
}


def sse_bytes(crlf: bool = False) -> bytes:
    newline = "\r\n" if crlf else "\n"
    return "".join(
        f"event: {f['type']}{newline}data: {json.dumps(f, ensure_ascii=False)}{newline}{newline}" for f in FRAMES
    ).encode()


def dicts(events: list[Event]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events]


def expected_events(adapter: Adapter) -> list[dict[str, Any]]:
    return dicts(list(adapter.normalize(FRAMES)))


EXPECTED_TURN = AssistantMessage(
    content=(
        ReasoningPart(
            text="Weather in two cities, é 日本 ✓.", provider_metadata={"anthropic": {"signature": SIGNATURE}}
        ),
        TextPart(text="Checking both."),
        ToolCall(
            tool_call_id="srvtoolu_1",
            tool_name="web_search",
            input={"query": "forecast"},
            provider_metadata={"anthropic": {"blockType": "server_tool_use"}},
            provider_executed=True,
        ),
        ToolResult(
            tool_call_id="srvtoolu_1",
            tool_name="web_search",
            output={"type": "json", "value": FRAMES[15]["content_block"]["content"]},
            provider_metadata={"anthropic": {"blockType": "web_search_tool_result"}},
        ),
        ToolCall(tool_call_id="toolu_01", tool_name="get_weather", input={"city": "Paris é"}),
        ToolCall(tool_call_id="toolu_02", tool_name="get_time", input={}),
    )
)


def test_the_stream_gives_the_specified_turn(adapter: Adapter) -> None:
    assert assistant_message(adapter.normalize(FRAMES)) == EXPECTED_TURN


def test_the_whole_message_gives_the_specified_turn(adapter: Adapter) -> None:
    assert assistant_message(adapter.normalize(MESSAGE)) == EXPECTED_TURN


def test_the_stream_finishes_with_tool_calls_and_the_usage(adapter: Adapter) -> None:
    assert dicts(list(adapter.normalize(FRAMES)))[-1] == {
        "type": "finish",
        "finishReason": "tool-calls",
        "usage": {
            "inputTokens": 30,
            "outputTokens": 88,
            "totalTokens": 118,
            "reasoningTokens": 12,
            "cachedInputTokens": 5,
        },
        "providerMetadata": {"anthropic": {"cacheCreationInputTokens": 0}},
    }


def test_raw_sse_bytes_give_the_same_events(adapter: Adapter) -> None:
    assert dicts(list(adapter.normalize(sse_bytes()))) == expected_events(adapter)


def test_sse_with_crlf_line_endings_gives_the_same_events(adapter: Adapter) -> None:
    assert dicts(list(adapter.normalize(sse_bytes(crlf=True)))) == expected_events(adapter)


def test_sse_split_at_every_byte_boundary_gives_the_same_events(adapter: Adapter) -> None:
    body = sse_bytes()
    expected = expected_events(adapter)
    for cut in range(1, len(body)):
        assert dicts(list(adapter.normalize([body[:cut], body[cut:]]))) == expected, f"split at byte {cut}"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=200))
def test_sse_in_arbitrary_chunks_gives_the_same_events(sizes: list[int]) -> None:
    from toolwire import get_adapter

    adapter = get_adapter("anthropic")
    body = sse_bytes()
    chunks, position = [], 0
    for size in sizes:
        chunks.append(body[position : position + size])
        position += size
    chunks.append(body[position:])
    assert dicts(list(adapter.normalize(chunks))) == expected_events(adapter)


def test_sdk_stream_events_give_the_same_events(adapter: Adapter, sdk_events: Callable[[bytes], list[Any]]) -> None:
    sdk = sdk_events(sse_bytes())
    assert type(sdk[0]).__name__ == "RawMessageStartEvent"
    assert dicts(list(adapter.normalize(sdk))) == expected_events(adapter)


def test_the_sdk_stream_helper_events_give_the_same_events(
    adapter: Adapter, sdk_helper_events: Callable[[bytes], list[Any]]
) -> None:
    sdk = sdk_helper_events(sse_bytes())
    assert {"text", "thinking", "signature", "input_json"} <= {e.type for e in sdk}  # the helper's extra events
    assert dicts(list(adapter.normalize(sdk))) == expected_events(adapter)


def test_a_whole_json_body_gives_the_same_turn_as_the_stream(adapter: Adapter) -> None:
    streamed = list(adapter.normalize(FRAMES))
    whole = list(adapter.normalize(json.dumps(MESSAGE).encode()))
    assert assistant_message(whole) == assistant_message(streamed)
    assert [e for e in whole if isinstance(e, Finish)] == [e for e in streamed if isinstance(e, Finish)]


def test_the_sdk_message_object_gives_the_same_turn_as_the_stream(
    adapter: Adapter, sdk_message: Callable[[dict[str, Any]], Any]
) -> None:
    message = sdk_message(MESSAGE)
    assert type(message).__name__ == "Message"
    assert dicts(list(adapter.normalize(message))) == dicts(list(adapter.normalize(MESSAGE)))
    assert assistant_message(adapter.normalize(message)) == assistant_message(adapter.normalize(FRAMES))


async def test_async_sdk_stream_events_give_the_same_events(adapter: Adapter) -> None:
    capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse_bytes())])
    client = anthropic.AsyncAnthropic(api_key="test", http_client=capture.async_client(), max_retries=0)
    stream = await client.messages.create(
        model="claude-sonnet-4-6", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    assert dicts([e async for e in adapter.anormalize(stream)]) == expected_events(adapter)


async def test_an_async_iterator_of_byte_chunks_gives_the_same_events(adapter: Adapter) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        body = sse_bytes()
        for start in range(0, len(body), 7):
            yield body[start : start + 7]

    assert dicts([e async for e in adapter.anormalize(chunks())]) == expected_events(adapter)


MCP_FRAMES: list[dict[str, Any]] = [
    FRAMES[0],
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {
            "type": "mcp_tool_use",
            "id": "mcptoolu_1",
            "name": "ask",
            "server_name": "wiki",
            "input": {},
        },
    },
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"q": "hi"}'}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_1",
            "is_error": False,
            "content": [{"type": "text", "text": "hello"}],
        },
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
    {"type": "message_stop"},
]


def test_blocks_the_non_beta_sdk_does_not_model_decode_like_their_json(
    adapter: Adapter, sse: Callable[[list[dict[str, Any]]], bytes], sdk_events: Callable[[bytes], list[Any]]
) -> None:
    # the non-beta union has no mcp blocks: the SDK builds a TextBlock carrying the fields as extras
    sdk = sdk_events(sse(MCP_FRAMES))
    assert type(sdk[1].content_block).__name__ == "TextBlock"
    assert dicts(list(adapter.normalize(sdk))) == dicts(list(adapter.normalize(MCP_FRAMES)))


def test_the_beta_sdk_events_decode_like_their_json(
    adapter: Adapter, sse: Callable[[list[dict[str, Any]]], bytes]
) -> None:
    body = sse(MCP_FRAMES)
    capture = RequestCapture([httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)])
    client = anthropic.Anthropic(api_key="test", http_client=capture.client(), max_retries=0)
    stream = client.beta.messages.create(
        model="claude-sonnet-4-6", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    events = list(stream)
    assert type(events[1].content_block).__name__ == "BetaMCPToolUseBlock"
    assert dicts(list(adapter.normalize(events))) == dicts(list(adapter.normalize(MCP_FRAMES)))
