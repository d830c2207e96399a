"""Checking what callers hand an `Agent`: the api, the model, the tools and options, the history, a prompt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolwire.adapter import Adapter
from toolwire.exceptions import ArgumentError
from toolwire.messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage, parse_messages, user
from toolwire.registry import get_adapter
from toolwire.runtime import ExecutionSettings
from toolwire.tools import Tool

from ._state import Conversation

Prompt = str | Message | Mapping[str, Any] | None
_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)


def adapter_for(api: Any) -> Adapter:
    """The adapter an `api=` names (or is).

    Raises:
        ArgumentError: neither an api name nor an `Adapter`.
        AdapterNotFound: an unknown api name.
    """
    if isinstance(api, Adapter):
        return api
    if isinstance(api, str):
        return get_adapter(api)
    raise ArgumentError("api", "an api name such as 'openai-chat', or an Adapter", api)


def model_name(model: Any) -> str:
    """The model name, checked.

    Raises:
        ArgumentError: not a non-empty string.
    """
    if not isinstance(model, str) or not model.strip():
        raise ArgumentError("model", "the model name, a non-empty string", model)
    return model


def checked_tools(tools: Any) -> list[Tool]:
    """The tools, as a list (a single tool is not a list of them).

    Raises:
        ArgumentError: not an iterable of `Tool`s; the first item that is not one is named by position.
    """
    if isinstance(tools, (Tool, str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise ArgumentError("tools", "a list of Tool objects", tools)
    listed = list(tools)
    for index, item in enumerate(listed):
        if not isinstance(item, Tool):
            detail = f"item {index} is a {type(item).__name__} (make one with create_tool or @tool)"
            raise ArgumentError("tools", "a list of Tool objects", detail=detail)
    return listed


def checked_options(
    request_options: Any, settings: Any, ids: Mapping[str, Any], counts: Mapping[str, Any]
) -> dict[str, Any]:
    """The SDK call arguments, after checking the runtime settings, the run state's ids and the limits.

    Raises:
        ArgumentError: `request_options` not a dict, `settings` not an `ExecutionSettings`, an id not a
            string, a count not a positive int.
    """
    if request_options is not None and not isinstance(request_options, Mapping):
        raise ArgumentError("request_options", "a dict of SDK call arguments", request_options)
    if settings is not None and not isinstance(settings, ExecutionSettings):
        raise ArgumentError("settings", "an ExecutionSettings or None", settings)
    for name, value in ids.items():
        if value is not None and not isinstance(value, str):
            raise ArgumentError(name, "a string or None", value)
    for name, value in counts.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ArgumentError(name, "a positive int", value)
    return dict(request_options or {})


def checked_state(state: Any) -> Mapping[str, Any] | None:
    """The starting run state.

    Raises:
        ArgumentError: not a dict.
    """
    if state is not None and not isinstance(state, Mapping):
        raise ArgumentError("state", "a JSON object (a dict)", state)
    return state


def starting_history(instructions: Any, messages: Sequence[Message | Mapping[str, Any]] | None) -> list[Message]:
    """The conversation an agent starts from: the instructions as a system message, then `messages`.

    Raises:
        ArgumentError: unreadable messages, instructions that are not a string, or given beside a system message.
    """
    history = parse_messages(messages, "messages") if messages is not None else []
    if instructions is None or instructions == "":
        return history
    if not isinstance(instructions, str):
        raise ArgumentError("instructions", "a string (the system prompt)", instructions)
    if any(isinstance(m, SystemMessage) for m in history):
        raise ArgumentError(
            "instructions", "None when `messages` has a system message", detail="give the system prompt once"
        )
    return [SystemMessage(content=instructions), *history]


def prompt_message(prompt: Prompt, conversation: Conversation) -> Message | None:
    """The message a run starts with (None: continue), given where the conversation stands.

    Raises:
        ArgumentError: a prompt while calls wait, none and nothing to continue, or not a message.
    """
    if prompt is None:
        if conversation.turn is None and not conversation.messages:
            raise ArgumentError("prompt", "given to start a conversation (there is nothing to continue)", None)
        return None
    if conversation.turn is not None:
        raise ArgumentError(
            "prompt",
            "None while the run is paused on tool calls",
            detail="approve/deny/resume them (or supply their outputs), then call run() without a prompt",
        )
    if isinstance(prompt, str):
        return user(prompt)
    if isinstance(prompt, (*_MESSAGE_TYPES, Mapping)):
        return parse_messages([prompt], "prompt")[0]
    raise ArgumentError("prompt", "a string, a Message or a message dict", prompt)
