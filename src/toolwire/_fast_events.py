"""Constructors for the events a stream emits once per delta, three times cheaper than the classes'.

A frozen dataclass's `__init__` takes keywords and sets each field through
`object.__setattr__`; for a two-field event that is two thirds of the cost of a delta's event.
These set the slots directly through their descriptors and give the very same objects:
the public classes, frozen, equal, hashable and printed as if built by their constructors.
"""

from __future__ import annotations

from typing import Any

from .events import PartialInputSource, PartialToolInputDelta, ReasoningDelta, TextDelta, ToolInputDelta

_new = object.__new__


def _setter(cls: type[Any], name: str) -> Any:
    return getattr(cls, name).__set__


_set_call_id = _setter(ToolInputDelta, "tool_call_id")
_set_input_text = _setter(ToolInputDelta, "input_text_delta")
_set_partial = _setter(PartialToolInputDelta, "_partial")
_set_position = _setter(PartialToolInputDelta, "_position")
_set_text_id = _setter(TextDelta, "id")
_set_text = _setter(TextDelta, "delta")
_set_reasoning_id = _setter(ReasoningDelta, "id")
_set_reasoning = _setter(ReasoningDelta, "delta")


def tool_input_delta(tool_call_id: str, text: str) -> ToolInputDelta:
    """`ToolInputDelta(tool_call_id=..., input_text_delta=...)`."""
    event: ToolInputDelta = _new(ToolInputDelta)
    _set_call_id(event, tool_call_id)
    _set_input_text(event, text)
    return event


def partial_tool_input_delta(
    tool_call_id: str, text: str, source: PartialInputSource, position: int
) -> PartialToolInputDelta:
    """`PartialToolInputDelta(tool_call_id=..., input_text_delta=..., _partial=..., _position=...)`."""
    event: PartialToolInputDelta = _new(PartialToolInputDelta)
    _set_call_id(event, tool_call_id)
    _set_input_text(event, text)
    _set_partial(event, source)
    _set_position(event, position)
    return event


def text_delta(part_id: str, text: str) -> TextDelta:
    """`TextDelta(id=..., delta=...)`."""
    event: TextDelta = _new(TextDelta)
    _set_text_id(event, part_id)
    _set_text(event, text)
    return event


def reasoning_delta(part_id: str, text: str) -> ReasoningDelta:
    """`ReasoningDelta(id=..., delta=...)`."""
    event: ReasoningDelta = _new(ReasoningDelta)
    _set_reasoning_id(event, part_id)
    _set_reasoning(event, text)
    return event
