"""Sources and files of every API through toolwire.ui, read by the `ai` package, then read back by toolwire.

Each response's chunks must pass `uiMessageChunkSchema` with no unknown field, read into one UI
message by `readUIMessageStream` and validate; the message's `source-url`, `source-document` and
`file` parts are then what the events said, and `read_ui_messages` takes the message back.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import get_adapter
from toolwire.messages import AssistantMessage, MediaPart, TextPart
from toolwire.ui import encode_sse, read_ui_messages, ui_message_chunks

from .conftest import Node

PNG = "iVBORw0KGgo="
TEXT = "Tides follow the moon."
RESPONSES: dict[str, Any] = {
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tides"}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://a.example/tides",
                        "title": "Tides",
                        "encrypted_content": "E1",
                        "page_age": "2 days ago",
                    }
                ],
            },
            {
                "type": "text",
                "text": TEXT,
                "citations": [
                    {
                        "type": "page_location",
                        "document_index": 0,
                        "document_title": "Report",
                        "start_page_number": 1,
                        "end_page_number": 2,
                        "cited_text": "moon",
                    }
                ],
            },
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 9},
    },
    "openai-responses": {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": TEXT,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://a.example/tides",
                                "title": "Tides",
                                "start_index": 0,
                                "end_index": 5,
                            },
                            {"type": "file_citation", "file_id": "file-abc", "filename": "notes.md", "index": 5},
                        ],
                    }
                ],
            },
            {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": PNG},
        ],
        "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
    },
    "openai-chat": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": TEXT,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "url": "https://a.example/tides",
                                "title": "Tides",
                                "start_index": 0,
                                "end_index": 5,
                            },
                        },
                    ],
                },
                "finish_reason": "stop",
            }
        ],
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": TEXT}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
                },
                "finishReason": "STOP",
                "groundingMetadata": {
                    "groundingChunks": [
                        {"web": {"uri": "https://a.example/tides", "title": "Tides"}},
                        {"retrievedContext": {"uri": "gs://b/notes.txt", "title": "Notes"}},
                    ]
                },
            }
        ],
        "responseId": "resp_1",
    },
}
PAGE = {"type": "source-url", "sourceId": "src_1158d6cfc59d3f61", "url": "https://a.example/tides", "title": "Tides"}
IMAGE = {"type": "file", "mediaType": "image/png", "url": f"data:image/png;base64,{PNG}"}
EXPECTED: dict[str, list[dict[str, Any]]] = {
    "anthropic": [
        {**PAGE, "providerMetadata": {"anthropic": {"pageAge": "2 days ago"}}},
        {
            "type": "source-document",
            "sourceId": "src_96dfa1f8e7219e90",
            "mediaType": "application/pdf",
            "title": "Report",
            "providerMetadata": {"anthropic": {"documentIndex": 0}},
        },
    ],
    "openai-responses": [
        PAGE,
        {
            "type": "source-document",
            "sourceId": "file-abc",
            "mediaType": "text/plain",
            "title": "notes.md",
            "filename": "notes.md",
            "providerMetadata": {"openai": {"type": "file_citation", "fileId": "file-abc"}},
        },
        {**IMAGE, "providerMetadata": {"openai": {"itemId": "ig_1"}}},
    ],
    "openai-chat": [PAGE],
    "gemini": [
        IMAGE,
        PAGE,
        {
            "type": "source-document",
            "sourceId": "src_155cf09b91465b59",
            "mediaType": "text/plain",
            "title": "Notes",
            "filename": "notes.txt",
            "providerMetadata": {"google": {"uri": "gs://b/notes.txt"}},
        },
    ],
}


@pytest.fixture(scope="module")
def judged(node: Node) -> dict[str, Any]:
    items = []
    for api, response in RESPONSES.items():
        events = list(get_adapter(api).normalize(response))
        body = b"".join(encode_sse(ui_message_chunks(events, message_id="msg_1")))
        items.append({"id": api, "text": body.decode()})
    found: dict[str, Any] = node.run("frames.mjs", {"items": items})
    return found


@pytest.mark.parametrize("api", list(RESPONSES))
def test_the_sdk_takes_every_source_and_file_chunk_as_a_part(judged: dict[str, Any], api: str) -> None:
    found = judged[api]
    assert (found["problems"], found["errors"], found["messageIds"], found["validation"]) == ([], [], ["msg_1"], None)
    parts = [p for p in found["parts"] if p["type"] in ("source-url", "source-document", "file")]
    assert parts == EXPECTED[api]


@pytest.mark.parametrize("api", list(RESPONSES))
def test_the_message_the_sdk_built_is_read_back_with_its_sources_shown_only(judged: dict[str, Any], api: str) -> None:
    message = {"id": "msg_1", "role": "assistant", "parts": judged[api]["parts"]}
    user = {"id": "u", "role": "user", "parts": [{"type": "text", "text": "Why tides?"}]}
    (_, assistant) = read_ui_messages([user, message]).messages
    assert isinstance(assistant, AssistantMessage)
    kept = [p for p in assistant.content if isinstance(p, (TextPart, MediaPart))]
    files = [p.part for p in kept if isinstance(p, MediaPart)]
    assert [p.text for p in kept if isinstance(p, TextPart)] == [TEXT]
    assert files == [{"type": "image-data", "data": PNG, "mediaType": "image/png"}] * (
        api in ("gemini", "openai-responses")
    )
