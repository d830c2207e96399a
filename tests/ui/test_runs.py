"""An agent run streamed as one UI message without UIChat (sync and async), and the package's layering."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from toolwire.agent import Agent
from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.conformance.fixtures import ToolLog
from toolwire.conformance.runner import FAKE_KEY, build_agent
from toolwire.conformance.scenarios import scenario
from toolwire.deltas import StepFinished, TextPiece, ToolCallComplete, ToolOutput
from toolwire.registry import get_adapter
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import create_tool
from toolwire.ui import aagent_chunks, agent_chunks

DEMO = scenario("weather_and_chart")


def summary(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    chart = next(c for c in chunks if c["type"] == "tool-output-available" and "providerMetadata" in c)
    return {
        "starts": sum(c["type"] == "start" for c in chunks),
        "steps": sum(c["type"] == "start-step" for c in chunks),
        "model read": [p["type"] for p in chart["providerMetadata"]["toolwire"]["modelOutput"]["value"]],
        "finish": {k: chunks[-1]["messageMetadata"][k] for k in ("finishReason", "usage", "paused", "model")},
    }


EXPECTED = {
    "starts": 1,
    "steps": 2,
    "model read": ["text", "image-data"],
    "finish": {
        "finishReason": "stop",
        "usage": {"inputTokens": 1129, "outputTokens": 179, "totalTokens": 1308, "cachedInputTokens": 0},
        "paused": False,
        "model": "claude-sonnet-4-6",
    },
}


def test_a_sync_agent_run_is_one_message() -> None:
    """`agent_chunks`: one start, a step per model call, what the model read, usage summed."""
    with replay_vcr().use_cassette(str(cassette_path("anthropic", DEMO.name))):
        agent = build_agent("anthropic", DEMO, get_adapter("anthropic").sdk_client(api_key=FAKE_KEY), ToolLog())
        chunks = list(agent_chunks(agent, DEMO.prompt, message_id="msg_1"))
    assert chunks[0]["messageId"] == "msg_1"
    assert summary(chunks) == EXPECTED


async def test_an_async_agent_run_is_the_same_message() -> None:
    """`aagent_chunks` with the SDK's async client."""
    with replay_vcr().use_cassette(str(cassette_path("anthropic", DEMO.name))):
        client = get_adapter("anthropic").sdk_client(api_key=FAKE_KEY, asynchronous=True)
        agent = build_agent("anthropic", DEMO, client, ToolLog())
        chunks = [c async for c in aagent_chunks(agent, DEMO.prompt)]
    assert summary(chunks) == EXPECTED


def test_importing_the_bridge_does_not_import_starlette() -> None:
    """Starlette is needed only for the ASGI response (`toolwire[ui]`), imported when asked for."""
    code = "import sys, toolwire.ui; print('starlette' in sys.modules, 'toolwire.ui' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_the_core_does_not_import_the_bridge() -> None:
    """The bridge depends on the runtime, never the reverse."""
    code = "import sys, toolwire, toolwire.agent, toolwire.runtime; print('toolwire.ui' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_asgi_response_without_starlette_names_the_extra() -> None:
    """Without Starlette, asking for the response says `pip install 'toolwire[ui]'`."""
    code = (
        "import sys\nsys.modules['starlette'] = None\n"
        "from toolwire.ui import encode_sse\n"
        "try:\n    from toolwire.ui import UIMessageStreamResponse\n"
        "except ImportError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "MissingExtraError toolwire.ui's ASGI response needs starlette: pip install 'toolwire[ui]'"
    )


def test_a_run_answering_a_call_of_the_previous_run_announces_that_call() -> None:
    """Run 2 of an agent opens with the result of run 1's provider call: announced from the conversation."""
    search = ToolCallComplete(
        key="s", tool_call_id="srv_1", name="web_search", arguments='{"q": "Paris"}', provider_executed=True
    )
    adapter = ScriptedAdapter(
        [
            [search, StepFinished("stop")],
            [ToolOutput("srv_1", {"hits": 3}), TextPiece("t", "3 hits."), StepFinished("stop")],
        ]
    )
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m")
    list(agent_chunks(agent, "Search Paris"))
    chunks = list(agent_chunks(agent, "And?"))
    assert chunks[2:4] == [
        {
            "type": "tool-input-available",
            "toolCallId": "srv_1",
            "toolName": "web_search",
            "input": {"q": "Paris"},
            "providerExecuted": True,
            "providerMetadata": {"toolwire": {"earlierCall": True}},
        },
        {"type": "tool-output-available", "toolCallId": "srv_1", "output": {"hits": 3}, "providerExecuted": True},
    ]


def test_continuing_a_paused_run_does_not_announce_its_calls_again() -> None:
    """`prompt=None` streams into the paused message: its calls are there already."""
    delete = create_tool(id="delete_file", description="Delete.", require_approval=True, execute=lambda args: "ok")
    adapter = ScriptedAdapter([[call("c1", "delete_file", "{}"), StepFinished("tool-calls")], answer("Done.")])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[delete])
    list(agent_chunks(agent, "Delete it", message_id="msg_1"))
    agent.approve(agent.result().pending_approvals[0].approval_id)
    chunks = list(agent_chunks(agent, message_id="msg_1"))
    assert [c["type"] for c in chunks[:3]] == ["start", "tool-approval-response", "tool-output-available"]
