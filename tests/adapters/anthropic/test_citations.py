"""Anthropic web search results and citations become `source-url` / `source-document` events, once each."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolwire.adapter import Adapter

SameEvents = Callable[..., list[dict[str, Any]]]
OfTypes = Callable[..., list[dict[str, Any]]]

USAGE = {"input_tokens": 3, "output_tokens": 9}
MOON = "https://b.example/moon"
WEB_CITATION = {
    "type": "web_search_result_location",
    "url": MOON,
    "title": "Moon",
    "cited_text": "the moon pulls",
    "encrypted_index": "Eo8B",
}
RESULTS = [
    {
        "type": "web_search_result",
        "url": "https://a.example/tides",
        "title": "Tides",
        "encrypted_content": "E1",
        "page_age": "2 days ago",
    },
    {"type": "web_search_result", "url": MOON, "title": "Moon", "encrypted_content": "E2"},
]
BLOCKS: list[dict[str, Any]] = [
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tides"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": RESULTS},
    {"type": "text", "text": "Tides follow the moon.", "citations": [WEB_CITATION]},
]
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": BLOCKS,
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": USAGE,
}


def _stream(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream of a message with these blocks, text and input sent as deltas (citations too)."""
    start = {**MESSAGE, "content": [], "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1}}
    frames: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(blocks):
        deltas: list[dict[str, Any]] = []
        opened = dict(block)
        if block["type"] == "text":
            opened = {"type": "text", "text": ""}
            deltas.append({"type": "text_delta", "text": block["text"]})
            deltas += [{"type": "citations_delta", "citation": c} for c in block.get("citations", [])]
        elif block["type"] == "server_tool_use":
            opened = {**block, "input": {}}
            deltas.append({"type": "input_json_delta", "partial_json": json.dumps(block["input"])})
        frames.append({"type": "content_block_start", "index": index, "content_block": opened})
        frames += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        frames.append({"type": "content_block_stop", "index": index})
    frames.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}})
    frames.append({"type": "message_stop"})
    return frames


PAGES = [
    {
        "type": "source-url",
        "sourceId": "src_1158d6cfc59d3f61",
        "url": "https://a.example/tides",
        "title": "Tides",
        "providerMetadata": {"anthropic": {"pageAge": "2 days ago"}},
    },
    {"type": "source-url", "sourceId": "src_57f22807c8073fa9", "url": MOON, "title": "Moon"},
]


def test_a_streamed_web_search_gives_its_pages_after_the_result_and_keeps_the_citations_on_the_text(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_events: Callable[[bytes], list[Any]],
    sdk_helper_events: Callable[[bytes], list[Any]],
) -> None:
    frames = _stream(BLOCKS)
    events = same_events(adapter, frames, sse(frames), sdk_events(sse(frames)), sdk_helper_events(sse(frames)))
    assert [e["type"] for e in events] == [
        "start",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-available",
        "source-url",
        "source-url",
        "text-start",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert of_types(events, "source-url") == PAGES
    assert of_types(events, "text-end") == [
        {"type": "text-end", "id": "2", "providerMetadata": {"anthropic": {"citations": [WEB_CITATION]}}}
    ]


def test_a_whole_message_gives_the_same_sources_as_its_stream(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sdk_message: Callable[[dict[str, Any]], Any]
) -> None:
    events = same_events(adapter, MESSAGE, json.dumps(MESSAGE).encode(), sdk_message(MESSAGE))
    assert of_types(events, "source-url", "source-document") == PAGES
    assert events[-2]["type"] == "text-end"  # the cited page, found already, is not repeated after the text


def test_a_page_cited_but_not_in_a_search_result_is_a_source_after_its_text(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    blocks = [{"type": "text", "text": "Tides follow the moon.", "citations": [WEB_CITATION, WEB_CITATION]}]
    assert same_events(adapter, _stream(blocks), {**MESSAGE, "content": blocks})[3:5] == [
        {"type": "text-end", "id": "0", "providerMetadata": {"anthropic": {"citations": [WEB_CITATION] * 2}}},
        {"type": "source-url", "sourceId": "src_57f22807c8073fa9", "url": MOON, "title": "Moon"},
    ]


def test_document_citations_name_their_document_once_with_its_media_type(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    location = {"cited_text": "grass is green", "document_title": "Facts"}
    citations = [
        {"type": "char_location", "document_index": 0, "start_char_index": 0, "end_char_index": 14, **location},
        {"type": "char_location", "document_index": 0, "start_char_index": 20, "end_char_index": 30, **location},
        {"type": "page_location", "document_index": 1, "start_page_number": 2, "end_page_number": 3,
         "cited_text": "p", "document_title": None, "file_id": "file_011"},
        {"type": "content_block_location", "document_index": 2, "start_block_index": 0, "end_block_index": 1,
         "cited_text": "c", "document_title": "Custom"},
        {"type": "search_result_location", "search_result_index": 0, "source": "https://kb.example/a",
         "title": "KB", "start_block_index": 0, "end_block_index": 1, "cited_text": "k"},
        {"type": "search_result_location", "search_result_index": 1, "source": "handbook-7",
         "title": None, "start_block_index": 0, "end_block_index": 1, "cited_text": "h"},
    ]  # fmt: skip
    blocks = [{"type": "text", "text": "Green.", "citations": citations}]
    events = same_events(adapter, _stream(blocks), {**MESSAGE, "content": blocks})
    assert of_types(events, "source-url", "source-document") == [
        {
            "type": "source-document",
            "sourceId": "src_96dfa1f8e7219e90",
            "mediaType": "text/plain",
            "title": "Facts",
            "providerMetadata": {"anthropic": {"documentIndex": 0}},
        },
        {
            "type": "source-document",
            "sourceId": "src_2ef9a0383e976f91",
            "mediaType": "application/pdf",
            "title": "Document 1",
            "providerMetadata": {"anthropic": {"documentIndex": 1, "fileId": "file_011"}},
        },
        {
            "type": "source-document",
            "sourceId": "src_422b1f25109dce0e",
            "mediaType": "text/plain",
            "title": "Custom",
            "providerMetadata": {"anthropic": {"documentIndex": 2}},
        },
        {
            "type": "source-url",
            "sourceId": "src_784fdaa24fbb8e39",
            "url": "https://kb.example/a",
            "title": "KB",
            "providerMetadata": {"anthropic": {"searchResultIndex": 0}},
        },
        {
            "type": "source-document",
            "sourceId": "src_174a96133ccf2eb6",
            "mediaType": "text/plain",
            "title": "handbook-7",
            "providerMetadata": {"anthropic": {"searchResultIndex": 1, "source": "handbook-7"}},
        },
    ]


def test_a_failed_web_search_has_no_sources(same_events: SameEvents, of_types: OfTypes, adapter: Adapter) -> None:
    error = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    blocks = [BLOCKS[0], {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": error}]
    for source in (_stream(blocks), {**MESSAGE, "content": blocks}):
        events = same_events(adapter, source)
        assert of_types(events, "source-url", "source-document") == []
        assert of_types(events, "tool-output-error")[0]["toolCallId"] == "srvtoolu_1"


def test_a_fetched_page_is_a_source_after_the_fetch_result(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    fetched = {
        "type": "web_fetch_result",
        "url": "https://en.wikipedia.org/wiki/Tide",
        "retrieved_at": "2026-11-30T10:00:00+00:00",
        "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "..."},
                    "title": "Tide"},
    }  # fmt: skip
    blocks = [
        {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch", "input": {"url": fetched["url"]}},
        {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2", "content": fetched},
    ]
    for source in (_stream(blocks), {**MESSAGE, "content": blocks}):
        events = same_events(adapter, source)
        assert [e["type"] for e in events][-3:] == ["tool-output-available", "source-url", "finish"]
        assert of_types(events, "source-url") == [
            {
                "type": "source-url",
                "sourceId": "src_fb27e52275b383be",
                "url": "https://en.wikipedia.org/wiki/Tide",
                "title": "Tide",
            }
        ]


def test_unreadable_citations_are_skipped_and_the_text_kept(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    citations = [{"type": "char_location", "document_index": "0"}, {"type": "web_search_result_location"}, "x"]
    blocks = [{"type": "text", "text": "Green.", "citations": citations}]
    events = same_events(adapter, {**MESSAGE, "content": blocks})
    assert [e["type"] for e in events] == ["start", "text-start", "text-delta", "text-end", "finish"]
