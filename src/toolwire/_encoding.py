"""Encoding helpers shared by adapters: examples folded into descriptions, JSON text for results."""

from __future__ import annotations

import json

from .tools import Tool


def description_with_examples(tool: Tool) -> str:
    """The description plus a clearly delimited examples section (for providers without a field)."""
    if not tool.input_examples:
        return tool.description
    lines = [tool.description.rstrip(), "", "Examples:"]
    lines.extend(
        json.dumps(example.input, ensure_ascii=False, separators=(", ", ": ")) for example in tool.input_examples
    )
    return "\n".join(lines)
