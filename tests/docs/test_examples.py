"""Every Python example in the README and the documentation runs, against offline fakes.

Examples that call a provider use the official SDK clients exactly as written; the SDKs' own
base-URL variables point them at a scripted fake on 127.0.0.1 (`fake_provider`), so no key and
no network are needed. See `markdown_examples` for the markers a page may use.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_provider import fake_provider
from markdown_examples import ROOT, Block, pages, python_blocks

from toolwire.registry import registered_factories, unregister_adapter

MARKERS = {"skip", "new-session"}
PAGES = [page for page in pages() if python_blocks(page)]


@pytest.fixture(scope="module")
def provider_environment() -> Iterator[dict[str, str]]:
    with fake_provider() as environment:
        yield environment


@pytest.fixture
def offline(provider_environment: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The SDKs talk to the fake; the example runs in an empty folder."""
    for name, value in provider_environment.items():
        monkeypatch.setenv(name, value)
    for name in ("GOOGLE_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    registered = set(registered_factories())
    yield
    for api in set(registered_factories()) - registered:  # a page may register an adapter of its own
        unregister_adapter(api)


def _session() -> dict[str, Any]:
    return {"__name__": "__docs_example__"}


def _trimmed(text: str) -> str:
    """Output as a `#>` line can show it: trailing spaces dropped."""
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def _run(block: Block, namespace: dict[str, Any]) -> None:
    # Blank lines first, so a traceback names the line of the Markdown file.
    code = compile("\n" * block.line + block.code, str(block.path), "exec")
    try:
        exec(code, namespace)
    except Exception as exc:
        raise AssertionError(f"the example at {block.where} failed: {type(exc).__name__}: {exc}") from exc


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_the_examples_on_the_page_run_and_print_what_they_show(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Blocks run in order in one session; `#>` lines must equal what the block printed."""
    namespace = _session()
    rewritten = False
    for block in python_blocks(page):
        if block.marker == "skip":
            continue
        if block.marker == "new-session":
            namespace = _session()
        capsys.readouterr()
        _run(block, namespace)
        printed = _trimmed(capsys.readouterr().out)
        if block.expected_output is not None and printed != block.expected_output and UPDATE:
            if not rewritten:  # later blocks' line numbers may have moved: one rewrite per run
                _rewrite_output(block, printed)
            rewritten = True
        elif block.expected_output is not None:
            assert printed == block.expected_output, f"output of the example at {block.where}"
    if rewritten:
        pytest.fail(f"rewrote example output in {page.name}: run again until it passes")


UPDATE = os.environ.get("TOOLWIRE_UPDATE_EXAMPLES") == "1"
"""Set to 1 to write what the examples print into their `#>` lines instead of failing."""


def _rewrite_output(block: Block, printed: str) -> None:
    """Replace the block's `#>` lines (in place, at the first one) with what it printed."""
    lines = block.path.read_text(encoding="utf-8").split("\n")
    start, end = block.line, block.line + block.code.count("\n")
    marked = [i for i in range(start, end) if lines[i].lstrip().startswith("#>")]
    indent = lines[marked[0]][: len(lines[marked[0]]) - len(lines[marked[0]].lstrip())]
    new = [f"{indent}#> {line}".rstrip() for line in printed.rstrip("\n").split("\n")]
    lines[marked[0] : marked[-1] + 1] = [*new, *(lines[i] for i in range(marked[0], marked[-1] + 1) if i not in marked)]
    block.path.write_text("\n".join(lines), encoding="utf-8")


def test_markers_are_known_and_skips_give_a_reason() -> None:
    """A skipped example says why; a misspelt marker is not silently ignored."""
    problems = [
        f"{b.where}: {b.marker} {b.reason!r}"
        for page in pages()
        for b in python_blocks(page)
        if (b.marker is not None and b.marker not in MARKERS) or (b.marker == "skip" and len(b.reason) < 10)
    ]
    assert problems == []


def test_skipped_examples_are_rare() -> None:
    """At most one example in ten is exempt from running."""
    every = [b for page in pages() for b in python_blocks(page)]
    skipped = [b.where for b in every if b.marker == "skip"]
    assert len(skipped) * 10 <= len(every), skipped
