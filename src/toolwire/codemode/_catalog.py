"""Discovery for large catalogs: the program asks for the stubs it needs instead of reading them all.

Above a few dozen tools, typed stubs for every function crowd the prompt. With discovery on,
the instructions list one line per function and the program calls `describe_functions([...])`
for exact types, or `search_functions("words")` to find functions, as Cloudflare's
`codemode.search/describe` and FastMCP's `Search`/`GetSchemas` do. Both are answered on the
host from the configured tools only; unknown names are reported, never looked up elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolwire.tools import Tool

from ._names import External
from ._pytext import clean, comment, shorten
from .instructions import render_stubs

DISCOVERY_THRESHOLD = 30
"""With `discovery=None`, more tools than this switch it on."""
_SEARCH_RESULTS = 10


class Catalog:
    """The configured functions, for `describe_functions` and `search_functions`."""

    def __init__(self, pairs: Sequence[tuple[External, Tool]]) -> None:
        self._pairs = tuple(pairs)
        self._by_function = {external.function: (external, tool) for external, tool in pairs}

    def answer(self, kind: str, argument: tuple[str, ...] | str) -> Any:
        """The reply to a `describe` (stub text) or `search` (list of matches) request."""
        if kind == "search" and isinstance(argument, str):
            return self.search(argument)
        return self.describe(list(argument))

    def describe(self, names: list[str]) -> str:
        """Stubs for the named functions; names that are not configured are listed at the end."""
        known = [self._by_function[name] for name in dict.fromkeys(names) if name in self._by_function]
        unknown = sorted({name for name in names if name not in self._by_function})
        text = render_stubs(known) if known else ""
        if unknown:
            text += comment("Not available: " + ", ".join(shorten(n, 60) for n in unknown[:20])) + "\n"
        return text

    def search(self, query: str) -> list[dict[str, str]]:
        """Up to ten functions, best first: a word in the name counts three, in the description one."""
        words = [w for w in re.split(r"[^0-9a-z]+", query.lower()) if w]
        scored: list[tuple[int, str, str]] = []
        for external, tool in self._pairs:
            name, description = external.function.lower(), tool.description.lower()
            score = sum(3 * (word in name) + (word in description) for word in words)
            if score:
                scored.append((-score, external.function, summary(tool)))
        return [{"function": function, "description": text} for _, function, text in sorted(scored)[:_SEARCH_RESULTS]]

    def listing(self) -> str:
        """One comment line per function, for the instructions (types come from `describe_functions`)."""
        return "\n".join(f"{external.function}  {comment(summary(tool))}" for external, tool in self._pairs) + "\n"


def summary(tool: Tool) -> str:
    """The first line of a tool's description, cleaned and short."""
    first = clean(tool.description, keep_newlines=True).strip().split("\n", 1)[0]
    return shorten(first, 120)
