"""Enums sent as protobuf numbers (`enum-encoding=int` bodies) read as their names, never as `other`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from google.genai import types

from toolwire.adapters.gemini._enums import (
    BLOCK_REASON,
    FINISH_REASON,
    OUTCOME,
    VERTEX_BLOCK_REASON,
    VERTEX_FINISH_REASON,
)

Decode = Callable[..., list[dict[str, Any]]]
VERTEX = {"createTime": "2025-06-01T10:00:00.000000Z"}


def finished(reason: int, **frame: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": reason, "index": 0}],
        **frame,
    }


def last(events: list[dict[str, Any]]) -> tuple[str, str]:
    return events[-1]["finishReason"], events[-1]["providerMetadata"]["google"]["finishReason"]


class TestFinishReasonNumbers:
    @pytest.mark.parametrize(
        ("number", "reason", "raw"),
        [
            (1, "stop", "STOP"),
            (2, "length", "MAX_TOKENS"),
            (3, "content-filter", "SAFETY"),
            (4, "content-filter", "RECITATION"),
            (5, "other", "OTHER"),
            (7, "content-filter", "BLOCKLIST"),
            (10, "error", "MALFORMED_FUNCTION_CALL"),
            (12, "error", "UNEXPECTED_TOOL_CALL"),
            (14, "content-filter", "IMAGE_PROHIBITED_CONTENT"),
        ],
    )
    def test_gemini_api_numbers(self, decode: Decode, number: int, reason: str, raw: str) -> None:
        assert last(decode([finished(number)])) == (reason, raw)

    @pytest.mark.parametrize(
        ("number", "reason", "raw"),
        [
            (1, "stop", "STOP"),
            (6, "content-filter", "BLOCKLIST"),
            (9, "error", "MALFORMED_FUNCTION_CALL"),
            (10, "content-filter", "MODEL_ARMOR"),
        ],
    )
    def test_vertex_numbers_when_the_response_has_a_create_time(
        self, decode: Decode, number: int, reason: str, raw: str
    ) -> None:
        assert last(decode([finished(number, **VERTEX)])) == (reason, raw)

    def test_a_number_no_table_knows_keeps_its_number_and_is_other(self, decode: Decode) -> None:
        assert last(decode([finished(99)])) == ("other", "FINISH_REASON_99")

    def test_a_finish_reason_of_another_type_is_one_error_naming_the_field(self, decode: Decode) -> None:
        errors = [e["errorText"] for e in decode([finished([1])]) if e["type"] == "error"]  # type: ignore[arg-type]
        assert errors == [
            "skipped 1 malformed candidates in one gemini frame; "
            "candidates[0]: `finishReason` must be an enum name or number, got an array of 1 items"
        ]


class TestOtherEnumNumbers:
    def test_a_blocked_prompt_with_a_numbered_block_reason(self, decode: Decode) -> None:
        assert decode([{"promptFeedback": {"blockReason": 1}}])[1:] == [
            {"type": "error", "errorText": "Gemini blocked the prompt (SAFETY)"},
            {
                "type": "finish",
                "finishReason": "content-filter",
                "providerMetadata": {"google": {"blockReason": "SAFETY"}},
            },
        ]

    def test_vertex_block_reason_numbers(self, decode: Decode) -> None:
        events = decode([{"promptFeedback": {"blockReason": 6}, **VERTEX}])
        assert events[-1]["providerMetadata"] == {"google": {"blockReason": "JAILBREAK"}}

    def test_code_execution_with_numbered_language_and_outcome(self, decode: Decode) -> None:
        parts = [
            {"executableCode": {"code": "print(1)", "language": 1, "id": "x1"}},
            {"codeExecutionResult": {"outcome": 1, "output": "1\n", "id": "x1"}},
        ]
        events = decode([{"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]}])
        call = next(e for e in events if e["type"] == "tool-input-available")
        assert call["input"] == {"code": "print(1)", "language": "PYTHON"}
        output = next(e for e in events if e["type"] == "tool-output-available")
        assert output["output"] == {"outcome": "OUTCOME_OK", "output": "1\n"}


class TestTablesMatchTheSdk:
    @pytest.mark.parametrize(
        ("table", "sdk_enum"),
        [
            (FINISH_REASON, types.FinishReason),
            (VERTEX_FINISH_REASON, types.FinishReason),
            (BLOCK_REASON, types.BlockedReason),
            (VERTEX_BLOCK_REASON, types.BlockedReason),
            (OUTCOME, types.Outcome),
        ],
    )
    def test_every_numbered_name_is_a_name_google_genai_knows(self, table: tuple[str, ...], sdk_enum: Any) -> None:
        assert set(table) <= {member.value for member in sdk_enum}
