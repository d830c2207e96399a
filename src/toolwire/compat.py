"""Degradations: what toolwire did when a provider could not take a feature as asked.

Every degradation is reported twice: through `warnings.warn` (so it shows up in logs and
pytest) and on the object that was being built, so callers can inspect it in code.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class CompatibilityWarning(UserWarning):
    """Warning category for provider degradations; the first arg is a `Degradation`."""

    @property
    def degradation(self) -> Degradation:
        """The structured record behind this warning."""
        first = self.args[0]
        assert isinstance(first, Degradation)
        return first


@dataclass(frozen=True, slots=True, kw_only=True)
class Degradation:
    """One feature a provider could not take, and what was done instead."""

    api: str
    """The API surface that could not take the feature, e.g. `"gemini"`."""
    feature: str
    """A stable feature key, e.g. `"strict"`, `"input_examples"`, `"tool_result.image"`."""
    action: str
    """What toolwire did instead, in words a developer can act on."""
    tool_id: str | None = None
    """The tool concerned, when the degradation is about one tool."""

    def __str__(self) -> str:
        who = f"tool {self.tool_id!r}: " if self.tool_id else ""
        return f"[{self.api}] {who}{self.feature}: {self.action}"

    def to_dict(self) -> dict[str, str | None]:
        """JSON form, as printed by the CLI."""
        return {"api": self.api, "toolId": self.tool_id, "feature": self.feature, "action": self.action}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Degradation:
        """Read the JSON form."""
        tool_id = data.get("toolId")
        return cls(
            api=str(data["api"]),
            feature=str(data["feature"]),
            action=str(data["action"]),
            tool_id=None if tool_id is None else str(tool_id),
        )


def report(degradations: Iterable[Degradation], *, stacklevel: int = 3) -> None:
    """Emit each degradation as a `CompatibilityWarning`."""
    for degradation in degradations:
        warnings.warn(CompatibilityWarning(degradation), stacklevel=stacklevel)
