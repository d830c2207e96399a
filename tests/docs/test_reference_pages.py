"""Reference pages that are generated from the code, and the site's structure.

The degradations table and the event vocabulary are produced by running toolwire
(`degradation_table`, `event_examples`); the pages must hold exactly that output.
`TOOLWIRE_UPDATE_EXAMPLES=1` rewrites them instead of failing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from degradation_table import render as render_degradations
from event_examples import render as render_events
from markdown_examples import ROOT, blocks

from toolwire.events import EVENT_CLASSES, from_dict

DOCS = ROOT / "docs"
UPDATE = os.environ.get("TOOLWIRE_UPDATE_EXAMPLES") == "1"
PUBLIC_MODULES = (
    "toolwire",
    "toolwire.events",
    "toolwire.deltas",
    "toolwire.agent",
    "toolwire.runtime",
    "toolwire.codemode",
    "toolwire.targets",
    "toolwire.mcp",
    "toolwire.ui",
    "toolwire.conformance",
    "toolwire.testing.conformance",
    "toolwire.testing.capture",
    "toolwire.testing.scripted",
)


def _generated_section(path: Path, name: str) -> tuple[str, str, str]:
    text = path.read_text(encoding="utf-8")
    start, end = f"<!-- generated: {name} -->\n", "<!-- end generated -->"
    head, rest = text.split(start, 1)
    body, tail = rest.split(end, 1)
    return head + start, body, end + tail


@pytest.mark.parametrize(
    ("page", "name", "render"),
    [
        ("reference/degradations.md", "degradations", render_degradations),
        ("reference/events.md", "events", render_events),
    ],
    ids=["degradations", "events"],
)
def test_a_generated_page_holds_what_the_code_produces(page: str, name: str, render: object) -> None:
    """Nothing on the page was written by hand where the code can say it."""
    path = DOCS / page
    head, body, tail = _generated_section(path, name)
    produced = render() + "\n"  # type: ignore[operator]
    if UPDATE and body != produced:
        path.write_text(head + produced + tail, encoding="utf-8")
        pytest.fail(f"rewrote {page}: run again")
    assert body == produced


def test_every_event_type_has_one_json_example_that_round_trips() -> None:
    """Each example reads back through `Event.from_dict` into the same JSON."""
    examples = [json.loads(b.code) for b in blocks(DOCS / "reference" / "events.md") if b.language == "json"]
    assert sorted(e["type"] for e in examples) == sorted(EVENT_CLASSES)
    for example in examples:
        assert from_dict(example).to_dict() == example


def test_every_public_module_has_an_api_reference_page() -> None:
    """`::: module` renders every name in the module's `__all__` (mkdocstrings follows it)."""
    directives = set()
    for page in (DOCS / "reference" / "api").glob("*.md"):
        directives |= set(re.findall(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), flags=re.M))
    assert sorted(set(PUBLIC_MODULES) - directives) == []


def _nav_pages(items: object) -> set[str]:
    if isinstance(items, str):
        return {items}
    if isinstance(items, list):
        return set().union(*(_nav_pages(i) for i in items))
    if isinstance(items, dict):
        return set().union(*(_nav_pages(v) for v in items.values()))
    return set()


def test_every_page_is_in_the_navigation() -> None:
    """A page missing from `nav` would be built but unreachable."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == _nav_pages(config["nav"])
