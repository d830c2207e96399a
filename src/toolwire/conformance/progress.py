"""How `toolwire conformance` shows a run as it goes: a live bar on a terminal, one line per scenario otherwise.

Whether a stream is a terminal is rich's decision, so its switches apply: `FORCE_COLOR` or
`TTY_COMPATIBLE=1` ask for the live bar, `TTY_COMPATIBLE=0` or `TERM=dumb` for plain lines.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from toolwire.conformance.matrix import Progress
from toolwire.conformance.runner import STATUS_MARKS, ScenarioOutcome

RICH_SWITCHES = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE")
"""The variables with which rich may take a stream that is not a tty for an interactive terminal."""


def progress_for(stream: TextIO, *, lines_otherwise: bool) -> Progress | None:
    """A live bar when `stream` is an interactive terminal, else plain lines (or nothing, unless `lines_otherwise`)."""
    if not _may_be_terminal(stream):  # rich would say no: spare its import, before the workers start
        return PlainLines(stream) if lines_otherwise else None
    try:
        from rich.console import Console
    except ImportError:  # rich comes with the conformance extra; without it, lines still show the run
        return PlainLines(stream) if lines_otherwise else None
    console = Console(file=stream)
    if console.is_interactive:
        return LiveBar(console)
    return PlainLines(stream) if lines_otherwise else None


def _may_be_terminal(stream: TextIO) -> bool:
    """False only where rich's answer is surely no: a stream that is not a tty and none of its switches set."""
    if any(name in os.environ for name in RICH_SWITCHES):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream: rich says no as well
        return False


class PlainLines:
    """One line per finished scenario, `[ 3/72] anthropic / parallel_calls: pass`, then a blank line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._total = 0
        self._done = 0

    def start(self, total: int) -> None:
        """Counting starts at zero out of `total`."""
        self._total, self._done = total, 0

    def advance(self, outcome: ScenarioOutcome) -> None:
        """One line, flushed at once so a log shows the run as it goes."""
        self._done += 1
        count = f"{self._done:>{len(str(self._total))}}/{self._total}"
        line = f"[{count}] {outcome.api} / {outcome.scenario}: {STATUS_MARKS[outcome.status]}"
        print(line, file=self._stream, flush=True)

    def stop(self) -> None:
        """A blank line between the progress and what follows."""
        if self._done:
            print(file=self._stream, flush=True)


class LiveBar:
    """A rich progress bar naming the last finished scenario and counting failures; it vanishes when done."""

    def __init__(self, console: Any) -> None:
        self._console = console
        self._bar: Any = None
        self._task: Any = None
        self._failed = 0

    def start(self, total: int) -> None:
        """Show the bar (its refresh thread starts here, after any worker is forked)."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("conformance"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[failures]}", style="bold red"),
            TextColumn("{task.description}", markup=False),
            console=self._console,
            transient=True,
        )
        self._task = self._bar.add_task("", total=total, failures="")
        self._bar.start()

    def advance(self, outcome: ScenarioOutcome) -> None:
        """Move the bar on and name the scenario that just finished."""
        self._failed += outcome.status == "fail"
        failures = f"{self._failed} failed" if self._failed else ""
        description = f"{outcome.api} / {outcome.scenario}: {STATUS_MARKS[outcome.status]}"
        self._bar.update(self._task, advance=1, description=description, failures=failures)

    def stop(self) -> None:
        """Take the bar off the screen (the matrix is printed in its place)."""
        if self._bar is not None:
            self._bar.stop()
