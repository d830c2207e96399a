"""The tool half of a UI message: calls, outputs, approvals, suspensions and their data parts.

An output can come in a later model response than its call (Anthropic's programmatic tool
calling, deferred tool search). When the call is in this message, a `data-tool-output` part
marks the step the output came in. When it was made in an earlier message, the call is looked
up in the conversation and announced again in this message (its real name and input, through
the display transform as when it was made, marked `toolwire.earlierCall` so the conversation
read back holds the call once); a call the conversation does not hold gets a `data-warning`.

A target's display answer splits into its content and a `data-tool-display` part; what the model
read travels with an output when it differs from what is shown, unless a display transform
hides it; refused resume data puts the call's part back to waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from toolwire.compat import Degradation
from toolwire.events import (
    BackgroundTaskFinished,
    BackgroundTaskProgress,
    BackgroundTaskStarted,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
    ToolOutputAvailable,
    ToolOutputDenied,
    ToolOutputError,
    ToolResumed,
    ToolResumeError,
    ToolSuspended,
)
from toolwire.messages import AssistantMessage, Message, message_to_dict
from toolwire.results import ToolCall, ToolResult, default_output
from toolwire.runtime import display_stream_event
from toolwire.tools import Tool, TransformPhase

from . import protocol
from ._safety import redact

Chunk = dict[str, Any]


class ToolChunks:
    """The tool events of a run as chunks; `UIMessageStream` adds the message, steps and text around them."""

    def __init__(
        self,
        *,
        tools: Mapping[str, Tool] | None,
        known_calls: Mapping[str, str] | None,
        known_inputs: Mapping[str, Any] | None,
        suspensions: Mapping[str, Mapping[str, Any]] | None,
        client_tools: Iterable[str],
        tool_result: Callable[[str], ToolResult | None] | None,
        history: Sequence[Message] = (),
        dynamic_calls: Iterable[str] = (),
        api: str | None = None,
        background_result: Callable[[str], Message | None] | None = None,
        ended_tasks: Mapping[str, tuple[str, str, bool]] | None = None,
    ) -> None:
        self._tools = dict(tools or {})
        self._calls: dict[str, str] = dict(known_calls or {})
        """Tool name of every call the client knows in this message, by call id."""
        self._inputs: dict[str, Any] = dict(known_inputs or {})
        self._suspensions: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (suspensions or {}).items()}
        """The suspension or card part of each suspended call the client shows (`{type, data}`)."""
        self._client_tools = frozenset(client_tools)
        self._tool_result = tool_result
        self._earlier = _calls_of(history)
        """The conversation's calls by id: where a call made in an earlier message is found."""
        self._dynamic = frozenset(dynamic_calls)
        """Calls the client shows as `dynamic-tool` parts."""
        self._api = api
        self._step_calls: set[str] = set()
        """Calls whose part is in the current step."""
        self._unplaced: set[str] = set()
        """Calls the conversation does not hold (reported once each)."""
        self._background_result = background_result
        self._ended: dict[str, tuple[str, str, bool]] = dict(ended_tasks or {})
        """Ended background tasks whose result the message does not place yet: (call, tool, failed) by task id."""

    def _ensure_step(self, out: list[Chunk]) -> None:
        """Open a step when none is open (the message knows its steps)."""
        raise NotImplementedError

    def _new_step(self) -> None:
        self._step_calls.clear()

    # -- calls and outputs -------------------------------------------------------------------------

    def _tool_input(
        self, event: ToolInputStart | ToolInputDelta | ToolInputAvailable | ToolInputError, out: list[Chunk]
    ) -> None:
        self._ensure_step(out)
        if isinstance(event, ToolInputDelta):
            # A delta for a call the client never saw start cannot be placed; its input comes complete later.
            if event.tool_call_id in self._calls:
                delta = event.input_text_delta
                out.append({"type": "tool-input-delta", "toolCallId": event.tool_call_id, "inputTextDelta": delta})
            return
        out.append(self._call_chunk(event))

    def _call_chunk(self, event: ToolInputStart | ToolInputAvailable | ToolInputError, earlier: bool = False) -> Chunk:
        """The chunk that gives the call its part in the current step (`earlier`: made in an earlier message)."""
        self._calls[event.tool_call_id] = event.tool_name
        self._step_calls.add(event.tool_call_id)
        chunk: Chunk = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name}
        if isinstance(event, (ToolInputAvailable, ToolInputError)):
            chunk["input"] = self._inputs[event.tool_call_id] = event.input
        metadata = json_metadata(event.provider_metadata)
        if isinstance(event, ToolInputError):
            chunk["errorText"] = redact(event.error_text)
            metadata = {**(metadata or {}), protocol.TOOLWIRE_METADATA: {"inputError": True}}
        if earlier:
            metadata = {**(metadata or {}), protocol.TOOLWIRE_METADATA: {"earlierCall": True}}
            if event.tool_call_id in self._dynamic:
                chunk["dynamic"] = True
        _provider_fields(chunk, event.provider_executed, metadata)
        return chunk

    def _tool_output(self, event: ToolOutputAvailable | ToolOutputError | ToolOutputDenied, out: list[Chunk]) -> None:
        if not self._ensure_call(event.tool_call_id, out, _what_is_lost(event)):
            return
        if isinstance(event, ToolOutputDenied):
            out.append({"type": "tool-output-denied", "toolCallId": event.tool_call_id})
            return
        name = self._calls[event.tool_call_id]
        channel = None
        if isinstance(event, ToolOutputAvailable):
            shown, channel = _split_display(event.output)
            chunk: Chunk = {"type": "tool-output-available", "toolCallId": event.tool_call_id, "output": shown}
            derived = default_output(shown)
        else:
            shown_error = redact(event.error_text)  # credentials in an error never reach the browser
            chunk = {"type": "tool-output-error", "toolCallId": event.tool_call_id, "errorText": shown_error}
            derived = {"type": "error-text", "value": shown_error}
        metadata = dict(json_metadata(event.provider_metadata) or {})
        result = self._tool_result(event.tool_call_id) if self._tool_result and not event.provider_executed else None
        if result is not None:
            metadata.update(json_metadata(result.provider_metadata) or {})
            is_error = isinstance(event, ToolOutputError)
            leaks = is_error and redacts(result.output)  # kept on the server instead (`toolwire.ui._hidden`)
            if result.output != derived and self._may_show(name, is_error) and not leaks:
                metadata[protocol.TOOLWIRE_METADATA] = {"modelOutput": result.output}
        _provider_fields(chunk, event.provider_executed, metadata or None)
        if event.provider_executed and event.tool_call_id not in self._step_calls:
            # The output came in a later response than its call: mark where, for the conversation read back.
            self._ensure_step(out)
            out.append(
                protocol.data_chunk(protocol.TOOL_OUTPUT, {"toolCallId": event.tool_call_id}, event.tool_call_id)
            )
        out.append(chunk)
        if channel is not None:
            out.append(protocol.display_chunk(event.tool_call_id, *channel))

    def _ensure_call(self, tool_call_id: str, out: list[Chunk], lost: Mapping[str, Any]) -> bool:
        """Whether the client has a part for the call, announcing one made in an earlier message first.

        A call the conversation does not hold cannot get a part without inventing its name: a
        `data-warning` says so once (with `lost`, what the client was not shown), and False.
        """
        if tool_call_id in self._calls:
            return True
        self._ensure_step(out)
        call = self._earlier.get(tool_call_id)
        if call is not None:
            out.append(self._call_chunk(shown_call(call, self._tools), earlier=True))
            return True
        if tool_call_id not in self._unplaced:
            self._unplaced.add(tool_call_id)
            action = (
                f"tool call {tool_call_id!r} is not in the conversation, so the client has no part to show "
                "its update in; it is left out of the message"
            )
            degradation = Degradation(api=self._api or "ui", feature="ui.unknown_tool_call", action=action)
            out.append(protocol.warning_chunk(degradation, {"toolCallId": tool_call_id, **lost}))
        return False

    def _may_show(self, tool_name: str, is_error: bool) -> bool:
        """Whether the UI may see what the model read: not when a display transform hides the result."""
        tool = self._tools.get(tool_name)
        phase: TransformPhase = "error" if is_error else "output"
        return tool is None or tool.transform is None or tool.transform.display.get(phase) is None

    def _background_task(
        self, event: BackgroundTaskStarted | BackgroundTaskProgress | BackgroundTaskFinished, out: list[Chunk]
    ) -> None:
        """The call's `data-background-task` part: running (with the latest progress), then how it ended."""
        extra: dict[str, Any] = {}
        if isinstance(event, BackgroundTaskProgress):
            extra["progress"] = event.data
        if isinstance(event, BackgroundTaskFinished):
            if event.output is not None:
                extra["output"] = event.output
            if event.error_text is not None:
                extra["errorText"] = redact(event.error_text)
        status = event.status if isinstance(event, BackgroundTaskFinished) else "running"
        out.append(protocol.task_chunk(event.tool_call_id, event.tool_name, event.task_id, status, **extra))
        if isinstance(event, BackgroundTaskFinished):
            self._ended[event.task_id] = (event.tool_call_id, event.tool_name, status != "completed")

    def _background_results(self, out: list[Chunk]) -> None:
        """Mark where ended tasks' results entered the conversation: before the model call about to read them."""
        if self._background_result is None:
            return
        for task_id, (call_id, tool_name, failed) in list(self._ended.items()):
            message = self._background_result(task_id)
            if message is None:  # not in the conversation yet: the next model call's turn
                continue
            del self._ended[task_id]
            content = message_to_dict(message)["content"]
            if not self._may_show(tool_name, failed) or redacts(content):
                content = None  # kept on the server (`toolwire.ui._hidden`)
            out.append(protocol.background_result_chunk(call_id, task_id, content))

    # -- waiting calls -----------------------------------------------------------------------------

    def _approval(self, event: ToolApprovalRequest | ToolApprovalResponse, out: list[Chunk]) -> None:
        if isinstance(event, ToolApprovalResponse):
            answer: Chunk = {"type": event.type, "approvalId": event.approval_id, "approved": event.approved}
            out.append(answer if event.reason is None else {**answer, "reason": event.reason})
            return
        if not self._ensure_call(event.tool_call_id, out, {"approvalId": event.approval_id}):
            return
        chunk: Chunk = {"type": event.type, "approvalId": event.approval_id, "toolCallId": event.tool_call_id}
        if event.approval_descriptor is not None:
            chunk["approvalDescriptor"] = event.approval_descriptor
        out.append(chunk)

    def _suspension(self, event: ToolSuspended | ToolResumed | ToolResumeError, out: list[Chunk]) -> None:
        if isinstance(event, ToolSuspended):
            self._suspended(event, out)
        else:
            self._resumed(event, out)

    def _suspended(self, event: ToolSuspended, out: list[Chunk]) -> None:
        if not self._ensure_call(event.tool_call_id, out, {"payload": event.payload}):
            return
        name = self._calls[event.tool_call_id]
        if name in self._client_tools:
            return  # a browser-side call: its tool part is the request, the browser answers it
        if protocol.is_card(event.payload):
            chunk = protocol.card_chunk(event.tool_call_id, name, event.payload, "waiting")
        else:
            chunk = protocol.suspended_chunk(event.tool_call_id, name, event.payload, "suspended")
        self._suspensions[event.tool_call_id] = {"type": chunk["type"], "data": chunk["data"]}
        out.append(chunk)

    def _resumed(self, event: ToolResumed | ToolResumeError, out: list[Chunk]) -> None:
        """Update the call's suspension part; refused resume data puts its tool part back to waiting."""
        shown = self._suspensions.get(event.tool_call_id)
        if isinstance(event, ToolResumeError) and event.tool_call_id in self._calls:
            # The browser marked the call answered (`addToolOutput`); it still waits: show it waiting again.
            name, given = self._calls[event.tool_call_id], self._inputs.get(event.tool_call_id)
            waiting = {"type": "tool-input-available", "toolCallId": event.tool_call_id, "toolName": name}
            out.append({**waiting, "input": given})
        if shown is None:
            return
        data = {k: v for k, v in shown["data"].items() if k not in ("resumeData", "errorText")}
        is_card = shown["type"] == protocol.ACTION_REQUIRED
        if isinstance(event, ToolResumeError):
            data["status"] = "waiting" if is_card else "suspended"
            data["errorText"] = redact(event.error_text)
        else:
            data["status"] = "answered" if is_card else "resumed"
            if event.payload is not None:
                data["resumeData"] = event.payload
        out.append(protocol.data_chunk(shown["type"], data, event.tool_call_id))


def shown_call(call: ToolCall, tools: Mapping[str, Tool]) -> ToolInputAvailable:
    """The announcement a call got when made: the input through the display transform (provider calls as they are)."""
    event = ToolInputAvailable(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        input=call.input,
        provider_executed=call.provider_executed,
        provider_metadata=call.provider_metadata,
    )
    if call.provider_executed:
        return event
    shown = display_stream_event(tools.get(call.tool_name), event)
    assert isinstance(shown, ToolInputAvailable)  # a display transform keeps the event's kind
    return shown


def redacts(value: Any) -> bool:
    """Whether showing `value` (a result's model form, message content) would need a credential redacted."""
    if isinstance(value, str):
        return redact(value) != value
    if isinstance(value, Mapping):
        return any(redacts(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(redacts(item) for item in value)
    return False


def _calls_of(history: Sequence[Message]) -> dict[str, ToolCall]:
    """Every call of the conversation by id (the latest, should an id repeat)."""
    return {
        part.tool_call_id: part
        for message in history
        if isinstance(message, AssistantMessage)
        for part in message.content
        if isinstance(part, ToolCall)
    }


def _what_is_lost(event: ToolOutputAvailable | ToolOutputError | ToolOutputDenied) -> dict[str, Any]:
    if isinstance(event, ToolOutputAvailable):
        return {"output": event.output}
    if isinstance(event, ToolOutputError):
        return {"errorText": event.error_text}
    return {"denied": True}


def _provider_fields(chunk: Chunk, provider_executed: bool, metadata: Mapping[str, Any] | None) -> None:
    if provider_executed:
        chunk["providerExecuted"] = True
    if metadata:
        chunk["providerMetadata"] = json_metadata(metadata)


def json_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Provider metadata as plain JSON dicts (`{provider: {key: value}}`)."""
    if metadata is None:
        return None
    return {str(k): dict(v) if isinstance(v, Mapping) else v for k, v in metadata.items()}


def _split_display(output: Any) -> tuple[Any, tuple[Any, str] | None]:
    """A target tool's display answer `{content, markdown | embedUrl}` → the content, and the channel."""
    if isinstance(output, Mapping) and "content" in output and len(output) == 2:
        for channel in ("embedUrl", "markdown"):
            value = output.get(channel)
            if isinstance(value, str):
                return output["content"], (channel, value)
    return output, None
