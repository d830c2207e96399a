"""Token usage and finish reasons of both OpenAI surfaces, mapped to the neutral ones."""

from __future__ import annotations

from typing import Any, Final

from toolwire.events import FinishReason, Usage

from .._frames import count_of, object_of

CHAT_FINISH_REASONS: Final[dict[str, FinishReason]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "content_filter": "content-filter",
}
"""`Choice.finish_reason` (`openai/types/chat/chat_completion_chunk.py`); anything else is `other`."""

INCOMPLETE_REASONS: Final[dict[str, FinishReason]] = {
    "max_output_tokens": "length",
    "content_filter": "content-filter",
}
"""`Response.incomplete_details.reason` (`openai/types/responses/response.py`); anything else is `other`."""


def chat_usage(usage: Any) -> Usage:
    """`CompletionUsage` (`openai/types/completion_usage.py`) in neutral form."""
    prompt_details = object_of(usage, "prompt_tokens_details", "usage.prompt_tokens_details")
    completion_details = object_of(usage, "completion_tokens_details", "usage.completion_tokens_details")
    return Usage(
        input_tokens=count_of(usage, "prompt_tokens", "usage.prompt_tokens"),
        output_tokens=count_of(usage, "completion_tokens", "usage.completion_tokens"),
        total_tokens=count_of(usage, "total_tokens", "usage.total_tokens"),
        reasoning_tokens=(
            count_of(completion_details, "reasoning_tokens", "usage.completion_tokens_details.reasoning_tokens")
            if completion_details is not None
            else None
        ),
        cached_input_tokens=(
            count_of(prompt_details, "cached_tokens", "usage.prompt_tokens_details.cached_tokens")
            if prompt_details is not None
            else None
        ),
    )


def responses_usage(usage: Any) -> Usage:
    """`ResponseUsage` (`openai/types/responses/response_usage.py`) in neutral form."""
    input_details = object_of(usage, "input_tokens_details", "usage.input_tokens_details")
    output_details = object_of(usage, "output_tokens_details", "usage.output_tokens_details")
    return Usage(
        input_tokens=count_of(usage, "input_tokens", "usage.input_tokens"),
        output_tokens=count_of(usage, "output_tokens", "usage.output_tokens"),
        total_tokens=count_of(usage, "total_tokens", "usage.total_tokens"),
        reasoning_tokens=(
            count_of(output_details, "reasoning_tokens", "usage.output_tokens_details.reasoning_tokens")
            if output_details is not None
            else None
        ),
        cached_input_tokens=(
            count_of(input_details, "cached_tokens", "usage.input_tokens_details.cached_tokens")
            if input_details is not None
            else None
        ),
    )
