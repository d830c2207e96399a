"""The AI SDK UI message stream vocabulary toolwire speaks, and the parts it adds.

Chunk types and their fields are the `ai` package's `uiMessageChunkSchema` (v7); nothing
else is sent. What the protocol has no chunk for travels in `data-<name>` parts (each part's
`data` is documented below) and in the message metadata:

- `data-tool-suspended` (id: the call id): `{toolCallId, toolName, payload, status, resumeData?,
  errorText?}`, status `"suspended"` then `"resumed"`; `payload` is the display form of what the
  tool suspended with, `resumeData` the display form of what resumed it (when its tool shows
  it), `errorText` why resume data was refused (the call then still waits).
- `data-action-required` (id: the call id): `{toolCallId, toolName, card, status, errorText?}`,
  status `"waiting"` then `"answered"`; `card` is `{type, cardId, title, description?,
  elements: [{type, id, label, variant?}], assignee?, expiresAt?}`.
- `data-tool-display` (id: the call id): `{toolCallId, markdown}` or `{toolCallId, embedUrl}`,
  a target tool's display channel (the tool part's output is then the answer's `content`).
- `data-warning` (no id): `{api, feature, action, toolId?}`, a feature the provider could not take;
  feature `ui.unknown_tool_call` is an update for a call the conversation does not hold (no part
  can show it without inventing its tool), with `toolCallId` and what was not shown (`output`,
  `errorText`, `denied`, `approvalId` or `payload`).
- `data-tool-output` (id: the call id): `{toolCallId}`, where a provider-executed call's output
  came when that was a later model response than its call (Anthropic's programmatic tool
  calling); the output itself is on the call's tool part. It shows nothing; reading the messages
  back puts the result where the run had it.
- `data-background-task` (id: the call id): `{toolCallId, toolName, taskId, status, progress?,
  output?, errorText?}` for a call running as a background task (its tool part's output is the
  acknowledgement the model read): status `"running"` (with the latest `progress` the tool
  reported), then how the task ended: `"completed"` (with the display form of its `output`),
  `"failed"`, `"timed-out"`, `"cancelled"` or `"lost"` (with `errorText`). A run served by
  `UIChat` or `agent_chunks` waits for its background calls and answers them in the same message.
- `data-step-retried` (no id): `{type: "step-retried", voidFrom, voidTo}`, a durable run's model
  call ran again after its process died (`toolwire.durable.ui_chunks`): what the message showed
  of the unfinished attempt is void. It shows nothing the model reads.
- `data-background-result` (no id: one part where it came): `{toolCallId, taskId, content?}`, the
  message that brought an ended background task's result to the model, placed before the model
  call that read it (after the parts of the step before). `content` is that user message's
  content (toolwire's JSON form: text and media parts); it is left out when the tool's display
  transform hides its result (`UIChat` keeps it on the server). Reading the messages back puts
  the message where the run had it.

Message metadata (`start`, `message-metadata`, `finish`; merged by the client):
`{model?, api?, provider?}` at the start; after each step `{steps, usage}`; at the end
`{finishReason, usage, steps, paused}`. `steps` lists `{finishReason?, usage?, responseId?,
providerMetadata?}` per model call of the message (a run continued after the user answered keeps
its earlier steps) and `usage` is their sum.

A call made in an earlier message whose output comes in this one is announced again here (its
tool name and input as first shown), with `toolwire.earlierCall: true` in its `providerMetadata`
(the part's `callProviderMetadata`): the conversation read back holds the call once, in its
own message, and the result in this one.

A tool output's `providerMetadata` (the part's `resultProviderMetadata`) is the result's own
provider metadata (e.g. a Gemini thought signature), plus `toolwire.modelOutput` when what the
model read differs from the shown output, so the conversation can be rebuilt exactly from the
UI messages. It never carries what a display transform hides. A `tool-input-error` carries
`toolwire.inputError: true` (the call never ran; the client files it with the results).

Error texts of tool parts and data parts are shown with credential-looking tokens replaced
(`toolwire.ui._safety.redact`); what the model read then stays on the server.

An aborted run (the browser left, or the host aborted it) ends with the protocol's `abort`
chunk instead of `finish`, as the `ai` package's own streams do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from toolwire.compat import Degradation

UI_MESSAGE_STREAM_HEADERS: Final[Mapping[str, str]] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The headers of a UI message stream response (the `ai` package's `UI_MESSAGE_STREAM_HEADERS`)."""

UIFinishReason = Literal["stop", "length", "content-filter", "tool-calls", "error", "interrupted", "other"]
UI_FINISH_REASONS: Final[tuple[UIFinishReason, ...]] = (
    "stop",
    "length",
    "content-filter",
    "tool-calls",
    "error",
    "interrupted",
    "other",
)

TOOLWIRE_METADATA: Final = "toolwire"
"""The `providerMetadata` namespace toolwire keeps its own facts in (never sent to a provider)."""

SUSPENDED: Final = "data-tool-suspended"
ACTION_REQUIRED: Final = "data-action-required"
TOOL_DISPLAY: Final = "data-tool-display"
WARNING: Final = "data-warning"
BACKGROUND_TASK: Final = "data-background-task"
TOOL_OUTPUT: Final = "data-tool-output"
BACKGROUND_RESULT: Final = "data-background-result"
STEP_RETRIED: Final = "data-step-retried"
DISPLAY_DATA_PARTS: Final[frozenset[str]] = frozenset(
    {SUSPENDED, ACTION_REQUIRED, TOOL_DISPLAY, WARNING, BACKGROUND_TASK, TOOL_OUTPUT, BACKGROUND_RESULT, STEP_RETRIED}
)
"""toolwire's own data parts: the UI shows them; the reader places what they mark, never their text."""

SuspensionStatus = Literal["suspended", "resumed"]
CardStatus = Literal["waiting", "answered"]
TaskStatus = Literal["running", "completed", "failed", "timed-out", "cancelled", "lost"]


def data_chunk(kind: str, data: Mapping[str, Any], part_id: str | None = None) -> dict[str, Any]:
    """A `data-<name>` chunk; with an id, a later chunk with the same id replaces the part's data."""
    chunk: dict[str, Any] = {"type": kind}
    if part_id is not None:
        chunk["id"] = part_id
    chunk["data"] = dict(data)
    return chunk


def suspended_chunk(tool_call_id: str, tool_name: str, payload: Any, status: SuspensionStatus) -> dict[str, Any]:
    """A suspended call (`data-tool-suspended`); `payload` is the display form of the suspend payload."""
    data = {"toolCallId": tool_call_id, "toolName": tool_name, "payload": payload, "status": status}
    return data_chunk(SUSPENDED, data, tool_call_id)


def card_chunk(tool_call_id: str, tool_name: str, card: Mapping[str, Any], status: CardStatus) -> dict[str, Any]:
    """An `action_required` card waiting on a call (`data-action-required`), in its display form."""
    data = {"toolCallId": tool_call_id, "toolName": tool_name, "card": dict(card), "status": status}
    return data_chunk(ACTION_REQUIRED, data, tool_call_id)


def display_chunk(tool_call_id: str, channel: Literal["markdown", "embedUrl"], value: str) -> dict[str, Any]:
    """A target tool's display channel (`data-tool-display`): markdown to render, or a page to embed."""
    return data_chunk(TOOL_DISPLAY, {"toolCallId": tool_call_id, channel: value}, tool_call_id)


def warning_chunk(degradation: Degradation, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A degradation (`data-warning`), in the CLI's JSON form without unset fields (and `extra` facts)."""
    data = {k: v for k, v in degradation.to_dict().items() if v is not None}
    return data_chunk(WARNING, {**data, **(extra or {})})


def task_chunk(tool_call_id: str, tool_name: str, task_id: str, status: TaskStatus, **extra: Any) -> dict[str, Any]:
    """A background task's state (`data-background-task`), keyed by its call: each chunk replaces the last."""
    data = {"toolCallId": tool_call_id, "toolName": tool_name, "taskId": task_id, "status": status, **extra}
    return data_chunk(BACKGROUND_TASK, data, tool_call_id)


def background_result_chunk(tool_call_id: str, task_id: str, content: list[Any] | None) -> dict[str, Any]:
    """Where an ended background task's result entered the conversation (`data-background-result`)."""
    data: dict[str, Any] = {"toolCallId": tool_call_id, "taskId": task_id}
    if content is not None:
        data["content"] = content
    return data_chunk(BACKGROUND_RESULT, data)


def is_card(payload: Any) -> bool:
    """Whether a suspension payload is an `action_required` card (in its display form)."""
    return isinstance(payload, Mapping) and payload.get("type") == "action_required"
