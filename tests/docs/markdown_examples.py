"""The fenced code blocks of the README and the documentation pages, as runnable examples.

A page's ```python blocks run in order in one namespace, as a reader pastes them into one
session. An HTML comment on the line before a fence changes that (it is invisible once rendered):

- `<!-- example: skip REASON -->`: not run; the reason is required and shown in the test report.
- `<!-- example: new-session -->`: start a fresh namespace from this block on.

Lines `#> text` inside a block are the output the block prints: the test compares them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[2]
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
MARKER = re.compile(r"^\s*<!--\s*example:\s*(?P<kind>[\w-]+)\s*(?P<reason>.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block."""

    path: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    code: str
    marker: str | None = None
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def expected_output(self) -> str | None:
        lines = [line.strip()[3:] if line.strip() != "#>" else "" for line in self.code.splitlines()]
        marked = [text for text, raw in zip(lines, self.code.splitlines(), strict=True) if raw.strip().startswith("#>")]
        return "\n".join(marked) + "\n" if marked else None


def pages() -> list[Path]:
    """README.md and every page of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a page, with the marker on the line before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not re.match(rf"^{re.escape(indent)}{fence[0]}{{{len(fence)},}}\s*$", lines[end]):
            body.append(lines[end][len(indent) :] if lines[end].startswith(indent) else lines[end].lstrip())
            end += 1
        before = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = MARKER.match(before)
        language = (opening["info"].split() or [""])[0].lstrip(".").lower()
        found.append(
            Block(
                path=path,
                line=index + 1,
                language=language,
                code="\n".join(body) + "\n",
                marker=marker["kind"] if marker else None,
                reason=marker["reason"] if marker else "",
            )
        )
        index = end + 1
    return found


def python_blocks(path: Path) -> list[Block]:
    """The Python examples of a page."""
    return [b for b in blocks(path) if b.language in ("python", "py", "python3")]
