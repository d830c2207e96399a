"""Events → UI message chunks: one message per run, every chunk in the protocol's vocabulary."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolwire import Agent
from toolwire.compat import Degradation
from toolwire.deltas import StepFinished
from toolwire.events import (
    Abort,
    BackgroundTaskFinished,
    BackgroundTaskProgress,
    BackgroundTaskStarted,
    Error,
    Finish,
    FinishStep,
    ReasoningEnd,
    Start,
    StartStep,
    TextDelta,
    TextEnd,
    TextStart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolInputAvailable,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputError,
    ToolResumed,
    ToolResumeError,
    ToolSuspended,
    Usage,
)
from toolwire.messages import AssistantMessage, user
from toolwire.results import ToolCall, ToolResult
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import create_tool
from toolwire.ui import UIMessageStream, agent_chunks, aui_message_chunks, ui_message_chunks


def chunks(events: list[Any], **settings: Any) -> list[dict[str, Any]]:
    return list(ui_message_chunks(events, message_id="msg_1", **settings))


def types(found: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in found]


class TestOneMessagePerRun:
    def test_a_two_step_run_has_one_start_before_its_steps(self) -> None:
        """Each provider response's `start` folds into the one `start` of the message."""
        events = [
            StartStep(),
            Start(message_id="resp_a"),
            FinishStep(finish_reason="tool-calls"),
            StartStep(),
            Start(message_id="resp_b"),
            FinishStep(finish_reason="stop"),
            Finish(finish_reason="stop"),
        ]
        assert types(chunks(events)) == [
            "start",
            "start-step",
            "finish-step",
            "message-metadata",
            "start-step",
            "finish-step",
            "message-metadata",
            "finish",
        ]

    def test_the_start_names_the_message_and_the_model(self) -> None:
        """`start` carries the message id and `{model, api, provider}`."""
        found = chunks([], model="gpt-4.1-mini", api="openai-chat", provider="openai")
        assert found[0] == {
            "type": "start",
            "messageId": "msg_1",
            "messageMetadata": {"model": "gpt-4.1-mini", "api": "openai-chat", "provider": "openai"},
        }

    def test_without_a_message_id_one_is_made_up(self) -> None:
        """A fresh random id when the caller gives none."""
        first = next(iter(ui_message_chunks([])))["messageId"]
        second = next(iter(ui_message_chunks([])))["messageId"]
        assert first.startswith("msg_")
        assert first != second

    def test_a_bare_provider_stream_gets_its_step(self) -> None:
        """A single `normalize` stream (no StartStep) is one step, closed by its `finish`."""
        events = [Start(message_id="m"), TextStart(id="0"), TextDelta(id="0", delta="Hi"), TextEnd(id="0")]
        events.append(Finish(finish_reason="stop", usage=Usage(input_tokens=3, output_tokens=1)))
        found = chunks(events)
        assert types(found) == [
            "start",
            "start-step",
            "text-start",
            "text-delta",
            "text-end",
            "finish-step",
            "message-metadata",
            "finish",
        ]
        assert found[-1]["messageMetadata"]["usage"] == {"inputTokens": 3, "outputTokens": 1}


class TestMetadata:
    def test_usage_is_summed_over_steps_and_each_step_is_listed(self) -> None:
        """The finish metadata: the run's reason, summed usage, and each step's facts."""
        events = [
            StartStep(),
            Start(message_id="resp_a", provider_metadata={"openai": {"responseId": "resp_a"}}),
            FinishStep(finish_reason="tool-calls", usage=Usage(input_tokens=10, output_tokens=2, total_tokens=12)),
            StartStep(),
            Start(message_id="resp_b"),
            FinishStep(finish_reason="stop", usage=Usage(input_tokens=20, output_tokens=5, total_tokens=25)),
            Finish(finish_reason="stop", usage=Usage(input_tokens=30, output_tokens=7, total_tokens=37)),
        ]
        finish = chunks(events, model="m", api="openai-responses", provider="openai")[-1]
        assert finish == {
            "type": "finish",
            "finishReason": "stop",
            "messageMetadata": {
                "model": "m",
                "api": "openai-responses",
                "provider": "openai",
                "finishReason": "stop",
                "steps": [
                    {
                        "finishReason": "tool-calls",
                        "usage": {"inputTokens": 10, "outputTokens": 2, "totalTokens": 12},
                        "responseId": "resp_a",
                        "providerMetadata": {"openai": {"responseId": "resp_a"}},
                    },
                    {
                        "finishReason": "stop",
                        "usage": {"inputTokens": 20, "outputTokens": 5, "totalTokens": 25},
                        "responseId": "resp_b",
                    },
                ],
                "usage": {"inputTokens": 30, "outputTokens": 7, "totalTokens": 37},
                "paused": False,
            },
        }

    def test_each_step_reports_the_usage_so_far(self) -> None:
        """`message-metadata` after a step carries the steps and the running usage."""
        events = [StartStep(), FinishStep(finish_reason="tool-calls", usage=Usage(output_tokens=4))]
        metadata = chunks(events)[3]
        assert metadata == {
            "type": "message-metadata",
            "messageMetadata": {
                "steps": [{"finishReason": "tool-calls", "usage": {"outputTokens": 4}}],
                "usage": {"outputTokens": 4},
            },
        }

    def test_a_paused_run_finishes_with_its_last_step_reason(self) -> None:
        """A run waiting for the user ends its message with `paused: true`."""
        stream = UIMessageStream(message_id="m")
        for event in (StartStep(), FinishStep(finish_reason="tool-calls")):
            stream.feed(event)
        finish = stream.close(paused=True)[-1]
        assert finish["finishReason"] == "tool-calls"
        assert finish["messageMetadata"]["paused"] is True


class TestParts:
    def test_an_end_without_its_start_gets_one(self) -> None:
        """A signature-only part (Gemini) arrives as an end: the client needs the start first."""
        found = chunks([StartStep(), TextEnd(id="0-1", provider_metadata={"google": {"thoughtSignature": "sig"}})])
        assert found[2:4] == [
            {"type": "text-start", "id": "0-1"},
            {"type": "text-end", "id": "0-1", "providerMetadata": {"google": {"thoughtSignature": "sig"}}},
        ]

    def test_parts_left_open_are_closed_with_their_step(self) -> None:
        """A stream cut mid-part still gives the client a closed part before `finish-step`."""
        found = chunks(
            [StartStep(), TextStart(id="t"), TextDelta(id="t", delta="a"), FinishStep(finish_reason="length")]
        )
        assert types(found)[1:6] == ["start-step", "text-start", "text-delta", "text-end", "finish-step"]

    def test_reasoning_signatures_travel_on_the_end(self) -> None:
        """An Anthropic signature stays in the reasoning part's provider metadata."""
        found = chunks([StartStep(), ReasoningEnd(id="r", provider_metadata={"anthropic": {"signature": "s"}})])
        assert found[3] == {"type": "reasoning-end", "id": "r", "providerMetadata": {"anthropic": {"signature": "s"}}}


class TestTools:
    def test_tool_input_keeps_only_protocol_fields(self) -> None:
        """`tool-input-available`: id, name, input, provider flags; `validated_input` stays behind."""
        event = ToolInputAvailable(
            tool_call_id="c1",
            tool_name="web_search",
            input={"q": "x"},
            provider_executed=True,
            provider_metadata={"openai": {"itemId": "ws_1"}},
            validated_input=object(),
        )
        assert chunks([StartStep(), ToolInputStart(tool_call_id="c1", tool_name="web_search"), event])[3] == {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "web_search",
            "input": {"q": "x"},
            "providerExecuted": True,
            "providerMetadata": {"openai": {"itemId": "ws_1"}},
        }

    def test_an_input_error_is_marked_for_the_way_back(self) -> None:
        """The call never ran: `toolwire.inputError` tells the reader its metadata is the call's."""
        event = ToolInputError(tool_call_id="c1", tool_name="get_weather", input="{bad", error_text="not JSON")
        assert chunks([StartStep(), event])[2] == {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "get_weather",
            "input": "{bad",
            "errorText": "not JSON",
            "providerMetadata": {"toolwire": {"inputError": True}},
        }

    def test_a_call_known_from_the_continued_message_is_not_announced_again(self) -> None:
        """Outputs of calls the continued message shows go straight to them, in the step that asked."""
        found = chunks([ToolOutputAvailable(tool_call_id="c1", output=1)], known_calls={"c1": "get_weather"})
        assert types(found) == ["start", "tool-output-available", "finish"]

    def test_what_the_model_read_travels_when_it_differs_from_the_output(self) -> None:
        """An image result: the UI shows the raw output, the model read content parts."""
        model_output = {"type": "content", "value": [{"type": "text", "text": "Chart attached."}]}
        result = ToolResult(
            tool_call_id="c1", tool_name="make_chart", output=model_output, provider_metadata={"google": {"s": "x"}}
        )
        found = chunks(
            [
                ToolInputAvailable(tool_call_id="c1", tool_name="make_chart", input={}),
                ToolOutputAvailable(tool_call_id="c1", output="iVBO"),
            ],
            tool_result=lambda call_id: result,
        )
        assert found[3]["providerMetadata"] == {"google": {"s": "x"}, "toolwire": {"modelOutput": model_output}}

    def test_nothing_extra_travels_when_the_model_read_the_output(self) -> None:
        """A plain JSON result needs no `modelOutput`."""
        result = ToolResult(tool_call_id="c1", tool_name="t", output={"type": "json", "value": {"a": 1}})
        found = chunks(
            [
                ToolInputAvailable(tool_call_id="c1", tool_name="t", input={}),
                ToolOutputAvailable(tool_call_id="c1", output={"a": 1}),
            ],
            tool_result=lambda call_id: result,
        )
        assert "providerMetadata" not in found[3]

    def test_a_display_transform_keeps_the_model_output_from_the_ui(self) -> None:
        """When a display transform hides the output, what the model read is not sent either."""
        tool = create_tool(id="secret", description="d", transform={"display": {"output": lambda output: "hidden"}})
        result = ToolResult(tool_call_id="c1", tool_name="secret", output={"type": "text", "value": "sk-live-123"})
        found = chunks(
            [
                ToolInputAvailable(tool_call_id="c1", tool_name="secret", input={}),
                ToolOutputAvailable(tool_call_id="c1", output="hidden"),
            ],
            tool_result=lambda call_id: result,
            tools={"secret": tool},
        )
        assert "sk-live-123" not in repr(found)

    def test_a_target_display_answer_splits_into_content_and_a_display_part(self) -> None:
        """`{content, embedUrl}`: the tool part shows the content; the embed goes to `data-tool-display`."""
        output = {"content": "Connect Gmail first", "embedUrl": "https://app.example.com/connect"}
        found = chunks(
            [
                ToolInputAvailable(tool_call_id="c1", tool_name="t", input={}),
                ToolOutputAvailable(tool_call_id="c1", output=output),
            ]
        )
        assert found[3:5] == [
            {"type": "tool-output-available", "toolCallId": "c1", "output": "Connect Gmail first"},
            {
                "type": "data-tool-display",
                "id": "c1",
                "data": {"toolCallId": "c1", "embedUrl": "https://app.example.com/connect"},
            },
        ]

    def test_an_approval_request_shows_what_the_approver_decides_on(self) -> None:
        """`approvalDescriptor`: the call's input after the display `approval` transform."""
        found = chunks(
            [ToolApprovalRequest(approval_id="approval_x", tool_call_id="c1", approval_descriptor={"path": "a.txt"})],
            known_calls={"c1": "delete"},
        )
        assert found[1] == {
            "type": "tool-approval-request",
            "approvalId": "approval_x",
            "toolCallId": "c1",
            "approvalDescriptor": {"path": "a.txt"},
        }

    def test_an_approval_answer_is_echoed(self) -> None:
        """The runtime's `tool-approval-response` (a denial keeps its reason)."""
        found = chunks([ToolApprovalResponse(approval_id="approval_x", approved=False, reason="No")])
        assert found[1] == {
            "type": "tool-approval-response",
            "approvalId": "approval_x",
            "approved": False,
            "reason": "No",
        }

    def test_a_background_call_s_output_is_its_acknowledgement_and_its_task_a_data_part(self) -> None:
        """`data-background-task` keyed by the call: running, running with progress, then how it ended."""
        acknowledgement = {"status": "running", "taskId": "task_1", "message": "Started in the background."}
        found = chunks(
            [
                ToolInputAvailable(tool_call_id="c1", tool_name="crawl", input={}),
                ToolOutputAvailable(tool_call_id="c1", output=acknowledgement),
                BackgroundTaskStarted(task_id="task_1", tool_call_id="c1", tool_name="crawl"),
                BackgroundTaskProgress(task_id="task_1", tool_call_id="c1", tool_name="crawl", data={"pages": 2}),
                BackgroundTaskFinished(
                    task_id="task_1", tool_call_id="c1", tool_name="crawl", status="completed", output={"pages": 5}
                ),
            ],
        )
        task = {"toolCallId": "c1", "toolName": "crawl", "taskId": "task_1"}
        assert found[3:7] == [
            {"type": "tool-output-available", "toolCallId": "c1", "output": acknowledgement},
            {"type": "data-background-task", "id": "c1", "data": {**task, "status": "running"}},
            {
                "type": "data-background-task",
                "id": "c1",
                "data": {**task, "status": "running", "progress": {"pages": 2}},
            },
            {
                "type": "data-background-task",
                "id": "c1",
                "data": {**task, "status": "completed", "output": {"pages": 5}},
            },
        ]

    @pytest.mark.parametrize("status", ["failed", "timed-out", "cancelled", "lost"])
    def test_a_background_task_that_did_not_complete_carries_its_error_text(self, status: Any) -> None:
        """Every way a task can fail is its own status, with the text the display may show."""
        found = chunks(
            [BackgroundTaskFinished(task_id="t", tool_call_id="c1", tool_name="crawl", status=status, error_text="no")]
        )
        assert found[1] == {
            "type": "data-background-task",
            "id": "c1",
            "data": {"toolCallId": "c1", "toolName": "crawl", "taskId": "t", "status": status, "errorText": "no"},
        }

    def test_a_served_agent_run_answers_its_background_call_in_the_same_message(self) -> None:
        """`agent_chunks` waits for the task: the model call reading its result comes after its end."""
        crawl = create_tool(id="crawl", description="d", background=True, execute=lambda value: {"pages": 5})
        script = [[call("c1", "crawl", "{}"), StepFinished("tool-calls")], answer("Started."), answer("Five pages.")]
        agent = Agent(api=ScriptedAdapter(script, by_turn=True), client=SCRIPTED_CLIENT, model="m", tools=[crawl])
        found = list(agent_chunks(agent, "Crawl"))
        tasks = [i for i, c in enumerate(found) if c["type"] == "data-background-task"]
        assert [found[i]["data"]["status"] for i in tasks] == ["running", "completed"]
        assert tasks[-1] < max(i for i, kind in enumerate(types(found)) if kind == "start-step")
        assert types(found).count("start") == 1
        assert types(found)[-1] == "finish"


class TestSuspensions:
    def test_a_suspension_becomes_a_data_part_keyed_by_the_call(self) -> None:
        """`data-tool-suspended` with the display payload; a later chunk with the same id updates it."""
        found = chunks(
            [ToolSuspended(tool_call_id="c1", payload={"question": "Which unit?"})], known_calls={"c1": "get_weather"}
        )
        assert found[1] == {
            "type": "data-tool-suspended",
            "id": "c1",
            "data": {
                "toolCallId": "c1",
                "toolName": "get_weather",
                "payload": {"question": "Which unit?"},
                "status": "suspended",
            },
        }

    def test_a_card_becomes_an_action_required_part(self) -> None:
        """An `action_required` payload is a card the UI renders with its buttons."""
        card = {"type": "action_required", "cardId": "k1", "title": "Connect", "elements": []}
        found = chunks([ToolSuspended(tool_call_id="c1", payload=card)], known_calls={"c1": "gmail"})
        assert found[1] == {
            "type": "data-action-required",
            "id": "c1",
            "data": {"toolCallId": "c1", "toolName": "gmail", "card": card, "status": "waiting"},
        }

    def test_a_browser_side_call_shows_no_suspension(self) -> None:
        """The browser answers its own tools' calls: its tool part is the request."""
        found = chunks(
            [ToolSuspended(tool_call_id="c1", payload={})], known_calls={"c1": "pick"}, client_tools={"pick"}
        )
        assert types(found) == ["start", "finish"]


SUSPENDED: dict[str, dict[str, Any]] = {
    "c1": {
        "type": "data-tool-suspended",
        "data": {"toolCallId": "c1", "toolName": "ask", "payload": {"q": "Unit?"}, "status": "suspended"},
    }
}


class TestResumes:
    def test_a_resumed_call_updates_its_suspension_part(self) -> None:
        """The part shown while it waited now says `resumed` (and what it was resumed with, when shown)."""
        found = chunks(
            [ToolResumed(tool_call_id="c1", payload={"unit": "C"})],
            known_calls={"c1": "ask"},
            suspensions=SUSPENDED,
        )
        assert found[1] == {
            "type": "data-tool-suspended",
            "id": "c1",
            "data": {
                "toolCallId": "c1",
                "toolName": "ask",
                "payload": {"q": "Unit?"},
                "status": "resumed",
                "resumeData": {"unit": "C"},
            },
        }

    def test_refused_resume_data_puts_the_call_back_to_waiting(self) -> None:
        """The browser marked the call answered; it still waits: its part waits again, with the reason."""
        found = chunks(
            [ToolResumeError(tool_call_id="c1", error_text="unit must be C or F")],
            known_calls={"c1": "ask"},
            known_inputs={"c1": {"city": "Paris"}},
            suspensions=SUSPENDED,
        )
        assert found[1:3] == [
            {"type": "tool-input-available", "toolCallId": "c1", "toolName": "ask", "input": {"city": "Paris"}},
            {
                "type": "data-tool-suspended",
                "id": "c1",
                "data": {
                    "toolCallId": "c1",
                    "toolName": "ask",
                    "payload": {"q": "Unit?"},
                    "status": "suspended",
                    "errorText": "unit must be C or F",
                },
            },
        ]


class TestAbort:
    def test_an_aborted_run_ends_with_the_protocols_abort(self) -> None:
        """Open parts and the step close, then `abort` with the reason; no `finish` follows."""
        found = chunks([StartStep(), TextStart(id="0"), Abort(reason="the browser went away")])
        assert types(found) == ["start", "start-step", "text-start", "text-end", "finish-step", "abort"]
        assert found[-1] == {"type": "abort", "reason": "the browser went away"}


class TestErrors:
    def test_an_error_event_keeps_its_text_without_the_traceback(self) -> None:
        """Provider text stays; anything from a traceback on is cut."""
        text = 'the tool failed: boom\nTraceback (most recent call last):\n  File "x.py", line 1'
        assert chunks([Error(error_text=text)])[1] == {"type": "error", "errorText": "the tool failed: boom"}

    def test_an_error_event_has_credentials_redacted(self) -> None:
        """Key-like tokens never reach the browser."""
        found = chunks([Error(error_text="401: Incorrect API key provided: sk-proj-abcdefghijklmnop")])
        assert found[1]["errorText"] == "401: Incorrect API key provided: [redacted]"

    def test_an_exception_ends_the_message_with_a_safe_error(self, caplog: pytest.LogCaptureFixture) -> None:
        """The browser reads one sentence with a reference; the server log has the traceback."""

        def events() -> Any:
            yield StartStep()
            raise RuntimeError("database password=hunter2 at /srv/app.py")

        with caplog.at_level(logging.ERROR, logger="toolwire.ui"):
            found = list(ui_message_chunks(events(), message_id="m"))
        error = found[2]["errorText"]
        assert error.startswith("The assistant failed while answering (reference ")
        assert "hunter2" not in repr(found)
        assert types(found) == ["start", "start-step", "error", "finish-step", "finish"]
        assert found[-1]["finishReason"] == "error"
        assert error.split("reference ")[1].rstrip(").") in caplog.text
        assert "hunter2" in caplog.text

    def test_an_http_error_of_the_provider_says_who_failed(self) -> None:
        """An SDK status error becomes the provider's refusal with its status."""

        class APIStatusError(Exception):
            status_code = 401

        def events() -> Any:
            raise APIStatusError("Incorrect API key provided: sk-abc123456789")
            yield

        error = list(ui_message_chunks(events()))[1]["errorText"]
        assert error.startswith("The model provider refused the server's credentials (HTTP 401, reference ")

    def test_the_host_may_word_errors_itself(self) -> None:
        """`on_error` gives the text the browser sees."""

        def events() -> Any:
            raise ValueError("x")
            yield

        found = list(ui_message_chunks(events(), on_error=lambda exc: f"sorry ({type(exc).__name__})"))
        assert found[1] == {"type": "error", "errorText": "sorry (ValueError)"}


class TestWarnings:
    def test_a_degradation_is_a_warning_part_once(self) -> None:
        """The same degradation met at every step is shown once."""
        stream = UIMessageStream(message_id="m")
        degradation = Degradation(api="gemini", feature="strict", action="sent without strict", tool_id="t")
        first = stream.warn(degradation)
        assert first[1] == {
            "type": "data-warning",
            "data": {"api": "gemini", "toolId": "t", "feature": "strict", "action": "sent without strict"},
        }
        assert stream.warn(degradation) == []


async def test_the_async_driver_gives_the_same_chunks() -> None:
    """`aui_message_chunks` over an async event stream."""
    events = [
        StartStep(),
        TextStart(id="0"),
        TextDelta(id="0", delta="Hi"),
        TextEnd(id="0"),
        FinishStep(finish_reason="stop"),
    ]

    async def source() -> Any:
        for event in events:
            yield event

    found = [c async for c in aui_message_chunks(source(), message_id="msg_1")]
    assert found == chunks(events)


CODE_CALL = ToolCall(
    tool_call_id="srvtoolu_1",
    tool_name="code_execution",
    input={"code": "print(6 * 7)"},
    provider_executed=True,
    provider_metadata={"anthropic": {"blockType": "server_tool_use"}},
)
"""A provider-executed call made in an earlier message (its result comes in a later response)."""
CODE_OUTPUT = ToolOutputAvailable(
    tool_call_id="srvtoolu_1",
    output={"stdout": "42"},
    provider_executed=True,
    provider_metadata={"anthropic": {"blockType": "code_execution_tool_result"}},
)
EARLIER = [user("Compute it"), AssistantMessage(content=(CODE_CALL,)), user("Go on")]


class TestOutputsOfEarlierCalls:
    def test_a_call_of_an_earlier_message_is_announced_with_its_name_and_input(self) -> None:
        """The call is looked up in the conversation: real name, input, provider flag and metadata."""
        found = chunks([StartStep(), CODE_OUTPUT], history=EARLIER)
        assert found[2:4] == [
            {
                "type": "tool-input-available",
                "toolCallId": "srvtoolu_1",
                "toolName": "code_execution",
                "input": {"code": "print(6 * 7)"},
                "providerExecuted": True,
                "providerMetadata": {"anthropic": {"blockType": "server_tool_use"}, "toolwire": {"earlierCall": True}},
            },
            {
                "type": "tool-output-available",
                "toolCallId": "srvtoolu_1",
                "output": {"stdout": "42"},
                "providerExecuted": True,
                "providerMetadata": {"anthropic": {"blockType": "code_execution_tool_result"}},
            },
        ]

    def test_the_announced_input_goes_through_the_display_transform(self) -> None:
        """A tool that hides its input shows the earlier call as it was shown then, never the raw input."""
        secret = create_tool(
            id="open_vault",
            description="Open the vault.",
            execute=lambda args: "open",
            transform={"display": {"input": lambda input: {"code": "***"}}},
        )
        call = ToolCall(tool_call_id="c1", tool_name="open_vault", input={"code": "1234"})
        history = [user("Open it"), AssistantMessage(content=(call,))]
        found = chunks(
            [StartStep(), ToolOutputAvailable(tool_call_id="c1", output="open")],
            history=history,
            tools={"open_vault": secret},
        )
        assert found[2] == {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "open_vault",
            "input": {"code": "***"},
            "providerMetadata": {"toolwire": {"earlierCall": True}},
        }

    def test_a_call_the_client_shows_as_dynamic_stays_dynamic(self) -> None:
        """The announcement keeps the part kind the client gave the call."""
        found = chunks([StartStep(), CODE_OUTPUT], history=EARLIER, dynamic_calls={"srvtoolu_1"})
        assert found[2]["dynamic"] is True

    def test_a_call_the_conversation_does_not_hold_gets_a_warning_not_an_invented_part(self) -> None:
        """No tool part without a name: a `data-warning` says what happened and keeps what was not shown."""
        found = chunks([StartStep(), CODE_OUTPUT, ToolOutputError(tool_call_id="srvtoolu_1", error_text="again")])
        assert types(found) == ["start", "start-step", "data-warning", "finish-step", "finish"]
        assert found[2]["data"] == {
            "api": "ui",
            "feature": "ui.unknown_tool_call",
            "action": "tool call 'srvtoolu_1' is not in the conversation, so the client has no part to show its "
            "update in; it is left out of the message",
            "toolCallId": "srvtoolu_1",
            "output": {"stdout": "42"},
        }

    def test_an_approval_for_a_call_the_conversation_does_not_hold_is_reported(self) -> None:
        """An approval request needs the call's part too."""
        found = chunks([StartStep(), ToolApprovalRequest(approval_id="approval_1", tool_call_id="c9")], api="anthropic")
        assert [c["type"] for c in found[2:3]] == ["data-warning"]
        assert (found[2]["data"]["api"], found[2]["data"]["approvalId"]) == ("anthropic", "approval_1")

    def test_an_output_in_a_later_step_than_its_call_is_marked_where_it_came(self) -> None:
        """Programmatic tool calling: the output lands on the call's part; `data-tool-output` marks its step."""
        call = ToolInputAvailable(
            tool_call_id="srvtoolu_1", tool_name="code_execution", input={}, provider_executed=True
        )
        found = chunks([StartStep(), call, FinishStep(finish_reason="tool-calls"), StartStep(), CODE_OUTPUT])
        assert types(found)[5:8] == ["start-step", "data-tool-output", "tool-output-available"]
        assert found[6] == {"type": "data-tool-output", "id": "srvtoolu_1", "data": {"toolCallId": "srvtoolu_1"}}

    def test_an_output_in_the_step_of_its_call_needs_no_mark(self) -> None:
        """A web search answered in the same response: the part holds both, nothing else."""
        call = ToolInputAvailable(
            tool_call_id="srvtoolu_1", tool_name="code_execution", input={}, provider_executed=True
        )
        assert "data-tool-output" not in types(chunks([StartStep(), call, CODE_OUTPUT]))

    def test_an_output_for_a_call_of_the_continued_message_is_marked_in_its_new_step(self) -> None:
        """The continued message holds the call; a later response answers it: placed, and marked."""
        found = chunks([StartStep(), CODE_OUTPUT], known_calls={"srvtoolu_1": "code_execution"}, history=EARLIER)
        assert types(found)[1:4] == ["start-step", "data-tool-output", "tool-output-available"]
