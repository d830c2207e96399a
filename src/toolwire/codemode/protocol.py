"""The host side of the wire: NDJSON JSON-RPC 2.0 frames, parsed as untrusted input.

Child to host, one JSON object per line, each `{"jsonrpc": "2.0", "method": ..., "params": ...}`:

| method | params |
| --- | --- |
| ready | `{"layers": {...}, "python": "3.11"}` (the confinement that took effect) |
| call (with `"id": n`) | `{"tool": "<original id>", "input": {...}}` |
| describe, search (with `"id": n`) | `{"names": ["external_x", ...]}`, `{"query": "words"}` (catalog lookups) |
| log | `{"stream": "stdout" or "stderr", "text": "..."}` |
| done | `{"ok": true, "result": ...}` or `{"ok": false, "error": {"name", "message", "line"}}` |

Host to child: `start` (`{"code", "externals": [{"name", "tool"}], "limits"}`), then one
response per call or lookup: `{"jsonrpc": "2.0", "id": n, "result": ...}` or
`{"jsonrpc": "2.0", "id": n, "error": {"code": -32000, "message": ..., "data": {"name", "tool"}}}`.

Only `json.loads` ever touches the child's bytes: nothing is unpickled, unmarshalled or
evaluated. A line that is not UTF-8 JSON, not an object, holds a value nested deeper than
`MAX_NESTING` levels (so nothing downstream can run out of recursion), uses NaN or Infinity
(also spelled as a number too large for a float, `1e400`), or has a known method with a
malformed shape is a `ProtocolViolation` (the host kills the child). Frames with an unknown
method, and responses (the host never asks the child anything, so their ids are unknown), are
ignored. Lone surrogates in strings become
U+FFFD so nothing downstream fails to encode them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

_MAX_ID = 2**53
MAX_NESTING = 100
"""Deepest value (a call's input, a result) a frame may carry; its envelope adds two levels."""
_FRAME_NESTING = MAX_NESTING + 2
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class ProtocolViolation(Exception):
    """A frame from the sandbox breaks the protocol; the run is stopped."""


@dataclass(frozen=True, slots=True)
class Ready:
    """The child confined itself and waits for `start`."""

    layers: Mapping[str, Any]
    python: str | None


@dataclass(frozen=True, slots=True)
class Call:
    """The program called `external_<x>`; `tool` is the original id it claims."""

    id: int
    tool: str
    input: Any


@dataclass(frozen=True, slots=True)
class Lookup:
    """The program asked about the catalog: `describe` some functions, or `search` by words."""

    id: int
    kind: Literal["describe", "search"]
    argument: tuple[str, ...] | str
    """Function names for `describe`, the query for `search`."""


@dataclass(frozen=True, slots=True)
class Log:
    """One line of console output."""

    stream: Literal["stdout", "stderr"]
    text: str


@dataclass(frozen=True, slots=True)
class Done:
    """The program finished; `error` is set when it failed."""

    ok: bool
    result: Any = None
    error_name: str | None = None
    error_message: str | None = None
    error_line: int | None = None
    logs_dropped: int = 0


@dataclass(frozen=True, slots=True)
class Ignored:
    """A well-formed frame the host has no use for."""

    reason: str


Frame = Ready | Call | Lookup | Log | Done | Ignored
_MAX_NAMES, _MAX_TEXT = 100, 500


def parse_frame(line: bytes) -> Frame:
    """Decode one line from the child.

    Raises:
        ProtocolViolation: the line is not a well-formed frame.
    """
    message = _load(line)
    method = message.get("method")
    if method is None and "id" in message:
        return Ignored("a response, but the host asked nothing")
    if not isinstance(method, str):
        raise ProtocolViolation("a frame without a method")
    params = message.get("params", {})
    if not isinstance(params, dict):
        raise ProtocolViolation(f"`params` of {method!r} is not an object")
    params = cast(dict[str, Any], params)
    if method == "call":
        return _call(message.get("id"), params)
    if method in ("describe", "search"):
        return _lookup(message.get("id"), method, params)
    if method == "log":
        return _log(params)
    if method == "done":
        return _done(params)
    if method == "ready":
        layers = params.get("layers")
        python = params.get("python")
        if not isinstance(layers, dict) or not (python is None or isinstance(python, str)):
            raise ProtocolViolation("a malformed `ready`")
        return Ready(cast(dict[str, Any], layers), python)
    return Ignored(f"unknown method {method[:40]!r}")


def _load(line: bytes) -> dict[str, Any]:
    try:
        text = line.decode("utf-8")
        message = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolViolation(f"a frame that is not JSON ({type(exc).__name__})") from None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ProtocolViolation("a frame that is not a JSON-RPC 2.0 object")
    # Fewer brackets than the limit cannot nest deeper than it: most frames skip the walk.
    if line.count(b"[") + line.count(b"{") > _FRAME_NESTING and nesting(message) > _FRAME_NESTING:
        raise ProtocolViolation(f"a value nested deeper than {MAX_NESTING} levels")
    if _SURROGATE_ESCAPE.search(line):
        message = cast(dict[str, Any], scrub_surrogates(message))
    return cast(dict[str, Any], message)


def nesting(value: Any) -> int:
    """How deep lists and objects go in a decoded JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = cast(dict[str, Any], item).values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in cast(Any, children))
    return deepest


def json_size(value: Any) -> int:
    """UTF-8 bytes of `value` as compact JSON (as the runner measures its result)."""
    return len(_encode(value).encode("utf-8", "surrogatepass"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A number too large for a float (`1e400`) would become infinity, which JSON cannot carry."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is out of range")
    return value


def scrub_surrogates(value: Any) -> Any:
    """A copy of a decoded JSON value with lone surrogates replaced by U+FFFD."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value) if _has_surrogate(value) else value
    if isinstance(value, list):
        return [scrub_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in cast(dict[str, Any], value).items()}
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _call(call_id: Any, params: dict[str, Any]) -> Call:
    if type(call_id) is not int or not 0 <= call_id < _MAX_ID:
        raise ProtocolViolation("a call whose id is not a non-negative integer")
    tool = params.get("tool")
    if not isinstance(tool, str) or "input" not in params:
        raise ProtocolViolation(f"call {call_id} without a tool name and an input")
    return Call(call_id, tool, params["input"])


def _lookup(call_id: Any, method: str, params: dict[str, Any]) -> Lookup:
    if type(call_id) is not int or not 0 <= call_id < _MAX_ID:
        raise ProtocolViolation(f"a {method} whose id is not a non-negative integer")
    if method == "search":
        query = params.get("query")
        if not isinstance(query, str) or len(query) > _MAX_TEXT:
            raise ProtocolViolation(f"search {call_id} without a query of at most {_MAX_TEXT} characters")
        return Lookup(call_id, "search", query)
    names = params.get("names")
    valid = isinstance(names, list) and len(names) <= _MAX_NAMES
    if not valid or not all(isinstance(n, str) and len(n) <= _MAX_TEXT for n in cast(list[Any], names)):
        raise ProtocolViolation(f"describe {call_id} without a list of at most {_MAX_NAMES} function names")
    return Lookup(call_id, "describe", tuple(cast(list[str], names)))


def _log(params: dict[str, Any]) -> Log:
    stream, text = params.get("stream"), params.get("text")
    if stream not in ("stdout", "stderr") or not isinstance(text, str):
        raise ProtocolViolation("a malformed `log`")
    return Log(cast(Literal["stdout", "stderr"], stream), text)


def _done(params: dict[str, Any]) -> Done:
    ok = params.get("ok")
    dropped = params.get("logsDropped", 0)
    if type(dropped) is not int or dropped < 0:
        dropped = 0
    if ok is True:
        return Done(True, params.get("result"), logs_dropped=dropped)
    error = params.get("error")
    if ok is not False or not isinstance(error, dict):
        raise ProtocolViolation("a malformed `done`")
    error = cast(dict[str, Any], error)
    name, message, line = error.get("name"), error.get("message"), error.get("line")
    return Done(
        False,
        error_name=name if isinstance(name, str) else None,
        error_message=message if isinstance(message, str) else "the program failed",
        error_line=line if type(line) is int and line > 0 else None,
        logs_dropped=dropped,
    )


def encode_start(code: str, externals: Sequence[tuple[str, str]], limits: Mapping[str, int]) -> bytes:
    """The `start` frame: the program, its functions as data (`name`, original `tool` id), and limits."""
    params = {"code": code, "externals": [{"name": n, "tool": t} for n, t in externals], "limits": dict(limits)}
    return _line({"jsonrpc": "2.0", "method": "start", "params": params})


def encode_result(call_id: int, value: Any) -> bytes:
    """A successful call's reply.

    Raises:
        ValueError: `value` is not JSON (the caller answers with an error instead).
    """
    return _line({"jsonrpc": "2.0", "id": call_id, "result": value})


def encode_error(call_id: int, name: str, message: str, tool: str) -> bytes:
    """A failed call's reply; the program sees `ToolError(message)` with `.name` and `.tool`."""
    error = {"code": -32000, "message": message, "data": {"name": name, "tool": tool}}
    return _line({"jsonrpc": "2.0", "id": call_id, "error": error})


def _line(message: Mapping[str, Any]) -> bytes:
    try:
        return _encode(message).encode("utf-8", "surrogatepass") + b"\n"
    except (TypeError, RecursionError) as exc:
        raise ValueError(str(exc)) from None
