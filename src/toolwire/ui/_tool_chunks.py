"""The tool half of a UI message: calls, outputs, approvals, suspensions and their data parts.

A call the client never saw (its output came in a later response) is announced first; a
target's display answer splits into its content and a `data-tool-display` part; what the model
read travels with an output when it differs from what is shown, unless a display transform
hides it; refused resume data puts the call's part back to waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolwire.events import (
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
from toolwire.results import ToolResult, default_output
from toolwire.tools import Tool, TransformPhase

from . import protocol

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
    ) -> None:
        self._tools = dict(tools or {})
        self._calls: dict[str, str] = dict(known_calls or {})
        """Tool name of every call the client knows, by call id."""
        self._inputs: dict[str, Any] = dict(known_inputs or {})
        self._suspensions: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (suspensions or {}).items()}
        """The suspension or card part of each suspended call the client shows (`{type, data}`)."""
        self._client_tools = frozenset(client_tools)
        self._tool_result = tool_result

    def _ensure_step(self, out: list[Chunk]) -> None:
        """Open a step when none is open (the message knows its steps)."""
        raise NotImplementedError

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
        self._calls[event.tool_call_id] = event.tool_name
        chunk: Chunk = {"type": event.type, "toolCallId": event.tool_call_id, "toolName": event.tool_name}
        if isinstance(event, (ToolInputAvailable, ToolInputError)):
            chunk["input"] = self._inputs[event.tool_call_id] = event.input
        metadata = json_metadata(event.provider_metadata)
        if isinstance(event, ToolInputError):
            chunk["errorText"] = event.error_text
            metadata = {**(metadata or {}), protocol.TOOLWIRE_METADATA: {"inputError": True}}
        _provider_fields(chunk, event.provider_executed, metadata)
        out.append(chunk)
        if isinstance(event, ToolInputAvailable) and self._is_background(event.tool_name):
            out.append(protocol.task_chunk(event.tool_call_id, event.tool_name, "running"))

    def _tool_output(self, event: ToolOutputAvailable | ToolOutputError | ToolOutputDenied, out: list[Chunk]) -> None:
        self._ensure_call(event.tool_call_id, out)
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
            chunk = {"type": "tool-output-error", "toolCallId": event.tool_call_id, "errorText": event.error_text}
            derived = {"type": "error-text", "value": event.error_text}
        metadata = dict(json_metadata(event.provider_metadata) or {})
        result = self._tool_result(event.tool_call_id) if self._tool_result and not event.provider_executed else None
        if result is not None:
            metadata.update(json_metadata(result.provider_metadata) or {})
            if result.output != derived and self._may_show(name, isinstance(event, ToolOutputError)):
                metadata[protocol.TOOLWIRE_METADATA] = {"modelOutput": result.output}
        _provider_fields(chunk, event.provider_executed, metadata or None)
        out.append(chunk)
        if channel is not None:
            out.append(protocol.display_chunk(event.tool_call_id, *channel))
        if self._is_background(name):
            failed = isinstance(event, ToolOutputError)
            out.append(protocol.task_chunk(event.tool_call_id, name, "failed" if failed else "done"))

    def _ensure_call(self, tool_call_id: str, out: list[Chunk]) -> None:
        """A call the client never saw (its output came in a later response): announce it first."""
        if tool_call_id in self._calls:
            return
        self._ensure_step(out)
        self._calls[tool_call_id] = "unknown"
        announced = {"type": "tool-input-available", "toolCallId": tool_call_id, "toolName": "unknown", "input": None}
        out.append({**announced, "dynamic": True})

    def _may_show(self, tool_name: str, is_error: bool) -> bool:
        """Whether the UI may see what the model read: not when a display transform hides the result."""
        tool = self._tools.get(tool_name)
        phase: TransformPhase = "error" if is_error else "output"
        return tool is None or tool.transform is None or tool.transform.display.get(phase) is None

    def _is_background(self, tool_name: str) -> bool:
        tool = self._tools.get(tool_name)
        return tool is not None and tool.background is not None and tool.background.enabled

    # -- waiting calls -----------------------------------------------------------------------------

    def _approval(self, event: ToolApprovalRequest | ToolApprovalResponse, out: list[Chunk]) -> None:
        if isinstance(event, ToolApprovalResponse):
            answer: Chunk = {"type": event.type, "approvalId": event.approval_id, "approved": event.approved}
            out.append(answer if event.reason is None else {**answer, "reason": event.reason})
            return
        self._ensure_call(event.tool_call_id, out)
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
        self._ensure_call(event.tool_call_id, out)
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
            data["errorText"] = event.error_text
        else:
            data["status"] = "answered" if is_card else "resumed"
            if event.payload is not None:
                data["resumeData"] = event.payload
        out.append(protocol.data_chunk(shown["type"], data, event.tool_call_id))


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
