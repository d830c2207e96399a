"""User callbacks called with keyword arguments, each receiving only the names it declares.

Mastra's hooks receive one options object that TypeScript code destructures; the Python
equivalent is keyword arguments. A hook declares what it wants (`tool_call_id`, `input`, ...)
or takes `**kwargs`; the set of names it may ask for is checked when the tool is created.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .exceptions import ToolDefinitionError


@dataclass(frozen=True, slots=True)
class Callback:
    """A user function plus the keyword names it accepts (None: it takes `**kwargs`)."""

    fn: Callable[..., Any]
    accepts: frozenset[str] | None

    def __call__(self, **offered: Any) -> Any:
        """Call with the offered names the function declares; may return an awaitable."""
        if self.accepts is None:
            return self.fn(**offered)
        return self.fn(**{name: value for name, value in offered.items() if name in self.accepts})


def make_callback(fn: Any, *, tool_id: str | None, field: str, offered: frozenset[str]) -> Callback | None:
    """Check that `fn` asks only for offered names and wrap it.

    Raises:
        ToolDefinitionError: `fn` is not callable or requires a name the caller never passes.
    """
    if fn is None:
        return None
    if not callable(fn):
        raise ToolDefinitionError(tool_id, field, f"must be a function, got {type(fn).__name__}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return Callback(fn, None)
    accepted: set[str] = set()
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return Callback(fn, None)
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL):
            if parameter.kind is inspect.Parameter.VAR_POSITIONAL or parameter.default is inspect.Parameter.empty:
                raise ToolDefinitionError(
                    tool_id, field, f"must take keyword arguments (any of {sorted(offered)}), not positional ones"
                )
            continue
        if parameter.name in offered:
            accepted.add(parameter.name)
        elif parameter.default is inspect.Parameter.empty:
            raise ToolDefinitionError(
                tool_id,
                field,
                f"asks for {parameter.name!r}, which is never passed; it may declare any of {sorted(offered)}",
            )
    return Callback(fn, frozenset(accepted))


def count_positional(fn: Callable[..., Any]) -> tuple[int, int]:
    """(required, maximum) positional parameters of `fn`; maximum is large for `*args`."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return (0, 99)
    required = maximum = 0
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            maximum = 99
        elif parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            maximum += 1
            if parameter.default is inspect.Parameter.empty:
                required += 1
    return (required, maximum)


def required_keyword_only(fn: Callable[..., Any]) -> list[str]:
    """Keyword-only parameters of `fn` without a default (a caller passing positions cannot fill them)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty
    ]
