"""Conversations of several requests through the AI SDK's own client (`Chat`, and `readUIMessageStream` by hand).

Outputs of provider-executed calls that come in a later model response (Anthropic's programmatic
tool calling) or in a later run, a browser-side tool that fails, two approvals answered with
`sendAutomaticallyWhen`, `regenerate` with a `messageId`, a stopped stream and a failed run the
user goes on from, files with names and user metadata. Each chat is served by `UIChat` over
127.0.0.1, on a scripted model or on the Anthropic SDK over a captured transport; where the
model is the Anthropic API, the conversation the UI messages give back must send exactly the
request the agent itself sends.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

import httpx2
import pytest

from toolwire.agent import Agent
from toolwire.conformance.fixtures import PNG_1X1
from toolwire.deltas import StepFinished, TextPiece, ToolOutput
from toolwire.registry import get_adapter
from toolwire.testing.capture import RequestCapture
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, ScriptedStream, answer, call
from toolwire.tools import Tool, create_tool
from toolwire.ui import UIChat

from .conftest import Node, ScriptedServer, anthropic_sse

# -- the Anthropic API, scripted ---------------------------------------------------------------------

Block = tuple[dict[str, Any], dict[str, Any] | None]


def anthropic_reply(blocks: Sequence[Block], stop: str) -> httpx2.Response:
    """A streamed Anthropic message: each block started, given its delta (if any), stopped."""
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": []}
    start |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, (block, delta) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        if delta is not None:
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    usage = {"output_tokens": 5}
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage})
    return anthropic_sse(*events, {"type": "message_stop"})


def text(value: str) -> Block:
    return {"type": "text", "text": ""}, {"type": "text_delta", "text": value}


CODE_INPUT = {"code": "print(roll_die())"}
CODE = (
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}},
    {"type": "input_json_delta", "partial_json": json.dumps(CODE_INPUT)},
)
CODE_OUTPUT = {"type": "code_execution_result", "stdout": "6\n", "stderr": "", "return_code": 0, "content": []}
CODE_RESULT: Block = (
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1", "content": CODE_OUTPUT},
    None,
)
ROLL = (
    {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "roll_die",
        "input": {},
        "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
    },
    {"type": "input_json_delta", "partial_json": "{}"},
)
DIE = create_tool(id="roll_die", description="Roll a die.", execute=lambda args: 6)

LATER_RUN = [
    anthropic_reply([text("Rolling."), CODE], "pause_turn"),
    anthropic_reply([CODE_RESULT, text("You rolled 6.")], "end_turn"),
    anthropic_reply([text("You're welcome.")], "end_turn"),
]
"""The code runs across runs: its call ends the first run, its result opens the second."""
LATER_STEP = [
    anthropic_reply([text("Let me roll."), CODE, ROLL], "tool_use"),
    anthropic_reply([CODE_RESULT, text("You rolled 6.")], "end_turn"),
    anthropic_reply([text("You're welcome.")], "end_turn"),
]
"""Programmatic tool calling in one run: the code calls roll_die; its result comes in the next response."""


def anthropic_agent(capture: RequestCapture) -> Agent:
    client = get_adapter("anthropic").sdk_client(api_key="k", http_client=capture.client())
    return Agent(
        api="anthropic", client=client, model="claude-sonnet-4-6", tools=[DIE], request_options={"max_tokens": 64}
    )


def sent_bodies(responses: list[httpx2.Response], prompts: Sequence[str]) -> list[dict[str, Any]]:
    """What the agent itself sends for these prompts (one agent holding the conversation)."""
    capture = RequestCapture(list(responses))
    agent = anthropic_agent(capture)
    for prompt in prompts:
        agent.run(prompt)
    return [json.loads(request.content) for request in capture.requests]


class Served:
    """One `UIChat` per flow on the shared server; the capture or scripted adapter behind it."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server = server
        self.captures: dict[str, RequestCapture] = {}
        self.adapters: dict[str, ScriptedAdapter] = {}

    def anthropic(self, name: str, responses: list[httpx2.Response]) -> str:
        capture = self.captures[name] = RequestCapture(list(responses))
        return self.server.serve(name, UIChat(lambda: anthropic_agent(capture), run_mode="sync"))

    def scripted(self, name: str, script: Sequence[Any], tools: Sequence[Tool] = ()) -> str:
        adapter = self.adapters[name] = FlakyAdapter(script)
        return self.server.serve(
            name, UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=list(tools)))
        )


class FlakyAdapter(ScriptedAdapter):
    """A scripted model whose script may hold an exception: that model call fails (once)."""

    def invoke(self, client: Any, request: Any, *, stream: bool) -> Any:
        if self.script and isinstance(self.script[0], Exception):
            self.requests.append(json.loads(json.dumps(request, default=str)))
            raise self.script.pop(0)
        return super().invoke(client, request, stream=stream)


# -- scripted tools --------------------------------------------------------------------------------------

RENDER = create_tool(
    id="render_chart",
    description="Draw a chart in the user's browser.",
    input_schema={"type": "object", "properties": {"kind": {"type": "string"}}},
    transform={"display": {"error": lambda error: "Drawing failed."}},
)
DELETE = create_tool(
    id="delete_file",
    description="Delete a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    require_approval=True,
    execute=lambda args: f"deleted {args['path']}",
)
WEATHER = create_tool(
    id="get_weather",
    description="Weather of a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    execute=lambda args: {"temperature": 18},
)
PNG = base64.b64encode(PNG_1X1).decode()
FILES = [
    {"type": "file", "mediaType": "image/png", "filename": "chart.png", "url": f"data:image/png;base64,{PNG}"},
    {"type": "file", "mediaType": "application/pdf", "filename": "report.pdf", "url": "https://example.com/r.pdf"},
]
SEARCHED = [
    {"id": "u0", "role": "user", "parts": [{"type": "text", "text": "Find a weather tool"}]},
    {
        "id": "a0",
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "dynamic-tool",
                "toolName": "tool_search",
                "toolCallId": "srv_2",
                "state": "input-available",
                "input": {"query": "weather"},
                "providerExecuted": True,
            },
        ],
    },
]
"""A conversation whose client shows a provider's tool search as a dynamic tool part, still running."""


def flows(served: Served) -> list[dict[str, Any]]:
    """Every flow, with its chat set up on the server."""
    search_result = ToolOutput("srv_2", {"tools": ["get_weather"]}, provider_metadata={"openai": {"itemId": "ts_1"}})
    unknown_result = ToolOutput("srv_404", {"stdout": "lost"})
    held = ScriptedStream([call("c1", "get_weather", '{"city": "Paris"}'), StepFinished("tool-calls")], hold_after=1)
    return [
        *(
            {
                "id": f"later-run/{kind}",
                "kind": kind,
                "url": served.anthropic(f"later-run-{kind}", LATER_RUN),
                "chatId": f"later-run-{kind}",
                "steps": [{"send": "Roll a die"}, {"send": "And?"}, {"send": "Thanks"}],
            }
            for kind in ("chat", "stream")
        ),
        {
            "id": "later-step",
            "kind": "chat",
            "url": served.anthropic("later-step", LATER_STEP),
            "chatId": "later-step",
            "steps": [{"send": "Roll a die"}, {"send": "Thanks"}],
        },
        {
            "id": "dynamic",
            "kind": "chat",
            "url": served.scripted("dynamic", [[search_result, TextPiece("t", "Found it."), StepFinished("stop")]]),
            "chatId": "dynamic",
            "messages": SEARCHED,
            "steps": [{"send": "And?"}],
        },
        {
            "id": "unknown-call",
            "kind": "chat",
            "url": served.scripted("unknown-call", [[unknown_result, TextPiece("t", "Hm."), StepFinished("stop")]]),
            "chatId": "unknown-call",
            "steps": [{"send": "Hi"}],
        },
        {
            "id": "client-error",
            "kind": "chat",
            "url": served.scripted(
                "client-error",
                [[call("c1", "render_chart", '{"kind": "bar"}'), StepFinished("tool-calls")], answer("No chart.")],
                [RENDER],
            ),
            "chatId": "client-error",
            "sendAutomatically": "toolCalls",
            "steps": [{"send": "Draw it"}, {"output": {"tool": "render_chart", "errorText": "WebGL context lost"}}],
        },
        {
            "id": "two-approvals",
            "kind": "chat",
            "url": served.scripted(
                "two-approvals",
                [
                    [
                        call("c1", "delete_file", '{"path": "a.txt"}'),
                        call("c2", "delete_file", '{"path": "b.txt"}'),
                        StepFinished("tool-calls"),
                    ],
                    answer("Deleted a.txt, kept b.txt."),
                ],
                [DELETE],
            ),
            "chatId": "two-approvals",
            "sendAutomatically": "approvals",
            "steps": [
                {"send": "Clean up"},
                {"approve": {"tool": "delete_file", "approved": True}, "expectRequest": False},
                {"approve": {"tool": "delete_file", "approved": False, "reason": "keep it"}},
            ],
        },
        {
            "id": "regenerate",
            "kind": "chat",
            "url": served.scripted(
                "regenerate", [answer("One."), answer("Two."), answer("One again."), answer("Three.")]
            ),
            "chatId": "regenerate",
            "steps": [{"send": "A"}, {"send": "B"}, {"regenerate": {"messageIndex": 1}}, {"send": "C"}],
        },
        {
            "id": "stopped",
            "kind": "chat",
            "url": served.scripted("stopped", [held, answer("Sure.")], [WEATHER]),
            "chatId": "stopped",
            "steps": [{"stopWhen": {"send": "Weather in Paris?", "part": "tool-get_weather"}}, {"send": "Never mind"}],
        },
        {
            "id": "failed",
            "kind": "chat",
            "url": served.scripted(
                "failed",
                [
                    [call("c1", "get_weather", '{"city": "Paris"}'), StepFinished("tool-calls")],
                    ConnectionError("the model is unreachable"),
                    answer("18°C in Paris."),
                ],
                [WEATHER],
            ),
            "chatId": "failed",
            "steps": [{"send": "Weather in Paris?"}, {"send": "Try again"}],
        },
        {
            "id": "files",
            "kind": "chat",
            "url": served.scripted("files", [answer("A chart and a report.")]),
            "chatId": "files",
            "steps": [{"send": "What are these?", "files": FILES, "metadata": {"sentFrom": "mobile"}}],
        },
    ]


@pytest.fixture(scope="module")
def served(scripted_server: ScriptedServer) -> Served:
    return Served(scripted_server)


@pytest.fixture(scope="module")
def results(node: Node, served: Served) -> dict[str, Any]:
    """What the SDK made of every flow (one node run for all of them)."""
    found: dict[str, Any] = node.run("conversation.mjs", {"flows": flows(served)})
    return found


def flow(results: dict[str, Any], name: str) -> dict[str, Any]:
    found = results[name]
    assert "harnessError" not in found, found.get("harnessError")
    return found


def assert_clean(found: dict[str, Any], requests: int) -> None:
    """The SDK accepted every exchange, and the messages validate."""
    assert found.get("errors", []) == []
    assert found["validation"] is None
    assert found["statuses"] == [200] * requests
    assert found["frameProblems"] == [[]] * requests


def parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's parts without the SDK's bookkeeping (`state` of text, unset fields)."""
    shown = []
    for part in message["parts"]:
        kept = {k: v for k, v in part.items() if v is not None}
        if part["type"] in ("text", "reasoning"):
            kept.pop("state", None)
        shown.append(kept)
    return shown


# -- outputs of calls made in an earlier response ---------------------------------------------------------


CODE_PART = {
    "type": "tool-code_execution",
    "toolCallId": "srvtoolu_1",
    "input": CODE_INPUT,
    "providerExecuted": True,
}


@pytest.mark.parametrize("kind", ["chat", "stream"])
def test_an_output_in_a_later_run_lands_on_its_call_announced_again(results: dict[str, Any], kind: str) -> None:
    """Run 2 opens with the result of run 1's code execution: the call is announced with its name and input."""
    found = flow(results, f"later-run/{kind}")
    assert_clean(found, 3)
    first, second = found["messages"][1], found["messages"][3]
    assert parts(first)[1:] == [
        {"type": "text", "text": "Rolling."},
        {
            **CODE_PART,
            "state": "input-available",
            "callProviderMetadata": {"anthropic": {"blockType": "server_tool_use"}},
        },
    ]
    assert parts(second) == [
        {"type": "step-start"},
        {
            **CODE_PART,
            "state": "output-available",
            "output": CODE_OUTPUT,
            "callProviderMetadata": {
                "anthropic": {"blockType": "server_tool_use"},
                "toolwire": {"earlierCall": True},
            },
            "resultProviderMetadata": {"anthropic": {"blockType": "code_execution_tool_result"}},
        },
        {"type": "text", "text": "You rolled 6."},
    ]


@pytest.mark.parametrize("kind", ["chat", "stream"])
def test_the_ui_messages_of_a_later_run_output_send_the_agents_own_request(
    results: dict[str, Any], served: Served, kind: str
) -> None:
    """The third request, built from the UI messages, is the one an agent holding the conversation sends."""
    flow(results, f"later-run/{kind}")
    ui_bodies = [json.loads(r.content) for r in served.captures[f"later-run-{kind}"].requests]
    assert ui_bodies == sent_bodies(LATER_RUN, ["Roll a die", "And?", "Thanks"])


def test_an_output_in_a_later_step_stays_on_its_call_and_marks_its_step(results: dict[str, Any]) -> None:
    """Programmatic tool calling: the result fills the code part of step 1; step 2 says where it came."""
    found = flow(results, "later-step")
    assert_clean(found, 2)
    message = found["messages"][1]
    assert [p["type"] for p in message["parts"]] == [
        "step-start",
        "text",
        "tool-code_execution",
        "tool-roll_die",
        "step-start",
        "data-tool-output",
        "text",
    ]
    assert message["parts"][2]["state"] == "output-available"
    assert message["parts"][2]["output"] == CODE_OUTPUT
    assert message["parts"][5] == {"type": "data-tool-output", "id": "srvtoolu_1", "data": {"toolCallId": "srvtoolu_1"}}


def test_the_ui_messages_of_a_later_step_output_send_the_agents_own_request(
    results: dict[str, Any], served: Served
) -> None:
    """The code's result is sent back in the response it came in, as the agent itself sends it."""
    flow(results, "later-step")
    ui_bodies = [json.loads(r.content) for r in served.captures["later-step"].requests]
    assert ui_bodies == sent_bodies(LATER_STEP, ["Roll a die", "Thanks"])


def test_a_call_the_client_shows_as_dynamic_is_announced_dynamic(results: dict[str, Any], served: Served) -> None:
    """A tool search the client holds as a `dynamic-tool` part: its result lands on a dynamic part too."""
    found = flow(results, "dynamic")
    assert_clean(found, 1)
    assert parts(found["messages"][3])[1] == {
        "type": "dynamic-tool",
        "toolName": "tool_search",
        "toolCallId": "srv_2",
        "state": "output-available",
        "input": {"query": "weather"},
        "output": {"tools": ["get_weather"]},
        "providerExecuted": True,
        "callProviderMetadata": {"toolwire": {"earlierCall": True}},
        "resultProviderMetadata": {"openai": {"itemId": "ts_1"}},
    }
    sent = served.adapters["dynamic"].requests[0]["messages"]
    assert sent[1]["content"][0]["toolName"] == "tool_search"


def test_an_output_for_a_call_nobody_made_is_a_warning_not_a_made_up_part(results: dict[str, Any]) -> None:
    """No tool part named `unknown`: a `data-warning` keeps the output, the chat goes on."""
    found = flow(results, "unknown-call")
    assert_clean(found, 1)
    message = found["messages"][1]
    assert [p["type"] for p in message["parts"]] == ["step-start", "data-warning", "text"]
    assert message["parts"][1]["data"]["feature"] == "ui.unknown_tool_call"
    assert message["parts"][1]["data"]["output"] == {"stdout": "lost"}


# -- answers from the page -----------------------------------------------------------------------------------


def test_a_browser_side_tool_that_fails_answers_with_its_error(results: dict[str, Any], served: Served) -> None:
    """addToolOutput({state: 'output-error'}): sent automatically, accepted; the model reads the error."""
    found = flow(results, "client-error")
    assert_clean(found, 2)
    chart = next(p for p in found["messages"][1]["parts"] if p["type"] == "tool-render_chart")
    assert (chart["state"], chart["errorText"]) == ("output-error", "Drawing failed.")
    assert found["messages"][1]["parts"][-1]["text"] == "No chart."
    sent = served.adapters["client-error"].requests[1]["messages"][-1]["content"][0]
    assert sent["output"] == {"type": "error-text", "value": "WebGL context lost"}


def test_two_approvals_are_sent_together_once_both_are_answered(results: dict[str, Any], served: Served) -> None:
    """`lastAssistantMessageIsCompleteWithApprovalResponses`: one request after the second answer."""
    found = flow(results, "two-approvals")
    assert_clean(found, 2)
    first, second = (p for p in found["messages"][1]["parts"] if p["type"] == "tool-delete_file")
    assert (first["state"], first["output"]) == ("output-available", "deleted a.txt")
    assert second["state"] == "output-denied"
    assert (second["approval"]["approved"], second["approval"]["reason"]) == (False, "keep it")
    results_sent = served.adapters["two-approvals"].requests[1]["messages"][-1]["content"]
    assert [r["output"] for r in results_sent] == [
        {"type": "text", "value": "deleted a.txt"},
        {"type": "execution-denied", "reason": "keep it"},
    ]


# -- the conversation's history -------------------------------------------------------------------------------


def test_regenerating_an_earlier_answer_drops_what_followed(results: dict[str, Any], served: Served) -> None:
    """`regenerate({messageId})` of the first answer: the model sees only the first question again."""
    found = flow(results, "regenerate")
    assert_clean(found, 4)
    regenerated = found["requests"][2]
    assert regenerated["trigger"] == "regenerate-message"
    assert regenerated["messageId"] == found["snapshots"][1]["messages"][1]["id"]
    texts = [[p["text"] for p in m["parts"] if p["type"] == "text"] for m in found["messages"]]
    assert texts == [["A"], ["One again."], ["C"], ["Three."]]
    sent = served.adapters["regenerate"].requests
    assert [len(r["messages"]) for r in sent] == [1, 3, 1, 3]


def test_after_a_stop_the_user_goes_on_and_the_stopped_call_reads_as_aborted(
    results: dict[str, Any], served: Served
) -> None:
    """Stop while the call waits to run, then type: accepted; the model reads the call as aborted."""
    found = flow(results, "stopped")
    assert found["errors"] == []
    assert found["statuses"] == [200, 200]
    assert found["frameProblems"][1] == []
    assert found["snapshots"][0]["status"] == "ready"
    assert found["validation"] is None
    assert found["messages"][-1]["parts"][-1]["text"] == "Sure."
    tool_message = served.adapters["stopped"].requests[1]["messages"][2]
    assert tool_message["content"][0]["output"] == {
        "type": "error-text",
        "value": "The run was aborted before tool 'get_weather' finished; it may be called again.",
    }


def test_after_a_failed_run_the_conversation_goes_on(results: dict[str, Any], served: Served) -> None:
    """The model call fails (a safe error for the chat); the next message continues from what was done."""
    found = flow(results, "failed")
    first = found["snapshots"][0]
    assert first["status"] == "error"
    assert "unreachable" not in first["error"]
    assert found["snapshots"][1]["status"] == "ready"
    assert found["statuses"] == [200, 200]
    assert found["messages"][-1]["parts"][-1]["text"] == "18°C in Paris."
    sent = served.adapters["failed"].requests[2]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2]["content"][0]["output"] == {"type": "json", "value": {"temperature": 18}}


def test_files_keep_their_names_and_user_metadata_is_accepted(results: dict[str, Any], served: Served) -> None:
    """An image (data URL) and a document (URL) with file names; the message's metadata stays the client's."""
    found = flow(results, "files")
    assert_clean(found, 1)
    assert found["messages"][0]["metadata"] == {"sentFrom": "mobile"}
    sent = served.adapters["files"].requests[0]["messages"][0]["content"]
    assert sent == [
        {"type": "image-data", "data": PNG, "mediaType": "image/png", "filename": "chart.png"},
        {
            "type": "file-url",
            "url": "https://example.com/r.pdf",
            "mediaType": "application/pdf",
            "filename": "report.pdf",
        },
        {"type": "text", "text": "What are these?"},
    ]
