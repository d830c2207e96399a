"""Gemini grounding chunks become `source-url` / `source-document` events, and inline image output `file` events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolwire.adapter import Adapter

SameEvents = Callable[..., list[dict[str, Any]]]
OfTypes = Callable[..., list[dict[str, Any]]]

PNG = "iVBORw0KGgo="
SIGNATURE = "c2lnbmF0dXJl"
GROUNDING = {
    "webSearchQueries": ["tides"],
    "groundingChunks": [
        {"web": {"uri": "https://vertexaisearch.example/redirect/1", "title": "tides.example"}},
        {"web": {"uri": "https://vertexaisearch.example/redirect/2", "title": "moon.example"}},
        {"web": {"uri": "https://vertexaisearch.example/redirect/1", "title": "tides.example"}},
    ],
    "groundingSupports": [{"segment": {"endIndex": 5, "text": "Tides"}, "groundingChunkIndices": [0, 1]}],
}
USAGE = {"promptTokenCount": 3, "candidatesTokenCount": 9, "totalTokenCount": 12}


def _chunk(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **candidate}],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp_1",
    }
    return frame


STREAM = [
    _chunk([{"text": "Tides follow "}]),
    _chunk([{"text": "the moon."}], groundingMetadata=GROUNDING),
    {**_chunk([{"text": ""}], finishReason="STOP", groundingMetadata=GROUNDING), "usageMetadata": USAGE},
]
WHOLE = {**_chunk([{"text": "Tides follow the moon."}], finishReason="STOP", groundingMetadata=GROUNDING),
         "usageMetadata": USAGE}  # fmt: skip
PAGES = [
    {
        "type": "source-url",
        "sourceId": "src_189d8e958f3f6b65",
        "url": "https://vertexaisearch.example/redirect/1",
        "title": "tides.example",
    },
    {
        "type": "source-url",
        "sourceId": "src_1a451ea38913ca4f",
        "url": "https://vertexaisearch.example/redirect/2",
        "title": "moon.example",
    },
]


def test_streamed_grounding_gives_each_page_once_after_the_text_that_carried_it(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_chunks: Callable[[bytes], list[Any]],
) -> None:
    events = same_events(adapter, STREAM, sse(STREAM), sdk_chunks(sse(STREAM)))
    assert [e["type"] for e in events] == [
        "start",
        "text-start",
        "text-delta",
        "text-delta",
        "source-url",
        "source-url",
        "text-end",
        "finish",
    ]
    assert of_types(events, "source-url") == PAGES


def test_a_whole_response_gives_the_same_pages(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sdk_response: Callable[[dict[str, Any]], Any]
) -> None:
    events = same_events(adapter, WHOLE, json.dumps(WHOLE).encode(), sdk_response(WHOLE))
    assert of_types(events, "source-url", "source-document") == PAGES


def test_retrieved_contexts_are_pages_when_on_the_web_else_documents_named_after_their_file(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    grounding = {
        "groundingChunks": [
            {"retrievedContext": {"uri": "https://docs.example/guide", "title": "Guide"}},
            {"retrievedContext": {"uri": "gs://bucket/reports/q3.pdf", "title": "Q3 report", "text": "..."}},
            {"retrievedContext": {"title": "Handbook", "fileSearchStore": "fileSearchStores/hr"}},
            {"maps": {"uri": "https://maps.example/place/1", "title": "Harbour"}},
            {"retrievedContext": {}},
        ]
    }
    events = same_events(adapter, {**_chunk([{"text": "ok"}], finishReason="STOP", groundingMetadata=grounding)})
    assert of_types(events, "source-url", "source-document") == [
        {
            "type": "source-url",
            "sourceId": "src_09cb51a3de4aeb30",
            "url": "https://docs.example/guide",
            "title": "Guide",
        },
        {
            "type": "source-document",
            "sourceId": "src_a72050de3ce28488",
            "mediaType": "application/pdf",
            "title": "Q3 report",
            "filename": "q3.pdf",
            "providerMetadata": {"google": {"uri": "gs://bucket/reports/q3.pdf"}},
        },
        {
            "type": "source-document",
            "sourceId": "src_7acc727c366ce3e1",
            "mediaType": "application/octet-stream",
            "title": "Handbook",
            "filename": "hr",
            "providerMetadata": {"google": {"fileSearchStore": "fileSearchStores/hr"}},
        },
        {
            "type": "source-url",
            "sourceId": "src_4f7e11463b6e58d9",
            "url": "https://maps.example/place/1",
            "title": "Harbour",
        },
    ]


def test_an_inline_image_the_model_returns_is_a_file_between_its_texts(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_chunks: Callable[[bytes], list[Any]],
) -> None:
    stream = [
        _chunk([{"text": "Here it is:"}]),
        _chunk([{"inlineData": {"mimeType": "image/png", "data": PNG}, "thoughtSignature": SIGNATURE}]),
        _chunk([{"text": "A cat."}], finishReason="STOP"),
    ]
    events = same_events(adapter, stream, sse(stream), sdk_chunks(sse(stream)))
    assert events[1:-1] == [
        {"type": "text-start", "id": "0-0"},
        {"type": "text-delta", "id": "0-0", "delta": "Here it is:"},
        {"type": "text-end", "id": "0-0"},
        {
            "type": "file",
            "url": f"data:image/png;base64,{PNG}",
            "mediaType": "image/png",
            "providerMetadata": {"google": {"thoughtSignature": SIGNATURE}},
        },
        {"type": "text-start", "id": "0-1"},
        {"type": "text-delta", "id": "0-1", "delta": "A cat."},
        {"type": "text-end", "id": "0-1"},
    ]


def test_snake_case_recordings_give_the_same_sources_and_files(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    snake = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"inline_data": {"mime_type": "image/jpeg", "data": PNG}}]},
                "finish_reason": "STOP",
                "grounding_metadata": {"grounding_chunks": [{"web": {"uri": "https://a.example", "title": "A"}}]},
            }
        ],
        "usage_metadata": {"prompt_token_count": 1, "candidates_token_count": 1, "total_token_count": 2},
    }
    events = same_events(adapter, snake)
    assert of_types(events, "file", "source-url") == [
        {"type": "file", "url": f"data:image/jpeg;base64,{PNG}", "mediaType": "image/jpeg"},
        {"type": "source-url", "sourceId": "src_b423dca12540a7aa", "url": "https://a.example", "title": "A"},
    ]


def test_grounding_on_a_chunk_that_only_continues_a_streamed_call_is_read(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_chunks: Callable[..., list[Any]],
) -> None:
    """The one-argument fast path of Vertex `partialArgs` must not skip the candidate's grounding."""
    start = {"functionCall": {"name": "lookup", "willContinue": True}}
    more = {
        "functionCall": {
            "partialArgs": [{"jsonPath": "$.q", "stringValue": "tid", "willContinue": True}],
            "willContinue": True,
        }
    }
    stream = [
        _chunk([start]),
        _chunk([more], groundingMetadata=GROUNDING),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.q", "stringValue": "es"}]}}]),
        _chunk([{"functionCall": {}}], finishReason="STOP"),
    ]
    events = same_events(adapter, stream, sse(stream), sdk_chunks(sse(stream), vertex=True))
    assert of_types(events, "source-url") == PAGES
    assert of_types(events, "tool-input-available")[0]["input"] == {"q": "tides"}
