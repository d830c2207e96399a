"""Specification of the public surface: `import toolwire` stays SDK-free and `__all__` is real."""

from __future__ import annotations

import json
import subprocess
import sys

import toolwire

SDKS = ("openai", "anthropic", "google.genai", "mcp", "httpx2")
EXTRAS = ("httpx", "yaml", "opentelemetry")


def _modules_after(statement: str, watched: tuple[str, ...]) -> list[str]:
    """The watched modules a fresh interpreter has loaded after running `statement`."""
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(m for m in {list(watched)!r} if m in sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(result.stdout))


class TestImports:
    def test_import_toolwire_loads_no_provider_sdk_or_optional_dependency(self) -> None:
        """A fresh interpreter importing toolwire has none of the SDKs or extras loaded."""
        assert _modules_after("import toolwire", SDKS + EXTRAS) == []

    def test_defining_running_a_tool_and_listing_adapters_stays_sdk_free(self) -> None:
        """The everyday core path needs no provider SDK (OpenTelemetry is used when installed)."""
        statement = (
            "import toolwire\n"
            "t = toolwire.create_tool(id='w', description='W.', execute=lambda v: v)\n"
            "toolwire.list_adapters()\n"
            "toolwire.execute_tool_sync(t, {'toolCallId': 'c', 'toolName': 'w', 'input': {}})"
        )
        assert _modules_after(statement, SDKS) == []


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
