"""Vertex streamed function-call arguments (`partialArgs`) turned into JSON text deltas.

With `stream_function_call_arguments`, Vertex sends a call's arguments as a sequence of
`(jsonPath, value)` pairs (google/genai/types.py `PartialArg`): `$.recipe.steps[1]` with a
`stringValue` that may continue over several pairs (`willContinue`), a `numberValue`, a
`boolValue` or a `nullValue`. The model writes JSON front to back, so the paths arrive in
document order; `JsonPathWriter` keeps the stack of open containers and emits the text that
extends the document: commas, keys, opening and closing brackets, escaped string pieces.
The concatenated deltas plus `close()` are exactly the arguments' JSON text. The writer keeps
no copy of that text: the core buffers it.

A path that goes back into a container already closed cannot be written as a text suffix.
Then the writer stops emitting text and records the remaining pairs; `close()` returns a
function that reads the value from the text emitted so far and applies them, for the core to
call with the call's complete text.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from ._json_path import Path, Segment

NO_VALUE: Any = object()
"""What `close()` returns as the value when the text alone is the arguments."""
_dumps = json.JSONEncoder(ensure_ascii=False).encode


class _Container:
    """An open object or array and what was written into it."""

    __slots__ = ("count", "is_array", "keys", "segment")

    def __init__(self, segment: Segment | None, is_array: bool) -> None:
        self.segment = segment
        self.is_array = is_array
        self.count = 0
        self.keys: set[Segment] = set()


Pair = tuple[Path, Any, bool, bool]
"""A `(path, value, is_string, will_continue)` pair as `JsonPathWriter.feed` takes it."""


class JsonPathWriter:
    """Writes one call's arguments as JSON text, one `(path, value)` pair at a time."""

    __slots__ = ("_closers", "_late", "_open_string", "_parent", "_stack")

    def __init__(self) -> None:
        self._stack: list[_Container] = []
        self._open_string: Path | None = None
        self._late: list[Pair] | None = None
        """The pairs after the writer could no longer extend the text (None while it can)."""
        self._closers = ""
        """What closed the text at that point."""
        self._parent: Path = ()
        """The path of the innermost open container (`_stack[-1]`), once the text has one."""

    @property
    def clean(self) -> bool:
        """Whether the text so far ends between values (no string waits for its next piece)."""
        return self._open_string is None

    @property
    def open_string(self) -> Path | None:
        """The path of the string the text ends inside, which `continue_string` extends (None when none)."""
        return self._open_string if self._late is None else None

    @property
    def writing(self) -> bool:
        """Whether the pairs still extend the text (False once one went back into a closed container)."""
        return self._late is None

    def continue_string(self, path: Path, value: str, will_continue: bool) -> str | None:
        """The text of the next piece of the string open at `path` (None when no string is open there)."""
        if path is not self._open_string or self._late is not None:
            return None
        if will_continue:
            return encode_basestring(value)[1:-1]
        self._open_string = None
        return encode_basestring(value)[1:]

    def feed(self, path: Path, value: Any, is_string: bool, will_continue: bool) -> str:
        """The JSON text this pair adds ("" when it adds none)."""
        open_string = self._open_string
        if self._late is not None:
            self._late.append((path, value, is_string, will_continue))
            self._open_string = path if is_string and will_continue else None
            return ""
        if open_string is not None and is_string and path == open_string:
            if will_continue:
                return encode_basestring(value)[1:-1]
            self._open_string = None
            return encode_basestring(value)[1:]
        out: list[str] = []
        if not self._stack:
            self._stack.append(_Container(None, False))
            out.append("{")
        if open_string is not None:
            out.append('"')
            self._open_string = None
        if not path or not self._position(path, out):
            self._switch(out)
            self._late = [(path, value, is_string, will_continue)]
            self._open_string = path if is_string and will_continue else None
            return ""
        if is_string:
            text = encode_basestring(value)
            if will_continue:
                out.append(text[:-1])
                self._open_string = path
            else:
                out.append(text)
        else:
            out.append(_scalar(value))
        return "".join(out)

    def feed_member(self, segment: Segment, value: Any, is_string: bool, will_continue: bool) -> str | None:
        """`feed` without a path walk, for the next member of the innermost open container (else None).

        The pair's path is that container's plus `segment`; when the container does not take it
        as its next member, nothing changes and the caller takes the general way.
        """
        stack = self._stack
        if self._late is not None or not stack:
            return None
        container = stack[-1]
        count = container.count
        if container.is_array:
            if type(segment) is not int or segment != count:
                return None
            key = "," if count else ""
        elif type(segment) is str and segment not in container.keys:
            container.keys.add(segment)
            key = f',"{encode_basestring(segment)[1:]}:' if count else f'"{encode_basestring(segment)[1:]}:'
        else:
            return None
        container.count = count + 1
        if self._open_string is not None:
            key = '"' + key
            self._open_string = None
        if not is_string:
            return key + _scalar(value)
        if will_continue:
            self._open_string = (*self._parent, segment)
            return key + encode_basestring(value)[:-1]
        return key + encode_basestring(value)

    def close(self) -> tuple[str, Callable[[str], Any] | None]:
        """The text that completes the document, and (when the writer had to stop writing) the
        function that reads the value from the whole text emitted."""
        if self._late is not None:
            return "", self._rebuild
        if not self._stack:
            return "{}", None
        out: list[str] = []
        if self._open_string is not None:
            out.append('"')
            self._open_string = None
        while self._stack:
            out.append("]" if self._stack.pop().is_array else "}")
        return "".join(out), None

    def _position(self, path: Path, out: list[str]) -> bool:
        """Close and open containers so the next text is the value at `path`; False if impossible."""
        stack = self._stack
        depth = 1
        limit = min(len(stack), len(path))
        while depth < limit and stack[depth].segment == path[depth - 1]:
            depth += 1
        while len(stack) > depth:
            out.append("]" if stack.pop().is_array else "}")
        for i in range(depth - 1, len(path)):
            segment = path[i]
            container = stack[-1]
            if container.is_array:
                if type(segment) is not int or segment != container.count:
                    return False
                if container.count:
                    out.append(",")
            elif isinstance(segment, str) and segment not in container.keys:
                container.keys.add(segment)
                out.append(',"' if container.count else '"')
                out.append(encode_basestring(segment)[1:])
                out.append(":")
            else:
                return False
            container.count += 1
            if i + 1 < len(path):
                is_array = type(path[i + 1]) is int
                out.append("[" if is_array else "{")
                stack.append(_Container(segment, is_array))
        self._parent = path[:-1]
        return True

    def _switch(self, out: list[str]) -> None:
        """Stop writing: remember the text that completes the text so far (`out`, never emitted, first)."""
        self._closers = "".join(out) + "".join("]" if c.is_array else "}" for c in reversed(self._stack))
        self._stack.clear()
        self._open_string = None

    def _rebuild(self, text: str) -> Any:
        """The value: the text emitted (closed) read as JSON, then the late pairs applied in order."""
        whole = text + self._closers
        tree: Any = json.loads(whole) if whole else {}
        open_string: Path | None = None
        for path, value, is_string, will_continue in self._late or ():
            if not path:
                continue
            node = tree
            for segment, following in itertools.pairwise(path):
                node = _child(node, segment, [] if type(following) is int else {})
            leaf = path[-1]
            if is_string and open_string == path:
                _set(node, leaf, str(_get(node, leaf, "")) + value)
            else:
                _set(node, leaf, _number(value))
            open_string = path if is_string and will_continue else None
        return tree


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)  # what `json.dumps` writes, without its encoder's setup
    if type(value) is float:
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    return _dumps(value)


def _number(value: Any) -> Any:
    """A `numberValue` as JSON would read it (integral doubles become ints, as in complete `args`)."""
    if type(value) is float and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _child(node: Any, segment: Segment, empty: Any) -> Any:
    current = _get(node, segment, None)
    if not isinstance(current, (dict, list)):
        current = empty
        _set(node, segment, current)
    return current


def _get(node: Any, segment: Segment, default: Any) -> Any:
    if isinstance(node, dict):
        return node.get(segment, default)
    if isinstance(node, list) and type(segment) is int and segment < len(node):
        return node[segment]
    return default


def _set(node: Any, segment: Segment, value: Any) -> None:
    if isinstance(node, dict):
        node[segment] = value
    elif isinstance(node, list) and type(segment) is int:
        node.extend([None] * (segment + 1 - len(node)))
        node[segment] = value
