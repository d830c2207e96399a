"""Specification of the public surface: `import toolwire` stays light and SDK-free, `__all__` is real."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import toolwire

SDKS = ("openai", "anthropic", "google.genai", "mcp", "httpx2")
EXTRAS = ("httpx", "yaml", "opentelemetry", "dbos", "sqlalchemy", "psycopg")
HEAVY = ("jsonschema", "regex", "asyncio", "aiohttp", "rich", "vcr", "starlette", "uvicorn")
"""Costly imports only some paths need (jsonschema: dict schemas; asyncio: the runtime and agent)."""
VALIDATION = ("pydantic", "pydantic_core")
OWN_MODULES = ("toolwire.adapters", "toolwire.agent", "toolwire.runtime", "toolwire.adapter", "toolwire.tools")

EVERYDAY_PATH = textwrap.dedent(
    """
    import json
    import pydantic
    from toolwire import create_tool, get_adapter, tool

    class Forecast(pydantic.BaseModel):
        city: str
        days: int = 1

    @tool
    def weather(city: str):
        "Weather for a city."
        return "sunny"

    forecast = create_tool(id="forecast", description="Forecast.", input_schema=Forecast)
    for api in ("openai-chat", "openai-responses", "anthropic", "gemini"):
        get_adapter(api).encode_tools([weather, forecast], "required", strict=True)
    function = {"name": "weather", "arguments": '{"city": "Paris"}'}
    call = {"index": 0, "id": "c1", "type": "function", "function": function}
    chunk = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    body = f"data: {json.dumps(chunk)}\\n\\ndata: [DONE]\\n\\n".encode()
    events = [event.type for event in get_adapter("openai-chat").normalize(body, tools=[weather, forecast])]
    assert "tool-input-available" in events, events
    """
)


def _modules_after(statement: str, watched: tuple[str, ...]) -> list[str]:
    """The watched modules a fresh interpreter has loaded after running `statement`."""
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(m for m in {list(watched)!r} if m in sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout))


class TestImports:
    def test_import_toolwire_loads_no_provider_sdk_or_optional_dependency(self) -> None:
        """A fresh interpreter importing toolwire has none of the SDKs or extras loaded."""
        assert _modules_after("import toolwire", SDKS + EXTRAS) == []

    def test_import_toolwire_loads_no_heavy_module_and_no_toolwire_submodule(self) -> None:
        """`import toolwire` costs almost nothing: every export is imported on first use."""
        watched = SDKS + EXTRAS + HEAVY + VALIDATION + OWN_MODULES
        assert _modules_after("import toolwire", watched) == []

    def test_defining_encoding_and_normalizing_a_model_tool_loads_neither_jsonschema_nor_asyncio(self) -> None:
        """The everyday path (a pydantic tool, every in-tree adapter, a raw stream) pays for pydantic only."""
        watched = SDKS + EXTRAS + HEAVY + ("toolwire.agent", "toolwire.runtime")
        assert _modules_after(EVERYDAY_PATH, watched) == []

    def test_the_agent_and_runtime_load_no_provider_sdk(self) -> None:
        """Importing the agent (and with it the runtime and asyncio) leaves the SDKs to the caller's client."""
        assert _modules_after("from toolwire import Agent, Toolbox, execute_tool", SDKS + EXTRAS) == []

    def test_the_core_never_loads_the_durable_engine(self) -> None:
        """An agent with background tools runs in-process: neither `toolwire.durable` nor DBOS is imported."""
        statement = (
            "from toolwire import Agent, create_tool\n"
            "from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer\n"
            "tool = create_tool(id='w', description='W.', execute=lambda v: 'x', background=True)\n"
            "Agent(api=ScriptedAdapter([answer('hi')]), client=SCRIPTED_CLIENT, model='m', tools=[tool]).run('go')"
        )
        assert _modules_after(statement, ("toolwire.durable", "dbos", "sqlalchemy")) == []

    def test_defining_running_a_tool_and_listing_adapters_stays_sdk_free(self) -> None:
        """The everyday core path needs no provider SDK (OpenTelemetry is used when installed)."""
        statement = (
            "import toolwire\n"
            "t = toolwire.create_tool(id='w', description='W.', execute=lambda v: v)\n"
            "toolwire.list_adapters()\n"
            "toolwire.execute_tool_sync(t, {'toolCallId': 'c', 'toolName': 'w', 'input': {}})"
        )
        assert _modules_after(statement, SDKS) == []


class TestLazyExports:
    def test_the_lazy_export_table_matches_the_type_checking_imports_and_all(self) -> None:
        """Type checkers read the `TYPE_CHECKING` imports, the runtime reads `_EXPORTS`: they must agree."""
        source = Path(toolwire.__file__).read_text(encoding="utf-8")
        guarded = next(
            node
            for node in ast.parse(source).body
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        )
        imported = {
            node.module: tuple(alias.name for alias in node.names)
            for node in guarded.body
            if isinstance(node, ast.ImportFrom) and node.module is not None
        }
        exported = toolwire._EXPORTS  # type: ignore[attr-defined]  # the private table under test
        assert imported == exported
        assert sorted(name for names in exported.values() for name in names) == sorted(toolwire.__all__)

    def test_every_export_is_the_object_its_module_defines(self) -> None:
        """A lazily loaded name is the real object, not a copy or a proxy."""
        exported = toolwire._EXPORTS  # type: ignore[attr-defined]  # the private table under test
        mismatched = [
            name
            for module, names in exported.items()
            for name in names
            if getattr(toolwire, name) is not getattr(importlib.import_module(f"toolwire.{module}"), name)
        ]
        assert mismatched == []

    def test_an_unknown_name_is_an_attribute_error_naming_it(self) -> None:
        """`hasattr` and `from toolwire import X` keep their usual failure."""
        with pytest.raises(AttributeError, match="module 'toolwire' has no attribute 'create_tools'"):
            getattr(toolwire, "create_tools")  # noqa: B009  # a name type checkers would refuse

    def test_dir_lists_exports_before_they_are_imported_and_one_import_loads_only_its_module(self) -> None:
        """`dir()` shows every export up front; `from toolwire import X` loads X's module and no other."""
        statement = (
            "import toolwire\n"
            "assert 'Agent' in dir(toolwire) and 'toolwire.agent' not in sys.modules\n"
            "from toolwire import ToolwireError\n"
        )
        assert _modules_after(statement, ("toolwire.exceptions", "toolwire.agent")) == ["toolwire.exceptions"]


class TestAll:
    def test_every_name_in_all_exists(self) -> None:
        """`from toolwire import *` cannot fail."""
        missing = [name for name in toolwire.__all__ if not hasattr(toolwire, name)]
        assert missing == []

    def test_all_has_no_duplicates_and_is_sorted(self) -> None:
        """A locked, readable export list (httpx's habit)."""
        assert len(set(toolwire.__all__)) == len(toolwire.__all__)
        assert list(toolwire.__all__) == sorted(toolwire.__all__)

    def test_the_design_card_names_are_exported(self) -> None:
        """DESIGN.md's core types are importable from the package root."""
        design = {
            "Tool",
            "create_tool",
            "tool",
            "ToolCall",
            "ToolResult",
            "execute_tool",
            "get_adapter",
            "Adapter",
            "Usage",
            "ToolChoice",
            "CompiledSchema",
        }
        assert design <= set(toolwire.__all__)
