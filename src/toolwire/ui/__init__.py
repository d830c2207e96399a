"""toolwire as an AI SDK backend: `useChat` / `Chat` front ends consume its streams as they are.

- `UIChat(agent_factory).respond(request)`: a whole Starlette/FastAPI endpoint (reads the
  `useChat` body, continues paused runs from the browser's answers, streams the reply).
- `agent_chunks(agent, prompt)` / `aagent_chunks(...)`: an agent run → one assistant UI
  message's chunks; `ui_message_chunks(events)` / `aui_message_chunks(events)`: the same from any
  event stream; `encode_sse` / `aencode_sse`: chunks → SSE bytes;
  `UIMessageStreamResponse` (`toolwire.ui.asgi`, needs `toolwire[ui]`): the ASGI response.
- `read_chat_request(body)` / `read_ui_messages(messages)`: UIMessage[] → toolwire messages.
- `toolwire.ui.protocol`: the headers, and the data parts and metadata toolwire adds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire._extras import optional_imports

from ._answers import ChatRequestError
from ._chat_turn import ChatTurn
from ._parts import UIMessageError, UIToolPart
from .chat import AgentFactory, UIChat
from .protocol import UI_MESSAGE_STREAM_HEADERS
from .reading import ChatRequest, Conversation, DataPartReader, read_chat_request, read_ui_messages
from .runs import aagent_chunks, agent_chunks
from .sse import aencode_sse, encode_sse
from .store import ChatStore, MemoryChatStore
from .stream import UIMessageStream, aui_message_chunks, new_message_id, ui_message_chunks

if TYPE_CHECKING:
    from .asgi import UIMessageStreamResponse

__all__ = [
    "UI_MESSAGE_STREAM_HEADERS",
    "AgentFactory",
    "ChatRequest",
    "ChatRequestError",
    "ChatStore",
    "ChatTurn",
    "Conversation",
    "DataPartReader",
    "MemoryChatStore",
    "UIChat",
    "UIMessageError",
    "UIMessageStream",
    "UIMessageStreamResponse",
    "UIToolPart",
    "aagent_chunks",
    "aencode_sse",
    "agent_chunks",
    "aui_message_chunks",
    "encode_sse",
    "new_message_id",
    "read_chat_request",
    "read_ui_messages",
    "ui_message_chunks",
]


def __getattr__(name: str) -> Any:
    """`UIMessageStreamResponse` imports Starlette, only when asked for."""
    if name == "UIMessageStreamResponse":
        with optional_imports("toolwire.ui's ASGI response", "ui"):
            from .asgi import UIMessageStreamResponse
        return UIMessageStreamResponse
    raise AttributeError(f"module 'toolwire.ui' has no attribute {name!r}")
