"""Type checkers on toolwire as a user sees it: what they infer, what they refuse, and that an install resolves.

mypy (`--strict`) and pyright (strict) run on `tool_types.py` (no error allowed: its `assert_type`s
are the inferred types) and on each snippet in `fails/`, whose errors must be exactly those its
`# expected by mypy: ...` / `# expected by pyright: ...` comments name for the code line below. Both checkers find
toolwire the way a user's project does: through the installed distribution (in CI, the editable
install of the README's `pip install -e '.[dev]'`), never through this checkout's configuration.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TYPED = HERE / "tool_types.py"
FAILS = sorted((HERE / "fails").glob("*.py"))
_EXPECT = re.compile(r"^\s*# expected by (?P<checker>mypy|pyright): (?P<codes>[\w, -]+)$")
_MYPY_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")

Errors = dict[str, set[tuple[int, str]]]
"""Per file name: (line, error code) pairs."""


def _mypy(paths: list[Path], cwd: Path, cache: Path) -> tuple[Errors, str]:
    config = cache / "empty.ini"
    config.write_text("[mypy]\n")
    command = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config), "--cache-dir", str(cache)]
    command += ["--python-executable", sys.executable, "--show-error-codes", "--no-error-summary", "--no-pretty"]
    done = subprocess.run([*command, *map(str, paths)], cwd=cwd, capture_output=True, text=True, timeout=600)
    errors: Errors = {}
    for line in done.stdout.splitlines():
        match = _MYPY_LINE.match(line)
        if match:
            errors.setdefault(Path(match["file"]).name, set()).add((int(match["line"]), match["code"]))
    return errors, done.stdout + done.stderr


def _pyright(paths: list[Path], cwd: Path) -> tuple[Errors, dict[str, list[str]], str]:
    config = cwd / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    command = [sys.executable, "-m", "pyright", "--outputjson", "-p", str(config), "--pythonpath", sys.executable]
    done = subprocess.run([*command, *map(str, paths)], cwd=cwd, capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout)
    errors: Errors = {}
    infos: dict[str, list[str]] = {}
    for diagnostic in report["generalDiagnostics"]:
        name = Path(diagnostic["file"]).name
        if diagnostic["severity"] == "error":
            line = diagnostic["range"]["start"]["line"] + 1
            errors.setdefault(name, set()).add((line, diagnostic.get("rule", "")))
        else:
            infos.setdefault(name, []).append(diagnostic["message"])
    return errors, infos, done.stdout


def _expected(path: Path, checker: str) -> set[tuple[int, str]]:
    """`# expected by mypy: code, code` (or pyright) comments name the errors of the next code line."""
    expected: set[tuple[int, str]] = set()
    pending: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = _EXPECT.match(line)
        if match:
            pending += [code.strip() for code in match["codes"].split(",")] if match["checker"] == checker else []
        elif pending and not line.lstrip().startswith("#"):
            expected.update((number, code) for code in pending)
            pending = []
    return expected


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Errors, str]]:
    """Both checkers, run once over the typed module and every snippet."""
    cache = tmp_path_factory.mktemp("mypy")
    pyright_root = tmp_path_factory.mktemp("pyright")
    mypy_errors, mypy_output = _mypy([TYPED, *FAILS], HERE, cache)
    pyright_errors, _infos, pyright_output = _pyright([TYPED, *FAILS], pyright_root)
    return {"mypy": (mypy_errors, mypy_output), "pyright": (pyright_errors, pyright_output)}


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_the_inferred_types_hold_with_no_error(checked: dict[str, tuple[Errors, str]], checker: str) -> None:
    """Every `assert_type` in tool_types.py holds, and nothing else is reported there."""
    errors, output = checked[checker]
    assert errors.get(TYPED.name, set()) == set(), output


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
@pytest.mark.parametrize("snippet", FAILS, ids=lambda path: path.stem)
def test_each_misuse_is_refused_with_exactly_the_expected_errors(
    checked: dict[str, tuple[Errors, str]], checker: str, snippet: Path
) -> None:
    """The errors of a snippet are the ones its comments name, on the lines they mark."""
    errors, output = checked[checker]
    expected = _expected(snippet, checker)
    assert expected, f"{snippet.name} expects no error from {checker}"
    assert errors.get(snippet.name, set()) == expected, output


APP = """\
from pydantic import BaseModel

from toolwire import create_tool
from toolwire.adapters.anthropic.messages import AnthropicAdapter


class Weather(BaseModel):
    city: str


weather = create_tool(id="weather", description="Weather.", input_schema=Weather, execute=lambda args: args.city)
reveal_type(weather)
reveal_type(AnthropicAdapter().api)
"""


def test_mypy_resolves_the_installed_toolwire_from_a_project_of_its_own(tmp_path: Path) -> None:
    """Typed (py.typed), adapters included: an editable install is a path entry mypy follows."""
    (tmp_path / "app.py").write_text(APP)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--python-executable", sys.executable, "app.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.stdout.splitlines() == [
        'app.py:12: note: Revealed type is "toolwire.tools.Tool[app.Weather, str, toolwire.results.ToolResult]"',
        'app.py:13: note: Revealed type is "str"',
        "Success: no issues found in 1 source file",
    ], done.stdout + done.stderr


def test_pyright_resolves_the_installed_toolwire_from_a_project_of_its_own(tmp_path: Path) -> None:
    """The same project under pyright strict: no import error, the types are toolwire's own."""
    (tmp_path / "app.py").write_text(APP)
    errors, infos, output = _pyright([tmp_path / "app.py"], tmp_path)
    assert errors == {}, output
    assert infos == {
        "app.py": ['Type of "weather" is "Tool[Weather, str, ToolResult]"', 'Type of "AnthropicAdapter().api" is "str"']
    }, output
