"""How a frame that cannot be decoded is worded in the `error` event that replaces it."""

from __future__ import annotations

import reprlib
from typing import Any

from ._sources import FrameError
from .exceptions import MalformedFrameError

DECODE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)
"""What a decoder raises on a frame of an unexpected shape (it becomes an `error` event);
RecursionError: a frame nested deeper than Python's recursion limit."""


def _frame_repr() -> reprlib.Repr:
    """A frame quoted in an error: bounded in depth and size (`repr` of a hostile frame is neither)."""
    bounded = reprlib.Repr()
    bounded.maxlevel, bounded.maxdict, bounded.maxlist = 3, 4, 4
    bounded.maxstring = bounded.maxother = 60
    return bounded


_FRAME_REPR = _frame_repr()


def frame_error_text(api: str, frame: FrameError) -> str:
    """A part of the source that never became a frame (bad bytes, a broken SDK object)."""
    return f"the {api} {frame.message}" if frame.from_source else f"{api}: {frame}"


def frame_problem(api: str, frame: Any, exc: Exception) -> str:
    """A frame the decoder refused, quoted (bounded) with what was wrong."""
    quoted = _FRAME_REPR.repr(frame)[:160]
    if isinstance(exc, MalformedFrameError):
        return f"skipped a malformed {api} frame: {exc}: {quoted}"
    if isinstance(exc, RecursionError):
        return f"skipped a {api} frame nested too deeply to decode: {quoted}"
    return f"unexpected {api} frame ({type(exc).__name__}: {exc}): {quoted}"
