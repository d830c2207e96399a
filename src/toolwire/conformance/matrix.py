"""Running the api x scenario matrix: in this process, or in one forked worker per provider.

Importing the SDKs and their first requests are most of a run, and each provider needs only its
own SDK; on Linux, forked workers (one per provider, up to the processors this process may use)
do that side by side. Each worker sends every outcome to this process over a pipe as it comes,
so progress is shown here, and only here: the display starts once the workers are forked, since
forking while its refresh thread runs is not safe.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Protocol

from toolwire.conformance.runner import ScenarioOutcome, run_scenario
from toolwire.conformance.scenarios import Scenario
from toolwire.registry import get_adapter


class Progress(Protocol):
    """What shows a run as it goes (see `toolwire.conformance.progress`)."""

    def start(self, total: int) -> None:
        """Called once, before the first outcome (after the workers are forked)."""

    def advance(self, outcome: ScenarioOutcome) -> None:
        """Called once per outcome, in the order they finish."""

    def stop(self) -> None:
        """Called once, after the last outcome or when the run is interrupted."""


def run_matrix(
    apis: Sequence[str],
    scenarios: Sequence[Scenario],
    progress: Progress | None = None,
    *,
    workers: int | None = None,
) -> list[ScenarioOutcome]:
    """Every scenario on every api, in the apis x scenarios order, shown on `progress` as each finishes.

    `workers` bounds the forked workers (default: the processors this process may use); with one,
    a single provider, another platform than Linux or another thread running, everything runs here.
    """
    groups = _provider_groups(apis)
    count = min(len(groups), _processors() if workers is None else workers)
    if count <= 1 or not _can_fork():
        return _run_here(apis, scenarios, progress)
    running = _fork_workers(_shares(groups, count), scenarios)
    finished = _gather(running, scenarios, progress)
    return [finished[(api, item.name)] for api in apis for item in scenarios]


def judged(api: str, item: Scenario) -> ScenarioOutcome:
    """`run_scenario`, with an error it lets through (an unreadable expected-events file) as a failure."""
    try:
        return run_scenario(api, item)
    except Exception as exc:  # one broken scenario must not stop the matrix
        return ScenarioOutcome(api, item.name, "fail", [f"{type(exc).__name__}: {exc}"])


def _run_here(apis: Sequence[str], scenarios: Sequence[Scenario], progress: Progress | None) -> list[ScenarioOutcome]:
    if progress is None:
        return [judged(api, item) for api in apis for item in scenarios]
    outcomes: list[ScenarioOutcome] = []
    progress.start(len(apis) * len(scenarios))
    try:
        for api in apis:
            for item in scenarios:
                outcomes.append(judged(api, item))
                progress.advance(outcomes[-1])
    finally:
        progress.stop()
    return outcomes


class _Worker:
    """A forked process running every scenario on its share of the apis, and the pipe it reports on."""

    def __init__(self, process: BaseProcess, outcomes: Connection, apis: tuple[str, ...]) -> None:
        self.process = process
        self.outcomes = outcomes
        self.apis = apis


def _fork_workers(shares: list[tuple[str, ...]], scenarios: Sequence[Scenario]) -> list[_Worker]:
    # Whatever sits in this process's output buffers would be written again by each worker on exit.
    sys.stdout.flush()
    sys.stderr.flush()
    context = get_context("fork")  # scenarios carry closures: a forked worker keeps them, unpickled
    running: list[_Worker] = []
    for share in shares:
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(target=_work, args=(share, tuple(scenarios), sending), daemon=True)
        process.start()
        sending.close()
        running.append(_Worker(process, receiving, share))
    return running


def _work(apis: tuple[str, ...], scenarios: tuple[Scenario, ...], outcomes: Connection) -> None:
    """A worker's run: each outcome is sent as soon as it is known."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    for api in apis:
        for item in scenarios:
            outcomes.send(judged(api, item))
    outcomes.close()


def _gather(
    running: list[_Worker], scenarios: Sequence[Scenario], progress: Progress | None
) -> dict[tuple[str, str], ScenarioOutcome]:
    """Every worker's outcomes as they come; a worker that dies leaves failures naming it."""
    finished: dict[tuple[str, str], ScenarioOutcome] = {}
    reporting = list(running)
    if progress is not None:
        progress.start(sum(len(worker.apis) for worker in running) * len(scenarios))
    try:
        while reporting:
            ready = wait([worker.outcomes for worker in reporting])
            for worker in [worker for worker in reporting if worker.outcomes in ready]:
                try:
                    reported = [worker.outcomes.recv()]
                except (EOFError, OSError):  # the worker is done, or died
                    reporting.remove(worker)
                    worker.process.join()
                    reported = _lost(worker, scenarios, finished)
                for outcome in reported:
                    finished[(outcome.api, outcome.scenario)] = outcome
                    if progress is not None:
                        progress.advance(outcome)
    finally:
        for worker in running:
            if worker.process.is_alive():
                worker.process.terminate()
            worker.process.join()
            worker.outcomes.close()
        if progress is not None:
            progress.stop()
    return finished


def _lost(
    worker: _Worker, scenarios: Sequence[Scenario], finished: dict[tuple[str, str], ScenarioOutcome]
) -> list[ScenarioOutcome]:
    """Failures for the cells a worker never reported (it crashed or was killed)."""
    reason = f"the worker running {', '.join(worker.apis)} stopped (exit status {worker.process.exitcode}) first"
    return [
        ScenarioOutcome(api, item.name, "fail", [reason])
        for api in worker.apis
        for item in scenarios
        if (api, item.name) not in finished
    ]


def _provider_groups(apis: Sequence[str]) -> list[tuple[str, ...]]:
    """The apis grouped by provider (one SDK each), the largest group first."""
    groups: dict[str, list[str]] = {}
    for api in apis:
        groups.setdefault(get_adapter(api).provider, []).append(api)
    return sorted((tuple(group) for group in groups.values()), key=len, reverse=True)


def _shares(groups: list[tuple[str, ...]], count: int) -> list[tuple[str, ...]]:
    """The provider groups dealt to `count` workers, each group to the worker with the fewest apis so far."""
    shares: list[tuple[str, ...]] = [() for _ in range(count)]
    for group in groups:
        lightest = min(range(count), key=lambda index: len(shares[index]))
        shares[lightest] += group
    return shares


def _can_fork() -> bool:
    """Forking copies this process as it is (adapters, scenarios, settings): safe on Linux with one thread."""
    return sys.platform == "linux" and threading.active_count() == 1


def _processors() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
