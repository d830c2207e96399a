"""The event vocabulary page, generated from real event objects.

Model events come from the bundled cassettes' expected events (what toolwire produced on those
responses; the conformance suite checks it still does); the sources and files no cassette
has, from two small responses decoded here. Runtime events come from a `Toolbox`
run here, and `abort` from an aborted agent run. `tests/docs/test_reference_pages.py` checks
`docs/reference/events.md` holds exactly this output (`TOOLWIRE_UPDATE_EXAMPLES=1` rewrites it).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from toolwire import AbortSignal, Agent, Toolbox, ToolCall, ToolContext, create_tool, get_adapter
from toolwire.deltas import StepFinished
from toolwire.events import EVENT_CLASSES, Event, ToolInputDelta
from toolwire.messages import user
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call

ROOT = Path(__file__).parents[2]
SOURCES = ("anthropic", "openai-responses", "gemini", "openai-chat")
"""Cassette folders to take examples from, in order of preference."""
JSON_NAMES = {
    "message_id": "messageId",
    "tool_call_id": "toolCallId",
    "tool_name": "toolName",
    "input_text_delta": "inputTextDelta",
    "error_text": "errorText",
    "approval_id": "approvalId",
    "finish_reason": "finishReason",
    "provider_metadata": "providerMetadata",
    "provider_executed": "providerExecuted",
    "approval_descriptor": "approvalDescriptor",
    "task_id": "taskId",
    "source_id": "sourceId",
    "media_type": "mediaType",
}
SHOWN_APPROVAL_ID = "approval_Xq3vN0f7oWc2kZ8sR1yT4A"
"""Approval ids are random: the page shows this one in their place."""
SHOWN_TASK_ID = "task_pR2mW8sKq0Zd"
"""Background task ids too."""


def _from_cassettes() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for api in SOURCES:
        for path in sorted((ROOT / "cassettes" / api).glob("*.events.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                event = {k: v for k, v in json.loads(line).items() if k != "step"}
                found.setdefault(event["type"], event)
    return found


def _from_source_responses() -> dict[str, dict[str, Any]]:
    """An Anthropic answer citing a web page and a PDF, and a Gemini answer with an image."""
    citations = [
        {"type": "web_search_result_location", "url": "https://tides.example/moon", "title": "Why the moon makes tides",
         "cited_text": "The moon pulls the oceans", "encrypted_index": "Eo8BCioIAhgB"},
        {"type": "page_location", "document_index": 0, "document_title": "Tide tables 2026", "start_page_number": 3,
         "end_page_number": 4, "cited_text": "High tide at 06:12"},
    ]  # fmt: skip
    anthropic = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "The moon pulls the oceans; high tide is at 06:12.", "citations": citations}
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 20, "output_tokens": 14},
    }
    image = {
        "mimeType": "image/png",
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    }
    gemini = {"candidates": [{"content": {"role": "model", "parts": [{"inlineData": image}]}, "finishReason": "STOP"}]}
    events = [*get_adapter("anthropic").normalize(anthropic), *get_adapter("gemini").normalize(gemini)]
    return {event.type: event.to_dict() for event in events if event.type in ("source-url", "source-document", "file")}


def _from_the_runtime() -> dict[str, dict[str, Any]]:
    events: list[Event] = []

    def book(args: dict[str, Any], context: ToolContext) -> str:
        if not context.resumed:
            context.suspend({"question": f"Which time for {args['city']}?", "options": ["09:00", "14:00"]})
        return f"Booked {args['city']} at {context.resume_data['time']}"

    time = {"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]}
    tools = [
        create_tool(id="delete_file", description="Delete a file.", require_approval=True, execute=lambda args: "ok"),
        create_tool(id="book_table", description="Book a table.", execute=book, resume_schema=time),
    ]
    toolbox = Toolbox(tools, on_event=events.append)
    calls = [
        ToolCall(tool_call_id="call_1", tool_name="delete_file", input={"path": "notes.txt"}),
        ToolCall(tool_call_id="call_2", tool_name="book_table", input={"city": "Paris"}),
    ]
    asyncio.run(toolbox.run(calls))
    (approval_id,) = toolbox.pending_approvals
    toolbox.deny(approval_id, "not now")
    asyncio.run(toolbox.run_decided())
    asyncio.run(toolbox.resume("call_2", {"time": 9}))
    asyncio.run(toolbox.resume("call_2", {"time": "09:00"}))
    stopped = AbortSignal()
    stopped.abort("the user pressed stop")
    agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m", messages=[user("Hi")])
    events.extend(agent.stream(abort=stopped))
    found = {event.type: event.to_dict() for event in events}
    for event in _background_events():
        if event.type.startswith("background-task-"):
            found[event.type] = {**event.to_dict(), "taskId": SHOWN_TASK_ID}
    for example in found.values():
        if "approvalId" in example:
            example["approvalId"] = SHOWN_APPROVAL_ID
    return found


def _background_events() -> list[Event]:
    """An agent run whose background call reports progress, then ends."""

    def research(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        context.background.progress({"pagesRead": 2, "of": 5})
        return {"topic": args["topic"], "pages": 5}

    topic = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
    tool = create_tool(id="research", description="Research.", input_schema=topic, execute=research, background=True)
    script = [[call("call_3", "research", '{"topic": "tides"}'), StepFinished("tool-calls")], answer("Started.")]
    agent = Agent(api=ScriptedAdapter([*script, answer("Done.")]), client=SCRIPTED_CLIENT, model="m", tools=[tool])
    return list(agent.stream("Research tides", until_idle=True))


def examples() -> dict[str, dict[str, Any]]:
    """One JSON example per event type, in the order of `EVENT_CLASSES`."""
    found = {**_from_source_responses(), **_from_the_runtime(), **_from_cassettes()}
    return {kind: found[kind] for kind in EVENT_CLASSES if kind in found}


def _fields(cls: type[Event]) -> str:
    names = [JSON_NAMES.get(f.name, f.name) for f in fields(cls) if not f.name.startswith("_")]
    names = [n for n in names if n != "validated_input"]
    if cls is ToolInputDelta:
        names.append("partialInput")
    return ", ".join(f"`{n}`" for n in names) or "none"


def render() -> str:
    """The generated part of `docs/reference/events.md`."""
    out: list[str] = []
    for kind, example in examples().items():
        cls = EVENT_CLASSES[kind]
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        out += [
            f"### `{kind}`",
            "",
            f"{summary} `toolwire.events.{cls.__name__}`; fields: {_fields(cls)}.",
            "",
            "```json",
            json.dumps(example, ensure_ascii=False),
            "```",
            "",
        ]
    return "\n".join(out)
