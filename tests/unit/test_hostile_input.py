"""Hostile responses never escape `normalize` / `anormalize`, on every api, sync and async.

A frame nested past Python's recursion limit, a field of the wrong JSON type, a string where
a list belongs: each costs one `error` event naming the problem, the stream goes on, and the
events that come out are well typed. The property tests mutate one or more fields of valid
frames covering every field the decoders read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import get_adapter
from toolwire.events import (
    FINISH_REASONS,
    Error,
    Event,
    File,
    Finish,
    ReasoningDelta,
    SourceDocument,
    SourceUrl,
    Start,
    TextDelta,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
)

APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")
DEPTH = 1200
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH

ARGS = '{"city":"Paris"}'

CHAT_STREAM: list[dict[str, Any]] = [
    {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
    {"choices": [{"index": 0, "delta": {"reasoning_content": "hm", "content": "Hi", "refusal": "no"}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "t"}]},
                        {"type": "text", "text": "x"},
                    ]
                },
                "message": {"role": "assistant", "content": "Hix"},
            }
        ]
    },
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ARGS}}]}}]},
    {"choices": [{"index": 0, "delta": {"function_call": {"name": "g", "arguments": "{}"}}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {
        "choices": [],
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 2,
            "total_tokens": 3,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    },
    {"type": "chunk", "chunk": {"choices": [{"index": 1, "delta": {"content": "b"}, "finish_reason": "stop"}]}},
    {"error": {"message": "m", "type": "t", "code": "c"}},
]
CHAT_WHOLE: list[dict[str, Any]] = [
    {
        "id": "c2",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "t"}]},
                        {"type": "text", "text": "x"},
                    ],
                    "reasoning_content": "r",
                    "refusal": "no",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": ARGS}},
                        {"id": "d", "type": "custom", "custom": {"name": "g", "input": "raw"}},
                    ],
                    "function_call": {"name": "h", "arguments": "{}"},
                    "annotations": [
                        {"type": "url_citation", "url_citation": {"url": "https://a.example", "title": "A"}}
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        "search_results": [{"title": "B", "url": "https://b.example"}],
        "citations": ["https://c.example"],
    }
]

_RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
_USAGE = {
    "input_tokens": 1,
    "output_tokens": 2,
    "total_tokens": 3,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}
_FUNCTION_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ARGS}
_CUSTOM_CALL = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_2", "name": "g", "input": "SELECT 1"}
_MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "phase": "final_answer",
    "content": [
        {
            "type": "output_text",
            "text": "Hi",
            "annotations": [
                {"type": "url_citation", "url": "https://a.example", "title": "A", "start_index": 0, "end_index": 1},
                {"type": "container_file_citation", "container_id": "c", "file_id": "f", "filename": "n.csv"},
            ],
        },
        {"type": "refusal", "refusal": "no"},
    ],
}
_IMAGE = {
    "type": "image_generation_call",
    "id": "ig_1",
    "status": "completed",
    "result": "AAAA",
    "output_format": "png",
}
_REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "think"}],
    "content": [{"type": "reasoning_text", "text": "raw"}],
    "encrypted_content": "enc",
}
_SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}
RESPONSES_STREAM: list[dict[str, Any]] = [
    {"type": "response.created", "response": _RESPONSE},
    {"type": "response.output_item.added", "item": {**_REASONING, "summary": []}},
    {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "summary_index": 0},
    {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 0, "delta": "think"},
    {"type": "response.reasoning_text.delta", "item_id": "rs_1", "content_index": 0, "delta": "raw"},
    {"type": "response.output_item.done", "item": _REASONING},
    {"type": "response.output_item.added", "item": {**_MESSAGE, "content": []}},
    {"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "Hi"},
    {"type": "response.refusal.delta", "item_id": "msg_1", "content_index": 1, "delta": "no"},
    {
        "type": "response.output_text.annotation.added",
        "item_id": "msg_1",
        "content_index": 0,
        "annotation": {"type": "file_citation", "file_id": "file-1", "filename": "a.md", "index": 0},
    },
    {"type": "response.output_item.done", "item": _MESSAGE},
    {"type": "response.output_item.done", "item": _IMAGE},
    {"type": "response.output_item.added", "item": {**_FUNCTION_CALL, "arguments": ""}},
    {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": ARGS},
    {"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": ARGS},
    {"type": "response.output_item.done", "item": _FUNCTION_CALL},
    {"type": "response.output_item.added", "item": {**_CUSTOM_CALL, "input": ""}},
    {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "delta": "SELECT 1"},
    {"type": "response.custom_tool_call_input.done", "item_id": "ctc_1", "input": "SELECT 1"},
    {"type": "response.output_item.added", "item": {**_SEARCH, "status": "in_progress"}},
    {"type": "response.output_item.done", "item": _SEARCH},
    {"type": "error", "code": "c", "message": "m"},
    {"type": "response.completed", "response": {**_RESPONSE, "status": "completed", "usage": _USAGE}},
]
RESPONSES_WHOLE: list[dict[str, Any]] = [
    {
        **_RESPONSE,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [_REASONING, _MESSAGE, _FUNCTION_CALL, _CUSTOM_CALL, _SEARCH, _IMAGE],
        "usage": _USAGE,
    },
    {"type": "response.failed", "response": {**_RESPONSE, "status": "failed", "error": {"code": "c", "message": "m"}}},
]

_ANTHROPIC_USAGE = {
    "input_tokens": 1,
    "output_tokens": 1,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}
ANTHROPIC_STREAM: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": _ANTHROPIC_USAGE},
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}},
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "c"}},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
    },
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ARGS}},
    {"type": "content_block_stop", "index": 2},
    {
        "type": "content_block_start",
        "index": 3,
        "content_block": {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
    },
    {"type": "content_block_stop", "index": 3},
    {
        "type": "content_block_start",
        "index": 4,
        "content_block": {
            "type": "web_search_tool_result",
            "tool_use_id": "s1",
            "content": [{"type": "x"}, {"type": "web_search_result", "url": "https://a.example", "title": "A"}],
        },
    },
    {"type": "content_block_stop", "index": 4},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 5},
    },
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    {"type": "message_stop"},
]
ANTHROPIC_WHOLE: list[dict[str, Any]] = [
    {
        "type": "message",
        "id": "msg_2",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xx"},
            {
                "type": "text",
                "text": "Hi",
                "citations": [
                    {"type": "char_location"},
                    {"type": "page_location", "document_index": 0, "document_title": "T", "cited_text": "c"},
                    {"type": "web_search_result_location", "url": "https://a.example", "title": "A"},
                    {"type": "search_result_location", "search_result_index": 0, "source": "kb", "title": "K"},
                ],
            },
            {
                "type": "web_fetch_tool_result",
                "tool_use_id": "s2",
                "content": {"type": "web_fetch_result", "url": "https://b.example", "content": {"title": "B"}},
            },
            {"type": "tool_use", "id": "t1", "name": "f", "input": {"city": "Paris"}},
            {"type": "mcp_tool_use", "id": "m1", "name": "g", "server_name": "s", "input": {}},
            {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": True, "content": [{"type": "text"}]},
        ],
        "stop_reason": "end_turn",
        "usage": {**_ANTHROPIC_USAGE, "output_tokens_details": {"thinking_tokens": 0}},
    }
]


def _gemini(*parts: dict[str, Any], **candidate: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "index": 0, **candidate}]}


GEMINI_STREAM: list[dict[str, Any]] = [
    {**_gemini({"text": "think", "thought": True}, {"text": "Hi", "thoughtSignature": "sig"}), "responseId": "r1"},
    _gemini({"functionCall": {"name": "f", "args": {"city": "Paris"}, "id": "fc1"}}),
    _gemini({"functionCall": {"name": "g", "willContinue": True}}),
    _gemini({"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "Par", "willContinue": True}]}}),
    _gemini({"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "is"}], "willContinue": True}}),
    _gemini({"functionCall": {"partialArgs": [{"jsonPath": "$.n", "numberValue": 3}], "willContinue": True}}),
    _gemini({"functionCall": {}}),
    _gemini(
        {"executableCode": {"code": "print(1)", "language": "PYTHON"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
        {"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"q": 1}}},
        {"toolResponse": {"id": "s1", "response": {"r": 1}}},
        {"thoughtSignature": "sig2"},
        {"inlineData": {"mimeType": "image/png", "data": "AAAA"}, "thoughtSignature": "sig3"},
    ),
    {
        **_gemini(finishReason="STOP", finishMessage="done"),
        "usageMetadata": {
            "promptTokenCount": 1,
            "candidatesTokenCount": 2,
            "totalTokenCount": 3,
            "thoughtsTokenCount": 0,
            "cachedContentTokenCount": 0,
            "toolUsePromptTokenCount": 0,
        },
    },
]
GEMINI_WHOLE: list[dict[str, Any]] = [
    {"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "x"}},
    {"error": {"code": 400, "message": "m", "status": "INVALID_ARGUMENT"}},
    {**_gemini({"text": "a"}, finishReason=2), "createTime": "2025-01-01T00:00:00Z"},
    _gemini(
        {"text": "b"},
        groundingMetadata={
            "groundingChunks": [
                {"web": {"uri": "https://a.example", "title": "A"}},
                {"retrievedContext": {"uri": "gs://b/c.pdf", "title": "C"}},
            ]
        },
    ),
]

TEMPLATES: dict[str, list[list[dict[str, Any]]]] = {
    "openai-chat": [CHAT_STREAM, CHAT_WHOLE],
    "openai-responses": [RESPONSES_STREAM, RESPONSES_WHOLE],
    "anthropic": [ANTHROPIC_STREAM, ANTHROPIC_WHOLE],
    "gemini": [GEMINI_STREAM, GEMINI_WHOLE],
}

_DEEP = object()
"""Stands for a value nested DEPTH levels deep (spliced into the JSON text, built lazily for dicts)."""
HOSTILE_VALUES: list[Any] = [
    None,
    True,
    -1,
    2.5,
    "",
    "x" * 20_000,
    [],
    [1, "a", None],
    ["x"] * 50,
    {},
    {"k": "v"},
    _DEEP,
]
_DELETE = object()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every position in a JSON value (the root excluded)."""
    items: Any = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield (*prefix, key)
        yield from _paths(item, (*prefix, key))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    head, rest = path[0], path[1:]
    if not rest and new is _DELETE:
        del copy[head]
    else:
        copy[head] = _replaced(copy[head], rest, new)
    return copy


def _deep_value() -> Any:
    value: Any = 1
    for _ in range(DEPTH):
        value = {"a": value}
    return value


def _dict_frame(frame: dict[str, Any]) -> Any:
    """The frame as decoded JSON, with the deep marker built as a real nested value."""
    text = json.dumps(frame, default=lambda _: "__DEEP__")
    if "__DEEP__" not in text:
        return frame
    return _materialize(frame)


def _materialize(value: Any) -> Any:
    if value is _DEEP:
        return _deep_value()
    if isinstance(value, dict):
        return {k: _materialize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_materialize(v) for v in value]
    return value


def _sse(frames: list[dict[str, Any]]) -> bytes:
    lines = []
    for frame in frames:
        text = json.dumps(frame, default=lambda _: "__DEEP__").replace('"__DEEP__"', DEEP_OBJECT)
        lines.append(f"data: {text}\n\n")
    return "".join(lines).encode()


def _check(api: str, events: list[Event], frames: int) -> None:
    """Events are well typed, errors are bounded, and the stream finishes."""
    assert isinstance(events[0], Start)
    assert isinstance(events[-1], Finish)
    assert events[-1].finish_reason in FINISH_REASONS
    errors = [e for e in events if isinstance(e, Error)]
    assert len(errors) <= frames + 2, [e.error_text for e in errors[:5]]
    for event in events:
        if isinstance(event, (TextDelta, ReasoningDelta)):
            assert type(event.delta) is str
        elif isinstance(event, ToolInputDelta):
            assert type(event.input_text_delta) is str
        elif isinstance(event, (ToolInputStart, ToolInputAvailable, ToolInputError)):
            assert type(event.tool_name) is str
            assert type(event.tool_call_id) is str
            if isinstance(event, ToolInputAvailable):
                assert isinstance(event.input, dict)
        elif isinstance(event, Error):
            assert type(event.error_text) is str
        elif isinstance(event, (SourceUrl, SourceDocument, File)):
            texts = [event.url] if isinstance(event, (SourceUrl, File)) else [event.media_type, event.title]
            assert all(type(text) is str and text for text in texts)
            assert isinstance(event, File) or type(event.source_id) is str
        elif isinstance(event, Finish) and event.usage is not None:
            counts = (event.usage.input_tokens, event.usage.output_tokens, event.usage.total_tokens)
            assert all(count is None or type(count) is int for count in counts)


async def _collect(api: str, body: bytes) -> list[Event]:
    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    return [event async for event in get_adapter(api).anormalize(chunks())]


def _run_everywhere(api: str, frames: list[dict[str, Any]]) -> None:
    adapter = get_adapter(api)
    _check(api, list(adapter.normalize([_dict_frame(frame) for frame in frames])), len(frames))
    body = _sse(frames)
    _check(api, list(adapter.normalize(body)), len(frames))
    _check(api, asyncio.run(_collect(api, body)), len(frames))


@st.composite
def _mutated(draw: st.DrawFn, api: str) -> list[dict[str, Any]]:
    frames = list(draw(st.sampled_from(TEMPLATES[api])))
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(frames) - 1))
        paths = list(_paths(frames[index]))
        if not paths:
            continue
        path = draw(st.sampled_from(paths))
        new = draw(st.sampled_from([*HOSTILE_VALUES, _DELETE]))
        if new is _DELETE and not isinstance(path[-1], str):
            new = None
        frames[index] = _replaced(frames[index], path, new)
    return frames


class TestTemplatesAreValid:
    @pytest.mark.parametrize("api", APIS)
    def test_the_unmutated_templates_decode_without_a_decoding_error(self, api: str) -> None:
        """The property tests start from frames each decoder reads cleanly (provider errors aside)."""
        for frames in TEMPLATES[api]:
            events = list(get_adapter(api).normalize(frames))
            problems = [e.error_text for e in events if isinstance(e, Error) and "frame" in e.error_text]
            assert problems == []


class TestWrongTypesInEveryField:
    @pytest.mark.parametrize("api", APIS)
    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def test_no_exception_escapes_and_errors_stay_bounded(self, api: str, data: st.DataObject) -> None:
        """Any field replaced by a value of another JSON type (or removed): typed events, bounded errors."""
        _run_everywhere(api, data.draw(_mutated(api)))


class TestNesting:
    @pytest.mark.parametrize("api", APIS)
    @pytest.mark.parametrize(
        "body",
        [
            pytest.param(f"data: {DEEP_ARRAY}\n\n".encode(), id="sse-data"),
            pytest.param(DEEP_OBJECT.encode(), id="json-body"),
            pytest.param(f"[{DEEP_OBJECT}]".encode(), id="json-array-body"),
            pytest.param(f"{DEEP_OBJECT}\n{{}}\n".encode(), id="ndjson-line"),
        ],
    )
    def test_a_body_nested_past_the_recursion_limit_is_one_error_sync_and_async(self, api: str, body: bytes) -> None:
        chunked = [body[start : start + 1000] for start in range(0, len(body), 1000)]
        runs = (
            list(get_adapter(api).normalize(body)),
            list(get_adapter(api).normalize(chunked)),
            asyncio.run(_collect(api, body)),
        )
        for events in runs:
            errors = [e.error_text for e in events if isinstance(e, Error)]
            assert len(errors) == 1
            assert errors[0].startswith(f"{api}: ")
            assert "nested too deeply to decode" in errors[0]
            assert isinstance(events[-1], Finish)

    @settings(max_examples=40, deadline=None)
    @given(api=st.sampled_from(APIS), depth=st.integers(1, 3000), opener=st.sampled_from(["[", '{"a":']))
    def test_any_nesting_depth_is_decoded_or_one_error(self, api: str, depth: int, opener: str) -> None:
        closer = "]" if opener == "[" else "}"
        inner = opener * depth + ("1" if opener != "[" else "") + closer * depth
        body = f'data: {{"x": {inner}}}\n\n'.encode()
        events = list(get_adapter(api).normalize(body))
        assert isinstance(events[-1], Finish)
        assert len([e for e in events if isinstance(e, Error)]) <= 1


class TestReportedCases:
    def test_responses_arguments_of_the_wrong_type_without_a_done_event_is_one_error(self) -> None:
        frames = [
            {
                "type": "response.output_item.added",
                "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": -1},
            }
        ]
        events = list(get_adapter("openai-responses").normalize(frames))
        errors = [e.error_text for e in events if isinstance(e, Error)]
        assert len(errors) == 1
        assert errors[0].startswith(
            "skipped a malformed openai-responses frame: `item.arguments` must be a string, got number -1: "
        )
        assert isinstance(events[-1], Finish)

    def test_a_long_string_where_tool_calls_belong_is_one_error_not_one_per_character(self) -> None:
        frames = [{"choices": [{"index": 0, "delta": {"tool_calls": "x" * 200_000}}]}]
        errors = [e.error_text for e in get_adapter("openai-chat").normalize(frames) if isinstance(e, Error)]
        assert errors == [
            "skipped 1 malformed choices in one openai-chat frame; "
            "choices[0]: `delta.tool_calls` must be an array, got a string of 200000 characters"
        ]

    def test_two_hundred_thousand_malformed_calls_in_one_message_are_one_error(self) -> None:
        frames = [{"choices": [{"index": 0, "message": {"tool_calls": [{}] * 200_000}}]}]
        errors = [e.error_text for e in get_adapter("openai-chat").normalize(frames) if isinstance(e, Error)]
        assert errors == [
            "skipped 200000 malformed message.tool_calls in one openai-chat frame; "
            "message.tool_calls[0]: `.function` must be an object, got null"
        ]

    def test_many_nameless_calls_are_reported_in_one_error(self) -> None:
        frames = [
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": "{}"}}]}}]}
            for i in range(1000)
        ]
        errors = [e.error_text for e in get_adapter("openai-chat").normalize(frames) if isinstance(e, Error)]
        assert errors == ["1000 tool calls (0, 0), (0, 1), (0, 2) and 997 more sent arguments but never a tool name"]

    @pytest.mark.parametrize("api", APIS)
    def test_tool_arguments_nested_past_the_recursion_limit_are_a_tool_input_error(self, api: str) -> None:
        frames = {
            "openai-chat": [
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "tool_calls",
                            "message": {
                                "tool_calls": [
                                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": DEEP_ARRAY}}
                                ]
                            },
                        }
                    ]
                }
            ],
            "openai-responses": [
                {**_RESPONSE, "status": "completed", "output": [{**_FUNCTION_CALL, "arguments": DEEP_ARRAY}]}
            ],
            "anthropic": [
                {"type": "message_start", "message": {"id": "m", "content": []}},
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "id": "c1", "name": "f"},
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": DEEP_ARRAY},
                },
                {"type": "content_block_stop", "index": 0},
                {"type": "message_stop"},
            ],
            "gemini": [_gemini({"functionCall": {"name": "f", "args": _deep_value(), "id": "c1"}})],
        }[api]
        events = list(get_adapter(api).normalize(frames))
        refused = [e for e in events if isinstance(e, ToolInputError)]
        assert len(refused) == 1
        assert "is nested too deeply to decode" in refused[0].error_text
        assert isinstance(events[-1], Finish)
