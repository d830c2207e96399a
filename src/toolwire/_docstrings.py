"""Summary and per-parameter descriptions from Google, NumPy and reST docstrings.

Written by hand: the core keeps its dependencies to pydantic and jsonschema, and only this
small subset (a description plus one line of text per parameter) is needed.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments):\s*$")
_GOOGLE_OTHER = re.compile(
    r"^(Returns?|Yields?|Raises?|Examples?|Notes?|Warnings?|See Also|Attributes|Todo|References):\s*$"
)
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_HEADER = re.compile(r"^(\w[\w ]*)\n[-=]{3,}\s*$", re.MULTILINE)
_REST_PARAM = re.compile(r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?(\w+):\s*(.*)$")
_REST_FIELD = re.compile(r"^:\w+")


@dataclass(frozen=True, slots=True)
class ParsedDocstring:
    """The text before the sections, and each documented parameter's description."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Parse whichever of the three styles the docstring uses."""
    if not doc:
        return ParsedDocstring()
    text = inspect.cleandoc(doc)
    if _NUMPY_HEADER.search(text):
        return _parse_numpy(text)
    if any(_REST_FIELD.match(line.strip()) for line in text.splitlines()):
        return _parse_rest(text)
    return _parse_google(text)


def _parse_google(text: str) -> ParsedDocstring:
    lines = text.splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    base_indent = 0
    for line in lines:
        stripped = line.strip()
        if _GOOGLE_SECTION.match(stripped) and not line.startswith(" "):
            section, current = "args", None
            continue
        if _GOOGLE_OTHER.match(stripped) and not line.startswith(" "):
            section, current = "other", None
            continue
        if section is None:
            description.append(line)
        elif section == "args" and stripped:
            indent = len(line) - len(line.lstrip())
            item = _GOOGLE_ITEM.match(stripped)
            if item and (current is None or indent <= base_indent):
                current, base_indent = item.group(1).lstrip("*"), indent
                params[current] = item.group(3).strip()
            elif current is not None:
                params[current] = f"{params[current]} {stripped}".strip()
    return ParsedDocstring(_join(description), params)


def _parse_numpy(text: str) -> ParsedDocstring:
    lines = text.splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"[-=]{3,}", following.strip()):
            section = "params" if line.strip().lower() in ("parameters", "other parameters") else "other"
            current = None
            index += 2
            continue
        if section is None:
            description.append(line)
        elif section == "params" and line.strip():
            if not line.startswith((" ", "\t")):
                current = line.split(":", 1)[0].strip().lstrip("*")
                params[current] = ""
            elif current is not None:
                params[current] = f"{params[current]} {line.strip()}".strip()
        index += 1
    return ParsedDocstring(_join(description), params)


def _parse_rest(text: str) -> ParsedDocstring:
    description: list[str] = []
    params: dict[str, str] = {}
    current: str | None = None
    in_fields = False
    for line in text.splitlines():
        stripped = line.strip()
        match = _REST_PARAM.match(stripped)
        if match:
            in_fields = True
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif _REST_FIELD.match(stripped):
            in_fields, current = True, None
        elif not in_fields:
            description.append(line)
        elif current is not None and stripped:
            params[current] = f"{params[current]} {stripped}".strip()
    return ParsedDocstring(_join(description), params)


def _join(lines: list[str]) -> str:
    return "\n".join(lines).strip()
