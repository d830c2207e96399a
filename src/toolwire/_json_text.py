"""One JSON text to its value, exactly as `json.loads` gives it, at jiter's speed.

jiter parses; wherever it refuses a text, `json.loads` decides, so values and error messages
are `json.loads`'s (see `_json_frames`). Values are not cached: jiter's cache of string values
would keep up to 16,384 argument fragments alive after a stream.
"""

from __future__ import annotations

import json
from typing import Any

from jiter import from_json


def loads(data: bytes) -> Any:
    """The JSON value of `data` as `json.loads(data)` gives it, or its error (ValueError, RecursionError)."""
    try:
        return from_json(data, cache_mode="keys")
    except ValueError:
        return json.loads(data)


def loads_text(data: bytes) -> Any:
    """`loads` for SSE data, which is UTF-8 text: invalid bytes read as U+FFFD, as the SSE spec says."""
    try:
        return from_json(data, cache_mode="keys")
    except ValueError:
        return json.loads(data.decode("utf-8", errors="replace"))
