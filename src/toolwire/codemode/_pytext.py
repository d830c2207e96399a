"""Untrusted text (tool descriptions, ids, schema keys) made safe to place inside Python source.

A description is data written by whoever defined the tool, or fetched from an MCP server: it
must never end a docstring early, break a comment onto a new line, or carry invisible
characters (bidirectional overrides, zero-width spaces) into the model's prompt.
"""

from __future__ import annotations

import unicodedata

MAX_DESCRIPTION = 1000
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def clean(text: str, *, keep_newlines: bool) -> str:
    """Drop control, format and unassigned characters; line breaks become `\\n` or a space."""
    kept: list[str] = []
    for char in text:
        if char in _LINE_BREAKS:
            kept.append("\n" if keep_newlines else " ")
        elif char == "\t":
            kept.append(" ")
        elif unicodedata.category(char)[0] != "C":
            kept.append(char)
    return "".join(kept)


def shorten(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """At most `limit` characters, cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def docstring_body(text: str) -> str:
    """Text that reads back unchanged (after `clean`) from inside a `\"\"\"...\"\"\"` literal."""
    text = clean(text, keep_newlines=True).replace("\\", "\\\\")
    # A quote next to another quote, or last, is escaped: no run of three, no clash with the closing quotes.
    return "".join(
        '\\"' if char == '"' and (index + 1 == len(text) or text[index + 1] == '"') else char
        for index, char in enumerate(text)
    )


def docstring(text: str, indent: str) -> list[str]:
    """A docstring statement as source lines, or nothing for empty text."""
    body = docstring_body(shorten(text.strip()))
    if not body.strip():
        return []
    lines = [line.rstrip() for line in body.split("\n")]
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    rest = [f"{indent}{line}" if line else "" for line in lines[1:]]
    return [f'{indent}"""{lines[0]}', *rest, f'{indent}"""']


def comment(text: str) -> str:
    """One `# ...` line that cannot spill onto the next line of code."""
    return "# " + shorten(" ".join(clean(text, keep_newlines=False).split()), 300)


def literal(value: str | int | bool | None) -> str:
    """A Python literal for a JSON scalar; `repr` escapes every non-printable character."""
    return repr(value)
