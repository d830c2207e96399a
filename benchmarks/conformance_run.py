"""`toolwire conformance` wall and CPU time, beside importing the three SDKs (run by hand).

    python benchmarks/conformance_run.py [--runs 5] [--breakdown]

Each command runs in a new interpreter `runs` times, interleaved with the others so a busy
machine slows them alike; the figures are medians of the wall time and of the CPU time of the
whole process tree (user + system). Bytecode is written and warmed first, as after
`pip install` (an editable install under `PYTHONDONTWRITEBYTECODE=1` compiles toolwire's
modules again on every run: about 0.2 s of CPU more). `--breakdown` runs the matrix once more
in-process and prints where each process spends its CPU time: the parent before it forks the
workers, then each worker (its SDK imports, then each api's scenarios, the first apart). On a
quiet machine with a core per worker, the wall time is about the parent's part plus the
slowest worker's.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

TOOLWIRE = [sys.executable, "-m", "toolwire.cli"]
COMMANDS = {
    "toolwire conformance": [*TOOLWIRE, "conformance"],
    "toolwire conformance --json": [*TOOLWIRE, "conformance", "--json"],
    "toolwire conformance --workers 1": [*TOOLWIRE, "conformance", "--workers", "1"],
    "reference: import anthropic, openai, google.genai": [
        sys.executable,
        "-c",
        "import anthropic, openai, google.genai",
    ],
}

BREAKDOWN = r"""
import os, sys, time
clock = time.process_time
start = clock()
import toolwire.conformance.matrix as matrix
import toolwire.conformance.runner as runner

def _timed_judged(api, item, _judged=matrix.judged, _seen=set()):
    before = clock()
    outcome = _judged(api, item)
    label = api if api in _seen else f"{api} (first scenario)"
    _seen.add(api)
    _spent[label] = _spent.get(label, 0.0) + clock() - before
    return outcome

def _timed_work(apis, scenarios, outcomes, _work=matrix._work):
    global _spent
    _spent = {}
    for api in apis:  # the SDK imports, timed apart from the scenarios
        spec = runner.get_adapter(api).client_spec
        if spec is not None:
            before = clock()
            __import__(spec.package)
            _spent[f"import {spec.package}"] = _spent.get(f"import {spec.package}", 0.0) + clock() - before
    _work(apis, scenarios, outcomes)
    parts = ", ".join(f"{name} {seconds:.2f}" for name, seconds in _spent.items())
    print(f"  worker {'+'.join(apis)}: {clock():.2f} s CPU ({parts})", file=sys.stderr)

_spent = {}
matrix.judged = _timed_judged
matrix._work = _timed_work
_fork = matrix._fork_workers

def _timed_fork(*args):
    print(f"  parent before forking: {clock() - start:.2f} s CPU", file=sys.stderr)
    return _fork(*args)

matrix._fork_workers = _timed_fork
from toolwire.cli import main
main(["conformance", "--json"])
"""


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as after `pip install`
    return environment


def _run(command: list[str], environment: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int) -> None:
    environment = _environment()
    for command in COMMANDS.values():  # write and warm the bytecode
        _run(command, environment)
    walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, command in COMMANDS.items():
            wall, cpu = _run(command, environment)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"{os.cpu_count()} processors, load average {os.getloadavg()[0]:.2f}, {runs} runs each (median, min-max)")
    for name in COMMANDS:
        wall, cpu = walls[name], cpus[name]
        print(
            f"{name:52s} wall {statistics.median(wall):5.2f} s ({min(wall):.2f}-{max(wall):.2f})"
            f"  CPU {statistics.median(cpu):5.2f} s"
        )


def breakdown() -> None:
    print("CPU time per process (one run):")
    subprocess.run([sys.executable, "-c", BREAKDOWN], stdout=subprocess.DEVNULL, env=_environment(), check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true", help="where each process spends its CPU time")
    args = parser.parse_args()
    measure(args.runs)
    if args.breakdown:
        breakdown()


if __name__ == "__main__":
    main()
