"""The `useChat` request body → toolwire's conversation.

`useChat` posts `{id, messages: UIMessage[], trigger, messageId}` (plus the app's own body
fields). Each assistant UIMessage becomes, per step (`step-start` parts split them), an
assistant message and the tool message of its results, exactly as the run that streamed it
recorded them; so the next provider request equals the one the run would have sent.

The last step of the last assistant message may hold calls that wait (an approval, a
browser-side output, resume data): its tool parts are `Conversation.last_step`, and while some
wait, the step's results are left to whoever continues the run. A message the conversation
went on from without answering its calls was stopped or failed (the user pressed stop, the
run ended in an error): those calls get the result the runtime gives an aborted call, as the
run itself did, and are listed in `Conversation.interrupted` — unless its run still waits
for them (`paused`, or else the message's `metadata.paused`): those must be answered first.
Anywhere else a call without a result is an error, as is any part toolwire cannot represent.
Left out on purpose: calls a stopped stream never finished (`input-streaming`, listed in
`interrupted` too), and toolwire's own display parts (`data-tool-suspended`, ...; see
`toolwire.ui.protocol`).

A provider-executed output that came in a later step than its call sits on the call's part; a
`data-tool-output` part marks the step it came in, and the result is read there. A part marked
`toolwire.earlierCall` repeats a call of an earlier message: only its result is read. A
`data-background-result` part puts back the user message that brought a background task's
result, where the run had it (after the step it follows; before the prompt when it leads).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolwire.agent._state import aborted_result
from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
)
from toolwire.results import ContentPart, ToolCall, ToolResult, normalize_part

from ._parts import (
    UIMessageError,
    UIToolPart,
    assistant_media,
    background_result,
    file_part,
    reasoning_part,
    text_part,
    tool_part,
)
from .protocol import BACKGROUND_RESULT, DISPLAY_DATA_PARTS, TOOL_OUTPUT

DataPartReader = Callable[[Mapping[str, Any]], Sequence[str | ContentPart]]
"""Turns an app's `data-<name>` part into text and content parts for the model ([] leaves it out)."""

Trigger = Literal["submit-message", "regenerate-message"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversation:
    """What the UI messages say, in toolwire's terms."""

    messages: list[Message]
    last_step: list[UIToolPart] = field(default_factory=list)
    """The tool parts of the last step, when the last message is the assistant's (answers are there)."""
    interrupted: list[str] = field(default_factory=list)
    """Ids of calls a stopped or failed stream left unfinished: not yet complete (left out), or never
    answered before the conversation went on (answered as aborted)."""

    @property
    def waiting(self) -> list[UIToolPart]:
        """The calls of `last_step` without a result."""
        return [p for p in self.last_step if p.is_open]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
    """A `useChat` POST body."""

    chat_id: str
    trigger: Trigger
    message_id: str | None
    ui_messages: list[Mapping[str, Any]]
    conversation: Conversation
    body: Mapping[str, Any]
    """The whole body, with the app's own fields."""

    @property
    def last_assistant_id(self) -> str | None:
        """The id of the last message when it is the assistant's (a continuation streams into it)."""
        last = self.ui_messages[-1] if self.ui_messages else None
        return str(last["id"]) if last is not None and last.get("role") == "assistant" else None


def read_chat_request(
    body: Any,
    *,
    allow_system: bool = False,
    data_parts: DataPartReader | None = None,
    paused: Collection[str] | None = None,
) -> ChatRequest:
    """Check and read a `useChat` POST body (`paused`: see `read_ui_messages`).

    Raises:
        UIMessageError: a missing or mistyped field, or a message or part that cannot be read.
    """
    if not isinstance(body, Mapping):
        raise UIMessageError("the request body must be a JSON object")
    chat_id = body.get("id")
    if not isinstance(chat_id, str) or not chat_id:
        raise UIMessageError("the request body needs the chat `id` (a non-empty string)")
    trigger = body.get("trigger", "submit-message")
    if trigger not in ("submit-message", "regenerate-message"):
        raise UIMessageError(f"`trigger` must be 'submit-message' or 'regenerate-message', got {trigger!r}")
    message_id = body.get("messageId")
    if message_id is not None and not isinstance(message_id, str):
        raise UIMessageError("`messageId` must be a string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise UIMessageError("`messages` must be a non-empty list of UI messages")
    conversation = read_ui_messages(messages, allow_system=allow_system, data_parts=data_parts, paused=paused)
    return ChatRequest(
        chat_id=chat_id,
        trigger=trigger,
        message_id=message_id,
        ui_messages=list(messages),
        conversation=conversation,
        body=body,
    )


def read_ui_messages(
    ui_messages: Sequence[Any],
    *,
    allow_system: bool = False,
    data_parts: DataPartReader | None = None,
    paused: Collection[str] | None = None,
) -> Conversation:
    """UI messages → the conversation (see the module docstring).

    `paused` names the assistant messages whose run still waits for answers (a host that keeps
    runs knows); None trusts each message's `metadata.paused`.

    Raises:
        UIMessageError: naming the message index, the part index and the problem.
    """
    reader = _Reader(allow_system, data_parts, last=len(ui_messages) - 1, paused=paused)
    for index, message in enumerate(ui_messages):
        reader.message(index, message)
    return Conversation(messages=reader.messages, last_step=reader.last_step, interrupted=reader.interrupted)


class _Reader:
    def __init__(
        self, allow_system: bool, data_parts: DataPartReader | None, last: int, paused: Collection[str] | None
    ) -> None:
        self.allow_system = allow_system
        self.paused = paused
        self.data_parts = data_parts
        self.last = last
        self.messages: list[Message] = []
        self.last_step: list[UIToolPart] = []
        self.interrupted: list[str] = []
        self._deferred: set[str] = set()
        """Provider calls of the current message whose output came in a later step (`data-tool-output`)."""
        self._message_tools: dict[str, UIToolPart] = {}
        """The tool parts of the current message read so far, by call id."""
        self._earlier_calls: set[str] = set()
        """The calls of the messages before the current one."""

    def message(self, index: int, message: Any) -> None:
        if not isinstance(message, Mapping):
            raise UIMessageError("a UI message must be an object", index)
        if not isinstance(message.get("id"), str):
            raise UIMessageError("a UI message needs a string `id`", index)
        parts = message.get("parts")
        if not isinstance(parts, list):
            raise UIMessageError("`parts` must be a list", index)
        role = message.get("role")
        if role == "user":
            self._user(index, parts)
        elif role == "assistant":
            metadata = message.get("metadata")
            if self.paused is not None:
                is_paused = message["id"] in self.paused
            else:
                is_paused = isinstance(metadata, Mapping) and metadata.get("paused") is True
            self._assistant(index, parts, paused=is_paused)
        elif role == "system":
            self._system(index, parts)
        else:
            raise UIMessageError(f"`role` must be 'user', 'assistant' or 'system', got {role!r}", index)

    # -- roles -------------------------------------------------------------------------------------

    def _system(self, index: int, parts: list[Any]) -> None:
        if not self.allow_system:
            raise UIMessageError(
                "system messages from the browser are refused (set instructions on the server, "
                "or pass allow_system=True)",
                index,
            )
        texts = [text_part(p, (index, i)).text for i, p in enumerate(self._typed(index, parts)) if p["type"] == "text"]
        if len(texts) != len(parts):
            raise UIMessageError("a system message may only hold text parts", index)
        self.messages.append(SystemMessage(content="\n".join(texts)))

    def _user(self, index: int, parts: list[Any]) -> None:
        content: list[TextPart | MediaPart] = []
        for i, part in enumerate(self._typed(index, parts)):
            kind = part["type"]
            if kind == "text":
                content.append(text_part(part, (index, i)))
            elif kind == "file":
                content.append(file_part(part, (index, i)))
            elif kind.startswith("data-"):
                content.extend(self._data(part, (index, i), media=True))
            else:
                raise UIMessageError(f"a user message cannot hold a {kind!r} part", index, i)
        if not content:
            raise UIMessageError("a user message needs at least one part the model can read", index)
        self.messages.append(UserMessage(content=tuple(content)))

    def _assistant(self, index: int, parts: list[Any], *, paused: bool) -> None:
        """One assistant message per step (each model call), even an empty one, as the run recorded it."""
        steps: list[list[tuple[int, Mapping[str, Any]]]] = [[]]
        self._earlier_calls.update(self._message_tools)
        self._deferred = set()
        self._message_tools = {}
        for i, part in enumerate(self._typed(index, parts)):
            if part["type"] == "step-start":
                steps.append([])
            else:
                steps[-1].append((i, part))
            if part["type"] == TOOL_OUTPUT:
                self._deferred.add(_deferred_call(part, (index, i)))
        leading = steps[0]
        if len(steps) > 1 and all(p["type"].startswith("data-") for _, p in leading):
            steps.pop(0)  # only display parts before the first step: no model call
            self._display_only(index, leading)
        for number, step in enumerate(steps):
            is_final = number == len(steps) - 1
            abandoned = is_final and index != self.last and not paused
            self._step(index, step, is_last=is_final and index == self.last, abandoned=abandoned)

    def _display_only(self, index: int, parts: list[tuple[int, Mapping[str, Any]]]) -> None:
        prompt = max((i for i, m in enumerate(self.messages) if isinstance(m, UserMessage)), default=len(self.messages))
        for i, part in parts:
            if part["type"] == BACKGROUND_RESULT:  # delivered before this run's prompt was read: it went before it
                self.messages.insert(prompt, background_result(part, (index, i)))
                prompt += 1
            elif self._data(part, (index, i), media=False):
                raise UIMessageError("a data part before the first step has no model call to belong to", index, i)

    def _step(self, index: int, step: list[tuple[int, Mapping[str, Any]]], *, is_last: bool, abandoned: bool) -> None:
        content: list[TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult] = []
        tools: list[UIToolPart] = []
        delivered: list[UserMessage] = []
        for i, part in step:
            where = (index, i)
            kind = part["type"]
            if kind == BACKGROUND_RESULT:
                delivered.append(background_result(part, where))
            elif kind in ("text", "reasoning"):
                piece = text_part(part, where) if kind == "text" else reasoning_part(part, where)
                if piece.text or piece.provider_metadata:  # an empty part a stream opened and closed
                    content.append(piece)
            elif kind.startswith("tool-") or kind == "dynamic-tool":
                self._tool(tool_part(part, where), content, tools)
            elif kind == TOOL_OUTPUT:
                content.extend(self._deferred_result(part, where))
            elif kind.startswith("data-"):
                content.extend(TextPart(text=t) for t in self._data(part, where, media=False))
            else:
                content.extend(assistant_media(part, where))
        self.messages.append(AssistantMessage(content=tuple(content)))
        waiting = [t for t in tools if t.is_open]
        if waiting and abandoned:
            self.interrupted.extend(t.tool_call_id for t in waiting)
            answered = [aborted_result(t.call(), None) if t.is_open else t.result() for t in tools]
            self.messages.append(ToolMessage(content=tuple(r for r in answered if r is not None)))
            self.messages.extend(delivered)
            return
        if waiting and not is_last:
            first = waiting[0]
            raise UIMessageError(
                f"tool call {first.tool_call_id!r} ({first.tool_name}) has no result, and only the last "
                "assistant step may wait for one",
                *first.where,
            )
        if is_last:
            self.last_step = tools
        if waiting:
            if delivered:
                raise UIMessageError(
                    "a background result cannot follow a step whose calls still wait for answers", index, step[-1][0]
                )
            return
        results = [r for t in tools if (r := t.result()) is not None]
        if results:
            self.messages.append(ToolMessage(content=tuple(results)))
        self.messages.extend(delivered)

    def _tool(
        self,
        tool: UIToolPart,
        content: list[TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult],
        tools: list[UIToolPart],
    ) -> None:
        """A tool part: its call (unless an earlier message made it) and, for provider calls, its result here."""
        if tool.state == "input-streaming":
            self.interrupted.append(tool.tool_call_id)
            return
        self._message_tools[tool.tool_call_id] = tool
        if not tool.made_earlier:
            content.append(tool.call())
        elif tool.tool_call_id not in self._earlier_calls:
            raise UIMessageError(
                f"tool call {tool.tool_call_id!r} is marked as made in an earlier message "
                "(`toolwire.earlierCall`), but no earlier message holds it",
                *tool.where,
            )
        if tool.provider_executed and tool.tool_call_id in self._deferred:
            return  # its result is read where the `data-tool-output` part puts it
        if tool.provider_executed and (result := tool.result()) is not None:
            content.append(result)
        elif not tool.provider_executed:
            tools.append(tool)

    def _deferred_result(self, part: Mapping[str, Any], where: tuple[int, int]) -> list[ToolResult]:
        """The result a `data-tool-output` part places: the output on its call's (earlier) part."""
        call_id = _deferred_call(part, where)
        tool = self._message_tools.get(call_id)
        if tool is None or not tool.provider_executed:
            raise UIMessageError(
                f"`{TOOL_OUTPUT}` names tool call {call_id!r}, which no earlier provider-executed tool part "
                "of this message holds",
                *where,
            )
        result = tool.result()
        return [] if result is None else [result]

    # -- parts ---------------------------------------------------------------------------------------

    @staticmethod
    def _typed(index: int, parts: list[Any]) -> list[Mapping[str, Any]]:
        for i, part in enumerate(parts):
            if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                raise UIMessageError("a part must be an object with a string `type`", index, i)
        return parts

    def _data(self, part: Mapping[str, Any], where: tuple[int, int], *, media: bool) -> list[Any]:
        """An app data part through `data_parts`; toolwire's own display parts are not for the model."""
        kind = part["type"]
        if kind in DISPLAY_DATA_PARTS:
            return []
        if self.data_parts is None:
            raise UIMessageError(f"{kind!r} parts need a `data_parts` reader to become model content", *where)
        converted: list[Any] = []
        for item in self.data_parts(part):
            if isinstance(item, str):
                converted.append(TextPart(text=item) if media else item)
            elif not media:
                what = item.get("type")
                raise UIMessageError(f"the {kind!r} reader gave a {what!r} part; assistant messages take text", *where)
            else:
                try:
                    normalized = normalize_part(item)
                except ValueError as exc:
                    raise UIMessageError(f"the {kind!r} reader gave an invalid part: {exc}", *where) from None
                if normalized["type"] == "text":
                    converted.append(TextPart(text=normalized["text"]))
                else:
                    converted.append(MediaPart(part=normalized))
        return converted


def _deferred_call(part: Mapping[str, Any], where: tuple[int, int]) -> str:
    """The call id a `data-tool-output` part names."""
    data = part.get("data")
    call_id = data.get("toolCallId") if isinstance(data, Mapping) else None
    if not isinstance(call_id, str):
        raise UIMessageError(f"a `{TOOL_OUTPUT}` part needs `data.toolCallId` (a string)", *where)
    return call_id
