"""`useChat({resume: true})` against UIChat: the reconnect finds no stream (204) and the chat stays as it was."""

from __future__ import annotations

from toolwire.agent import Agent
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer
from toolwire.ui import UIChat

from .conftest import Node, ScriptedServer


def test_resuming_a_finished_chat_gets_no_content_and_keeps_its_messages(
    node: Node, scripted_server: ScriptedServer
) -> None:
    adapter = ScriptedAdapter([answer("Hi there.")])
    url = scripted_server.serve("resume", UIChat(lambda: Agent(api=adapter, client=SCRIPTED_CLIENT, model="m")))
    found = node.run("resume.mjs", {"url": url, "chatId": "chat-1"})
    assert found["statuses"] == [
        {"method": "POST", "path": "/chats/resume", "status": 200},
        {"method": "GET", "path": "/chats/resume/chat-1/stream", "status": 204},
    ]
    assert (found["status"], found["errors"]) == ("ready", [])
    assert found["messages"] == [{"role": "user", "text": "Hello"}, {"role": "assistant", "text": "Hi there."}]
    assert len(adapter.requests) == 1
