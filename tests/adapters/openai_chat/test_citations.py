"""Chat Completions `url_citation` annotations (search models) become `source-url` events, once each."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolwire.adapter import Adapter

SameEvents = Callable[..., list[dict[str, Any]]]
OfTypes = Callable[..., list[dict[str, Any]]]

TEXT = "Tides follow the moon."
ANNOTATIONS = [
    {
        "type": "url_citation",
        "url_citation": {"url": "https://a.example/tides", "title": "Tides", "start_index": 0, "end_index": 5},
    },
    {
        "type": "url_citation",
        "url_citation": {"url": "https://b.example/moon", "title": "Moon", "start_index": 6, "end_index": 10},
    },
    {
        "type": "url_citation",
        "url_citation": {"url": "https://a.example/tides", "title": "Tides", "start_index": 11, "end_index": 15},
    },
]
COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-search-preview",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": TEXT, "annotations": ANNOTATIONS},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
}


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-search-preview",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


CHUNKS = [
    _chunk({"role": "assistant", "content": ""}),
    _chunk({"content": TEXT}),
    _chunk({"annotations": ANNOTATIONS}),
    _chunk({}, "stop"),
]
SOURCES = [
    {"type": "source-url", "sourceId": "src_1158d6cfc59d3f61", "url": "https://a.example/tides", "title": "Tides"},
    {"type": "source-url", "sourceId": "src_57f22807c8073fa9", "url": "https://b.example/moon", "title": "Moon"},
]


def test_streamed_annotations_are_sources_as_they_arrive_each_once(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_chunks: Callable[[bytes], list[Any]],
) -> None:
    events = same_events(adapter, CHUNKS, sse(CHUNKS), sdk_chunks(sse(CHUNKS)))
    assert [e["type"] for e in events] == [
        "start",
        "text-start",
        "text-delta",
        "source-url",
        "source-url",
        "text-end",
        "finish",
    ]
    assert of_types(events, "source-url") == SOURCES


def test_a_whole_completion_gives_its_sources_after_the_text(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sdk_completion: Callable[[dict[str, Any]], Any]
) -> None:
    events = same_events(adapter, COMPLETION, json.dumps(COMPLETION).encode(), sdk_completion(COMPLETION))
    assert [e["type"] for e in events] == [
        "start",
        "text-start",
        "text-delta",
        "text-end",
        "source-url",
        "source-url",
        "finish",
    ]
    assert of_types(events, "source-url") == SOURCES


def test_unreadable_annotations_are_skipped_and_the_text_kept(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    annotations: Any = [{"type": "url_citation", "url_citation": {"title": "no url"}}, "x", {"type": "other"}]
    message = {"role": "assistant", "content": TEXT, "annotations": annotations}
    completion = {**COMPLETION, "choices": [{**COMPLETION["choices"][0], "message": message}]}
    events = same_events(adapter, completion)
    assert [e["type"] for e in events] == ["start", "text-start", "text-delta", "text-end", "finish"]


def test_perplexity_search_results_and_citations_beside_the_choices_are_sources_once(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sse: Callable[..., bytes]
) -> None:
    listed = {
        "search_results": [{"title": "Tides", "url": "https://a.example/tides", "date": "2026-11-01"}],
        "citations": ["https://a.example/tides", "https://b.example/moon"],
    }
    chunks = [{**chunk, **listed} for chunk in [_chunk({"role": "assistant", "content": TEXT}), _chunk({}, "stop")]]
    events = same_events(adapter, chunks, sse(chunks))
    assert of_types(events, "source-url") == [
        SOURCES[0],
        {"type": "source-url", "sourceId": "src_57f22807c8073fa9", "url": "https://b.example/moon"},
    ]


def test_perplexity_sources_on_a_chunk_that_only_carries_arguments_are_read(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sse: Callable[..., bytes]
) -> None:
    """The arguments-only fast path must not skip the sources listed beside the choices."""
    opened = _chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}
            ]
        }
    )
    more = {
        **_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"q": "tides"}'}}]}),
        "citations": ["https://b.example/moon"],
    }
    chunks = [opened, more, _chunk({}, "tool_calls")]
    events = same_events(adapter, chunks, sse(chunks))
    assert of_types(events, "source-url") == [
        {"type": "source-url", "sourceId": "src_57f22807c8073fa9", "url": "https://b.example/moon"}
    ]
