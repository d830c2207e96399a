"""Import cost: fresh interpreters timed from outside, beside `python -c pass` (run by hand).

    python benchmarks/import_time.py [--runs 15] [--profile STATEMENT]

Each statement runs in a new interpreter `runs` times, interleaved with the others so a busy
machine slows them alike; the figure is the median wall time minus the median of
`python -c pass`, with the number of modules the statement leaves loaded. Bytecode is written
and warmed first (as after a normal install). `--profile` prints the costliest modules of one
statement from `python -X importtime` (cumulative microseconds, top 25).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

STATEMENTS = {
    "python -c pass": "pass",
    "import toolwire": "import toolwire",
    "define a dict-schema tool": (
        "from toolwire import create_tool\n"
        "create_tool(id='w', description='W.', input_schema={'type': 'object', 'properties': {}})"
    ),
    "define a @tool, encode for 4 apis": (
        "from toolwire import get_adapter, tool\n"
        "@tool\n"
        "def weather(city: str):\n"
        "    'Weather for a city.'\n"
        "for api in ('openai-chat', 'openai-responses', 'anthropic', 'gemini'):\n"
        "    get_adapter(api).encode_tools([weather])"
    ),
    "from toolwire import Agent": "from toolwire import Agent",
    "reference: import pydantic (BaseModel)": "import pydantic; pydantic.BaseModel",
    "reference: import jsonschema": "import jsonschema",
}


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # cached bytecode, as after `pip install`
    return environment


def _run(statement: str, environment: dict[str, str]) -> tuple[float, int]:
    code = f"{statement}\nimport sys; print(len(sys.modules))"
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    return time.perf_counter() - start, int(result.stdout.split()[-1])


def measure(runs: int) -> None:
    environment = _environment()
    for statement in STATEMENTS.values():  # write and warm the bytecode
        _run(statement, environment)
    samples: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    modules: dict[str, int] = {}
    for _ in range(runs):
        for name, statement in STATEMENTS.items():
            elapsed, modules[name] = _run(statement, environment)
            samples[name].append(elapsed)
    baseline = statistics.median(samples["python -c pass"])
    print(f"load average {os.getloadavg()[0]:.2f}; median of {runs} interleaved runs; `pass` = {baseline * 1e3:.1f} ms")
    print(f"{'statement':<40} {'median':>9} {'above pass':>11} {'min':>9} {'modules':>8}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(
            f"{name:<40} {median * 1e3:6.1f} ms {(median - baseline) * 1e3:8.1f} ms"
            f" {min(values) * 1e3:6.1f} ms {modules[name]:8d}"
        )


def profile(statement: str) -> None:
    environment = _environment()
    _run(statement, environment)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement], capture_output=True, text=True, env=environment
    )
    rows = []
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            self_us, cumulative_us, name = (part.strip() for part in line.replace("import time:", "").split("|"))
            rows.append((int(cumulative_us), int(self_us), name))
    rows.sort(reverse=True)
    print(f"{'cumulative µs':>14} {'self µs':>9}  module")
    for cumulative, own, name in rows[:25]:
        print(f"{cumulative:14d} {own:9d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--profile", metavar="STATEMENT", help="print -X importtime's costliest modules instead")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile)
    else:
        measure(args.runs)


if __name__ == "__main__":
    main()
