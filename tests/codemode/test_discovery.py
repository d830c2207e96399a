"""Discovery for large catalogs: one line per function, types on request, search by words."""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest

from toolwire import Tool, create_tool
from toolwire.codemode import Isolation, create_code_mode, create_code_mode_instructions
from toolwire.codemode._catalog import Catalog
from toolwire.codemode.instructions import tool_pairs
from toolwire.codemode.protocol import Lookup, ProtocolViolation, parse_frame

Runner = Any
NONE = Isolation(network=False, filesystem=False, processes=False, environment=False, boundary="a process")


def _tool(tool_id: str, description: str) -> Tool:
    return create_tool(
        id=tool_id,
        description=description,
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        execute=lambda value: {"tool": tool_id, **value},
    )


def _catalog_tools() -> dict[str, Tool]:
    return {
        "get_weather": _tool("get_weather", "Current weather for a city.\nUses the national service."),
        "get_forecast": _tool("get_forecast", "Weather forecast for the next days."),
        "book_hotel": _tool("book_hotel", "Book a hotel room in a city."),
    }


def _many_tools(count: int) -> dict[str, Tool]:
    return {f"tool_{i}": _tool(f"tool_{i}", f"Tool number {i}.") for i in range(count)}


class TestInstructions:
    def test_discovery_lists_one_line_per_function_and_no_types(self) -> None:
        """Names and first-line summaries only, plus the rule for getting the types."""
        instructions = create_code_mode_instructions(_catalog_tools(), isolation=NONE, discovery=True)
        block = re.search(r"```python\n(.*?)```\n", instructions, re.DOTALL)
        assert block is not None
        assert block.group(1) == (
            "external_get_weather  # Current weather for a city.\n"
            "external_get_forecast  # Weather forecast for the next days.\n"
            "external_book_hotel  # Book a hotel room in a city.\n"
        )
        ast.parse(block.group(1))
        assert 'print(await describe_functions(["external_x", "external_y"]))' in instructions
        assert "TypedDict" not in instructions

    @pytest.mark.parametrize(("count", "discovers"), [(30, False), (31, True)])
    def test_discovery_switches_on_above_thirty_tools(self, count: int, discovers: bool) -> None:
        """`discovery=None` inlines stubs for up to 30 tools, and lists names beyond."""
        instructions = create_code_mode_instructions(_many_tools(count), isolation=NONE)
        assert ("describe_functions" in instructions) is discovers

    def test_discovery_can_be_forced_off(self) -> None:
        """A large catalog still gets every stub when asked."""
        instructions = create_code_mode_instructions(_many_tools(40), isolation=NONE, discovery=False)
        assert instructions.count("async def external_tool_") == 40


class TestCatalog:
    def test_describe_gives_the_stubs_of_the_named_functions(self) -> None:
        """Exactly the asked functions, with their TypedDicts; unknown names are reported."""
        catalog = Catalog(tool_pairs(_catalog_tools(), tool_id="execute_python"))
        text = catalog.describe(["external_book_hotel", "external_nope", "external_book_hotel"])
        assert "async def external_book_hotel(input: BookHotelInput, /) -> Any:" in text
        assert "external_get_weather" not in text
        assert text.endswith("# Not available: external_nope\n")
        ast.parse(text)

    def test_search_ranks_name_matches_above_description_matches(self) -> None:
        """A word in the function name counts more than one in its description."""
        catalog = Catalog(tool_pairs(_catalog_tools(), tool_id="execute_python"))
        assert catalog.search("weather city") == [
            {"function": "external_get_weather", "description": "Current weather for a city."},
            {"function": "external_book_hotel", "description": "Book a hotel room in a city."},
            {"function": "external_get_forecast", "description": "Weather forecast for the next days."},
        ]

    def test_search_without_a_match_is_empty(self) -> None:
        """No guessing: nothing matches, nothing is returned."""
        assert Catalog(tool_pairs(_catalog_tools(), tool_id="execute_python")).search("zzz") == []


class TestInTheSandbox:
    async def test_a_program_describes_then_calls(self, run: Runner) -> None:
        """The program can read the stubs it needs and use the function in the same run."""
        code = (
            "text = await describe_functions('external_get_weather')\n"
            "found = await search_functions('forecast')\n"
            "weather = await external_get_weather({'city': 'Oslo'})\n"
            "['async def external_get_weather' in text, found[0]['function'], weather]"
        )
        result = await run(code, _catalog_tools(), discovery=True)
        assert result.result == [True, "external_get_forecast", {"tool": "get_weather", "city": "Oslo"}]
        assert [c.tool for c in result.calls] == ["get_weather"]

    async def test_describe_rejects_arguments_that_are_not_names(self, run: Runner) -> None:
        """Only strings (or a list of strings) are accepted, before anything is sent."""
        result = await run("await describe_functions([1, 2])", _catalog_tools())
        assert result.error is not None
        assert (result.error.name, result.error.message) == (
            "TypeError",
            "describe_functions() takes a function name or a list of them",
        )


class TestProtocol:
    def test_lookup_frames_parse(self) -> None:
        """`describe` carries names, `search` a query."""
        describe = b'{"jsonrpc": "2.0", "id": 4, "method": "describe", "params": {"names": ["external_a"]}}\n'
        search = b'{"jsonrpc": "2.0", "id": 5, "method": "search", "params": {"query": "weather"}}\n'
        assert parse_frame(describe) == Lookup(4, "describe", ("external_a",))
        assert parse_frame(search) == Lookup(5, "search", "weather")

    @pytest.mark.parametrize(
        "params",
        ['{"names": "external_a"}', '{"names": [1]}', '{"names": [' + ", ".join(['"x"'] * 101) + "]}", "{}"],
    )
    def test_malformed_describe_frames_are_violations(self, params: str) -> None:
        """A list of at most 100 strings, nothing else."""
        with pytest.raises(ProtocolViolation, match="without a list of at most 100 function names"):
            parse_frame(f'{{"jsonrpc": "2.0", "id": 1, "method": "describe", "params": {params}}}'.encode())

    def test_an_overlong_search_query_is_a_violation(self) -> None:
        """Queries are bounded too."""
        query = "x" * 501
        with pytest.raises(ProtocolViolation, match="without a query of at most 500 characters"):
            parse_frame(f'{{"jsonrpc": "2.0", "id": 1, "method": "search", "params": {{"query": "{query}"}}}}'.encode())


def test_the_tool_description_stays_short_with_discovery(sandbox: Any) -> None:
    """With 40 tools the description does not list them all."""
    tool = create_code_mode(_many_tools(40), sandbox=sandbox).tool
    assert "(functions: 40 of them, listed in the code mode instructions)" in tool.description
