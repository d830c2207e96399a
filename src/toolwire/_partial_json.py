"""Incremental JSON parsing for streamed tool-call arguments, linear in the length of the stream.

Providers stream a tool call's arguments as small text fragments split anywhere. Re-parsing the
whole buffer after each fragment is quadratic (jiter takes minutes for 1 MB), so
`IncrementalJsonParser` scans each character once, builds containers in place and keeps its state
between fragments. `value()` is lazy: it joins the in-progress string only when read and patches
that one leaf into its parent. Reading after every fragment costs at most the length of the
in-progress leaf, and usually only the new text, as CPython grows an unshared string in place.

`value()` follows `jiter.from_json(text, partial_mode="trailing-strings")`:

- objects and arrays hold the members parsed so far; a key still streaming, or whose value has not
  started, is left out;
- an in-progress string shows its text so far, without a dangling partial escape (`\\`, `\\u00`)
  and without a high surrogate escape still waiting for its pair;
- an in-progress number shows once the text so far is a whole number (`12`, `1.5`, `1e5`);
  `-`, `1.`, `1.5e` and `1e-` are left out; in-progress literals (`tru`) are left out.

Deviations from jiter:

- Nothing parsed yet, whitespace only, or a top-level number or literal that cannot stand alone
  (`-`, `1.`, `tr`): `None`, where jiter raises.
- A syntax error is recorded in `error` and `value()` keeps what was parsed before it; jiter raises.
  Later fragments are ignored.
- A lone surrogate escape (`"\\ud800"`) decodes to a lone surrogate, as `json.loads` does; jiter
  rejects it.
- `NaN`, `Infinity` and `-Infinity` are syntax errors (RFC 8259); jiter and `json.loads` accept them.
- `complete` is True for a top-level number as soon as it is valid, though more digits may follow.
- Containers are live: later feeds mutate the objects `value()` returned, and the in-progress leaf
  is in them only until the next feed. Copy a value to keep it; treat it as read-only.
"""

from __future__ import annotations

from _json import scanstring  # the C string decoder behind json.loads, without its per-call overhead
from typing import Any, Final, TypeAlias

from ._json_lexemes import (
    ESCAPE_PREFIX,
    LITERALS,
    MISSING,
    NON_WS,
    NUMBER_PREFIX,
    NUMBER_STAND_IN,
    STRING_RUN,
    WHOLE_NUMBER,
    WS_CHARS,
    ends_with_high_surrogate,
    to_number,
)

__all__ = ["MAX_DEPTH", "IncrementalJsonParser", "parse_partial"]

MAX_DEPTH: Final = 10_000

# Parser states; each names what the next significant character must be.
_VALUE = 0  # any value: the document start, after ':' and after ',' in an array
_FIRST_VALUE = 1  # after '[': a value or ']'
_AFTER = 2  # after a member: ',' or the closing bracket
_KEY = 3  # after ',' in an object: a key
_FIRST_KEY = 4  # after '{': a key or '}'
_COLON = 5  # after a key
_STRING = 6  # inside a string value
_KEY_STRING = 7  # inside a key
_NUMBER = 8  # inside a number that reached the end of the last fragment
_DONE = 9  # after the top-level value: whitespace only


_Container: TypeAlias = dict[str, Any] | list[Any]


class IncrementalJsonParser:
    """Feed JSON text in fragments; read the best-effort value at any time."""

    __slots__ = (
        "_carry", "_dirty", "_error", "_fed", "_key", "_number_kind", "_number_parts", "_parts",
        "_patch", "_root", "_stack", "_state", "_view",
    )  # fmt: skip

    def __init__(self) -> None:
        self._state = _VALUE
        self._stack: list[_Container] = []
        self._root: Any = None
        self._key = ""
        self._parts: list[str] = []
        self._number_parts: list[str] = []
        self._number_kind = ""
        # A partial escape or literal at the end of a fragment, scanned again with the next one.
        self._carry = ""
        self._fed = 0  # characters fed so far, for error offsets
        self._error: str | None = None
        self._view: Any = None
        self._dirty = False
        # The in-progress leaf patched into its parent by value(): (parent, key, previous value).
        self._patch: tuple[_Container, str, Any] | None = None

    @property
    def error(self) -> str | None:
        """The first syntax error, e.g. "unexpected 'x' at offset 17"; None while the text is fine so far."""
        return self._error

    @property
    def complete(self) -> bool:
        """Whether a whole top-level value has been parsed, so that `json.loads` would accept the text."""
        if self._error is not None:
            return False
        if self._state == _NUMBER:
            return not self._stack and self._number_kind in WHOLE_NUMBER
        return self._state == _DONE

    def feed(self, text: str) -> None:
        """Scan the next fragment; a syntax error is recorded in `error`, never raised."""
        if self._error is not None or not text:
            return
        if self._patch is not None:
            self._unpatch()
        self._dirty = True
        self._view = None
        self._fed += len(text)
        if self._carry:
            text = self._carry + text
            self._carry = ""
        handlers = self._HANDLERS
        pos, end = 0, len(text)
        while pos < end:
            pos = handlers[self._state](self, text, pos)

    def value(self) -> Any:
        """The value parsed so far, with the in-progress leaf; cached until the next feed."""
        if self._dirty:
            self._dirty = False
            self._view = self._root
            leaf = self._leaf()
            if leaf is not MISSING:
                if not self._stack:
                    self._view = leaf
                else:
                    parent = self._stack[-1]
                    if isinstance(parent, list):
                        parent.append(leaf)
                        self._patch = (parent, "", MISSING)
                    else:
                        self._patch = (parent, self._key, parent.get(self._key, MISSING))
                        parent[self._key] = leaf
        return self._view

    def _leaf(self) -> Any:
        """The in-progress string or number as it would be shown now, or MISSING."""
        if self._state == _STRING:
            parts = self._parts
            if len(parts) > 1:
                # Once the last read's string has left its parent, CPython grows it in place rather than copying.
                joined, parts[0] = parts[0], ""
                joined += "".join(parts)
                parts[:] = [joined]
            return parts[0] if parts else ""
        if self._state == _NUMBER and self._number_kind in WHOLE_NUMBER:
            parts = self._number_parts
            if len(parts) > 1:
                parts[:] = ["".join(parts)]
            return to_number(parts[0], self._number_kind)
        return MISSING

    def _unpatch(self) -> None:
        """Take the leaf value() patched in back out, before the parser touches its parent again."""
        assert self._patch is not None
        parent, key, previous = self._patch
        self._patch = None
        if isinstance(parent, list):
            parent.pop()
        elif previous is MISSING:
            del parent[key]
        else:
            parent[key] = previous

    def _fail(self, text: str, pos: int) -> int:
        self._error = f"unexpected {text[pos]!r} at offset {self._fed - len(text) + pos}"
        return len(text)

    def _put(self, value: Any) -> None:
        """Attach a member to the open container, or make it the document, and move past it."""
        if not self._stack:
            self._root = value
            self._state = _DONE
            return
        parent = self._stack[-1]
        if isinstance(parent, list):
            parent.append(value)
        else:
            parent[self._key] = value
        self._state = _AFTER

    def _value(self, text: str, pos: int) -> int:
        c = text[pos]
        if c in WS_CHARS:
            m = NON_WS.search(text, pos)
            if m is None:
                return len(text)
            pos = m.start()
            c = text[pos]
        if c == '"':
            self._parts = []
            self._state = _STRING
            return self._string(text, pos + 1)
        if c in "-0123456789":
            return self._number_start(text, pos)
        if c == "{" or c == "[":
            return self._open(text, pos, c)
        if c in LITERALS:
            return self._literal(text, pos, c)
        if c == "]" and self._state == _FIRST_VALUE:
            return self._close(text, pos, c)
        return self._fail(text, pos)

    def _after(self, text: str, pos: int) -> int:
        c = text[pos]
        if c in WS_CHARS:
            m = NON_WS.search(text, pos)
            if m is None:
                return len(text)
            pos = m.start()
            c = text[pos]
        if c == ",":
            pos += 1
            if isinstance(self._stack[-1], list):
                self._state = _VALUE
                return self._value(text, pos) if pos < len(text) else pos
            self._state = _KEY
            return self._key_start(text, pos) if pos < len(text) else pos
        if c == "]" or c == "}":
            return self._close(text, pos, c)
        return self._fail(text, pos)

    def _key_start(self, text: str, pos: int) -> int:
        c = text[pos]
        if c in WS_CHARS:
            m = NON_WS.search(text, pos)
            if m is None:
                return len(text)
            pos = m.start()
            c = text[pos]
        if c == '"':
            self._parts = []
            self._state = _KEY_STRING
            return self._string(text, pos + 1)
        if c == "}" and self._state == _FIRST_KEY:
            return self._close(text, pos, c)
        return self._fail(text, pos)

    def _colon(self, text: str, pos: int) -> int:
        if text[pos] in WS_CHARS:
            m = NON_WS.search(text, pos)
            if m is None:
                return len(text)
            pos = m.start()
        if text[pos] != ":":
            return self._fail(text, pos)
        self._state = _VALUE
        pos += 1
        return self._value(text, pos) if pos < len(text) else pos

    def _done(self, text: str, pos: int) -> int:
        m = NON_WS.search(text, pos)
        return len(text) if m is None else self._fail(text, m.start())

    def _open(self, text: str, pos: int, c: str) -> int:
        if len(self._stack) >= MAX_DEPTH:
            self._error = f"nesting deeper than {MAX_DEPTH} at offset {self._fed - len(text) + pos}"
            return len(text)
        container: _Container = {} if c == "{" else []
        self._put(container)
        self._stack.append(container)
        self._state = _FIRST_KEY if c == "{" else _FIRST_VALUE  # inside it rather than past it
        return pos + 1

    def _close(self, text: str, pos: int, c: str) -> int:
        if isinstance(self._stack[-1], list) != (c == "]"):
            return self._fail(text, pos)
        self._stack.pop()
        self._state = _AFTER if self._stack else _DONE
        return pos + 1

    def _literal(self, text: str, pos: int, c: str) -> int:
        word, value = LITERALS[c]
        if text.startswith(word, pos):
            self._put(value)
            return pos + len(word)
        seen = text[pos : pos + len(word)]
        if word.startswith(seen):  # shorter than the word, so the fragment ends inside it
            self._carry = seen
            return len(text)
        mismatch = next(i for i, (a, b) in enumerate(zip(seen, word, strict=False)) if a != b)
        return self._fail(text, pos + mismatch)

    def _string(self, text: str, pos: int) -> int:
        m = STRING_RUN.match(text, pos)
        stop = m.end() if m else pos
        end = len(text)
        if stop < end and text[stop] == '"':
            chunk = text[pos:stop]
            if "\\" in chunk:
                chunk = scanstring(text, pos)[0]
            if self._parts:
                self._parts.append(chunk)
                chunk = "".join(self._parts)
                self._parts = []
            if self._state == _KEY_STRING:
                self._key = chunk
                self._state = _COLON
            else:
                self._put(chunk)
            return stop + 1
        # A control character or a bad escape ends the string for good; a partial escape waits for more text.
        bad = -1
        if stop < end:
            escape = ESCAPE_PREFIX.match(text, stop)
            if escape is None:
                bad = stop
            elif escape.end() < end:
                bad = escape.end()
        # Keep a partial escape, and a high surrogate that may pair with the next escape, for the next fragment.
        cut = stop
        if bad < 0 and stop - pos >= 6 and text[stop - 6] == "\\" and ends_with_high_surrogate(text, pos, stop):
            cut -= 6
        if cut > pos:
            chunk = text[pos:cut]
            self._parts.append(scanstring(chunk + '"', 0)[0] if "\\" in chunk else chunk)
        if bad >= 0:
            return self._fail(text, bad)
        if cut < end:
            self._carry = text[cut:]
        return end

    def _number_start(self, text: str, pos: int) -> int:
        m = NUMBER_PREFIX.match(text, pos)
        assert m is not None  # the first character is '-' or a digit
        stop = m.end()
        if stop < len(text):
            return self._number_end(text, text[pos:stop], m.lastgroup, stop)
        self._number_parts = [text[pos:]]
        self._number_kind = m.lastgroup or ""
        self._state = _NUMBER
        return stop

    def _number(self, text: str, pos: int) -> int:
        head = NUMBER_STAND_IN[self._number_kind]
        m = NUMBER_PREFIX.match(head + text[pos:])
        assert m is not None  # the head alone matches
        stop = pos + m.end() - len(head)
        if stop > pos:
            self._number_parts.append(text[pos:stop])
        if stop < len(text):
            return self._number_end(text, "".join(self._number_parts), m.lastgroup, stop)
        self._number_kind = m.lastgroup or ""
        return stop

    def _number_end(self, text: str, number: str, kind: str | None, stop: int) -> int:
        if kind not in WHOLE_NUMBER:
            return self._fail(text, stop)
        value = to_number(number, kind)
        if value is MISSING:
            self._error = f"integer too long ending at offset {self._fed - len(text) + stop}"
            return len(text)
        self._put(value)
        return stop

    # Indexed by state: the method that scans from a position in that state and returns the next position.
    _HANDLERS = (_value, _value, _after, _key_start, _key_start, _colon, _string, _string, _number, _done)


def parse_partial(text: str) -> Any:
    """One-shot: the value IncrementalJsonParser would give after feeding `text`."""
    parser = IncrementalJsonParser()
    parser.feed(text)
    return parser.value()
