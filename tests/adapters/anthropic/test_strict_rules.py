"""Anthropic's documented strict rules (`toolwire.adapters.anthropic._rules.RULES`): each one applied or degraded."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.adapters.anthropic._rules import RULES
from toolwire.adapters.anthropic._schema import strict_schema

_STRING = {"type": "string"}
_ADDRESS = {"type": "object", "properties": {"street": _STRING}, "required": ["street"]}
_CLOSED_ADDRESS = {**_ADDRESS, "additionalProperties": False}


def strict(schema: dict[str, Any]) -> Any:
    result = strict_schema(schema)
    assert result.problem is None, result.problem
    return result.schema


def impossible(schema: dict[str, Any]) -> str | None:
    result = strict_schema(schema)
    assert result.schema is None
    return result.problem


def _limit(key: str) -> int:
    limit = RULES[key].limit
    assert limit is not None
    return limit


class TestReferences:
    def test_an_all_of_around_a_ref_is_sent_as_the_bare_ref_with_the_description_on_the_object(self) -> None:
        """`strict.all_of_ref`: pydantic v1 and many generators wrap a described `$ref` in `allOf`."""
        schema = {
            "type": "object",
            "properties": {"home": {"allOf": [{"$ref": "#/$defs/Address"}], "description": "Where they live"}},
            "required": ["home"],
            "$defs": {"Address": _ADDRESS},
        }
        assert strict(schema) == {
            "$defs": {"Address": _CLOSED_ADDRESS},
            "type": "object",
            "properties": {"home": {"$ref": "#/$defs/Address"}},
            "additionalProperties": False,
            "required": ["home"],
            "description": "`home`: Where they live",
        }

    def test_the_description_of_a_ref_inside_items_goes_to_the_nearest_object(self) -> None:
        schema = {
            "type": "object",
            "properties": {"stops": {"type": "array", "items": {"$ref": "#/$defs/Address", "description": "A stop"}}},
            "$defs": {"Address": _ADDRESS},
        }
        result = strict(schema)
        assert (result["properties"]["stops"], result["description"]) == (
            {"type": "array", "items": {"$ref": "#/$defs/Address"}},
            "`stops.items`: A stop",
        )

    def test_a_type_that_repeats_the_targets_is_dropped_beside_a_ref(self) -> None:
        schema = {
            "type": "object",
            "properties": {"home": {"$ref": "#/$defs/Address", "type": "object"}},
            "$defs": {"Address": _ADDRESS},
        }
        assert strict(schema)["properties"] == {"home": {"$ref": "#/$defs/Address"}}

    def test_keywords_that_change_a_ref_block_strict(self) -> None:
        schema = {
            "type": "object",
            "properties": {"home": {"$ref": "#/$defs/Address", "required": ["zip"]}},
            "$defs": {"Address": _ADDRESS},
        }
        assert impossible(schema) == (
            "the $ref at `properties.home` has required beside it, which strict mode cannot keep "
            f"({RULES['strict.ref_siblings'].cite()})"
        )

    def test_a_pointer_into_properties_becomes_a_root_definition(self) -> None:
        schema = {
            "type": "object",
            "properties": {"home": _ADDRESS, "work": {"$ref": "#/properties/home"}},
        }
        result = strict(schema)
        assert (result["properties"]["work"], result["$defs"]) == (
            {"$ref": "#/$defs/home"},
            {"home": _CLOSED_ADDRESS},
        )

    def test_an_external_ref_blocks_strict(self) -> None:
        """`strict.external_ref`."""
        schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}
        assert impossible(schema) == (
            "the $ref 'https://example.com/a.json' at `properties.a` is not local: "
            + RULES["strict.external_ref"].cite()
        )

    def test_a_reference_to_the_root_blocks_strict(self) -> None:
        """`strict.recursive`: `#` is recursion too."""
        schema = {"type": "object", "properties": {"child": {"$ref": "#"}}}
        assert impossible(schema) == f"the schema refers to its own root: {RULES['strict.recursive'].cite()}"

    def test_mutual_recursion_blocks_strict(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
            },
        }
        assert impossible(schema) == f"the definition 'A' refers to itself: {RULES['strict.recursive'].cite()}"


class TestObjects:
    def test_a_required_name_without_a_property_blocks_strict(self) -> None:
        """`strict.required_declared`: with the object closed, `id` could never be sent."""
        schema = {"type": "object", "properties": {"q": _STRING}, "required": ["q", "id"]}
        assert impossible(schema) == (
            f"the object at the root requires 'id' without declaring it: {RULES['strict.required_declared'].cite()}"
        )

    @pytest.mark.parametrize(
        ("key", "schema"),
        [
            ("strict.max_optional_parameters", {"type": "object", "properties": {f"o{i}": _STRING for i in range(25)}}),
            (
                "strict.max_union_parameters",
                {
                    "type": "object",
                    "properties": {f"u{i}": {"type": ["string", "null"]} for i in range(17)},
                    "required": [f"u{i}" for i in range(17)],
                },
            ),
        ],
    )
    def test_a_schema_past_a_request_limit_on_its_own_cannot_be_strict(self, key: str, schema: dict[str, Any]) -> None:
        limit = _limit(key)
        assert impossible(schema) == f"the schema alone counts {limit + 1} where {RULES[key].cite()}"

    def test_optional_and_union_parameters_are_counted_over_the_whole_schema(self) -> None:
        """What the request-wide limits add up: optional properties and `anyOf`s, definitions included."""
        schema = {
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"$ref": "#/$defs/D"},
                "c": {"anyOf": [_STRING, {"type": "integer"}]},
            },
            "required": ["c"],
            "$defs": {"D": {"type": "object", "properties": {"x": _STRING, "y": _STRING}, "required": ["x"]}},
        }
        result = strict_schema(schema)
        assert (result.optional_parameters, result.union_parameters) == (3, 2)


def _tool(name: str, optional: int = 0, unions: int = 0, **options: Any) -> Any:
    properties: dict[str, Any] = {f"o{i}": _STRING for i in range(optional)}
    properties |= {f"u{i}": {"type": ["string", "integer"]} for i in range(unions)}
    required = ["q", *(f"u{i}" for i in range(unions))]
    schema = {"type": "object", "properties": {"q": _STRING, **properties}, "required": required}
    return create_tool(id=name, description=name, input_schema=schema, strict=True, **options)


class TestRequestLimits:
    @pytest.mark.parametrize(
        ("key", "per_tool"),
        [
            ("strict.max_strict_tools", {}),
            ("strict.max_optional_parameters", {"optional": 4}),
            ("strict.max_union_parameters", {"unions": 3}),
        ],
    )
    def test_tools_past_a_request_limit_are_sent_without_strict(
        self, adapter: Adapter, key: str, per_tool: dict[str, int]
    ) -> None:
        """Tools keep strict in request order while the totals fit; the others lose it, reported with the rule."""
        each = next(iter(per_tool.values()), 1)
        fitting = _limit(key) // each
        tools = [_tool(f"t{i}", **per_tool) for i in range(fitting + 1)]
        encoded = adapter.encode_tools(tools)
        assert [entry.get("strict") for entry in encoded["tools"]] == [True] * fitting + [None]
        assert [(d.feature, d.tool_id) for d in encoded.warnings] == [("strict", f"t{fitting}")]
        assert encoded.warnings[0].action == (
            "sent without `strict`: with this tool the request's strict tools would exceed a limit: "
            f"{RULES[key].cite()} (this tool adds {each} to {fitting * each})"
        )

    def test_a_tool_sent_without_strict_gets_its_own_schema_and_every_example(self, adapter: Adapter) -> None:
        tools = [_tool(f"t{i}") for i in range(_limit("strict.max_strict_tools"))]
        last = create_tool(
            id="last",
            description="d",
            input_schema={"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}},
            input_examples=[{"input": {"q": "ab", "extra": 1}}],
            strict=True,
            provider_options={"anthropic": {"cache_control": {"type": "ephemeral"}}},
        )
        encoded = adapter.encode_tools([*tools, last])
        assert encoded["tools"][-1] == {
            "name": "last",
            "description": "d",
            "input_schema": {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}},
            "input_examples": [{"q": "ab", "extra": 1}],
            "cache_control": {"type": "ephemeral"},
        }
        assert [d.feature for d in encoded.warnings if d.tool_id == "last"] == ["strict"]

    def test_the_limits_count_only_the_tools_sent(self, adapter: Adapter) -> None:
        """An allowed-tools choice sends fewer tools: those left out take nothing from the budget."""
        tools = [_tool(f"t{i}", optional=12) for i in range(3)]
        encoded = adapter.encode_tools(tools, {"allowed": ["t1", "t2"], "mode": "auto"})
        assert [(entry["name"], entry.get("strict")) for entry in encoded["tools"]] == [("t1", True), ("t2", True)]

    def test_the_limits_apply_again_to_every_request_from_the_cache(self, adapter: Adapter) -> None:
        tools = [_tool(f"t{i}", optional=12) for i in range(3)]
        first = adapter.encode_tools(tools)
        second = adapter.encode_tools(tools[1:])
        assert [e.get("strict") for e in first["tools"]] == [True, True, None]
        assert [e.get("strict") for e in second["tools"]] == [True, True]
