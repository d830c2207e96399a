"""`toolwire conformance`: every bundled scenario on every adapter, as an api x scenario matrix."""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from toolwire._extras import optional_imports
from toolwire.conformance.matrix import run_matrix
from toolwire.conformance.progress import progress_for
from toolwire.conformance.runner import STATUS_MARKS, ScenarioOutcome
from toolwire.conformance.scenarios import SCENARIOS, Scenario, scenario
from toolwire.registry import get_adapter, list_adapters


def run_command(args: argparse.Namespace) -> int:
    """Entry point of `toolwire conformance`; 1 when anything failed.

    Progress goes to stdout (a live bar on a terminal, lines otherwise) before the matrix; with
    `--json`, stdout carries the JSON alone and a live bar shows on stderr only if it is a terminal.
    """
    # google-genai logs a notice whenever function declarations sit beside a built-in tool
    # (server_tool does that on purpose); it is not a finding of the suite.
    logging.getLogger("google_genai.models").setLevel(logging.ERROR)
    apis = args.api or [a for a in list_adapters() if a in ("openai-chat", "openai-responses", "anthropic", "gemini")]
    chosen = [scenario(name) for name in args.scenario] if args.scenario else list(SCENARIOS)
    _require_sdks(apis)
    if args.json:
        progress = progress_for(sys.stderr, lines_otherwise=False)
    else:
        progress = progress_for(sys.stdout, lines_otherwise=True)
    with _fewer_collections():
        outcomes = run_matrix(apis, chosen, progress, workers=args.workers)
    if args.json:
        print(json.dumps([_as_json(o) for o in outcomes], indent=2))
    else:
        print(render_matrix(apis, chosen, outcomes))
        print(render_notes(outcomes))
        print(summary_line(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect garbage less often during the run (the workers fork with the same thresholds).

    The SDKs' imports and replies build objects by the hundred thousand and leave few cycles: at
    Python's default thresholds the collector took a third of a run's CPU time, at these a tenth.
    """
    previous = gc.get_threshold()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _require_sdks(apis: Sequence[str]) -> None:
    """Stop before the matrix when an adapter's SDK is missing, rather than failing every scenario.

    Only looked up, not imported: the workers import the SDKs side by side.

    Raises:
        MissingExtraError: an adapter's SDK is not installed (the message names the extra).
    """
    for api in apis:
        spec = get_adapter(api).client_spec
        if spec is None:  # an adapter that names no SDK
            continue
        with optional_imports(f"the {api} adapter's SDK client"):
            try:
                found = importlib.util.find_spec(spec.package) is not None
            except ValueError:  # in sys.modules as None: refused, as if not installed
                found = False
            if not found:
                raise ModuleNotFoundError(f"No module named {spec.package!r}", name=spec.package)


def render_matrix(apis: Sequence[str], scenarios: Sequence[Scenario], outcomes: Sequence[ScenarioOutcome]) -> str:
    """A plain-text table: one row per scenario, one column per api."""
    by_key = {(o.api, o.scenario): o for o in outcomes}
    width = max(len(s.name) for s in scenarios)
    columns = [max(len(api), 8) for api in apis]
    header = "scenario".ljust(width) + "  " + "  ".join(api.ljust(w) for api, w in zip(apis, columns, strict=True))
    lines = [header, "-" * len(header)]
    for item in scenarios:
        cells = [
            STATUS_MARKS[by_key[(api, item.name)].status].ljust(w) if (api, item.name) in by_key else "-".ljust(w)
            for api, w in zip(apis, columns, strict=True)
        ]
        lines.append((item.name.ljust(width) + "  " + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def render_notes(outcomes: Sequence[ScenarioOutcome]) -> str:
    """Why each cell is not a plain pass."""
    lines: list[str] = []
    for outcome in outcomes:
        if outcome.status == "pass":
            continue
        lines.append(f"\n{outcome.api} / {outcome.scenario}: {outcome.status}")
        lines.extend(f"  - {reason}" for reason in outcome.reasons)
    return "\n".join(lines)


def summary_line(outcomes: Sequence[ScenarioOutcome]) -> str:
    """`N passed, N degraded, N failed, N n/a`."""
    counts = {status: sum(1 for o in outcomes if o.status == status) for status in ("pass", "degraded", "fail", "n/a")}
    return (
        f"{counts['pass']} passed, {counts['degraded']} degraded, {counts['fail']} failed, "
        f"{counts['n/a']} not applicable"
    )


def _as_json(outcome: ScenarioOutcome) -> dict[str, Any]:
    return {
        "api": outcome.api,
        "scenario": outcome.scenario,
        "status": outcome.status,
        "reasons": outcome.reasons,
        "modes": outcome.modes,
    }
