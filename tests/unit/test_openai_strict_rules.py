"""OpenAI's documented strict-schema rules (`toolwire.adapters.openai._rules.RULES`): each one applied or degraded."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import create_tool, get_adapter
from toolwire.adapters.openai._rules import RULES
from toolwire.adapters.openai._strict import to_strict_schema


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    result = to_strict_schema(schema)
    assert result.schema is not None, result.reasons
    return result.schema


def _limit(key: str) -> int:
    limit = RULES[key].limit
    assert limit is not None
    return limit


_STRING = {"type": "string"}
_ADDRESS = {"type": "object", "properties": {"street": _STRING}, "required": ["street"]}
_CLOSED_ADDRESS = {**_ADDRESS, "additionalProperties": False}


def _root(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), **extra}


class TestReferences:
    def test_a_pointer_into_properties_becomes_a_root_definition(self) -> None:
        """`strict.refs`: `#/properties/home` is sent as `#/$defs/home`."""
        schema = _root({"home": _ADDRESS, "work": {"$ref": "#/properties/home"}})
        assert strict(schema) == {
            **_root({"home": _CLOSED_ADDRESS, "work": {"$ref": "#/$defs/home"}}),
            "additionalProperties": False,
            "$defs": {"home": _CLOSED_ADDRESS},
        }

    def test_draft_07_definitions_move_into_defs(self) -> None:
        """`#/definitions/Address` is sent as `#/$defs/Address`; no `definitions` keyword is left."""
        schema = _root({"home": {"$ref": "#/definitions/Address"}}, definitions={"Address": _ADDRESS})
        assert strict(schema) == {
            **_root({"home": {"$ref": "#/$defs/Address"}}),
            "additionalProperties": False,
            "$defs": {"Address": _CLOSED_ADDRESS},
        }

    def test_nested_definitions_move_to_the_root(self) -> None:
        """A `$defs` below the root is not sent; what refers into it points at a root definition."""
        inner = {"type": "object", "$defs": {"A": _ADDRESS}, "properties": {"a": {"$ref": "#/properties/p/$defs/A"}}}
        result = strict(_root({"p": {**inner, "required": ["a"]}}))
        assert result["properties"]["p"] == {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"],
            "additionalProperties": False,
        }
        assert result["$defs"] == {"A": _CLOSED_ADDRESS}

    def test_an_anchor_becomes_a_root_definition(self) -> None:
        """`{"$ref": "#addr"}` with `$anchor: addr`: the anchor keyword is dropped, the target hoisted."""
        schema = _root({"home": {"$ref": "#addr"}}, **{"$defs": {"Address": {**_ADDRESS, "$anchor": "addr"}}})
        result = strict(schema)
        assert result["properties"]["home"] == {"$ref": "#/$defs/addr"}
        assert result["$defs"] == {"Address": _CLOSED_ADDRESS, "addr": _CLOSED_ADDRESS}

    def test_a_hoisted_name_never_replaces_an_existing_definition(self) -> None:
        """`#/properties/Address` beside a `$defs.Address` gets a name of its own."""
        other = {"type": "object", "properties": {"zip": _STRING}, "required": ["zip"]}
        schema = _root(
            {"Address": other, "a": {"$ref": "#/properties/Address"}, "b": {"$ref": "#/$defs/Address"}},
            **{"$defs": {"Address": _ADDRESS}},
        )
        result = strict(schema)
        assert (result["properties"]["a"], result["properties"]["b"]) == (
            {"$ref": "#/$defs/Address_2"},
            {"$ref": "#/$defs/Address"},
        )
        assert result["$defs"]["Address_2"]["properties"] == {"zip": _STRING}

    def test_recursion_through_a_pointer_stays_recursive(self) -> None:
        """A pointer into the schema that refers to itself is hoisted once."""
        node = {"type": "object", "properties": {"next": {"$ref": "#/properties/head"}}}
        result = strict(_root({"head": node}))
        assert result["$defs"] == {
            "head": {
                "type": "object",
                "properties": {"next": {"anyOf": [{"$ref": "#/$defs/head"}, {"type": "null"}]}},
                "required": ["next"],
                "additionalProperties": False,
            }
        }


class TestKeywords:
    def test_schema_identifiers_and_comments_are_not_sent(self) -> None:
        """`strict.keywords`: `$schema`, `$id`, `$comment` are outside the supported list."""
        schema = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "urn:args",
            **_root({"q": {"type": "string", "$comment": "internal"}}),
        }
        assert strict(schema) == {**_root({"q": _STRING}), "additionalProperties": False}

    def test_a_required_name_without_a_property_blocks_strict(self) -> None:
        """`strict.required_declared`: strict mode would make the model leave `id` out."""
        schema = {"type": "object", "properties": {"q": _STRING}, "required": ["q", "id"]}
        assert to_strict_schema(schema).reasons == (
            f"`$` requires `id` without declaring it: {RULES['strict.required_declared'].cite()}",
        )

    def test_a_root_that_is_not_an_object_blocks_strict(self) -> None:
        """`strict.root_object`."""
        assert to_strict_schema({"type": "array", "items": _STRING}).reasons == (
            f"`$` is not a plain object schema: {RULES['strict.root_object'].cite()}",
        )


def _properties(count: int) -> dict[str, Any]:
    return _root({f"p{i}": _STRING for i in range(count)})


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = _root({"leaf": _STRING})
    for _ in range(levels - 1):
        schema = _root({"n": schema})
    return schema


def _names(total: int) -> dict[str, Any]:
    return _root({"a" * (total // 2): _STRING, "b" * (total - total // 2): _STRING})


def _enum_values(count: int) -> dict[str, Any]:
    return _root({"e": {"type": "integer", "enum": list(range(count))}})


def _large_enum(count: int, total: int) -> dict[str, Any]:
    """`count` distinct strings of `total` characters in all."""
    width = total // count
    values = [f"{i:04d}".ljust(width, "x") for i in range(count - 1)]
    values.append("z".ljust(total - width * (count - 1), "x"))
    return _root({"e": {"type": "string", "enum": values}})


_LIMITS = [
    ("strict.max_properties", _properties),
    ("strict.max_nesting_depth", _nested),
    ("strict.max_string_length", _names),
    ("strict.max_enum_values", _enum_values),
]


class TestLimits:
    @pytest.mark.parametrize(("key", "build"), _LIMITS, ids=[key for key, _ in _LIMITS])
    def test_a_schema_at_the_limit_is_sent_strict(self, key: str, build: Any) -> None:
        assert to_strict_schema(build(_limit(key))).schema is not None

    @pytest.mark.parametrize(("key", "build"), _LIMITS, ids=[key for key, _ in _LIMITS])
    def test_a_schema_past_the_limit_blocks_strict_naming_the_rule(self, key: str, build: Any) -> None:
        measured = _limit(key) + 1
        assert to_strict_schema(build(measured)).reasons == (
            f"the schema measures {measured:,} where {RULES[key].cite()}",
        )

    def test_a_large_string_enum_may_total_the_limit(self) -> None:
        values, total = _limit("strict.large_enum_values") + 1, _limit("strict.large_enum_string_length")
        assert to_strict_schema(_large_enum(values, total)).schema is not None

    def test_a_large_string_enum_past_its_length_blocks_strict(self) -> None:
        values, total = _limit("strict.large_enum_values") + 1, _limit("strict.large_enum_string_length") + 1
        assert to_strict_schema(_large_enum(values, total)).reasons == (
            f"an enum of {values} strings measures {total:,} where {RULES['strict.large_enum_string_length'].cite()}",
        )

    def test_the_enum_length_limit_applies_only_past_its_value_count(self) -> None:
        values, total = _limit("strict.large_enum_values"), _limit("strict.large_enum_string_length") + 1
        assert to_strict_schema(_large_enum(values, total)).schema is not None

    def test_nesting_is_counted_through_definitions(self) -> None:
        """A definition used deep inside adds its own levels."""
        levels = _limit("strict.max_nesting_depth")
        schema = {**_nested(levels - 1), "$defs": {"Pair": _root({"x": _root({"y": _STRING})})}}
        node = schema
        while "n" in node["properties"]:
            node = node["properties"]["n"]
        node["properties"]["leaf"] = {"$ref": "#/$defs/Pair"}
        assert to_strict_schema(schema).reasons == (
            f"the schema measures {levels + 1:,} where {RULES['strict.max_nesting_depth'].cite()}",
        )

    def test_a_recursive_definition_counts_its_levels_once(self) -> None:
        schema = _root({"tree": {"$ref": "#/$defs/T"}}, **{"$defs": {"T": _root({"kids": {"$ref": "#/$defs/T"}})}})
        assert to_strict_schema(schema).schema is not None


class TestAdapters:
    @pytest.mark.parametrize("api", ["openai-chat", "openai-responses"])
    def test_a_schema_past_a_limit_is_sent_non_strict_with_the_rule_reported(self, api: str) -> None:
        schema = _nested(_limit("strict.max_nesting_depth") + 1)
        encoded = get_adapter(api).encode_tools(
            [create_tool(id="t", description="d", input_schema=schema)], strict=True
        )
        entry = encoded["tools"][0]
        sent = entry.get("function", entry)
        assert (sent["strict"], sent["parameters"]) == (False, schema)
        assert [(d.feature, d.action) for d in encoded.warnings] == [
            (
                "strict",
                "sent with strict: false because strict mode cannot express the schema: the schema measures 11 "
                f"where {RULES['strict.max_nesting_depth'].cite()}",
            )
        ]
