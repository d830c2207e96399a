"""A scripted fake of the four provider APIs on 127.0.0.1, for running the documentation's examples.

The SDKs reach it through their own base-URL variables (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`,
`GOOGLE_GEMINI_BASE_URL`), so an example is the code a user runs against the real API. The fake
model is deliberately simple and stateless: when the latest assistant turn in the request called
tools, it answers in text quoting the results; otherwise it calls the forced tool (or the first
one) with arguments built from the tool's JSON Schema. Every response is written in the
provider's wire format, streamed (SSE) or whole, as the request asked.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_KEY = "sk-fake-docs-examples"


@dataclass(frozen=True)
class Turn:
    """What the fake model says next: a call (name and arguments) or text."""

    call: str | None
    arguments: dict[str, Any]
    text: str


# -- choosing the turn -------------------------------------------------------------------------


def sample(schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """A small value that satisfies a JSON Schema (the subset tool schemas use)."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        return sample(target, defs, depth + 1)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("examples"):
        return schema["examples"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return sample(options[0], defs, depth + 1)
    return _typed(schema, defs, depth)


def _typed(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    kind = str(kind or ("object" if "properties" in schema else "string")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: sample(properties.get(name, {}), defs, depth + 1) for name in schema.get("required", [])}
    if kind == "array":
        return [sample(schema.get("items", {}), defs, depth + 1) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        value = schema.get("minimum", 1)
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    formats = {"date": "2026-01-01", "date-time": "2026-01-01T09:00:00Z", "email": "ada@example.com"}
    return formats.get(schema.get("format", ""), "Paris").ljust(int(schema.get("minLength", 0)), "x")


def choose(tools: list[tuple[str, dict[str, Any]]], forced: str | None, results: list[str] | None) -> Turn:
    """The next turn: text after tool results (or without tools), else a call."""
    if results is not None or not tools:
        said = "; ".join(r[:200] for r in results or []) or "nothing to call"
        return Turn(None, {}, f"Done. The tools said: {said}")
    name, schema = next(((n, s) for n, s in tools if n == forced), tools[0])
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    arguments = sample(schema, defs)
    return Turn(name, arguments if isinstance(arguments, dict) else {}, "")


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        texts = [str(p.get("text", "")) for p in value if p.get("type") in ("text", "input_text", "output_text")]
        if texts:
            return " ".join(texts)
    return json.dumps(value, ensure_ascii=False, default=str)


# -- the four APIs: reading requests ---------------------------------------------------------


def chat_turn(body: dict[str, Any]) -> Turn:
    tools = [(t["function"]["name"], t["function"].get("parameters") or {}) for t in body.get("tools") or []]
    choice = body.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    messages = body.get("messages", [])
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    results = None
    if last >= 0 and messages[last].get("tool_calls"):
        results = [_text_of(m.get("content")) for m in messages[last + 1 :] if m.get("role") == "tool"]
    return choose(tools if choice != "none" else [], forced, results)


def responses_turn(body: dict[str, Any]) -> Turn:
    tools = [(t["name"], t.get("parameters") or {}) for t in body.get("tools") or [] if t.get("type") == "function"]
    choice = body.get("tool_choice")
    forced = choice.get("name") if isinstance(choice, dict) else None
    items = body.get("input") if isinstance(body.get("input"), list) else []
    mine = [i for i, item in enumerate(items) if item.get("type") == "function_call" or item.get("role") == "assistant"]
    results = None
    if mine and items[mine[-1]].get("type") == "function_call":
        outputs = [item for item in items[mine[-1] :] if item.get("type") == "function_call_output"]
        results = [_text_of(item.get("output")) for item in outputs]
    return choose(tools if choice != "none" else [], forced, results)


def anthropic_turn(body: dict[str, Any]) -> Turn:
    tools = [(t["name"], t.get("input_schema") or {}) for t in body.get("tools") or [] if "input_schema" in t]
    choice = body.get("tool_choice") or {}
    forced = choice.get("name") if choice.get("type") == "tool" else None
    messages = body.get("messages", [])
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    results = None
    content = messages[last].get("content") if last >= 0 else None
    if isinstance(content, list) and any(block.get("type") == "tool_use" for block in content):
        blocks = [b for m in messages[last + 1 :] if isinstance(m.get("content"), list) for b in m["content"]]
        results = [_text_of(b.get("content")) for b in blocks if b.get("type") == "tool_result"]
    return choose(tools if choice.get("type") != "none" else [], forced, results)


def gemini_turn(body: dict[str, Any]) -> Turn:
    tools: list[tuple[str, dict[str, Any]]] = []
    for group in body.get("tools") or []:
        for declaration in group.get("functionDeclarations") or group.get("function_declarations") or []:
            schema = declaration.get("parameters_json_schema") or declaration.get("parameters") or {}
            tools.append((declaration["name"], schema))
    config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    allowed = config.get("allowedFunctionNames") or []
    contents = body.get("contents", [])
    last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    results = None
    if last >= 0 and any("functionCall" in p or "function_call" in p for p in contents[last].get("parts", [])):
        parts = [p for c in contents[last + 1 :] for p in c.get("parts", [])]
        responses = [p.get("functionResponse") or p.get("function_response") for p in parts]
        results = [_text_of(r.get("response")) for r in responses if r]
    return choose(tools if config.get("mode") != "NONE" else [], allowed[0] if allowed else None, results)


# -- the four APIs: writing responses --------------------------------------------------------


def _sse(frames: list[dict[str, Any]], *, named: bool, crlf: bool = False) -> bytes:
    end = "\r\n\r\n" if crlf else "\n\n"
    head = (lambda f: f"event: {f['type']}\n") if named else (lambda f: "")
    return "".join(f"{head(f)}data: {json.dumps(f)}{end}" for f in frames).encode()


def chat_body(turn: Turn, model: str, stream: bool) -> bytes:
    base = {"id": "chatcmpl-fake", "created": 0, "model": model}
    usage = {"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20}
    finish = "tool_calls" if turn.call else "stop"
    arguments = json.dumps(turn.arguments)
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.call:
            function = {"name": turn.call, "arguments": arguments}
            message["tool_calls"] = [{"id": "call_fake1", "type": "function", "function": function}]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        return json.dumps({**base, "object": "chat.completion", "choices": [choice], "usage": usage}).encode()
    chunk = {**base, "object": "chat.completion.chunk"}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if turn.call:
        start = {"index": 0, "id": "call_fake1", "type": "function", "function": {"name": turn.call, "arguments": ""}}
        deltas += [{"tool_calls": [start]}, {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}]
    else:
        deltas += [{"content": word} for word in re.findall(r"\S+\s*", turn.text)]
    frames = [{**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    frames.append({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage})
    return _sse(frames, named=False) + b"data: [DONE]\n\n"


def responses_body(turn: Turn, model: str, stream: bool) -> bytes:
    usage = {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 8,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20,
    }
    if turn.call:
        item: dict[str, Any] = {
            "type": "function_call",
            "id": "fc_fake1",
            "call_id": "call_fake1",
            "name": turn.call,
            "arguments": json.dumps(turn.arguments),
            "status": "completed",
        }
    else:
        part = {"type": "output_text", "text": turn.text, "annotations": []}
        item = {"type": "message", "id": "msg_fake1", "role": "assistant", "status": "completed", "content": [part]}
    response = {"id": "resp_fake", "object": "response", "created_at": 0, "model": model, "tools": []}
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    if not stream:
        return json.dumps(done).encode()
    frames: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
    ]
    if turn.call:
        frames += [
            {"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": ""}},
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_fake1",
                "output_index": 0,
                "delta": item["arguments"],
            },
            {
                "type": "response.function_call_arguments.done",
                "item_id": "fc_fake1",
                "output_index": 0,
                "arguments": item["arguments"],
            },
        ]
    else:
        where = {"item_id": "msg_fake1", "output_index": 0, "content_index": 0}
        frames += [
            {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
            {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
            {"type": "response.output_text.delta", **where, "delta": turn.text},
            {"type": "response.output_text.done", **where, "text": turn.text},
            {"type": "response.content_part.done", **where, "part": part},
        ]
    frames += [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": done},
    ]
    return _sse([{**f, "sequence_number": n} for n, f in enumerate(frames)], named=True)


def anthropic_body(turn: Turn, model: str, stream: bool) -> bytes:
    stop = "tool_use" if turn.call else "end_turn"
    block: dict[str, Any] = (
        {"type": "tool_use", "id": "toolu_fake1", "name": turn.call, "input": turn.arguments}
        if turn.call
        else {"type": "text", "text": turn.text}
    )
    message = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "stop_sequence": None}
    if not stream:
        whole = {**message, "content": [block], "stop_reason": stop, "usage": {"input_tokens": 12, "output_tokens": 8}}
        return json.dumps(whole).encode()
    if turn.call:
        opened = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn.arguments)}
    else:
        opened = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": turn.text}
    frames = [
        {
            "type": "message_start",
            "message": {
                **message,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": opened},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 8}},
        {"type": "message_stop"},
    ]
    return _sse(frames, named=True)


def gemini_body(turn: Turn, model: str, stream: bool) -> bytes:
    part = {"functionCall": {"name": turn.call, "args": turn.arguments}} if turn.call else {"text": turn.text}
    response = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 8, "totalTokenCount": 20},
        "modelVersion": model,
        "responseId": "fake",
    }
    return _sse([response], named=False, crlf=True) if stream else json.dumps(response).encode()


# -- the server ----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        path = self.path.split("?")[0]
        model = str(body.get("model", "fake-model"))
        if path.endswith("/chat/completions"):
            stream = bool(body.get("stream"))
            payload = chat_body(chat_turn(body), model, stream)
        elif path.endswith("/responses"):
            stream = bool(body.get("stream"))
            payload = responses_body(responses_turn(body), model, stream)
        elif path.endswith("/messages"):
            stream = bool(body.get("stream"))
            payload = anthropic_body(anthropic_turn(body), model, stream)
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            stream = ":streamGenerateContent" in path
            model = path.rsplit("/", 1)[-1].split(":")[0]
            payload = gemini_body(gemini_turn(body), model, stream)
        else:
            self.send_error(404, f"the fake provider does not serve {path}")
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream" if stream else "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the examples' own output is what matters."""


@contextmanager
def fake_provider() -> Iterator[dict[str, str]]:
    """Run the fake on a free port; yields the environment variables that point the SDKs at it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield {
            "OPENAI_BASE_URL": f"{base}/v1",
            "OPENAI_API_KEY": FAKE_KEY,
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "GOOGLE_GEMINI_BASE_URL": base,
            "GEMINI_API_KEY": FAKE_KEY,
        }
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
