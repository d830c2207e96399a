"""Responses annotations become `source-url` / `source-document` events, and generated images `file` events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolwire.adapter import Adapter

SameEvents = Callable[..., list[dict[str, Any]]]
OfTypes = Callable[..., list[dict[str, Any]]]

URL_CITATION = {
    "type": "url_citation",
    "url": "https://a.example/tides",
    "title": "Tides",
    "start_index": 0,
    "end_index": 5,
}
FILE_CITATION = {"type": "file_citation", "file_id": "file-abc", "filename": "notes.md", "index": 5}
CONTAINER_CITATION = {
    "type": "container_file_citation",
    "container_id": "cntr_1",
    "file_id": "cfile_2",
    "filename": "chart.csv",
    "start_index": 0,
    "end_index": 5,
}
TEXT = "Tides follow the moon."
MESSAGE_ITEM = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [
        {"type": "output_text", "text": TEXT, "annotations": [URL_CITATION, FILE_CITATION, URL_CITATION]},
    ],
}
PNG = "iVBORw0KGgo="
IMAGE_ITEM = {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": PNG}
RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-5",
    "status": "completed",
    "output": [MESSAGE_ITEM, IMAGE_ITEM],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
}


def _stream() -> list[dict[str, Any]]:
    created = {**RESPONSE, "status": "in_progress", "output": [], "usage": None}
    opened = {**MESSAGE_ITEM, "status": "in_progress", "content": []}
    frames: list[dict[str, Any]] = [
        {"type": "response.created", "response": created},
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
         "delta": TEXT},
    ]  # fmt: skip
    for position, annotation in enumerate([URL_CITATION, FILE_CITATION, URL_CITATION]):
        frames.append(
            {
                "type": "response.output_text.annotation.added",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "annotation_index": position,
                "annotation": annotation,
            }
        )
    frames += [
        {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE_ITEM},
        {"type": "response.output_item.added", "output_index": 1, "item": {**IMAGE_ITEM, "result": None}},
        {"type": "response.output_item.done", "output_index": 1, "item": IMAGE_ITEM},
        {"type": "response.completed", "response": RESPONSE},
    ]
    return [{**frame, "sequence_number": n} for n, frame in enumerate(frames)]


PAGE = {"type": "source-url", "sourceId": "src_1158d6cfc59d3f61", "url": "https://a.example/tides", "title": "Tides"}
NOTES = {
    "type": "source-document",
    "sourceId": "file-abc",
    "mediaType": "text/plain",
    "title": "notes.md",
    "filename": "notes.md",
    "providerMetadata": {"openai": {"type": "file_citation", "fileId": "file-abc"}},
}
IMAGE = {
    "type": "file",
    "url": f"data:image/png;base64,{PNG}",
    "mediaType": "image/png",
    "providerMetadata": {"openai": {"itemId": "ig_1"}},
}


def test_streamed_annotations_are_sources_as_they_arrive_each_once(
    same_events: SameEvents,
    of_types: OfTypes,
    adapter: Adapter,
    sse: Callable[..., bytes],
    sdk_events: Callable[[bytes], list[Any]],
) -> None:
    frames = _stream()
    events = same_events(adapter, frames, sse(frames), sdk_events(sse(frames)))
    assert [e["type"] for e in events[:6]] == ["start", "text-start", "text-delta", "source-url", "source-document",
                                               "text-end"]  # fmt: skip
    assert of_types(events, "source-url", "source-document", "file") == [PAGE, NOTES, IMAGE]


def test_a_whole_response_gives_its_sources_after_their_text_and_the_image_as_a_file(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter, sdk_response: Callable[[dict[str, Any]], Any]
) -> None:
    events = same_events(adapter, RESPONSE, json.dumps(RESPONSE).encode(), sdk_response(RESPONSE))
    assert [e["type"] for e in events[:6]] == ["start", "text-start", "text-delta", "text-end", "source-url",
                                               "source-document"]  # fmt: skip
    assert of_types(events, "source-url", "source-document", "file") == [PAGE, NOTES, IMAGE]


def test_the_image_call_stays_a_provider_executed_call_beside_its_file(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    events = same_events(adapter, RESPONSE)
    assert of_types(events, "tool-output-available")[0]["toolCallId"] == "ig_1"


def test_container_files_and_file_paths_are_documents_named_by_their_ids(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    path = {"type": "file_path", "file_id": "file-xyz", "index": 3}
    item = {
        **MESSAGE_ITEM,
        "content": [{"type": "output_text", "text": TEXT, "annotations": [CONTAINER_CITATION, path]}],
    }
    events = same_events(adapter, {**RESPONSE, "output": [item]})
    assert of_types(events, "source-document") == [
        {
            "type": "source-document",
            "sourceId": "cntr_1/cfile_2",
            "mediaType": "text/plain",
            "title": "chart.csv",
            "filename": "chart.csv",
            "providerMetadata": {
                "openai": {"type": "container_file_citation", "fileId": "cfile_2", "containerId": "cntr_1"}
            },
        },
        {
            "type": "source-document",
            "sourceId": "file-xyz",
            "mediaType": "application/octet-stream",
            "title": "file-xyz",
            "providerMetadata": {"openai": {"type": "file_path", "fileId": "file-xyz"}},
        },
    ]


def test_an_image_in_another_format_keeps_its_media_type(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    image = {**IMAGE_ITEM, "output_format": "webp"}
    (file,) = of_types(same_events(adapter, {**RESPONSE, "output": [image]}), "file")
    assert (file["url"], file["mediaType"]) == (f"data:image/webp;base64,{PNG}", "image/webp")


def test_an_image_call_without_a_result_has_no_file(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    image = {**IMAGE_ITEM, "status": "failed", "result": None}
    assert of_types(same_events(adapter, {**RESPONSE, "output": [image]}), "file") == []


def test_unreadable_annotations_are_skipped_and_the_text_kept(
    same_events: SameEvents, of_types: OfTypes, adapter: Adapter
) -> None:
    annotations: Any = [{"type": "url_citation"}, {"type": "file_citation", "file_id": 3}, "x", None]
    item = {**MESSAGE_ITEM, "content": [{"type": "output_text", "text": TEXT, "annotations": annotations}]}
    events = same_events(adapter, {**RESPONSE, "output": [item]})
    assert [e["type"] for e in events] == ["start", "text-start", "text-delta", "text-end", "finish"]
