"""Specification of the unified events: exact JSON forms (AI SDK UI stream names), round trips and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.events import (
    EVENT_CLASSES,
    Abort,
    BackgroundTaskFinished,
    BackgroundTaskProgress,
    BackgroundTaskStarted,
    Error,
    Event,
    File,
    Finish,
    FinishStep,
    PartialToolInputDelta,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    SourceDocument,
    SourceUrl,
    Start,
    StartStep,
    TextDelta,
    TextEnd,
    TextStart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolResumed,
    ToolResumeError,
    ToolSuspended,
    Usage,
    from_dict,
)

META = {"google": {"thoughtSignature": "c2ln"}}

CASES: list[tuple[Event, dict[str, Any]]] = [
    (Start(), {"type": "start"}),
    (
        Start(message_id="msg_1", provider_metadata=META),
        {"type": "start", "messageId": "msg_1", "providerMetadata": META},
    ),
    (TextStart(id="0"), {"type": "text-start", "id": "0"}),
    (TextStart(id="0", provider_metadata=META), {"type": "text-start", "id": "0", "providerMetadata": META}),
    (TextDelta(id="0", delta="Hel"), {"type": "text-delta", "id": "0", "delta": "Hel"}),
    (TextEnd(id="0"), {"type": "text-end", "id": "0"}),
    (ReasoningStart(id="r"), {"type": "reasoning-start", "id": "r"}),
    (ReasoningDelta(id="r", delta="think"), {"type": "reasoning-delta", "id": "r", "delta": "think"}),
    (
        ReasoningEnd(id="r", provider_metadata={"anthropic": {"signature": "sig"}}),
        {"type": "reasoning-end", "id": "r", "providerMetadata": {"anthropic": {"signature": "sig"}}},
    ),
    (
        ToolInputStart(tool_call_id="c1", tool_name="weather"),
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
    ),
    (
        ToolInputStart(tool_call_id="s1", tool_name="web_search", provider_executed=True),
        {"type": "tool-input-start", "toolCallId": "s1", "toolName": "web_search", "providerExecuted": True},
    ),
    (
        ToolInputDelta(tool_call_id="c1", input_text_delta='{"ci'),
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"ci'},
    ),
    (
        ToolInputAvailable(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Oslo"}},
    ),
    (
        ToolInputAvailable(
            tool_call_id="s1", tool_name="web_search", input={}, provider_executed=True, provider_metadata=META
        ),
        {
            "type": "tool-input-available",
            "toolCallId": "s1",
            "toolName": "web_search",
            "input": {},
            "providerExecuted": True,
            "providerMetadata": META,
        },
    ),
    (
        ToolInputError(tool_call_id="c1", tool_name="weather", input='{"city"', error_text="not JSON"),
        {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": '{"city"',
            "errorText": "not JSON",
        },
    ),
    (
        ToolOutputAvailable(tool_call_id="c1", output={"celsius": 21}),
        {"type": "tool-output-available", "toolCallId": "c1", "output": {"celsius": 21}},
    ),
    (
        ToolOutputAvailable(tool_call_id="s1", output=[1], provider_executed=True),
        {"type": "tool-output-available", "toolCallId": "s1", "output": [1], "providerExecuted": True},
    ),
    (
        ToolOutputError(tool_call_id="c1", error_text="boom"),
        {"type": "tool-output-error", "toolCallId": "c1", "errorText": "boom"},
    ),
    (ToolOutputDenied(tool_call_id="c1"), {"type": "tool-output-denied", "toolCallId": "c1"}),
    (
        ToolApprovalRequest(approval_id="a1", tool_call_id="c1"),
        {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"},
    ),
    (
        ToolApprovalRequest(approval_id="a1", tool_call_id="c1", approval_descriptor={"path": "a.txt"}),
        {
            "type": "tool-approval-request",
            "approvalId": "a1",
            "toolCallId": "c1",
            "approvalDescriptor": {"path": "a.txt"},
        },
    ),
    (
        ToolApprovalResponse(approval_id="a1", approved=False, reason="not now"),
        {"type": "tool-approval-response", "approvalId": "a1", "approved": False, "reason": "not now"},
    ),
    (
        ToolSuspended(tool_call_id="c1", payload={"question": "Which?"}),
        {"type": "tool-suspended", "toolCallId": "c1", "payload": {"question": "Which?"}},
    ),
    (ToolResumed(tool_call_id="c1"), {"type": "tool-resumed", "toolCallId": "c1"}),
    (
        ToolResumed(tool_call_id="c1", payload={"size": "XL"}),
        {"type": "tool-resumed", "toolCallId": "c1", "payload": {"size": "XL"}},
    ),
    (
        ToolResumeError(tool_call_id="c1", error_text="bad size"),
        {"type": "tool-resume-error", "toolCallId": "c1", "errorText": "bad size"},
    ),
    (Abort(), {"type": "abort"}),
    (Abort(reason="user stop"), {"type": "abort", "reason": "user stop"}),
    (StartStep(), {"type": "start-step"}),
    (FinishStep(), {"type": "finish-step"}),
    (
        FinishStep(finish_reason="tool-calls", usage=Usage(input_tokens=3)),
        {"type": "finish-step", "finishReason": "tool-calls", "usage": {"inputTokens": 3}},
    ),
    (Finish(finish_reason="stop"), {"type": "finish", "finishReason": "stop"}),
    (
        Finish(
            finish_reason="length",
            usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15, reasoning_tokens=2, cached_input_tokens=4),
            provider_metadata={"openai": {"responseId": "resp_1"}},
        ),
        {
            "type": "finish",
            "finishReason": "length",
            "usage": {
                "inputTokens": 10,
                "outputTokens": 5,
                "totalTokens": 15,
                "reasoningTokens": 2,
                "cachedInputTokens": 4,
            },
            "providerMetadata": {"openai": {"responseId": "resp_1"}},
        },
    ),
    (Error(error_text="overloaded"), {"type": "error", "errorText": "overloaded"}),
    (
        BackgroundTaskStarted(task_id="task_1", tool_call_id="c1", tool_name="research"),
        {"type": "background-task-started", "taskId": "task_1", "toolCallId": "c1", "toolName": "research"},
    ),
    (
        BackgroundTaskProgress(task_id="task_1", tool_call_id="c1", tool_name="research", data={"done": 3}),
        {
            "type": "background-task-progress",
            "taskId": "task_1",
            "toolCallId": "c1",
            "toolName": "research",
            "data": {"done": 3},
        },
    ),
    (
        BackgroundTaskFinished(
            task_id="task_1", tool_call_id="c1", tool_name="research", status="completed", output={"pages": 3}
        ),
        {
            "type": "background-task-finished",
            "taskId": "task_1",
            "toolCallId": "c1",
            "toolName": "research",
            "status": "completed",
            "output": {"pages": 3},
        },
    ),
    (
        BackgroundTaskFinished(
            task_id="task_2", tool_call_id="c2", tool_name="research", status="timed-out", error_text="too slow"
        ),
        {
            "type": "background-task-finished",
            "taskId": "task_2",
            "toolCallId": "c2",
            "toolName": "research",
            "status": "timed-out",
            "errorText": "too slow",
        },
    ),
    (
        SourceUrl(source_id="src_1", url="https://example.com/tides"),
        {"type": "source-url", "sourceId": "src_1", "url": "https://example.com/tides"},
    ),
    (
        SourceUrl(source_id="src_1", url="https://example.com/tides", title="Tides", provider_metadata=META),
        {
            "type": "source-url",
            "sourceId": "src_1",
            "url": "https://example.com/tides",
            "title": "Tides",
            "providerMetadata": META,
        },
    ),
    (
        SourceDocument(source_id="file_1", media_type="text/plain", title="Notes"),
        {"type": "source-document", "sourceId": "file_1", "mediaType": "text/plain", "title": "Notes"},
    ),
    (
        SourceDocument(source_id="file_1", media_type="application/pdf", title="Report", filename="report.pdf"),
        {
            "type": "source-document",
            "sourceId": "file_1",
            "mediaType": "application/pdf",
            "title": "Report",
            "filename": "report.pdf",
        },
    ),
    (
        File(url="data:image/png;base64,iVBORw0KGgo=", media_type="image/png", provider_metadata=META),
        {
            "type": "file",
            "url": "data:image/png;base64,iVBORw0KGgo=",
            "mediaType": "image/png",
            "providerMetadata": META,
        },
    ),
]


class _Partial:
    """A partial-input source returning a canned value per delta count."""

    def partial_value(self, position: int) -> Any:
        return {"count": position}


class TestJsonForms:
    @pytest.mark.parametrize(("event", "expected"), CASES, ids=[f"{e.type}-{i}" for i, (e, _) in enumerate(CASES)])
    def test_to_dict_gives_the_exact_json_form(self, event: Event, expected: dict[str, Any]) -> None:
        """`type` plus camelCase fields; unset optional fields and false flags are omitted."""
        assert event.to_dict() == expected

    @pytest.mark.parametrize(("event", "expected"), CASES, ids=[f"{e.type}-{i}" for i, (e, _) in enumerate(CASES)])
    def test_from_dict_reads_back_the_same_event(self, event: Event, expected: dict[str, Any]) -> None:
        """Every JSON form rebuilds an equal event."""
        assert from_dict(expected) == event

    def test_every_event_class_is_covered_and_registered_by_its_type(self) -> None:
        """The table above exercises every event type the registry knows."""
        assert {event.type for event, _ in CASES} == set(EVENT_CLASSES)
        assert all(cls.type == name for name, cls in EVENT_CLASSES.items())

    def test_validated_input_is_never_serialized_nor_compared(self) -> None:
        """The typed value `execute` receives stays in process."""
        event = ToolInputAvailable(tool_call_id="c", tool_name="t", input={"a": 1}, validated_input=object())
        assert "validatedInput" not in event.to_dict()
        assert event == ToolInputAvailable(tool_call_id="c", tool_name="t", input={"a": 1})

    def test_a_null_tool_output_keeps_its_output_field(self) -> None:
        """A tool that returns None still sends `output: null`, which front ends require."""
        event = ToolOutputAvailable(tool_call_id="c", output=None)
        assert event.to_dict() == {"type": "tool-output-available", "toolCallId": "c", "output": None}
        assert from_dict(event.to_dict()) == event

    def test_a_null_tool_input_error_keeps_its_input_field(self) -> None:
        """A model that sends `null` as arguments gets an error event that still carries `input`."""
        event = ToolInputError(tool_call_id="c", tool_name="t", input=None, error_text="must be an object")
        assert from_dict(event.to_dict()) == event


class TestPartialInput:
    def test_without_partial_parsing_there_is_no_partial_input(self) -> None:
        """`partial_input` is None and `partialInput` absent unless the stream was asked for it."""
        event = ToolInputDelta(tool_call_id="c", input_text_delta="{")
        assert event.partial_input is None
        assert "partialInput" not in event.to_dict()

    def test_partial_input_is_computed_for_the_delta_it_belongs_to(self) -> None:
        """The source is asked for the value as of this delta's position, and it is serialized."""
        event = PartialToolInputDelta(tool_call_id="c", input_text_delta="{", _partial=_Partial(), _position=3)
        assert event.partial_input == {"count": 3}
        assert event.to_dict() == {
            "type": "tool-input-delta",
            "toolCallId": "c",
            "inputTextDelta": "{",
            "partialInput": {"count": 3},
        }

    def test_partial_input_is_ignored_when_reading_back_and_not_compared(self) -> None:
        """`partialInput` is derived data: from_dict drops it and equality ignores its source."""
        event = from_dict({"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": "{", "partialInput": {}})
        assert event == ToolInputDelta(tool_call_id="c", input_text_delta="{")
        first = PartialToolInputDelta(tool_call_id="c", input_text_delta="{", _partial=_Partial(), _position=1)
        second = PartialToolInputDelta(tool_call_id="c", input_text_delta="{", _partial=_Partial(), _position=2)
        assert first == second


class TestRefusals:
    @pytest.mark.parametrize("kind", ["tool-call", None, 3])
    def test_an_unknown_type_lists_the_known_ones(self, kind: Any) -> None:
        """A typo in `type` is reported with every valid type."""
        known = r"\['abort', 'background-task-finished', 'background-task-progress', 'background-task-started', 'error'"
        with pytest.raises(ValueError, match=rf"^unknown event type {kind!r}; known: {known}"):
            from_dict({"type": kind})

    def test_a_field_of_another_event_is_refused(self) -> None:
        """Fields are checked against the event type."""
        with pytest.raises(ValueError, match=r"^'text-delta' events have no field 'toolCallId'$"):
            from_dict({"type": "text-delta", "id": "0", "delta": "x", "toolCallId": "c"})

    def test_a_field_of_another_event_is_refused_on_source_events_too(self) -> None:
        """`source-url`, `source-document` and `file` check their fields like every event."""
        with pytest.raises(ValueError, match=r"^'file' events have no field 'title'$"):
            from_dict({"type": "file", "url": "data:,", "mediaType": "text/plain", "title": "x"})

    def test_a_source_field_of_the_wrong_type_is_refused(self) -> None:
        """A URL that is not a string cannot become a link."""
        with pytest.raises(ValueError, match=r"^bad 'source-url' event: 'url' must be a string, not int$"):
            from_dict({"type": "source-url", "sourceId": "s", "url": 3})

    def test_a_missing_source_field_is_refused(self) -> None:
        """A document source needs its title (the UI chunk schema requires it)."""
        with pytest.raises(ValueError, match=r"^bad 'source-document' event: .*'title'"):
            from_dict({"type": "source-document", "sourceId": "s", "mediaType": "text/plain"})

    def test_a_missing_required_field_is_refused(self) -> None:
        """The constructor's complaint is kept, prefixed with the event type."""
        with pytest.raises(ValueError, match=r"^bad 'tool-input-start' event: .*'tool_name'"):
            from_dict({"type": "tool-input-start", "toolCallId": "c"})


class TestUsage:
    def test_usage_round_trips_and_omits_unset_counts(self) -> None:
        """Counts the provider did not report stay unset."""
        usage = Usage(output_tokens=7)
        assert usage.to_dict() == {"outputTokens": 7}
        assert Usage.from_dict(usage.to_dict()) == usage
