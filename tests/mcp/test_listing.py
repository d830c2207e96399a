"""Specification of `toolwire.mcp.tool_listing`: a tool's MCP `tools/list` entry."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import mcp_types
import pytest
from mcp_types import methods
from pydantic import BaseModel

from toolwire import ToolDefinitionError, create_tool
from toolwire.mcp import tool_listing

ALL_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


class Forecast(BaseModel):
    location: str
    temperature_celsius: float


def weather_tool(**options: Any) -> Any:
    return create_tool(
        id="weather",
        description="Get the current weather for a location",
        input_schema={"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
        execute=lambda value: {"location": value["location"], "temperature_celsius": 21.0},
        **options,
    )


class TestEntry:
    def test_plain_tool_lists_name_description_input_schema_and_default_annotations(self) -> None:
        """Every tool gets `annotations` with the spec's defaults written out."""
        assert tool_listing(weather_tool()) == {
            "name": "weather",
            "description": "Get the current weather for a location",
            "inputSchema": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            },
            "annotations": ALL_DEFAULTS,
        }

    def test_seed_annotations_and_meta_are_listed_as_given(self) -> None:
        """The seed's weather example: title on both levels, every hint as set, `_meta` passed through."""
        tool = weather_tool(
            output_schema=Forecast,
            mcp={
                "annotations": {
                    "title": "Weather Lookup",
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": True,
                },
                "_meta": {"version": "1.0.0", "category": "weather"},
            },
        )
        assert tool_listing(tool) == {
            "name": "weather",
            "title": "Weather Lookup",
            "description": "Get the current weather for a location",
            "inputSchema": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            },
            "outputSchema": {
                "type": "object",
                "title": "Forecast",
                "properties": {"location": {"type": "string"}, "temperature_celsius": {"type": "number"}},
                "required": ["location", "temperature_celsius"],
            },
            "annotations": {
                "title": "Weather Lookup",
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": True,
            },
            "_meta": {"version": "1.0.0", "category": "weather"},
        }

    def test_neutral_fields_without_an_mcp_slot_ride_in_meta(self) -> None:
        """strict, input examples and provider options are kept under `toolwire/` keys of `_meta`."""
        tool = weather_tool(
            strict=True,
            input_examples=[{"input": {"location": "Paris"}}],
            provider_options={"anthropic": {"cache_control": {"type": "ephemeral"}}},
            mcp={"_meta": {"owner": "team-a"}},
        )
        assert tool_listing(tool)["_meta"] == {
            "owner": "team-a",
            "toolwire/strict": True,
            "toolwire/inputExamples": [{"input": {"location": "Paris"}}],
            "toolwire/providerOptions": {"anthropic": {"cache_control": {"type": "ephemeral"}}},
        }

    def test_strict_false_is_listed_because_it_differs_from_unset(self) -> None:
        """`strict=False` and `strict=None` encode differently, so both survive the trip."""
        assert tool_listing(weather_tool(strict=False))["_meta"] == {"toolwire/strict": False}

    def test_provider_options_that_are_not_json_are_refused_with_the_field_named(self) -> None:
        """A listing must be JSON; the error names the tool and the field."""
        tool = weather_tool(provider_options={"openai": {"callback": object()}})
        with pytest.raises(ToolDefinitionError, match=r"tool 'weather': `provider_options` cannot be listed over MCP"):
            tool_listing(tool)


class TestAnnotationDefaults:
    def test_unset_destructive_hint_is_listed_as_true(self) -> None:
        """Spec default: a tool may destroy unless it says otherwise."""
        tool = weather_tool(mcp={"annotations": {"idempotentHint": True}})
        assert tool_listing(tool)["annotations"] == {
            "idempotentHint": True,
            "readOnlyHint": False,
            "destructiveHint": True,
            "openWorldHint": True,
        }

    def test_read_only_tool_gets_no_default_write_hints(self) -> None:
        """`destructiveHint`/`idempotentHint` mean something only for tools that write."""
        tool = weather_tool(mcp={"annotations": {"readOnlyHint": True}})
        assert tool_listing(tool)["annotations"] == {"readOnlyHint": True, "openWorldHint": True}

    def test_read_only_tool_keeps_write_hints_it_sets(self) -> None:
        """Hints set explicitly are never dropped."""
        tool = weather_tool(mcp={"annotations": {"readOnlyHint": True, "destructiveHint": False}})
        assert tool_listing(tool)["annotations"] == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "openWorldHint": True,
        }

    def test_closed_world_hint_is_kept(self) -> None:
        """`openWorldHint: false` overrides the default."""
        tool = weather_tool(mcp={"annotations": {"openWorldHint": False}})
        assert tool_listing(tool)["annotations"]["openWorldHint"] is False


class TestOutputSchemaPerProtocol:
    def test_array_output_schema_is_listed_from_2026_07_28(self) -> None:
        """2026-07-28 accepts any JSON Schema as `outputSchema`."""
        tool = weather_tool(output_schema=list[int])
        assert tool_listing(tool)["outputSchema"] == {"type": "array", "items": {"type": "integer"}}

    def test_array_output_schema_is_left_out_before_2026_07_28(self) -> None:
        """Through 2025-11-25 `outputSchema` must be an object schema."""
        tool = weather_tool(output_schema=list[int])
        assert "outputSchema" not in tool_listing(tool, protocol_version="2025-11-25")

    def test_object_output_schema_is_listed_before_2026_07_28(self) -> None:
        """Object schemas are valid on every revision."""
        tool = weather_tool(output_schema=Forecast)
        assert tool_listing(tool, protocol_version="2025-06-18")["outputSchema"]["type"] == "object"


class TestValidAgainstTheSdk:
    @pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
    def test_listing_passes_the_sdks_result_check_for_each_revision(self, version: str) -> None:
        """The SDK's own per-revision `tools/list` check accepts the entries unchanged."""
        tools = [
            weather_tool(),
            weather_tool(output_schema=Forecast, mcp={"annotations": {"title": "W"}, "_meta": {"k": 1}}),
            weather_tool(output_schema=list[int], strict=True, input_examples=[{"input": {"location": "Oslo"}}]),
        ]
        entries = [tool_listing(tool, protocol_version=version) for tool in tools]
        result = {"tools": entries, "ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
        checked = methods.serialize_server_result("tools/list", version, result)
        assert checked["tools"] == entries

    def test_listing_parses_as_the_sdks_tool_type(self) -> None:
        """`mcp_types.Tool` reads every field back (snake_case attributes, camelCase wire)."""
        tool = weather_tool(
            output_schema=Forecast, mcp={"annotations": {"title": "Weather Lookup"}, "_meta": {"version": "1.0.0"}}
        )
        parsed = mcp_types.Tool.model_validate(tool_listing(tool))
        assert (parsed.name, parsed.title, parsed.annotations, parsed.meta) == (
            "weather",
            "Weather Lookup",
            mcp_types.ToolAnnotations(
                title="Weather Lookup",
                read_only_hint=False,
                destructive_hint=True,
                idempotent_hint=False,
                open_world_hint=True,
            ),
            {"version": "1.0.0"},
        )
        assert parsed.output_schema == tool.output_schema.json_schema


class TestWithoutTheSdk:
    def test_tool_listing_works_when_mcp_cannot_be_imported(self) -> None:
        """`import toolwire.mcp` and `tool_listing` never import the SDK."""
        script = textwrap.dedent(
            """
            import sys
            sys.modules["mcp"] = None
            sys.modules["mcp_types"] = None
            import toolwire
            from toolwire.mcp import tool_listing
            tool = toolwire.create_tool(id="t", description="d", execute=lambda value: value)
            loaded = [m for m, module in sys.modules.items() if m.startswith("mcp") and module is not None]
            print(tool_listing(tool)["name"], loaded)
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "t []"

    def test_server_functions_name_the_missing_extra(self) -> None:
        """Without the SDK, `toolwire.mcp.serve` says which extra to install."""
        script = textwrap.dedent(
            """
            import sys
            sys.modules["mcp"] = None
            import toolwire.mcp
            try:
                toolwire.mcp.serve
            except ModuleNotFoundError as exc:
                print(exc)
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "toolwire.mcp.serve needs the MCP SDK: pip install 'toolwire[mcp]'"

    def test_import_toolwire_does_not_import_mcp(self) -> None:
        """The core stays SDK-free."""
        script = "import sys, toolwire, toolwire.mcp; print(sorted(m for m in sys.modules if m.startswith('mcp')))"
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "[]"


class TestPublicNames:
    def test_every_exported_name_resolves(self) -> None:
        """`__all__` is the public surface, lazy names included."""
        import toolwire.mcp

        missing = [name for name in toolwire.mcp.__all__ if getattr(toolwire.mcp, name, None) is None]
        assert missing == []

    def test_unknown_name_is_an_attribute_error(self) -> None:
        """Lazy loading does not swallow typos."""
        import toolwire.mcp

        with pytest.raises(AttributeError, match=r"module 'toolwire\.mcp' has no attribute 'serv'"):
            toolwire.mcp.serv  # noqa: B018
