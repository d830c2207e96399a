"""A tool's error naming a credential, served to the AI SDK's own client: shown redacted, read back whole.

The model reads the error as the runtime wrote it; the browser sees it with the credentials
replaced, and the next request still sends the model what it read (the server keeps the text).
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.agent import Agent
from toolwire.deltas import StepFinished
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call
from toolwire.tools import create_tool
from toolwire.ui import UIChat

from .conftest import Node, ScriptedServer

FAILURE = "connect failed: postgresql://admin:hunter2@db.internal/prod api_key=sk-abcdefghijklmnop"


def _lookup(args: dict[str, Any]) -> Any:
    raise RuntimeError(FAILURE)


LOOKUP = create_tool(
    id="lookup", description="Look it up.", input_schema={"type": "object", "properties": {}}, execute=_lookup
)
SCRIPT = [[call("c1", "lookup", "{}"), StepFinished("tool-calls")], answer("It failed."), answer("A bad password.")]


@pytest.fixture(scope="module")
def served(node: Node, scripted_server: ScriptedServer) -> tuple[dict[str, Any], ScriptedAdapter]:
    adapter = ScriptedAdapter(list(SCRIPT))
    chat = UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m", tools=[LOOKUP]))
    url = scripted_server.serve("error-texts", chat)
    flow = {
        "id": "leaky",
        "kind": "chat",
        "url": url,
        "chatId": "error-texts",
        "steps": [{"send": "Look"}, {"send": "Why?"}],
    }
    found = node.run("conversation.mjs", {"flows": [flow]})["leaky"]
    assert "harnessError" not in found, found.get("harnessError")
    return found, adapter


def test_the_browser_sees_the_error_with_credentials_redacted(served: tuple[dict[str, Any], ScriptedAdapter]) -> None:
    found, _ = served
    assert found["errors"] == []
    assert found["statuses"] == [200, 200]
    tool = next(part for part in found["messages"][1]["parts"] if part["type"] == "tool-lookup")
    assert tool["state"] == "output-error"
    assert tool["errorText"] == (
        "Tool 'lookup' failed: RuntimeError: connect failed: "
        "postgresql://[redacted]@db.internal/prod api_key=[redacted]"
    )
    assert "hunter2" not in str(found["chunks"])
    assert "sk-abcdefghijklmnop" not in str(found["chunks"])


def test_the_next_request_sends_the_model_the_error_it_read(served: tuple[dict[str, Any], ScriptedAdapter]) -> None:
    _, adapter = served
    answered, next_turn = adapter.requests[1], adapter.requests[2]
    assert answered["messages"][-1]["content"][0]["output"]["value"].endswith(FAILURE)
    assert next_turn["messages"] == [
        *answered["messages"],
        {"role": "assistant", "content": [{"type": "text", "text": "It failed."}]},
        {"role": "user", "content": [{"type": "text", "text": "Why?"}]},
    ]
