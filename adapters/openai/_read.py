"""Reading frames that are decoded JSON dicts or OpenAI SDK (pydantic) objects, fast.

`getattr` on a pydantic model for a field it does not declare goes through pydantic's
`__getattr__`, which builds an `AttributeError` (about 2.5 µs each). Stream frames are read
field by field, often for fields a given type does not have (`message` on a chunk choice,
`reasoning_content` that only compatible servers send), so `get` reads the instance
`__dict__` (declared fields) and `__pydantic_extra__` (undeclared fields the SDK kept).
"""

from __future__ import annotations

from typing import Any


def get(obj: Any, name: str, default: Any = None) -> Any:
    """`obj[name]` for dicts, the field `name` for SDK objects; `default` when absent or None."""
    if type(obj) is dict:
        value = obj.get(name)
    else:
        attributes = getattr(obj, "__dict__", None)
        if attributes is None:
            value = getattr(obj, name, None)
        else:
            value = attributes.get(name)
            if value is None:
                extra = getattr(obj, "__pydantic_extra__", None)
                if extra:
                    value = extra.get(name)
    return default if value is None else value
