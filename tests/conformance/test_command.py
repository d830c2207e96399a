"""`toolwire conformance` shows progress: a live bar on a terminal, plain lines otherwise, the matrix at the end."""

from __future__ import annotations

import gc
import io
import json
import re
import subprocess
import sys
import textwrap

import pytest
from rich.console import Console

from toolwire.cli import main
from toolwire.conformance import command, matrix
from toolwire.conformance.progress import LiveBar, PlainLines, progress_for
from toolwire.conformance.runner import ScenarioOutcome
from toolwire.conformance.scenarios import scenario

RUN = ["conformance", "--api", "anthropic", "--api", "openai-chat", "--scenario", "single_call"]
RUN += ["--scenario", "reasoning_call", "--workers", "1"]
MATRIX = """\
scenario        anthropic  openai-chat
--------------------------------------
single_call     pass       pass
reasoning_call  pass       n/a

openai-chat / reasoning_call: n/a
  - openai-chat lacks reasoning
3 passed, 0 degraded, 0 failed, 1 not applicable
"""
JSON = [
    {"api": "anthropic", "scenario": "single_call", "status": "pass", "reasons": [], "modes": ["sync", "async"]},
    {"api": "anthropic", "scenario": "reasoning_call", "status": "pass", "reasons": [], "modes": ["sync", "async"]},
    {"api": "openai-chat", "scenario": "single_call", "status": "pass", "reasons": [], "modes": ["sync", "async"]},
    {
        "api": "openai-chat",
        "scenario": "reasoning_call",
        "status": "n/a",
        "reasons": ["openai-chat lacks reasoning"],
        "modes": [],
    },
]
BAR = "[━╸╺]+"
"""rich's bar: done and to-do parts (told apart by colour), with a half-cell at their border."""
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable that makes rich treat a pipe as a terminal."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def terminal_environment(plain_environment: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich's switch for "this stream is a terminal" (how CI forces colours on)."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")


def _last_frame(written: str) -> str:
    """The last state of a live display: the text after the last carriage return before the cursor comes back."""
    shown = written.rsplit("\x1b[?25h", 1)[0]
    return ANSI.sub("", shown).rsplit("\r", 1)[-1].strip()


def _outcome(api: str, name: str, status: str) -> ScenarioOutcome:
    return ScenarioOutcome(api, name, status)  # type: ignore[arg-type]


class TestNotATerminal:
    def test_one_line_per_scenario_then_the_matrix(
        self, plain_environment: None, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Each scenario's line as it finishes, in run order, a blank line, then the matrix, notes and summary."""
        assert main(RUN) == 0
        captured = capsys.readouterr()
        lines = [
            "[1/4] anthropic / single_call: pass",
            "[2/4] anthropic / reasoning_call: pass",
            "[3/4] openai-chat / single_call: pass",
            "[4/4] openai-chat / reasoning_call: n/a",
            "",
        ]
        assert captured.out == "\n".join(lines) + "\n" + MATRIX
        assert captured.err == ""

    def test_json_is_all_that_is_printed(self, plain_environment: None, capsys: pytest.CaptureFixture[str]) -> None:
        """`--json`: stdout parses as JSON, and there is no progress anywhere."""
        assert main([*RUN, "--json"]) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out) == JSON
        assert captured.err == ""

    @pytest.mark.parametrize("lines_otherwise", [True, False])
    def test_rich_is_not_imported_for_a_stream_that_is_no_terminal(self, lines_otherwise: bool) -> None:
        """Without a tty or one of rich's switches, rich's answer is known: it is not imported to give it."""
        script = textwrap.dedent(
            f"""
            import io, sys
            from toolwire.conformance.progress import progress_for
            progress = progress_for(io.StringIO(), lines_otherwise={lines_otherwise})
            print(type(progress).__name__, sorted({{name.split(".")[0] for name in sys.modules}} & {{"rich"}}))
            """
        )
        environment = {"PATH": "/usr/bin:/bin", "TERM": "xterm"}
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
        assert result.stdout == ("PlainLines []\n" if lines_otherwise else "NoneType []\n")

    @pytest.mark.parametrize("switch", ["TTY_COMPATIBLE=1", "FORCE_COLOR=1", "TTY_INTERACTIVE=1"])
    def test_a_switch_still_asks_rich(
        self, plain_environment: None, monkeypatch: pytest.MonkeyPatch, switch: str
    ) -> None:
        """Any of rich's switches leaves the decision to rich, as before: here a live bar on a plain stream."""
        name, value = switch.split("=")
        monkeypatch.setenv(name, value)
        monkeypatch.setenv("TERM", "xterm")
        assert isinstance(progress_for(io.StringIO(), lines_otherwise=True), LiveBar)

    def test_lines_are_padded_to_the_total_and_failures_stand_out(self) -> None:
        """`[ 9/12]`, `[10/12]`: the counts line up; a failure shows as FAIL."""
        stream = io.StringIO()
        lines = PlainLines(stream)
        lines.start(12)
        for index in range(10):
            lines.advance(_outcome("gemini", f"s{index}", "fail" if index == 9 else "pass"))
        lines.stop()
        assert stream.getvalue().splitlines()[8:] == ["[ 9/12] gemini / s8: pass", "[10/12] gemini / s9: FAIL", ""]


class TestTerminal:
    def test_a_live_bar_gives_way_to_the_matrix(
        self, terminal_environment: None, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The bar counts the scenarios and names the last one; once done it is erased and the matrix printed."""
        assert main(RUN) == 0
        out = capsys.readouterr().out
        assert re.fullmatch(rf"conformance {BAR} 4/4 0:00:\d\d  openai-chat / reasoning_call: n/a", _last_frame(out))
        assert "[1/4]" not in out
        assert out.endswith(MATRIX)
        assert out.rsplit("\x1b[?25h", 1)[1] == "\r\x1b[1A\x1b[2K" + MATRIX  # the bar's line is erased

    def test_json_keeps_stdout_to_the_json_and_the_bar_on_stderr(
        self, terminal_environment: None, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """With `--json`, a terminal on stderr gets the bar; stdout is the JSON alone."""
        assert main([*RUN, "--json"]) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out) == JSON
        assert re.fullmatch(
            rf"conformance {BAR} 4/4 0:00:\d\d  openai-chat / reasoning_call: n/a", _last_frame(captured.err)
        )

    def test_the_bar_counts_failures(self) -> None:
        """Under a forced terminal the bar says how many scenarios failed so far."""
        stream = io.StringIO()
        bar = LiveBar(Console(file=stream, force_terminal=True, width=100))
        bar.start(3)
        bar.advance(_outcome("anthropic", "single_call", "fail"))
        bar.advance(_outcome("anthropic", "error_result", "pass"))
        bar.stop()
        frame = _last_frame(stream.getvalue())
        assert re.fullmatch(rf"conformance {BAR} 2/3 0:00:\d\d 1 failed anthropic / error_result: pass", frame)


WORKERS_ON_A_TERMINAL = textwrap.dedent(
    """
    import json, sys
    from toolwire.cli import main
    status = main(["conformance", "--api", "openai-chat", "--api", "anthropic", "--scenario", "single_call",
                   "--scenario", "error_result", "--workers", "2"])
    here = sorted(m for m in ("openai", "anthropic") if m in sys.modules)
    print(json.dumps({"status": status, "sdks_here": here}), file=sys.stderr)
    """
)


def test_workers_are_forked_before_the_live_bar_starts() -> None:
    """On a terminal the providers still run in forked workers (the SDKs never load here) and the bar shows them."""
    environment = {"PATH": "/usr/bin:/bin", "TTY_COMPATIBLE": "1", "TERM": "xterm", "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-c", WORKERS_ON_A_TERMINAL], capture_output=True, env=environment)
    out = done.stdout.decode()  # as bytes: text mode would turn the bar's carriage returns into newlines
    assert json.loads(done.stderr.decode().splitlines()[-1]) == {"status": 0, "sdks_here": []}
    assert re.fullmatch(rf"conformance {BAR} 4/4 0:00:\d\d  .+: pass", _last_frame(out))
    assert out.endswith(
        "scenario      openai-chat  anthropic\n"
        "------------------------------------\n"
        "single_call   pass         pass\n"
        "error_result  pass         pass\n"
        "\n"
        "4 passed, 0 degraded, 0 failed, 0 not applicable\n"
    )


A_WORKER_DIES = textwrap.dedent(
    """
    import json, os
    from toolwire.conformance import matrix
    from toolwire.conformance.scenarios import scenario

    real = matrix.run_scenario
    def dying(api, item):
        if api == "anthropic" and item.name == "error_result":
            os._exit(3)
        return real(api, item)
    matrix.run_scenario = dying
    chosen = [scenario("single_call"), scenario("error_result")]
    outcomes = matrix.run_matrix(["openai-chat", "anthropic"], chosen, workers=2)
    print(json.dumps([[o.api, o.scenario, o.status, o.reasons] for o in outcomes]))
    """
)


def test_a_worker_that_dies_leaves_failures_naming_it() -> None:
    """Its reported outcomes stand; the cells it never reported fail with its exit status; the other worker runs on."""
    done = subprocess.run([sys.executable, "-c", A_WORKER_DIES], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        ["openai-chat", "single_call", "pass", []],
        ["openai-chat", "error_result", "pass", []],
        ["anthropic", "single_call", "pass", []],
        ["anthropic", "error_result", "fail", ["the worker running anthropic stopped (exit status 3) first"]],
    ]


def test_a_scenario_that_raises_is_a_failure_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error `run_scenario` lets through (an unreadable expected-events file) becomes that cell's verdict."""

    def broken(api: str, item: object) -> ScenarioOutcome:
        raise ValueError("Expecting value: line 1 column 1 (char 0)")

    monkeypatch.setattr(matrix, "run_scenario", broken)
    outcome = matrix.judged("gemini", scenario("single_call"))
    assert outcome == ScenarioOutcome(
        "gemini", "single_call", "fail", ["ValueError: Expecting value: line 1 column 1 (char 0)"]
    )


def test_garbage_is_collected_less_often_during_the_run_only(
    plain_environment: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Raised thresholds while the matrix runs (the workers fork with them); the host's are back afterwards."""
    during: list[tuple[int, ...]] = []

    def recording(*args: object, **kwargs: object) -> list[ScenarioOutcome]:
        during.append(gc.get_threshold())
        return []

    monkeypatch.setattr(command, "run_matrix", recording)
    before = gc.get_threshold()
    assert main([*RUN, "--json"]) == 0
    assert during == [(50_000, 20, 100)]
    assert gc.get_threshold() == before


def test_workers_must_be_at_least_one(capsys: pytest.CaptureFixture[str]) -> None:
    """`--workers 0` is a usage error (status 2) saying what the option takes."""
    with pytest.raises(SystemExit) as stopped:
        main(["conformance", "--workers", "0"])
    assert stopped.value.code == 2
    assert "argument --workers: takes a whole number of at least 1, got '0'" in capsys.readouterr().err


PROVIDERS = [("openai-chat", "openai-responses"), ("anthropic",), ("gemini",)]


@pytest.mark.parametrize(
    ("count", "shares"),
    [(2, [("openai-chat", "openai-responses"), ("anthropic", "gemini")]), (3, PROVIDERS)],
    ids=["two-workers", "one-per-provider"],
)
def test_providers_are_dealt_to_the_least_loaded_worker(count: int, shares: list[tuple[str, ...]]) -> None:
    """An SDK is imported by one worker only; the apis are spread as evenly as whole providers allow."""
    assert matrix._shares(PROVIDERS, count) == shares
