"""Specification of the adapter base's `encode_tools`: names, choice, provider options, caching, degradations."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolwire import (
    Adapter,
    Capabilities,
    CompatibilityWarning,
    ConfigurationError,
    EncodeOptions,
    ToolDefinitionError,
    ToolNameCollisionError,
    create_tool,
)
from toolwire.compat import Degradation
from toolwire.names import OPENAI_NAMES, NameMap
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool


class RecordingAdapter(Adapter):
    """Encodes a tool as `{"name", "function": {"parameters"}}` and counts how often it encodes."""

    api = "test-encode"
    provider = "test"
    name_rules = OPENAI_NAMES
    reserved_tool_fields = frozenset({"name", "function"})
    capabilities = Capabilities(
        strict_tools=False,
        native_input_examples=False,
        output_schema=False,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=False,
        streamed_arguments=True,
        image_tool_results=False,
        file_tool_results=False,
        reasoning=False,
        server_tools=False,
    )

    def __init__(self) -> None:
        self.encoded: list[tuple[str, EncodeOptions]] = []

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        self.encoded.append((tool.id, options))
        if tool.strict:
            self.degrade(degradations, "strict", "sent without strict: this api has no strict mode", tool.id)
        return {"name": wire_name, "function": {"parameters": tool.input_schema.json_schema}}

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        fragment: dict[str, Any] = {"tools": entries}
        if choice is not None:
            fragment["choice"] = {"mode": choice.mode, "tools": [names.wire(i) for i in choice.tool_ids]}
        return fragment

    def new_decoder(self) -> Any:
        raise NotImplementedError


WEATHER = create_tool(id="weather.now", description="Weather.", strict=True)
SEARCH = create_tool(id="search", description="Search.", provider_options={"test": {"cache": True}, "other": {"x": 1}})


class TestFragment:
    def test_the_fragment_holds_entries_in_order_with_mapped_names(self) -> None:
        """Entries come in request order with provider names; options for this provider are merged."""
        encoded = RecordingAdapter().encode_tools([WEATHER, SEARCH])
        assert dict(encoded) == {
            "tools": [
                {"name": "weather_now", "function": {"parameters": {"type": "object", "properties": {}}}},
                {"name": "search", "function": {"parameters": {"type": "object", "properties": {}}}, "cache": True},
            ]
        }
        assert encoded.names.to_id == {"weather_now": "weather.now", "search": "search"}
        assert encoded.tools == (WEATHER, SEARCH)

    def test_a_mapping_of_tools_is_accepted(self) -> None:
        """Tools may be given by id, as in Mastra's `tools: {...}`."""
        encoded = RecordingAdapter().encode_tools({"search": SEARCH})
        assert [entry["name"] for entry in encoded["tools"]] == ["search"]

    def test_the_tool_choice_is_parsed_against_the_tools(self) -> None:
        """The choice reaches build_fragment parsed, and names it by provider name."""
        encoded = RecordingAdapter().encode_tools([WEATHER, SEARCH], {"tool": "weather.now"})
        assert encoded["choice"] == {"mode": "tool", "tools": ["weather_now"]}

    def test_a_choice_naming_an_unknown_tool_is_refused(self) -> None:
        """Forcing a tool that is not sent is a configuration error before any request."""
        with pytest.raises(ConfigurationError, match=r"^tool_choice names \['calc'\]"):
            RecordingAdapter().encode_tools([SEARCH], {"tool": "calc"})

    def test_degradations_are_on_the_result_and_warned(self) -> None:
        """Each fallback is a structured record and a CompatibilityWarning."""
        with pytest.warns(CompatibilityWarning) as warned:
            encoded = RecordingAdapter().encode_tools([WEATHER])
        expected = Degradation(
            api="test-encode",
            feature="strict",
            action="sent without strict: this api has no strict mode",
            tool_id="weather.now",
        )
        assert encoded.warnings == [expected]
        assert [w.message.degradation for w in warned] == [expected]  # type: ignore[union-attr]  # CompatibilityWarning
        assert (
            str(expected)
            == "[test-encode] tool 'weather.now': strict: sent without strict: this api has no strict mode"
        )


class TestRefusals:
    def test_provider_options_may_not_overwrite_fields_toolwire_sets(self) -> None:
        """Overwriting `name` would break decoding; the error names the tool and the option."""
        tool = create_tool(id="calc", description="Calc.", provider_options={"test": {"name": "other"}})
        with pytest.raises(ToolDefinitionError) as caught:
            RecordingAdapter().encode_tools([tool])
        assert str(caught.value) == (
            "tool 'calc': `provider_options.test.name` would overwrite the 'name' field toolwire sets for test-encode"
        )

    def test_two_different_tools_with_one_id_are_refused(self) -> None:
        """A second definition under the same id is a mistake, not an override."""
        with pytest.raises(ConfigurationError, match=r"^two different tools have the id 'search'$"):
            RecordingAdapter().encode_tools([SEARCH, create_tool(id="search", description="Other.")])

    def test_the_same_tool_twice_is_sent_once(self) -> None:
        """Repeating one Tool object is harmless."""
        assert len(RecordingAdapter().encode_tools([SEARCH, SEARCH])["tools"]) == 1

    def test_something_that_is_not_a_tool_is_refused(self) -> None:
        """Only toolwire Tools can be encoded."""
        with pytest.raises(ConfigurationError, match=r"^expected toolwire Tool objects, got dict$"):
            RecordingAdapter().encode_tools([{"name": "search"}])  # type: ignore[list-item]  # the mistake under test

    def test_ids_that_collide_after_mapping_are_refused(self) -> None:
        """`a.b` and `a_b` are one name on this provider."""
        with pytest.raises(ToolNameCollisionError):
            RecordingAdapter().encode_tools(
                [create_tool(id="a.b", description="1."), create_tool(id="a_b", description="2.")]
            )


class TestCaching:
    def test_a_tool_is_encoded_once_per_adapter_options_and_name(self) -> None:
        """The second request reuses the cached entry: encode_tool is not called again."""
        tool = create_tool(id="cached", description="Cached.")
        adapter = RecordingAdapter()
        first = adapter.encode_tools([tool])
        second = adapter.encode_tools([tool])
        assert first == second
        assert [tool_id for tool_id, _ in adapter.encoded] == ["cached"]

    def test_other_options_are_encoded_separately(self) -> None:
        """Options are part of the cache key."""
        tool = create_tool(id="cached", description="Cached.")
        adapter = RecordingAdapter()
        adapter.encode_tools([tool])
        adapter.encode_tools([tool], strict=True)
        adapter.encode_tools([tool], strict=True)
        assert [options.strict for _, options in adapter.encoded] == [None, True]

    def test_cached_degradations_are_reported_again(self) -> None:
        """Every request that degrades says so, cached or not."""
        tool = create_tool(id="strict-one", description="Strict.", strict=True)
        adapter = RecordingAdapter()
        first = adapter.encode_tools([tool])
        with pytest.warns(CompatibilityWarning):
            second = adapter.encode_tools([tool])
        assert first.warnings == second.warnings
        assert len(second.warnings) == 1

    def test_changing_a_returned_entry_does_not_change_the_next_request(self) -> None:
        """Top-level keys of the returned entries belong to the caller."""
        tool = create_tool(id="mutable", description="Mutable.")
        adapter = RecordingAdapter()
        adapter.encode_tools([tool])["tools"][0]["cache_control"] = {"type": "ephemeral"}
        assert "cache_control" not in adapter.encode_tools([tool])["tools"][0]

    def test_changing_a_nested_part_of_a_returned_entry_is_refused_and_the_next_request_is_intact(self) -> None:
        """What an entry holds is shared with the cache: an in-place edit raises and corrupts nothing."""
        tool = create_tool(id="nested", description="Nested.")
        adapter = RecordingAdapter()
        properties = adapter.encode_tools([tool])["tools"][0]["function"]["parameters"]["properties"]
        with pytest.raises(TypeError, match="shared by toolwire's tool-encoding cache and read-only"):
            properties["x"] = {"type": "string"}
        assert adapter.encode_tools([tool])["tools"][0]["function"]["parameters"] == {
            "type": "object",
            "properties": {},
        }

    @pytest.mark.parametrize(
        "edit",
        [
            pytest.param(lambda entry: entry["function"].update(parameters={}), id="dict.update"),
            pytest.param(lambda entry: entry["function"].pop("parameters"), id="dict.pop"),
            pytest.param(lambda entry: entry["function"]["parameters"].setdefault("x", 1), id="dict.setdefault"),
            pytest.param(lambda entry: entry["function"]["parameters"]["required"].append("x"), id="list.append"),
            pytest.param(lambda entry: entry["function"]["parameters"]["required"].sort(), id="list.sort"),
            pytest.param(lambda entry: entry["function"]["parameters"]["required"].__delitem__(0), id="list.del"),
        ],
    )
    def test_every_in_place_change_of_shared_contents_is_refused(self, edit: Any) -> None:
        """No mutating method of a dict or list slips through to the cached entry."""
        tool = create_tool(
            id="shared",
            description="Shared.",
            input_schema={"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        )
        adapter = RecordingAdapter()
        with pytest.raises(TypeError, match="read-only"):
            edit(adapter.encode_tools([tool])["tools"][0])
        assert adapter.encode_tools([tool])["tools"][0]["function"] == {
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
        }

    def test_an_edited_copy_of_shared_contents_goes_out_and_the_next_request_is_intact(self) -> None:
        """The way to change a schema for one request: replace it with a copy (copy.deepcopy gives plain dicts)."""
        tool = create_tool(id="copied", description="Copied.")
        adapter = RecordingAdapter()
        entry = adapter.encode_tools([tool])["tools"][0]
        function = copy.deepcopy(entry["function"])
        function["parameters"]["properties"]["x"] = {"type": "string"}
        entry["function"] = function
        assert entry["function"]["parameters"]["properties"] == {"x": {"type": "string"}}
        assert adapter.encode_tools([tool])["tools"][0]["function"]["parameters"]["properties"] == {}

    def test_editing_the_tools_schema_after_encoding_does_not_reach_the_cache(self) -> None:
        """The cached entry is a copy: it does not alias the tool's compiled schema."""
        schema = {"type": "object", "properties": {}, "description": "Only this test's (compiled schemas are shared)."}
        tool = create_tool(id="aliased", description="Aliased.", input_schema=schema)
        adapter = RecordingAdapter()
        adapter.encode_tools([tool])
        tool.input_schema.json_schema["properties"]["x"] = {"type": "string"}
        assert adapter.encode_tools([tool])["tools"][0]["function"]["parameters"]["properties"] == {}

    def test_a_repeated_request_shares_the_cached_contents(self) -> None:
        """Repeats copy only each entry's top level (what makes them cost microseconds)."""
        tool = create_tool(id="reused", description="Reused.")
        adapter = RecordingAdapter()
        first = adapter.encode_tools([tool])["tools"][0]
        second = adapter.encode_tools([tool])["tools"][0]
        assert first is not second
        assert first["function"] is second["function"]
