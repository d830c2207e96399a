"""OpenAI-compatible servers that stretch the Chat format: cumulative snapshots, typed content chunks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Events = Callable[..., list[dict[str, Any]]]
Sse = Callable[..., bytes]


def chunk(choice: dict[str, Any]) -> dict[str, Any]:
    return {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [choice]}


def snapshot_chunk(delta: str, so_far: str, finish: str | None = None) -> dict[str, Any]:
    """A Perplexity-style chunk: the delta, and the whole message so far beside it."""
    return chunk(
        {
            "index": 0,
            "delta": {"role": "assistant", "content": delta},
            "message": {"role": "assistant", "content": so_far},
            "finish_reason": finish,
        }
    )


THINKING = {
    "type": "thinking",
    "thinking": [{"type": "text", "text": "Russia is "}, {"type": "text", "text": "largest."}],
}


def text_of(events: list[dict[str, Any]], kind: str) -> str:
    return "".join(e["delta"] for e in events if e["type"] == f"{kind}-delta")


class TestCumulativeSnapshots:
    def test_the_delta_is_read_and_the_cumulative_message_beside_it_never(self, events: Events, sse: Sse) -> None:
        frames = [
            snapshot_chunk("The", "The"),
            snapshot_chunk(" largest country", "The largest country"),
            snapshot_chunk(" is Russia.", "The largest country is Russia."),
            snapshot_chunk("", "The largest country is Russia.", finish="stop"),
        ]
        decoded = events(sse(frames))
        assert [e for e in decoded if e["type"] == "text-delta"] == [
            {"type": "text-delta", "id": "text-0", "delta": "The"},
            {"type": "text-delta", "id": "text-0", "delta": " largest country"},
            {"type": "text-delta", "id": "text-0", "delta": " is Russia."},
        ]
        assert decoded[-1] == {"type": "finish", "finishReason": "stop"}

    def test_a_choice_with_only_a_message_is_still_a_whole_completion(self, events: Events) -> None:
        completion = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}],
        }
        assert text_of(events([completion]), "text") == "Hi"


class TestTypedContentChunks:
    def test_streamed_thinking_chunks_are_reasoning_and_text_chunks_text(self, events: Events, sse: Sse) -> None:
        frames = [
            chunk({"index": 0, "delta": {"role": "assistant", "content": [THINKING]}}),
            chunk({"index": 0, "delta": {"content": [{"type": "text", "text": "Russia."}]}}),
            chunk({"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}),
        ]
        assert events(sse(frames)) == [
            {"type": "start", "messageId": "cmpl-1"},
            {"type": "reasoning-start", "id": "reasoning-0"},
            {"type": "reasoning-delta", "id": "reasoning-0", "delta": "Russia is largest."},
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "Russia."},
            {"type": "reasoning-end", "id": "reasoning-0"},
            {"type": "text-end", "id": "text-0"},
            {"type": "finish", "finishReason": "stop"},
        ]

    def test_a_chunk_list_holding_thinking_then_text_keeps_their_order(self, events: Events) -> None:
        frames = [chunk({"index": 0, "delta": {"content": [THINKING, {"type": "text", "text": "Russia."}]}})]
        kinds = [e["type"] for e in events(frames) if e["type"].endswith("-delta")]
        assert kinds == ["reasoning-delta", "text-delta"]

    def test_a_whole_completion_with_thinking_and_text_chunks(self, events: Events) -> None:
        completion = {
            "id": "cmpl-2",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": [THINKING, {"type": "text", "text": "Russia."}]},
                }
            ],
        }
        assert events([completion]) == [
            {"type": "start", "messageId": "cmpl-2"},
            {"type": "reasoning-start", "id": "reasoning-0"},
            {"type": "reasoning-delta", "id": "reasoning-0", "delta": "Russia is largest."},
            {"type": "reasoning-end", "id": "reasoning-0"},
            {"type": "text-start", "id": "text-0"},
            {"type": "text-delta", "id": "text-0", "delta": "Russia."},
            {"type": "text-end", "id": "text-0"},
            {"type": "finish", "finishReason": "stop"},
        ]

    def test_thinking_given_as_a_plain_string_is_reasoning_too(self, events: Events) -> None:
        frames = [chunk({"index": 0, "delta": {"content": [{"type": "thinking", "thinking": "hmm"}]}})]
        assert text_of(events(frames), "reasoning") == "hmm"

    def test_chunks_without_text_such_as_references_add_nothing(self, events: Events) -> None:
        frames = [chunk({"index": 0, "delta": {"content": [{"type": "reference", "reference_ids": [1]}]}})]
        assert [e["type"] for e in events(frames)] == ["start", "finish"]

    def test_the_sdk_objects_of_a_mistral_stream_decode_the_same(
        self, events: Events, sse: Sse, sdk_chunks: Callable[[bytes], list[Any]]
    ) -> None:
        frames = [
            chunk({"index": 0, "delta": {"content": [THINKING]}}),
            chunk({"index": 0, "delta": {"content": [{"type": "text", "text": "Russia."}]}, "finish_reason": "stop"}),
        ]
        assert events(sdk_chunks(sse(frames))) == events(sse(frames))

    def test_a_content_chunk_of_the_wrong_type_is_one_error_naming_the_field(self, events: Events) -> None:
        frames = [chunk({"index": 0, "delta": {"content": [{"type": "text", "text": 7}]}})]
        errors = [e["errorText"] for e in events(frames) if e["type"] == "error"]
        assert errors == [
            "skipped 1 malformed choices in one openai-chat frame; "
            "choices[0]: `delta.content[0].text` must be a string, got number 7"
        ]
