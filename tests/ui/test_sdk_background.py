"""Background tool calls served to the AI SDK's own client: the task's parts, and its result read back.

A served run waits for its background calls and answers them in a follow-up turn of the same
message; the message that brought the result to the model must come back with the UI messages,
so the next request sends the model the conversation it had (placed where the run had it).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from toolwire.agent import Agent
from toolwire.deltas import StepFinished
from toolwire.runtime import ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import Tool, create_tool
from toolwire.ui import UIChat

from .conftest import Node, ScriptedServer

TOPIC = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}


def _research(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    context.background.progress({"sources": 3})
    return {"topic": args["topic"], "summary": "the moon pulls the sea"}


RESEARCH = create_tool(
    id="research", description="Research a topic.", input_schema=TOPIC, execute=_research, background=True
)
SECRET_RESEARCH = create_tool(
    id="research",
    description="Research a topic.",
    input_schema=TOPIC,
    execute=_research,
    background=True,
    transform={"display": {"output": lambda output: {"topic": output["topic"]}}},
)
RELEASE = threading.Event()
"""Lets the slow task end: set once the run paused, so the task is still running at the pause."""


def _slow(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    RELEASE.wait(30)
    return {"topic": args["topic"], "summary": "slow and steady"}


SLOW = create_tool(
    id="slow_research", description="Research slowly.", input_schema=TOPIC, execute=_slow, background=True
)
DELETE = create_tool(
    id="delete_file",
    description="Delete a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    require_approval=True,
    execute=lambda args: f"deleted {args['path']}",
)
PAUSE_SCRIPT = [
    [
        call("c1", "slow_research", '{"topic": "tides"}'),
        call("c2", "delete_file", '{"path": "a.txt"}'),
        StepFinished("tool-calls"),
    ],
    answer("Deleted, and the research is in."),
    answer("You're welcome."),
]
NEVER = threading.Event()
"""Never set: the stopped run's task would run until it is told to stop."""


def _endless(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    while not context.abort_signal.aborted and not NEVER.wait(0.02):
        pass
    return {"topic": args["topic"], "summary": "unfinished"}


ENDLESS = create_tool(
    id="endless_research", description="Research forever.", input_schema=TOPIC, execute=_endless, background=True
)
STOP_SCRIPT = [
    [call("c1", "endless_research", '{"topic": "tides"}'), StepFinished("tool-calls")],
    answer("Started; it may take a while."),
    answer("The research was cancelled; shall I start it again?"),
    answer("Fine."),
]
SCRIPT = [
    [call("c1", "research", '{"topic": "tides"}'), StepFinished("tool-calls")],
    answer("Started."),
    answer("Tides follow the moon."),
    answer("You're welcome."),
]


def serve(server: ScriptedServer, name: str, tools: Sequence[Tool]) -> tuple[str, ScriptedAdapter]:
    adapter = ScriptedAdapter(list(SCRIPT))
    url = server.serve(name, UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=list(tools))))
    return url, adapter


@pytest.fixture(scope="module")
def served(node: Node, scripted_server: ScriptedServer) -> dict[str, tuple[dict[str, Any], ScriptedAdapter]]:
    """Per tool kind: what the SDK made of a background call and a second message, and the model's requests."""
    chats = {
        kind: serve(scripted_server, f"background-{kind}", [tool])
        for kind, tool in (("shown", RESEARCH), ("hidden", SECRET_RESEARCH))
    }
    flows = [
        {
            "id": kind,
            "kind": "chat",
            "url": url,
            "chatId": f"background-{kind}",
            "steps": [{"send": "Research tides"}, {"send": "Thanks"}],
        }
        for kind, (url, _) in chats.items()
    ]
    paused = ScriptedAdapter(list(PAUSE_SCRIPT))
    paused_url = scripted_server.serve(
        "background-paused",
        UIChat(lambda: Agent(api=paused, client=SCRIPTED_CLIENT, model="m", tools=[SLOW, DELETE])),
    )
    flows.append(
        {
            "id": "paused",
            "kind": "chat",
            "url": paused_url,
            "chatId": "background-paused",
            "sendAutomatically": "approvals",
            "steps": [
                {"send": "Research tides and delete a.txt"},
                {"approve": {"tool": "delete_file", "approved": True}},
                {"send": "Thanks"},
            ],
        }
    )
    stopped = ScriptedAdapter(list(STOP_SCRIPT))
    stopped_url = scripted_server.serve(
        "background-stopped",
        UIChat(lambda: Agent(api=stopped, client=SCRIPTED_CLIENT, model="m", tools=[ENDLESS])),
    )
    flows.append(
        {
            "id": "stopped",
            "kind": "chat",
            "url": stopped_url,
            "chatId": "background-stopped",
            "steps": [
                {"stopWhen": {"send": "Research tides", "part": "data-background-task"}},
                {"send": "Any news?"},
                {"send": "OK"},
            ],
        }
    )
    timer = threading.Timer(1.0, RELEASE.set)  # the run pauses at once; the task ends a moment later
    timer.start()
    try:
        found = node.run("conversation.mjs", {"flows": flows})
    finally:
        timer.cancel()
        RELEASE.set()
    return {
        "paused": (found["paused"], paused),
        "stopped": (found["stopped"], stopped),
        **{kind: (found[kind], adapter) for kind, (_, adapter) in chats.items()},
    }


def test_the_task_is_one_part_and_its_follow_up_turn_is_in_the_same_message(served: Any) -> None:
    found, _ = served["shown"]
    assert "harnessError" not in found, found.get("harnessError")
    assert found["errors"] == []
    assert found["validation"] is None
    assert found["statuses"] == [200, 200]
    assert found["frameProblems"] == [[], []]
    reply = found["messages"][1]
    task = [part for part in reply["parts"] if part["type"] == "data-background-task"]
    assert [part["data"]["status"] for part in task] == ["completed"]
    assert task[0]["data"]["output"] == {"topic": "tides", "summary": "the moon pulls the sea"}
    kinds = [part["type"] for part in reply["parts"]]
    assert kinds == [
        "step-start",
        "tool-research",
        "data-background-task",
        "step-start",
        "text",
        "data-background-result",
        "step-start",
        "text",
    ]


@pytest.mark.parametrize("kind", ["shown", "hidden"])
def test_the_next_request_sends_the_background_result_where_the_model_read_it(served: Any, kind: str) -> None:
    """The model's fourth request is the third one (which read the result) plus the answer and the new prompt."""
    found, adapter = served[kind]
    assert found["errors"] == []
    assert found["statuses"] == [200, 200]
    follow_up, next_turn = adapter.requests[2], adapter.requests[3]
    delivered = follow_up["messages"][-1]
    assert delivered["role"] == "user"
    assert delivered["content"][0]["text"].endswith(
        'completed.\nResult: {"topic": "tides", "summary": "the moon pulls the sea"}'
    )
    assert next_turn["messages"] == [
        *follow_up["messages"],
        {"role": "assistant", "content": [{"type": "text", "text": "Tides follow the moon."}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]


def test_a_result_the_display_hides_never_reaches_the_browser(served: Any) -> None:
    found, _ = served["hidden"]
    assert "the moon pulls the sea" not in str(found["messages"]) + str(found["chunks"])
    marks = [part for part in found["messages"][1]["parts"] if part["type"] == "data-background-result"]
    assert [set(part["data"]) for part in marks] == [{"toolCallId", "taskId"}]


def test_a_task_running_when_the_run_pauses_ends_in_the_paused_request(served: Any) -> None:
    """The request that pauses for an approval waits for the task: it completes, it is not lost."""
    found, _ = served["paused"]
    assert "harnessError" not in found, found.get("harnessError")
    assert found["errors"] == []
    paused = found["snapshots"][0]["messages"][1]
    task = next(part for part in paused["parts"] if part["type"] == "data-background-task")
    assert task["data"]["status"] == "completed"
    assert task["data"]["output"] == {"topic": "tides", "summary": "slow and steady"}


def test_the_result_of_a_task_that_ended_while_paused_is_read_after_the_answers(served: Any) -> None:
    """Approved: the call runs, the task's result comes in, then the model answers both; read back in place."""
    found, adapter = served["paused"]
    assert found["statuses"] == [200, 200, 200]
    answered, next_turn = adapter.requests[1], adapter.requests[2]
    tool_results, delivered = answered["messages"][-2:]
    assert [r["toolCallId"] for r in tool_results["content"]] == ["c1", "c2"]
    assert delivered["content"][0]["text"].endswith(
        'completed.\nResult: {"topic": "tides", "summary": "slow and steady"}'
    )
    assert next_turn["messages"] == [
        *answered["messages"],
        {"role": "assistant", "content": [{"type": "text", "text": "Deleted, and the research is in."}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_both_drivers_wait_for_a_paused_run_s_tasks(mode: str) -> None:
    """`chat.sse` (a sync client, in a thread) and `chat.asse` stream the task to its end before pausing."""
    adapter = ScriptedAdapter(list(PAUSE_SCRIPT))
    chat = UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[SLOW, DELETE]), run_mode=mode)
    body = {
        "id": f"drivers-{mode}",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Go"}]}],
    }
    RELEASE.clear()
    timer = threading.Timer(0.3, RELEASE.set)
    timer.start()
    try:
        if mode == "sync":
            frames = list(chat.sse(body))
        else:

            async def read() -> list[bytes]:
                return [frame async for frame in chat.asse(body)]

            frames = asyncio.run(read())
    finally:
        timer.cancel()
        RELEASE.set()
    chunks = [json.loads(frame[len(b"data: ") :]) for frame in frames[:-1]]
    tasks = [chunk["data"]["status"] for chunk in chunks if chunk["type"] == "data-background-task"]
    assert tasks == ["running", "completed"]
    assert chunks[-1]["messageMetadata"]["paused"] is True


def test_a_task_of_a_stopped_run_is_read_as_cancelled_before_the_next_prompt(served: Any) -> None:
    """Stop while the run waits for its task: the next request tells the model the task was cancelled, then asks."""
    found, adapter = served["stopped"]
    assert "harnessError" not in found, found.get("harnessError")
    assert found["statuses"] == [200, 200, 200]
    next_prompt = adapter.requests[2]["messages"]
    cancelled, prompt = next_prompt[-2:]
    assert cancelled["role"] == "user"
    text = cancelled["content"][0]["text"]
    task_id = text.removeprefix("[Background task ").split("]")[0]
    assert text == (
        f"[Background task {task_id}] Tool 'endless_research' (call c1) was cancelled.\n"
        f"Error: Background task {task_id} was cancelled (the run that started it ended) before it finished."
    )
    assert prompt == {"role": "user", "content": [{"type": "text", "text": "Any news?"}]}
    task_part = found["messages"][3]["parts"][0]  # the browser's running part is answered in the next message
    assert (task_part["type"], task_part["data"]["taskId"], task_part["data"]["status"]) == (
        "data-background-task",
        task_id,
        "cancelled",
    )
    assert adapter.requests[3]["messages"] == [
        *next_prompt,
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "The research was cancelled; shall I start it again?"}],
        },
        {"role": "user", "content": [{"type": "text", "text": "OK"}]},
    ]
