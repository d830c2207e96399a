"""Read-only JSON containers, so cached wire entries can be shared between requests without copies.

Written by hand: they must stay `dict`/`list` subclasses (the SDKs' request builders, pydantic
and `json` accept them as they are) while refusing every in-place change, and copying must
give plain editable containers; no maintained library offers that (`frozendict` is not a dict
subclass, `MappingProxyType` is no JSON object to `json.dumps`).
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn

_SHARED = (
    "is shared by toolwire's tool-encoding cache and read-only: replace it with an edited copy "
    "(dict(...), list(...) or copy.deepcopy(...)) instead"
)


class ReadOnlyDict(dict[str, Any]):
    """A JSON object that refuses changes; `copy`/`deepcopy`/pickle give plain dicts."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"this JSON object {_SHARED}")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (dict(self),)


class ReadOnlyList(list[Any]):
    """A JSON array that refuses changes; `copy`/`deepcopy`/pickle give plain lists."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"this JSON array {_SHARED}")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(value, memo) for value in self]

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return list, (list(self),)


def read_only(value: Any) -> Any:
    """A read-only deep copy of a JSON value (tuples become arrays; other objects are kept as they are)."""
    if isinstance(value, dict):
        return ReadOnlyDict({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return ReadOnlyList(read_only(item) for item in value)
    return value
