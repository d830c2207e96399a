"""Reading provider frames that are either decoded JSON dicts or SDK objects."""

from __future__ import annotations

from typing import Any


def field(frame: Any, name: str, default: Any = None) -> Any:
    """`frame[name]` for dicts, `frame.name` for SDK objects; `default` when absent or None."""
    value = frame.get(name) if type(frame) is dict else getattr(frame, name, None)
    return default if value is None else value
