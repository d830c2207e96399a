"""Reading provider frames that are either decoded JSON dicts or SDK (pydantic) objects, fast.

`getattr` on a pydantic model for a field it does not declare goes through pydantic's
`__getattr__`, which builds an `AttributeError` (about 2.5 µs each). Stream frames are read
field by field, often for fields a given event type does not have, so `field` reads the
instance `__dict__` (declared fields) and `__pydantic_extra__` (undeclared fields the SDK kept).

The typed readers (`text_of`, `items_of`, ...) raise `MalformedFrameError` for a field of the
wrong JSON type. Decoders use them where a field is read, never in per-character loops; the
base adapter turns the error into one `error` event naming the api, and the stream goes on.
"""

from __future__ import annotations

from typing import Any

from toolwire._long_strings import JsonString
from toolwire.deltas import StreamFailed
from toolwire.exceptions import MalformedFrameError


def field(frame: Any, name: str, default: Any = None) -> Any:
    """`frame[name]` for dicts, the field `name` for SDK objects; `default` when absent or None."""
    if type(frame) is dict:
        value = frame.get(name)
    else:
        attributes = getattr(frame, "__dict__", None)
        if attributes is None:
            # a string or a number where an object belongs has no fields (`"x".index` is a method)
            value = None if isinstance(frame, NOT_OBJECTS) else getattr(frame, name, None)
        else:
            value = attributes.get(name)
            if value is None:
                extra = getattr(frame, "__pydantic_extra__", None)
                if extra:
                    value = extra.get(name)
    return default if value is None else value


def json_kind(value: Any) -> str:
    """The JSON type of a value, as an error message names it (with a short preview)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r:.20}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters" if len(value) > 40 else f"string {value!r}"
    if isinstance(value, (list, tuple)):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def wrong(where: str, expected: str, value: Any) -> MalformedFrameError:
    """The error for `where` (a field path such as `delta.tool_calls`) holding `value`."""
    return MalformedFrameError(f"`{where}` must be {expected}, got {json_kind(value)}")


def text_of(frame: Any, name: str, where: str, default: str = "") -> str:
    """A string field (`default` when absent or null)."""
    value = field(frame, name)
    if value is None:
        return default
    if type(value) is not str:
        if type(value) is JsonString:  # left undecoded at a restated path: this reader wants the text
            return value.text()
        raise wrong(where, "a string", value)
    return value


def restated_text(frame: Any, name: str, where: str) -> str | JsonString:
    """A string field that may have been left undecoded (`Adapter.restated_strings`)."""
    value = field(frame, name)
    if type(value) is JsonString:
        return value
    return text_of(frame, name, where)


def maybe_text(frame: Any, name: str, where: str) -> str | None:
    """A string field that may be absent (None)."""
    value = field(frame, name)
    if value is not None and type(value) is not str:
        if type(value) is JsonString:
            return value.text()
        raise wrong(where, "a string", value)
    return value


def items_of(frame: Any, name: str, where: str) -> list[Any] | tuple[Any, ...]:
    """A list field (empty when absent or null); a string is never iterated character by character."""
    value = field(frame, name)
    if value is None:
        return ()
    if type(value) is not list and type(value) is not tuple:
        raise wrong(where, "an array", value)
    return value  # pyright: ignore[reportUnknownVariableType]


def int_of(frame: Any, name: str, where: str, default: int = 0) -> int:
    """An integer field (`default` when absent or null)."""
    value = field(frame, name)
    if value is None:
        return default
    if type(value) is not int:
        raise wrong(where, "an integer", value)
    return value


def object_of(frame: Any, name: str, where: str) -> Any:
    """An object field (a dict or an SDK object; None when absent or null)."""
    value = field(frame, name)
    if value is not None and isinstance(value, NOT_OBJECTS):
        raise wrong(where, "an object", value)
    return value


NOT_OBJECTS = (str, int, float, bool, list, tuple, bytes)


def count_of(frame: Any, name: str, where: str) -> int | None:
    """A token count (None when absent or null)."""
    value = field(frame, name)
    if value is not None and type(value) is not int:
        raise wrong(where, "an integer", value)
    return value


class Skipped:
    """Malformed items of one frame, reported as one error: a frame of 200,000 bad items is one event."""

    __slots__ = ("count", "first", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self.first = ""

    def add(self, position: int, problem: Exception) -> None:
        if not self.count:
            self.first = f"[{position}]: {problem}"
        self.count += 1

    def report(self, api: str, out: list[Any]) -> None:
        """Append one `StreamFailed` when anything was skipped."""
        if self.count:
            out.append(
                StreamFailed(f"skipped {self.count} malformed {self.what} in one {api} frame; {self.what}{self.first}")
            )


def error_text(api: str, error: Any) -> str:
    """A provider's error object (OpenAI, Anthropic or Gemini form, or a bare string) as one line.

    Names the provider's code, type or status and its message: `openai-chat error
    (invalid_api_key, invalid_request_error): Incorrect API key provided`.
    """
    if type(error) is str:
        return f"{api} error: {error[:1000]}"
    details: list[str] = []
    for name in ("code", "type", "status"):
        value = field(error, name)
        if value is not None and type(value) in (str, int) and str(value)[:80] not in details:
            details.append(str(value)[:80])
    message = field(error, "message")
    text = message[:1000] if type(message) is str else "no message"
    return f"{api} error ({', '.join(details)}): {text}" if details else f"{api} error: {text}"
