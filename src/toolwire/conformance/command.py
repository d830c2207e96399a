"""`toolwire conformance`: every bundled scenario on every adapter, as an api x scenario matrix."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from toolwire.conformance.runner import ScenarioOutcome, replay_client, run_scenario
from toolwire.conformance.scenarios import SCENARIOS, Scenario, scenario
from toolwire.registry import get_adapter, list_adapters

_MARK = {"pass": "pass", "degraded": "degraded", "fail": "FAIL", "n/a": "n/a"}


def run_matrix(
    apis: Sequence[str],
    scenarios: Sequence[Scenario],
    progress: Callable[[ScenarioOutcome], None] | None = None,
    *,
    workers: int | None = None,
) -> list[ScenarioOutcome]:
    """Run every scenario on every api, reporting each outcome as it comes.

    The apis of one provider run in one process. On Linux, with several providers, `workers`
    above one (default: the processors this process may use) and no other thread running, each
    provider runs in a forked worker, so the SDK imports and the first requests, most of a run,
    happen side by side; the outcomes keep the apis x scenarios order either way.
    """
    groups = _provider_groups(apis)
    workers = min(len(groups), _processors() if workers is None else workers)
    if workers <= 1 or not _can_fork():
        return [_reported(run_scenario(api, item), progress) for api in apis for item in scenarios]
    outcomes: list[ScenarioOutcome] = []
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, context, initializer=_adopt, initargs=(tuple(scenarios),)) as pool:
        futures = [pool.submit(_run_group, group) for group in groups]
        for future in as_completed(futures):
            outcomes.extend(_reported(outcome, progress) for outcome in future.result())
    order = {(api, item.name): index for index, (api, item) in enumerate((a, i) for a in apis for i in scenarios)}
    return sorted(outcomes, key=lambda o: order[(o.api, o.scenario)])


def _reported(outcome: ScenarioOutcome, progress: Callable[[ScenarioOutcome], None] | None) -> ScenarioOutcome:
    if progress is not None:
        progress(outcome)
    return outcome


_adopted: tuple[Scenario, ...] = ()


def _adopt(scenarios: tuple[Scenario, ...]) -> None:
    """A forked worker keeps the scenarios as they are (their checks are closures: no pickling)."""
    global _adopted
    _adopted = scenarios


def _run_group(apis: tuple[str, ...]) -> list[ScenarioOutcome]:
    """A worker's share: every scenario on the apis of one provider."""
    return [run_scenario(api, item) for api in apis for item in _adopted]


def _provider_groups(apis: Sequence[str]) -> list[tuple[str, ...]]:
    """The apis grouped by provider (one SDK each), the largest group first."""
    groups: dict[str, list[str]] = {}
    for api in apis:
        groups.setdefault(get_adapter(api).provider, []).append(api)
    return sorted((tuple(group) for group in groups.values()), key=len, reverse=True)


def _can_fork() -> bool:
    """Forking copies this process as it is (adapters, scenarios, settings): safe on Linux with one thread."""
    return sys.platform == "linux" and threading.active_count() == 1


def _processors() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_command(args: argparse.Namespace) -> int:
    """Entry point of `toolwire conformance`; 1 when anything failed."""
    # google-genai logs a notice whenever function declarations sit beside a built-in tool
    # (server_tool does that on purpose); it is not a finding of the suite.
    logging.getLogger("google_genai.models").setLevel(logging.ERROR)
    apis = args.api or [a for a in list_adapters() if a in ("openai-chat", "openai-responses", "anthropic", "gemini")]
    chosen = [scenario(name) for name in args.scenario] if args.scenario else list(SCENARIOS)
    _require_sdks(apis)
    total = len(apis) * len(chosen)
    outcomes = _with_progress(apis, chosen, total, quiet=args.json)
    if args.json:
        print(json.dumps([_as_json(o) for o in outcomes], indent=2))
    else:
        print(render_matrix(apis, chosen, outcomes))
        print(render_notes(outcomes))
        print(summary_line(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0


def _require_sdks(apis: Sequence[str]) -> None:
    """Stop before the matrix when an adapter's SDK is missing, rather than failing every scenario.

    Raises:
        MissingExtraError: an adapter's SDK is not installed (the message names the extra).
    """
    for api in apis:
        with contextlib.suppress(NotImplementedError):  # an adapter that builds no SDK client
            replay_client(api, "sync")  # the client the replays use (built once, no TLS set-up)


def _with_progress(apis: list[str], chosen: list[Scenario], total: int, *, quiet: bool) -> list[ScenarioOutcome]:
    if quiet or not sys.stderr.isatty():
        return run_matrix(apis, chosen)
    try:
        from rich.progress import Progress
    except ImportError:
        return run_matrix(apis, chosen, lambda o: print(f"{o.api} {o.scenario}: {o.status}", file=sys.stderr))
    with Progress(transient=True) as progress:
        task = progress.add_task("conformance", total=total)

        def advance(outcome: ScenarioOutcome) -> None:
            progress.update(task, advance=1, description=f"{outcome.api} {outcome.scenario}")

        return run_matrix(apis, chosen, advance)


def render_matrix(apis: Sequence[str], scenarios: Sequence[Scenario], outcomes: Sequence[ScenarioOutcome]) -> str:
    """A plain-text table: one row per scenario, one column per api."""
    by_key = {(o.api, o.scenario): o for o in outcomes}
    width = max(len(s.name) for s in scenarios)
    columns = [max(len(api), 8) for api in apis]
    header = "scenario".ljust(width) + "  " + "  ".join(api.ljust(w) for api, w in zip(apis, columns, strict=True))
    lines = [header, "-" * len(header)]
    for item in scenarios:
        cells = [
            _MARK[by_key[(api, item.name)].status].ljust(w) if (api, item.name) in by_key else "-".ljust(w)
            for api, w in zip(apis, columns, strict=True)
        ]
        lines.append(item.name.ljust(width) + "  " + "  ".join(cells))
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
