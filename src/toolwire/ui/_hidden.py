"""What a display transform keeps from the browser, kept on the server for the next turn.

A tool whose `transform.display` hides its input or output shows the browser a reduced copy, and
an error text naming a credential is shown redacted, so the UI messages cannot give back what
the model saw. The bridge keeps those values in the chat's
store record (`{call id: {"input"?, "output"?, "background"?}}`, JSON) and puts them back when the
conversation is read again; the browser never holds them. `background` is the message that brought
a background task's result (`{taskId, content}`): the UI message holds a placeholder for it.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic_core

from toolwire.messages import AssistantMessage, Message, TextPart, ToolMessage, UserMessage, message_to_dict, to_message
from toolwire.results import ToolCall, ToolResult
from toolwire.tools import Tool

from ._parts import background_placeholder
from ._tool_chunks import redacts

Hidden = dict[str, dict[str, Any]]

# How `toolwire.agent` opens the message of a background task's result.
_BACKGROUND_HEADER = re.compile(
    r"\[Background task (?P<task>[^\]]+)\] Tool (?P<name>'[^']*'|\"[^\"]*\") \(call (?P<call>[^)]*)\) "
)


def _hides(tool: Tool | None, *phases: str) -> bool:
    display = tool.transform.display if tool is not None and tool.transform is not None else None
    return display is not None and any(getattr(display, phase) is not None for phase in phases)


def collect(messages: Sequence[Message], tools: Mapping[str, Tool], into: Hidden) -> None:
    """Record the inputs and results the browser was shown only through a display transform."""
    for message in messages:
        if isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, ToolCall) and _hides(tools.get(part.tool_name), "input", "input_delta"):
                    into.setdefault(part.tool_call_id, {})["input"] = pydantic_core.to_jsonable_python(part.input)
        elif isinstance(message, ToolMessage):
            for result in message.content:
                failed = result.output["type"] in ("error-text", "error-json")
                if _hides(tools.get(result.tool_name), "output", "error") or (failed and redacts(result.output)):
                    into.setdefault(result.tool_call_id, {})["output"] = result.output
        elif isinstance(message, UserMessage) and (found := _background_header(message)) is not None:
            task_id, tool_name, call_id = found
            content = message_to_dict(message)["content"]
            if _hides(tools.get(tool_name), "output", "error") or redacts(content):
                kept = {"taskId": task_id, "content": content}
                into.setdefault(call_id, {})["background"] = pydantic_core.to_jsonable_python(kept)


def _background_header(message: UserMessage) -> tuple[str, str, str] | None:
    """(task id, tool name, call id) of a background result message, else None."""
    first = message.content[0] if message.content else None
    found = _BACKGROUND_HEADER.match(first.text) if isinstance(first, TextPart) else None
    if found is None:
        return None
    return found["task"], str(ast.literal_eval(found["name"])), found["call"]


def restore(messages: Sequence[Message], hidden: Mapping[str, Mapping[str, Any]]) -> list[Message]:
    """The conversation with the kept inputs and results put back."""
    if not hidden:
        return list(messages)
    restored: list[Message] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            content = tuple(_call(part, hidden) if isinstance(part, ToolCall) else part for part in message.content)
            message = dataclasses.replace(message, content=content)
        elif isinstance(message, ToolMessage):
            message = dataclasses.replace(message, content=tuple(_result(r, hidden) for r in message.content))
        elif isinstance(message, UserMessage):
            message = _background(message, hidden)
        restored.append(message)
    return restored


def _call(call: ToolCall, hidden: Mapping[str, Mapping[str, Any]]) -> ToolCall:
    kept = hidden.get(call.tool_call_id, {})
    return dataclasses.replace(call, input=kept["input"]) if "input" in kept else call


def _result(result: ToolResult, hidden: Mapping[str, Mapping[str, Any]]) -> ToolResult:
    kept = hidden.get(result.tool_call_id, {})
    return dataclasses.replace(result, output=kept["output"]) if "output" in kept else result


def _background(message: UserMessage, hidden: Mapping[str, Mapping[str, Any]]) -> UserMessage:
    """The kept background result in place of its placeholder (any other user message as it is)."""
    first = message.content[0] if len(message.content) == 1 else None
    if not isinstance(first, TextPart):
        return message
    for call_id, kept in hidden.items():
        background = kept.get("background")
        if background is not None and first.text == background_placeholder(background["taskId"], call_id):
            restored = to_message({"role": "user", "content": background["content"]})
            return restored if isinstance(restored, UserMessage) else message
    return message
