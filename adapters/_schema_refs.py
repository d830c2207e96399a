"""Every local `$ref` as `#/$defs/<name>`: what a reference points at moves into the root `$defs`.

Strict modes read definitions from the root `$defs` only; JSON Schema also allows pointers
anywhere (`#/properties/home`), draft-07 `#/definitions/X`, nested `$defs` and `$anchor`
names. The hoister gives each such target a root definition name once and queues it, so the
transform walks it like any other definition (a recursive target stays recursive).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolwire.schema import resolve_ref

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class RefHoister:
    """Rewrites local references into root definition references, queueing the targets to walk."""

    __slots__ = ("_names", "_taken", "pending", "root")

    def __init__(self, root: Mapping[str, Any], taken: Iterable[str]) -> None:
        self.root = root
        self._taken = set(taken)
        self._names: dict[str, str] = {}
        self.pending: list[tuple[str, Any]] = []
        """`(definition name, target)` pairs hoisted and not yet walked."""

    def local(self, ref: str) -> str | None:
        """`ref` as `#` or `#/$defs/<name>`; None when it is not local or does not resolve."""
        if ref == "#" or self._is_root_definition(ref):
            return ref
        name = self._names.get(ref)
        if name is None:
            target = resolve_ref(self.root, ref)
            if target is None:
                return None
            if target is self.root:
                return "#"
            name = self._names[ref] = self._fresh(ref)
            self.pending.append((name, target))
        return f"#/$defs/{name}"

    def _is_root_definition(self, ref: str) -> bool:
        if not ref.startswith("#/$defs/"):
            return False
        name = ref.removeprefix("#/$defs/")
        definitions = self.root.get("$defs")
        return "/" not in name and isinstance(definitions, Mapping) and _unescape(name) in definitions

    def _fresh(self, ref: str) -> str:
        base = _UNSAFE.sub("_", _unescape(ref.rstrip("/").rsplit("/", 1)[-1].lstrip("#"))) or "definition"
        name, number = base, 1
        while name in self._taken:
            number += 1
            name = f"{base}_{number}"
        self._taken.add(name)
        return name


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")
