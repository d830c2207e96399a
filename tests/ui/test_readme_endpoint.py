"""The README's FastAPI endpoint, as written: under 15 lines, serving an Agent with approvals.

The snippet runs unchanged against a scripted Anthropic API (the SDK's client over a mock
transport): the first POST streams an approval request, the answer runs the tool and the
model finishes in the same message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anthropic
import pytest

from toolwire import create_tool
from toolwire.testing.capture import RequestCapture

from .conftest import SCOPE, Exchange, anthropic_message

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")


def snippet() -> str:
    section = README.split("## Serving AI SDK front ends", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


CALL = anthropic_message(
    [{"type": "tool_use", "id": "toolu_1", "name": "delete_file", "input": {}}],
    [{"type": "input_json_delta", "partial_json": '{"path": "notes.txt"}'}],
    "tool_use",
)
ANSWER = anthropic_message([{"type": "text", "text": ""}], [{"type": "text_delta", "text": "Deleted."}], "end_turn")


def chunks_of(text: str) -> list[dict[str, Any]]:
    assert text.endswith("data: [DONE]\n\n")
    return [json.loads(frame[len("data: ") :]) for frame in text.split("\n\n")[:-2]]


def test_the_endpoint_is_under_15_lines() -> None:
    """Imports, an approval tool, the app and the route: fewer than 15 lines."""
    assert len(snippet().strip().splitlines()) < 15


async def test_the_readme_endpoint_serves_an_approval_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """POST → approval request; POST with the answer → the tool runs, then the model's text, one message."""
    capture = RequestCapture([CALL, ANSWER])
    real = anthropic.AsyncAnthropic
    monkeypatch.setattr(anthropic, "AsyncAnthropic", lambda: real(api_key="k", http_client=capture.async_client()))
    weather = create_tool(id="get_weather", description="Get the weather.", execute=lambda args: "sunny")
    namespace: dict[str, Any] = {"weather": weather}
    exec(compile(snippet(), "README.md", "exec"), namespace)  # the snippet, unchanged
    app = namespace["app"]

    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Delete notes.txt"}]}
    body = {"id": "chat-1", "trigger": "submit-message", "messages": [user]}
    first = Exchange(json.dumps(body).encode())
    await app(SCOPE, first.receive, first.send)
    asked = chunks_of(first.text)
    request = next(c for c in asked if c["type"] == "tool-approval-request")
    assert asked[-1]["messageMetadata"]["paused"] is True

    assistant = {
        "id": asked[0]["messageId"],
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "tool-delete_file",
                "toolCallId": "toolu_1",
                "state": "approval-responded",
                "input": {"path": "notes.txt"},
                "approval": {"id": request["approvalId"], "approved": True},
            },
        ],
    }
    second = Exchange(json.dumps({**body, "messages": [user, assistant]}).encode())
    await app(SCOPE, second.receive, second.send)
    answered = chunks_of(second.text)
    assert answered[0]["messageId"] == asked[0]["messageId"]
    assert answered[1:3] == [
        {"type": "tool-approval-response", "approvalId": request["approvalId"], "approved": True},
        {"type": "tool-output-available", "toolCallId": "toolu_1", "output": "deleted notes.txt"},
    ]
    assert [c["delta"] for c in answered if c["type"] == "text-delta"] == ["Deleted."]
    assert answered[-1]["finishReason"] == "stop"
    assert capture.body(1)["messages"][-1]["content"][0]["content"] == "deleted notes.txt"
