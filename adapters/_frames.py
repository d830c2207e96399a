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

from toolwire.exceptions import MalformedFrameError


def field(frame: Any, name: str, default: Any = None) -> Any:
    """`frame[name]` for dicts, the field `name` for SDK objects; `default` when absent or None."""
    if type(frame) is dict:
        value = frame.get(name)
    else:
        attributes = getattr(frame, "__dict__", None)
        if attributes is None:
            # a string or a number where an object belongs has no fields (`"x".index` is a method)
            value = None if isinstance(frame, _NOT_OBJECTS) else getattr(frame, name, None)
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
    if value is not None and isinstance(value, _NOT_OBJECTS):
        raise wrong(where, "an object", value)
    return value


_NOT_OBJECTS = (str, int, float, bool, list, tuple, bytes)
