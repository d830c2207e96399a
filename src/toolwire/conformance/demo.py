"""`toolwire demo`: the weather-and-chart conversation on each provider, offline, from cassettes."""

from __future__ import annotations

import argparse
import json
from typing import Any

from toolwire.conformance.cassette import cassette_path, replay_vcr
from toolwire.conformance.runner import _run_agent, replay_client
from toolwire.conformance.scenarios import DEFAULT_MODELS, scenario
from toolwire.exceptions import MissingExtraError
from toolwire.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
)
from toolwire.registry import list_adapters
from toolwire.results import ToolCall, ToolResult

DEMO = "weather_and_chart"


def run_demo(args: argparse.Namespace) -> int:
    """Replay the demo conversation for each api and print it; 1 if one could not run."""
    status = 0
    item = scenario(DEMO)
    for api in args.api or [
        a for a in ("openai-chat", "openai-responses", "anthropic", "gemini") if a in list_adapters()
    ]:
        print(f"\n== {api} ({item.models.get(api, DEFAULT_MODELS.get(api, '?'))}) ==")
        path = cassette_path(api, DEMO)
        if not path.exists():
            print(f"   no cassette at {path}")
            status = 1
            continue
        try:
            with replay_vcr().use_cassette(str(path)):
                _log, _events, summary = _run_agent(api, item, "sync", client=replay_client(api, "sync"))
        except MissingExtraError:
            raise  # the command says which extra to install (exit 2)
        except Exception as exc:  # the demo reports, it does not crash
            print(f"   failed: {type(exc).__name__}: {exc}")
            status = 1
            continue
        for message in summary.messages:
            for line in render(message):
                print(line)
    return status


def render(message: Message) -> list[str]:
    """A message as lines a person reads."""
    if isinstance(message, SystemMessage):
        return [f"system: {message.content}"]
    if isinstance(message, UserMessage):
        return [f"user: {p.text}" if isinstance(p, TextPart) else f"user: [{p.part['type']}]" for p in message.content]
    if isinstance(message, ToolMessage):
        return [f"tool {r.tool_name} <- {_output(r)}" for r in message.content]
    return _assistant(message)


def _assistant(message: AssistantMessage) -> list[str]:
    lines: list[str] = []
    for part in message.content:
        if isinstance(part, TextPart) and part.text.strip():
            lines.append(f"assistant: {part.text.strip()}")
        elif isinstance(part, ReasoningPart):
            lines.append(f"assistant (thinking): {part.text.strip()[:100] or '[signed/redacted]'}")
        elif isinstance(part, ToolCall):
            who = "provider" if part.provider_executed else "assistant"
            lines.append(f"{who} -> {part.tool_name}({json.dumps(part.input, ensure_ascii=False)})")
        elif isinstance(part, ToolResult):
            lines.append(f"provider <- {_output(part)}")
    return lines


def _output(result: ToolResult) -> str:
    output: dict[str, Any] = result.output
    kind = output["type"]
    if kind == "content":
        return " ".join(_part(p) for p in output["value"])
    if kind in ("text", "error-text"):
        prefix = "error: " if kind == "error-text" else ""
        return prefix + str(output["value"])
    if kind == "execution-denied":
        return "denied by the user"
    return json.dumps(output.get("value"), ensure_ascii=False)


def _part(part: dict[str, Any]) -> str:
    if part["type"] == "text":
        return str(part["text"])
    if "data" in part:
        return f"[{part.get('mediaType', 'file')}, {len(part['data']) * 3 // 4} bytes]"
    return f"[{part['type']} {part.get('url') or part.get('fileId', '')}]"
