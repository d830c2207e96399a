"""Redaction of the secrets one target call used: env values and the identity token.

A secret can reappear encoded (percent-encoded in a URL, escaped in JSON), so each is
registered with those spellings. Env values are removed from everything: errors, logs,
traces, what the model reads and what the display shows. The identity token is removed from
errors, logs, traces and the model's view; the display stream (the user's own UI) keeps it,
since an `embedUrl` may carry it to the app's own page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "[redacted]"


def _spellings(secret: str) -> set[str]:
    return {
        secret,
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
    }


class Redactor:
    """Collects the secrets of one call and removes them from text and JSON values."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._hidden: set[str] = set()
        self._user_visible: set[str] = set()
        self._patterns: dict[bool, re.Pattern[str] | None] = {}
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str, *, user_visible: bool = False) -> None:
        """Register a secret; `user_visible` secrets may stay in what the user's display shows."""
        if not secret:
            return
        (self._user_visible if user_visible else self._hidden).update(_spellings(secret))
        self._patterns.clear()

    def _pattern(self, display: bool) -> re.Pattern[str] | None:
        if display not in self._patterns:
            words = self._hidden if display else self._hidden | self._user_visible
            ordered = sorted((w for w in words if w), key=len, reverse=True)
            self._patterns[display] = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        return self._patterns[display]

    def text(self, value: str, *, display: bool = False) -> str:
        """`value` with every secret replaced by `[redacted]`."""
        pattern = self._pattern(display)
        return pattern.sub(REDACTED, value) if pattern is not None else value

    def json(self, value: Any, *, display: bool = False) -> Any:
        """A JSON value with every string (keys included) redacted."""
        if isinstance(value, str):
            return self.text(value, display=display)
        if isinstance(value, Mapping):
            return {self.text(str(k), display=display): self.json(v, display=display) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.json(v, display=display) for v in value]
        return value
