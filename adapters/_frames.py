"""Reading provider frames that are either decoded JSON dicts or SDK (pydantic) objects, fast.

`getattr` on a pydantic model for a field it does not declare goes through pydantic's
`__getattr__`, which builds an `AttributeError` (about 2.5 µs each). Stream frames are read
field by field, often for fields a given event type does not have, so `field` reads the
instance `__dict__` (declared fields) and `__pydantic_extra__` (undeclared fields the SDK kept).
"""

from __future__ import annotations

from typing import Any


def field(frame: Any, name: str, default: Any = None) -> Any:
    """`frame[name]` for dicts, the field `name` for SDK objects; `default` when absent or None."""
    if type(frame) is dict:
        value = frame.get(name)
    else:
        attributes = getattr(frame, "__dict__", None)
        if attributes is None:
            value = getattr(frame, name, None)
        else:
            value = attributes.get(name)
            if value is None:
                extra = getattr(frame, "__pydantic_extra__", None)
                if extra:
                    value = extra.get(name)
    return default if value is None else value
