"""Tool ids mapped to each provider's name alphabet, deterministically, and back again.

A valid id is sent unchanged. Otherwise characters outside the alphabet become `_` and a
name over the length limit is cut and given a hash suffix, so one id always maps to one name.
Decoding uses the table built for the request's tools, never a guess.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from .exceptions import ToolNameCollisionError


@dataclass(frozen=True, slots=True)
class NameRules:
    """A provider's tool-name alphabet."""

    allowed: str
    """Regex character class body of allowed characters, e.g. `a-zA-Z0-9_-`."""
    max_length: int
    first_char: str | None = None
    """Regex character class body the first character must match (None: any allowed char)."""

    def is_valid(self, name: str) -> bool:
        """Whether the provider accepts `name` as it is."""
        first = f"[{self.first_char}]" if self.first_char else f"[{self.allowed}]"
        return re.fullmatch(f"{first}[{self.allowed}]{{0,{self.max_length - 1}}}", name) is not None


OPENAI_NAMES = NameRules(allowed="a-zA-Z0-9_-", max_length=64)
ANTHROPIC_NAMES = NameRules(allowed="a-zA-Z0-9_-", max_length=64)
GEMINI_NAMES = NameRules(allowed="a-zA-Z0-9_.:-", max_length=128, first_char="a-zA-Z_")
STRICTEST_NAMES = NameRules(allowed="a-zA-Z0-9_-", max_length=64, first_char="a-zA-Z_")


def has_carriable_name(tool_id: str) -> bool:
    """Whether some ASCII letter or digit survives mapping (else no provider can carry it)."""
    return any(c.isascii() and c.isalnum() for c in _transliterate(tool_id))


def _transliterate(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def wire_name(tool_id: str, rules: NameRules) -> str:
    """The provider name for a tool id: unchanged when valid, else sanitized deterministically."""
    if rules.is_valid(tool_id):
        return tool_id
    name = re.sub(f"[^{rules.allowed}]", "_", _transliterate(tool_id))
    if rules.first_char and not re.match(f"[{rules.first_char}]", name):
        name = "_" + name
    if len(name) > rules.max_length:
        digest = hashlib.sha256(tool_id.encode()).hexdigest()[:8]
        name = f"{name[: rules.max_length - 9]}_{digest}"
    return name


@dataclass(frozen=True, slots=True)
class NameMap:
    """Both directions between tool ids and provider names for one request's tools."""

    api: str
    to_wire: dict[str, str] = field(default_factory=dict)
    to_id: dict[str, str] = field(default_factory=dict)

    def wire(self, tool_id: str) -> str:
        """The provider name of a tool id (computed on the fly for ids outside the table)."""
        return self.to_wire.get(tool_id, tool_id)

    def tool_id(self, name: str) -> str:
        """The tool id of a provider name; names outside the table pass through unchanged."""
        return self.to_id.get(name, name)


def build_name_map(api: str, tool_ids: Iterable[str], rules: NameRules) -> NameMap:
    """Map every id and refuse two ids that land on one name.

    Raises:
        ToolNameCollisionError: two different ids map to the same provider name.
    """
    to_wire, to_id = _name_tables(api, tuple(tool_ids), rules)
    return NameMap(api, dict(to_wire), dict(to_id))


@functools.lru_cache(maxsize=256)
def _name_tables(api: str, tool_ids: tuple[str, ...], rules: NameRules) -> tuple[dict[str, str], dict[str, str]]:
    """Cached: every request and every stream maps the same tool ids again (callers copy the tables)."""
    to_wire: dict[str, str] = {}
    to_id: dict[str, str] = {}
    for tool_id in tool_ids:
        if tool_id in to_wire:
            continue
        name = wire_name(tool_id, rules)
        other = to_id.get(name)
        if other is not None:
            raise ToolNameCollisionError(api, name, other, tool_id)
        to_wire[tool_id] = name
        to_id[name] = tool_id
    return to_wire, to_id
