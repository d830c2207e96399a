"""Anthropic's top-level `input_schema` without `anyOf`/`oneOf`/`allOf`, which the API refuses there.

Used for tools sent without `strict`: the branches' properties are folded into the root and the
combinators themselves are described, while toolwire keeps validating against the original.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

JsonSchema = dict[str, Any]

ROOT_COMBINATORS: Final = ("anyOf", "oneOf", "allOf")
"""Refused at the top of `input_schema` ("input_schema does not support oneOf, allOf, or anyOf at the top level",
anthropics/claude-code#5319, mobile-next/mobile-mcp#344)."""


def without_root_combinators(schema: Mapping[str, Any]) -> tuple[JsonSchema, tuple[str, ...]]:
    """A copy with the root's `anyOf`/`oneOf`/`allOf` folded away, and the keywords that were.

    Branch properties join the root's (so the model still sees every field), `allOf` branches'
    `required` join the root's, and the combinators themselves are appended to the description
    as JSON; the validator keeps enforcing the original schema.
    """
    found = tuple(k for k in ROOT_COMBINATORS if isinstance(schema.get(k), list))
    if not found:
        return dict(schema), ()
    out = {k: v for k, v in schema.items() if k not in found}
    properties = dict(out.get("properties") or {})
    required = list(out.get("required") or [])
    for keyword in found:
        for branch in schema[keyword]:
            target = _resolved(schema, branch)
            for name, sub in (target.get("properties") or {}).items():
                properties.setdefault(name, sub)
            if keyword == "allOf":
                required.extend(r for r in target.get("required") or [] if r not in required)
    out["properties"] = properties
    if required:
        out["required"] = required
    rendered = ", ".join(f"{k}: {json.dumps(schema[k], ensure_ascii=False)}" for k in found)
    description = out.get("description")
    out["description"] = (f"{description}\n\n" if description else "") + "{" + rendered + "}"
    return out, found


def _resolved(root: Mapping[str, Any], branch: Any) -> Mapping[str, Any]:
    """A branch, or the local definition its `$ref` points to (empty when it does not resolve)."""
    if not isinstance(branch, Mapping):
        return {}
    ref = branch.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, Mapping) else None
        return node if isinstance(node, Mapping) else {}
    return branch
