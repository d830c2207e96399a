"""Background tool calls served to the AI SDK's own client: the task's parts, and its result read back.

A served run waits for its background calls and answers them in a follow-up turn of the same
message; the message that brought the result to the model must come back with the UI messages,
so the next request sends the model the conversation it had (placed where the run had it).
"""

from __future__ import annotations

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
    found = node.run("conversation.mjs", {"flows": flows})
    return {kind: (found[kind], adapter) for kind, (_, adapter) in chats.items()}


def texts(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [(part["type"], part.get("text", "")) for part in message["parts"] if part["type"] != "step-start"]


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
