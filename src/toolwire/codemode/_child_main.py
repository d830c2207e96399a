"""Runs inside the sandbox child: the runner's entry point, its protocol side and console capture.

Standard library only. The child confines itself, says `ready` (with the layers that took
effect), waits for `start`, runs the program and sends one `done`. Every message is one line
of JSON on a dedicated pipe (or on stdin/stdout for command transports, after which fd 1 is
pointed at stderr), so nothing the program prints can be read as a frame by the runner. The
program can still write to the pipe itself; the host treats every frame as untrusted.
"""

from __future__ import annotations

import asyncio
import builtins
import gc
import inspect
import io
import json
import os
import sys

from toolwire.codemode._child_confine import confine
from toolwire.codemode._child_program import RETURN_NAME, ProgramReturn, compile_program, describe_error

# `typing` costs start-up time in the child; annotations are never evaluated there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_reserve: bytearray | None = bytearray(1 << 20)


class ToolError(Exception):
    """An `external_*` call failed on the host; `name`, `message` and `tool` say how."""

    def __init__(self, message: str, *, name: str = "ToolError", tool: str | None = None) -> None:
        super().__init__(f"{name} from tool {tool!r}: {message}" if tool is not None else message)
        self.message = message
        self.name = name
        self.tool = tool


class Connection:
    """The runner's end of the pipes: one JSON object per line each way."""

    def __init__(self, read_fd: int, write_fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._loop = loop
        self._buffer = bytearray()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self.max_frame_bytes = 1 << 22
        self.max_nesting = 100
        self.start: asyncio.Future[dict[str, Any]] = loop.create_future()
        os.set_blocking(read_fd, False)
        loop.add_reader(read_fd, self._readable)

    def send(self, frame: str | bytes) -> None:
        # A lone surrogate can only sit inside a JSON string, where `\udXXX` is a valid escape.
        data = (frame.encode("utf-8", "backslashreplace") if isinstance(frame, str) else frame) + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self._write_fd, view) :]

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send(_dumps({"jsonrpc": "2.0", "method": method, "params": params}))

    async def call(self, tool: str, function: str, value: Any) -> Any:
        try:
            body = _dumps(value)
        except (TypeError, ValueError, RecursionError) as exc:
            hint = " (did you forget `await`?)" if _has_coroutine(value) else ""
            raise TypeError(f"the input of {function}() must be JSON{hint}: {exc}") from None
        self._next_id += 1
        call_id = self._next_id
        if _too_deep(body, value, self.max_nesting):
            raise ValueError(f"the input of {function}() is nested deeper than {self.max_nesting} levels")
        frame = f'{{"jsonrpc":"2.0","id":{call_id},"method":"call","params":{{"tool":{_dumps(tool)},"input":{body}}}}}'
        data = frame.encode("utf-8", "backslashreplace")
        if len(data) > self.max_frame_bytes:
            limit = self.max_frame_bytes
            raise ValueError(f"the input of {function}() is too large ({len(data)} bytes; the limit is {limit})")
        future: asyncio.Future[Any] = self._loop.create_future()
        self._pending[call_id] = future
        self.send(data)
        return await future

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """A catalog question to the host (`describe`, `search`), answered like a call."""
        self._next_id += 1
        future: asyncio.Future[Any] = self._loop.create_future()
        self._pending[self._next_id] = future
        self.send(_dumps({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}))
        return await future

    def _readable(self) -> None:
        try:
            chunk = os.read(self._read_fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            os._exit(0)  # the host has gone: nobody is left to read a result
        self._buffer += chunk
        start = 0
        while (end := self._buffer.find(b"\n", start)) >= 0:
            self._dispatch(json.loads(self._buffer[start:end]))
            start = end + 1
        del self._buffer[:start]

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("method") == "start" and not self.start.done():
            self.start.set_result(message["params"])
            return
        future = self._pending.pop(message.get("id", -1), None)
        if future is None or future.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            data = error.get("data") or {}
            future.set_exception(
                ToolError(str(error.get("message")), name=str(data.get("name", "ToolError")), tool=data.get("tool"))
            )
        else:
            future.set_result(message.get("result"))


class Console(io.TextIOBase):
    """`sys.stdout`/`sys.stderr`: one log frame per complete line, capped like the host caps them."""

    def __init__(self, sink: LogSink, stream: str) -> None:
        super().__init__()
        self._sink = sink
        self._stream = stream
        self._partial: list[str] = []
        self._partial_chars = 0

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        lines = text.split("\n")
        for index, piece in enumerate(lines):
            if self._partial_chars <= self._sink.max_line:
                self._partial.append(piece)
            self._partial_chars += len(piece)
            if index < len(lines) - 1:
                self.finish_line()
        return len(text)

    def finish_line(self) -> None:
        line = "".join(self._partial)
        self._sink.log(self._stream, line, self._partial_chars - len(line))
        self._partial, self._partial_chars = [], 0

    def flush_partial(self) -> None:
        if self._partial_chars:
            self.finish_line()


class LogSink:
    """Counts what was sent so a flooding program stops costing pipe bandwidth."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.max_line = 4000
        self.max_total = 64000
        self.used = 0
        self.dropped = 0

    def log(self, stream: str, line: str, lost: int) -> None:
        lost += max(0, len(line) - self.max_line)
        if lost:
            line = line[: self.max_line] + f"… [{lost} more characters]"
        if self.dropped or self.used + len(line) > self.max_total:
            self.dropped += len(line)
            return
        self.used += len(line)
        self._connection.notify("log", {"stream": stream, "text": line})


def _too_deep(text: str, value: Any, limit: int) -> bool:
    """Whether `value` (encoded as `text`) nests lists and dicts deeper than `limit`, the host's cap."""
    if text.count("[") + text.count("{") <= limit:
        return False
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _has_coroutine(value: Any) -> bool:
    if inspect.iscoroutine(value):
        return True
    if isinstance(value, dict):
        return any(_has_coroutine(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_coroutine(v) for v in value)
    return False


def _external(connection: Connection, tool: str, function: str) -> Any:
    missing = object()

    async def external(value: Any = missing, /, **keywords: Any) -> Any:
        if keywords and value is not missing:
            raise TypeError(f"{function}() takes one dict, or keyword arguments, not both")
        payload = keywords if value is missing else value
        return await connection.call(tool, function, payload)

    external.__name__ = external.__qualname__ = function
    return external


def _catalog(connection: Connection) -> tuple[Any, Any]:
    async def describe_functions(names: list[str] | str, /) -> str:
        """The exact stubs (types and docs) of the named `external_*` functions."""
        chosen = [names] if isinstance(names, str) else list(names)
        if not all(isinstance(name, str) for name in chosen):
            raise TypeError("describe_functions() takes a function name or a list of them")
        return str(await connection.request("describe", {"names": chosen}))

    async def search_functions(query: str, /) -> list[dict[str, str]]:
        """Functions whose name or description matches the words of `query`, best first."""
        if not isinstance(query, str):
            raise TypeError("search_functions() takes a string")
        return list(await connection.request("search", {"query": query}))

    return describe_functions, search_functions


def _namespace(connection: Connection, externals: list[dict[str, Any]]) -> dict[str, Any]:
    describe_functions, search_functions = _catalog(connection)
    namespace: dict[str, Any] = {
        "__name__": "__main__",
        "__builtins__": builtins,
        "asyncio": asyncio,
        "ToolError": ToolError,
        "describe_functions": describe_functions,
        "search_functions": search_functions,
        RETURN_NAME: ProgramReturn,
    }
    for item in externals:
        function, tool = str(item["name"]), str(item["tool"])
        if function.isidentifier() and function.startswith("external_"):
            namespace[function] = _external(connection, tool, function)
    return namespace


async def run_program(connection: Connection, start: dict[str, Any], sink: LogSink) -> dict[str, Any]:
    """Compile and run the program; the `done` parameters (the result is still a Python value)."""
    max_error = int(start["limits"]["max_error_chars"])
    try:
        code = compile_program(str(start["code"]))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"ok": False, "error": _error_dict(exc, max_error)}
    namespace = _namespace(connection, list(start["externals"]))
    try:
        outcome = eval(code, namespace)
        if inspect.iscoroutine(outcome):
            await outcome
        value, line = None, None
    except ProgramReturn as returned:
        value, line = returned.value, returned.line
    except BaseException as exc:  # the program's own failure, whatever its type
        if isinstance(exc, MemoryError):
            _release_memory(namespace)
        return {"ok": False, "error": _error_dict(exc, max_error)}
    return {"ok": True, "result": value, "line": line}


def _error_dict(error: BaseException, max_chars: int) -> dict[str, Any]:
    info = describe_error(error, max_chars)
    message = info.message
    if isinstance(error, MemoryError) and not message:
        message = "out of memory: the sandbox's memory limit was reached"
    return {"name": info.name, "message": message, "line": info.line}


def _release_memory(namespace: dict[str, Any]) -> None:
    global _reserve
    _reserve = None
    namespace.clear()
    gc.collect()


def done_frame(outcome: dict[str, Any], limits: dict[str, Any], dropped: int) -> str:
    """The `done` line; a result that is not JSON, or too large, becomes an error at its line."""
    if not outcome["ok"]:
        return _dumps({"jsonrpc": "2.0", "method": "done", "params": {**outcome, "logsDropped": dropped}})
    value, line = outcome["result"], outcome["line"]
    try:
        result = _dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        hint = " (did you forget `await`?)" if _has_coroutine(value) else ""
        message = f"the result must be JSON (dict, list, str, int, float, bool or None){hint}: {exc}"
        return _failed({"name": "TypeError", "message": message, "line": line}, dropped)
    nesting = int(limits.get("max_nesting", 100))
    if _too_deep(result, value, nesting):
        message = f"the result is nested deeper than {nesting} levels: return flatter data"
        return _failed({"name": "ValueError", "message": message, "line": line}, dropped)
    size = len(result.encode("utf-8", "backslashreplace"))
    if size > int(limits["max_result_bytes"]):
        message = f"the result is {size} bytes of JSON; the limit is {limits['max_result_bytes']}: return less data"
        return _failed({"name": "ResultTooLarge", "message": message, "line": line}, dropped)
    return f'{{"jsonrpc":"2.0","method":"done","params":{{"ok":true,"result":{result},"logsDropped":{dropped}}}}}'


def _failed(error: dict[str, Any], dropped: int) -> str:
    return _dumps({"jsonrpc": "2.0", "method": "done", "params": {"ok": False, "error": error, "logsDropped": dropped}})


def _open_io(spec: Any) -> tuple[int, int]:
    if spec != "stdio":
        return int(spec[0]), int(spec[1])
    read_fd, write_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    return read_fd, write_fd


def main(argv: list[str]) -> None:
    """Entry point: `argv[0]` is a JSON object with `io`, `confine` and `probe`."""
    options = json.loads(argv[0])
    read_fd, write_fd = _open_io(options["io"])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    connection = Connection(read_fd, write_fd, loop)
    layers = confine(options["confine"], os.getcwd()) if options.get("confine") else {}
    os.environ.clear()
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    connection.notify("ready", {"layers": layers, "python": version})
    if options.get("probe"):
        os._exit(0)
    sink = LogSink(connection)
    consoles = (Console(sink, "stdout"), Console(sink, "stderr"))
    sys.stdin = io.StringIO()
    for name, console in (("stdout", consoles[0]), ("stderr", consoles[1])):
        setattr(sys, name, console)
        setattr(sys, f"__{name}__", console)
    start = loop.run_until_complete(connection.start)
    limits = start["limits"]
    sink.max_line, sink.max_total = int(limits["max_log_line_chars"]), int(limits["max_log_chars"])
    connection.max_frame_bytes = int(limits["max_frame_bytes"])
    connection.max_nesting = int(limits.get("max_nesting", 100))
    outcome = loop.run_until_complete(run_program(connection, start, sink))
    for console in consoles:
        console.flush_partial()
    connection.send(done_frame(outcome, limits, sink.dropped))
    os._exit(0)
