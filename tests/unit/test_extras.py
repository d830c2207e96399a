"""Features that need an optional dependency say which extra to install, never a bare traceback.

Each test runs a fresh interpreter where the dependency cannot be imported (`sys.modules[name] =
None` makes Python refuse it, exactly as when it is not installed).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CASSETTE = Path(__file__).parents[2] / "cassettes" / "anthropic" / "single_call.yaml"


def _run(blocked: tuple[str, ...], code: str) -> subprocess.CompletedProcess[str]:
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def _cli(blocked: tuple[str, ...], *argv: str) -> subprocess.CompletedProcess[str]:
    return _run(blocked, f"from toolwire.cli import main\nsys.exit(main({list(argv)!r}))")


class TestCommands:
    @pytest.mark.parametrize(
        ("blocked", "argv", "extra"),
        [
            (("vcr",), ("conformance",), "conformance"),
            (("vcr",), ("demo",), "conformance"),
            (("yaml",), ("conformance",), "conformance"),
            (("openai",), ("conformance", "--api", "openai-chat"), "openai"),
            (("anthropic",), ("demo", "--api", "anthropic"), "anthropic"),
            (("google", "google.genai"), ("conformance", "--api", "gemini"), "gemini"),
            (("yaml",), ("replay", str(CASSETTE)), "yaml"),
            (("mcp", "mcp_types"), ("mcp", "serve", "toolwire.conformance.fixtures:PNG_1X1"), "mcp"),
        ],
        ids=["conformance-vcr", "demo-vcr", "conformance-yaml", "openai", "anthropic", "gemini", "replay", "mcp"],
    )
    def test_a_missing_dependency_exits_2_naming_the_extra(
        self, blocked: tuple[str, ...], argv: tuple[str, ...], extra: str
    ) -> None:
        """One line on stderr with the pip command, exit status 2, no traceback."""
        done = _cli(blocked, *argv)
        assert done.returncode == 2
        assert f"pip install 'toolwire[{extra}]'" in done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1


class TestImports:
    @pytest.mark.parametrize(
        ("blocked", "statement", "extra"),
        [
            (("vcr",), "import toolwire.conformance", "conformance"),
            (("vcr",), "from toolwire.testing.conformance import ConformanceSuite", "conformance"),
            (("httpx2",), "import toolwire.testing.capture", "conformance"),
            (("httpx2",), "import toolwire.targets", "http"),
            (("mcp", "mcp_types"), "from toolwire.mcp import load_tools", "mcp"),
            (("openai",), "toolwire.get_adapter('openai-responses').sdk_client(api_key='k')", "openai"),
            (("anthropic",), "toolwire.get_adapter('anthropic').sdk_client(api_key='k')", "anthropic"),
            (("google", "google.genai"), "toolwire.get_adapter('gemini').sdk_client(api_key='k')", "gemini"),
            (("dbos",), "from toolwire.durable import DurableAgent", "dbos"),
        ],
        ids=["conformance", "suite", "capture", "targets", "mcp", "openai", "anthropic", "gemini", "durable"],
    )
    def test_an_import_raises_missing_extra_error_naming_the_extra(
        self, blocked: tuple[str, ...], statement: str, extra: str
    ) -> None:
        """A `MissingExtraError` (an ImportError) whose message is the pip command."""
        done = _run(
            blocked,
            f"""
            import toolwire
            try:
                {statement}
            except toolwire.MissingExtraError as exc:
                print(isinstance(exc, ImportError), exc.extra, exc)
            """,
        )
        assert done.stderr == ""
        assert done.stdout.startswith(f"True {extra} ")
        assert done.stdout.rstrip().endswith(f"pip install 'toolwire[{extra}]'")

    def test_reading_yaml_tool_declarations_names_the_yaml_extra(self) -> None:
        """`toolwire.targets.tools_from_text(..., format="yaml")` without PyYAML."""
        done = _run(
            ("yaml",),
            """
            import toolwire
            from toolwire.targets import TargetHost, tools_from_text
            try:
                tools_from_text("[]", format="yaml", host=TargetHost(components={}))
            except toolwire.MissingExtraError as exc:
                print(exc)
            """,
        )
        assert done.stdout == "reading YAML tool declarations needs PyYAML: pip install 'toolwire[yaml]'\n"


def test_other_import_errors_are_not_disguised() -> None:
    """A missing module toolwire does not know about is re-raised as it is."""
    from toolwire._extras import optional_imports

    with pytest.raises(ModuleNotFoundError) as caught, optional_imports("a feature"):
        import toolwire_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert type(caught.value) is ModuleNotFoundError
