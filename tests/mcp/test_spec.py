"""Specification of `module:attribute` specs (what `toolwire mcp serve` takes) and the serve entry points' checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire import ConfigurationError, create_tool
from toolwire.mcp import load_spec, serve
from toolwire.mcp.__main__ import main

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _demo_module_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


class TestLoadSpec:
    def test_dict_of_tools_gives_its_values_in_order(self) -> None:
        """A dict maps names to tools; the tools are served."""
        assert [tool.id for tool in load_spec("mcp_demo_tools:TOOLS")] == [
            "echo",
            "divide",
            "wait_for_abort",
            "last_abort",
            "dot",
        ]

    def test_single_tool_is_served_alone(self) -> None:
        """A Tool attribute is a one-tool server."""
        assert [tool.id for tool in load_spec("mcp_demo_tools:ECHO")] == ["echo"]

    def test_list_of_tools_reached_through_a_dotted_attribute(self) -> None:
        """`module:object.attribute` reaches into objects."""
        assert [tool.id for tool in load_spec("mcp_demo_tools:BUNDLE.tools")] == ["divide", "dot"]

    def test_missing_colon_is_a_usage_error(self) -> None:
        """The shape is `module:attribute`."""
        with pytest.raises(ConfigurationError, match=r"expected `module:attribute`, got 'mcp_demo_tools'"):
            load_spec("mcp_demo_tools")

    def test_unknown_module_is_named(self) -> None:
        """A typo in the module names the module."""
        with pytest.raises(
            ConfigurationError, match=r"cannot serve 'no_such_module:x': no module named 'no_such_module'"
        ):
            load_spec("no_such_module:x")

    def test_unknown_attribute_is_named(self) -> None:
        """A typo in the attribute names the attribute."""
        with pytest.raises(ConfigurationError, match=r"'mcp_demo_tools' has no attribute 'TOOLZ'"):
            load_spec("mcp_demo_tools:TOOLZ")

    def test_attribute_that_is_not_tools_is_refused(self) -> None:
        """Only a Tool, a list of Tools or a dict of Tools can be served."""
        with pytest.raises(ConfigurationError, match=r"it is a list, not a Tool, a list of Tools or a dict of Tools"):
            load_spec("mcp_demo_tools:NOT_TOOLS")


class TestEntryPoints:
    def test_unknown_transport_is_refused_before_anything_runs(self) -> None:
        """Only stdio and streamable-http exist."""
        tool = create_tool(id="t", description="d", execute=lambda value: value)
        with pytest.raises(
            ConfigurationError, match=r"unknown MCP transport 'sse'; use one of \['stdio', 'streamable-http'\]"
        ):
            serve([tool], name="demo", version="1", transport="sse")  # type: ignore[arg-type]

    def test_command_line_reports_a_bad_spec_with_status_2(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`python -m toolwire.mcp serve` prints the problem on stderr."""
        assert main(["serve", "mcp_demo_tools:TOOLZ"]) == 2
        assert capsys.readouterr().err == (
            "error: cannot serve 'mcp_demo_tools:TOOLZ': 'mcp_demo_tools' has no attribute 'TOOLZ'\n"
        )
