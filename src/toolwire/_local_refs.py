"""Local `$ref`s checked when a schema is compiled, so a dangling one is a schema error, not a validation crash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._null_repair import resolve_ref

_DATA_KEYWORDS = frozenset({"const", "enum", "examples", "default"})
"""Keywords whose values are instances, not schemas: a `$ref` key inside them is data."""


def dangling_local_ref(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first `#...` reference that points nowhere in the schema, with where it sits; None if all resolve.

    Only schemas without a nested `$id` are checked: below an `$id`, `#...` is relative to that
    resource, which jsonschema resolves and this walk does not follow.
    """
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, Mapping):
            if node is not schema and "$id" in node:
                return None
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#") and resolve_ref(schema, ref) is None:
                found.append((ref, where or "(root)"))
            stack.extend((child, f"{where}/{key}") for key, child in node.items() if key not in _DATA_KEYWORDS)
        elif isinstance(node, list):
            stack.extend((child, f"{where}/{index}") for index, child in enumerate(node))
    return found[0] if found else None
