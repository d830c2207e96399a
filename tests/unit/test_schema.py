"""Specification of compiled schemas: validation with located issues, strict-mode null repair, compile errors."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from toolwire import CompiledSchema, SchemaError, compile_schema
from toolwire.schema import (
    MAX_SCHEMA_DEPTH,
    SchemaIssue,
    SchemaValidationError,
    accepts_null,
    deep_copy_json,
    json_type_of,
    nesting_depth,
    resolve_ref,
)


class Item(pydantic.BaseModel):
    name: str
    count: int = 1


class Person(pydantic.BaseModel):
    name: str
    employer: Company | None = None


class Company(pydantic.BaseModel):
    name: str
    ceo: Person | None = None


Person.model_rebuild()


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


class Order(pydantic.BaseModel):
    items: list[Item]
    note: str = ""
    gift: Item | None = None


def _issues(schema: CompiledSchema, value: Any) -> list[SchemaIssue]:
    with pytest.raises(SchemaValidationError) as caught:
        schema.validate(value)
    return caught.value.issues


_ORDER_JSON: dict[str, Any] = {
    "type": "object",
    "properties": {
        "customer": {"type": "string"},
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "unit": {"type": ["string", "null"]}},
            "required": ["street"],
        },
        "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
        "coupon": {"anyOf": [{"$ref": "#/$defs/Line"}, {"type": "null"}]},
        "id": {"type": "integer"},
    },
    "required": ["id"],
    "$defs": {
        "Line": {
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            "required": ["qty"],
        }
    },
}


class TestValidationThroughPydantic:
    def test_issues_are_located_by_json_path_and_quote_the_received_value(self) -> None:
        """Each pydantic error becomes an issue at its location, with what was received."""
        issues = _issues(compile_schema(Order), {"items": [{"name": "a"}, {"name": "b", "count": "many"}]})
        assert issues == [
            SchemaIssue(
                ("items", 1, "count"),
                'Input should be a valid integer, unable to parse string as an integer (got "many")',
            )
        ]

    def test_a_missing_field_is_reported_without_a_received_value(self) -> None:
        """`missing` errors have nothing useful to quote."""
        assert _issues(compile_schema(Order), {}) == [SchemaIssue(("items",), "Field required")]

    def test_a_long_received_value_is_shortened(self) -> None:
        """Quoted input is cut at 80 characters so error texts stay readable."""
        (issue,) = _issues(compile_schema(Item), {"name": "a", "count": "x" * 200})
        assert issue.message.endswith('(got "' + "x" * 76 + "...)")

    def test_the_error_text_joins_every_issue_with_its_path(self) -> None:
        """str(error) names every failing field, so a model can fix all of them at once."""
        with pytest.raises(SchemaValidationError) as caught:
            compile_schema(Item).validate({"count": []})
        assert str(caught.value) == ("at `name`: Field required; at `count`: Input should be a valid integer (got [])")

    def test_a_valid_value_comes_back_typed_and_dumps_back_to_json(self) -> None:
        """Validation yields the model instance; to_json gives its JSON form."""
        schema = compile_schema(Order)
        order = schema.validate({"items": [{"name": "a"}]})
        assert order == Order(items=[Item(name="a")])
        assert schema.to_json(order) == {"items": [{"name": "a", "count": 1}], "note": "", "gift": None}


class TestValidationThroughJsonSchema:
    def test_every_issue_is_reported_sorted_by_path(self) -> None:
        """jsonschema errors come back in path order with jsonschema's own messages."""
        issues = _issues(
            compile_schema(_ORDER_JSON),
            {"id": "7", "lines": [{"qty": 1}, {"qty": "two"}], "address": {}},
        )
        assert issues == [
            SchemaIssue(("address",), "'street' is a required property"),
            SchemaIssue(("id",), "'7' is not of type 'integer'"),
            SchemaIssue(("lines", 1, "qty"), "'two' is not of type 'integer'"),
        ]

    def test_a_root_issue_is_located_at_the_root(self) -> None:
        """An issue with an empty path says `(root)`."""
        with pytest.raises(SchemaValidationError) as caught:
            compile_schema(_ORDER_JSON).validate([])
        assert str(caught.value) == "at `(root)`: [] is not of type 'object'"

    def test_a_valid_value_is_returned_as_is(self) -> None:
        """Dict schemas validate without converting: the same object comes back."""
        value = {"id": 1}
        schema = compile_schema(_ORDER_JSON)
        assert schema.validate(value) is value
        assert schema.to_json(value) is value

    def test_the_declared_draft_is_honoured(self) -> None:
        """A draft-07 schema is checked with draft-07 rules (tuple `items`)."""
        schema = compile_schema(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}},
            }
        )
        assert _issues(schema, {"pair": ["a", "b"]}) == [SchemaIssue(("pair", 0), "'a' is not of type 'integer'")]


class TestNullRepair:
    def test_optional_non_nullable_nulls_are_dropped_at_every_depth(self) -> None:
        """Nested objects, array items behind `$ref`, and `anyOf: [X, null]` objects are all repaired."""
        repaired = compile_schema(_ORDER_JSON).drop_disallowed_nulls(
            {
                "customer": None,
                "address": {"street": None, "unit": None},
                "lines": [{"sku": None, "qty": None}],
                "coupon": {"sku": None, "qty": 2},
                "id": None,
            }
        )
        assert repaired == {
            "address": {"street": None, "unit": None},
            "lines": [{"qty": None}],
            "coupon": {"qty": 2},
            "id": None,
        }

    def test_a_null_for_a_nullable_anyof_property_is_kept(self) -> None:
        """`coupon: null` is allowed by the schema, so it stays."""
        assert compile_schema(_ORDER_JSON).drop_disallowed_nulls({"id": 1, "coupon": None}) == {
            "id": 1,
            "coupon": None,
        }

    def test_unknown_properties_pass_through_untouched(self) -> None:
        """Repair never removes what the schema does not describe."""
        assert compile_schema(_ORDER_JSON).drop_disallowed_nulls({"id": 1, "extra": None}) == {
            "id": 1,
            "extra": None,
        }

    def test_a_pydantic_default_field_sent_as_null_gets_its_default_after_repair(self) -> None:
        """`note: str = ""` sent as null is dropped, so validation fills the default."""
        schema = compile_schema(Order)
        repaired = schema.drop_disallowed_nulls({"items": [{"name": "a", "count": None}], "note": None})
        assert repaired == {"items": [{"name": "a"}]}
        assert schema.validate(repaired) == Order(items=[Item(name="a", count=1)])

    def test_a_schema_with_nothing_to_repair_returns_the_same_object(self) -> None:
        """No optional non-nullable property: the hot path does no work at all."""
        schema = compile_schema({"type": "object", "properties": {"a": {"type": ["string", "null"]}}})
        value = {"a": None}
        assert schema.drop_disallowed_nulls(value) is value

    def test_scalars_and_untyped_arrays_are_returned_unchanged(self) -> None:
        """Only objects described by the schema are rewritten."""
        schema = compile_schema({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "array"}}})
        assert schema.drop_disallowed_nulls({"b": [None, {"a": None}]}) == {"b": [None, {"a": None}]}
        assert schema.drop_disallowed_nulls(3) == 3


class TestAcceptsNull:
    @pytest.mark.parametrize(
        ("schema", "expected"),
        [
            ({"type": "null"}, True),
            ({"type": "string"}, False),
            ({"type": ["string", "null"]}, True),
            ({"type": ["string", "integer"]}, False),
            ({"const": None}, True),
            ({"const": 0}, False),
            ({"enum": ["a", None]}, True),
            ({"enum": ["a"]}, False),
            ({"anyOf": [{"type": "string"}, {"type": "null"}]}, True),
            ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, False),
            ({"allOf": [{"type": ["string", "null"]}, {}]}, True),
            ({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]}, False),
            ({}, True),
            ({"description": "anything"}, True),
            ({"$ref": "#/$defs/S"}, False),
            ({"$ref": "#/$defs/N"}, True),
            ({"$ref": "#/$defs/Missing"}, True),
        ],
    )
    def test_accepts_null(self, schema: dict[str, Any], expected: bool) -> None:
        """Null acceptance follows JSON Schema; unresolvable refs count as accepting."""
        root = {"$defs": {"S": {"type": "string"}, "N": {"type": ["null", "integer"]}}}
        assert accepts_null(schema, root) is expected

    def test_a_self_referencing_ref_stops_at_the_depth_limit(self) -> None:
        """A ref cycle terminates, treated as accepting null."""
        root = {"$defs": {"A": {"$ref": "#/$defs/A"}}}
        assert accepts_null({"$ref": "#/$defs/A"}, root) is True


class TestCompileErrors:
    def test_an_invalid_schema_keyword_is_a_schema_error(self) -> None:
        """The meta-schema check runs at compile time."""
        with pytest.raises(SchemaError, match=r"^invalid JSON Schema: 'nope' is not valid under any of the given"):
            compile_schema({"type": "nope"})

    def test_a_schema_that_is_not_json_is_a_schema_error(self) -> None:
        """A set inside a dict schema cannot be sent to any provider."""
        with pytest.raises(SchemaError, match=r"^JSON Schema is not JSON-serializable: Object of type set"):
            compile_schema({"type": "object", "default": {1, 2}})

    def test_a_value_that_is_not_a_type_is_a_schema_error(self) -> None:
        """pydantic's own reason is included."""
        with pytest.raises(SchemaError, match=r"^cannot build a JSON Schema from 42: Unable to generate"):
            compile_schema(42)

    def test_a_schema_nested_past_the_limit_is_a_schema_error_not_a_recursion_error(self) -> None:
        """200 nested objects would exhaust the stack inside jsonschema's own schema check."""
        with pytest.raises(SchemaError) as caught:
            compile_schema(_nested_objects(200))
        assert str(caught.value) == (
            "JSON Schema nests objects and arrays more than 100 levels deep, past what its validator can "
            "check; flatten it, or describe a recursive shape with `$defs` and `$ref`"
        )

    def test_a_schema_at_the_depth_limit_compiles(self) -> None:
        """49 nested objects are 99 levels of dicts: accepted and checked."""
        schema = compile_schema(_nested_objects(49, leaf={"type": "integer", "description": "at the limit"}))
        assert nesting_depth(schema.json_schema, MAX_SCHEMA_DEPTH) == 99

    def test_a_schema_within_the_limit_checked_from_a_deep_stack_is_a_schema_error(self) -> None:
        """Deep in a caller's own stack the check may still run out of frames: that too is named."""

        def compile_at(depth: int) -> CompiledSchema:
            return compile_at(depth - 1) if depth else compile_schema(_nested_arrays(95, "from a deep stack"))

        with pytest.raises(SchemaError, match=r"^JSON Schema is nested too deeply to be checked this deep in the call"):
            compile_at(400)

    def test_a_value_nested_past_what_a_recursive_schema_can_follow_fails_validation(self) -> None:
        """A `$ref` to the root follows the value down; past Python's stack it is an issue, not a RecursionError."""
        schema = compile_schema({"type": "object", "additionalProperties": {"$ref": "#"}})
        value: dict[str, Any] = {}
        for _ in range(400):
            value = {"a": value}
        with pytest.raises(SchemaValidationError) as caught:
            schema.validate(value)
        assert caught.value.issues == [SchemaIssue((), "the value is nested too deeply to be validated")]

    def test_a_local_ref_pointing_nowhere_is_a_schema_error_naming_it_and_where(self) -> None:
        """Found when the schema is compiled, not as a crash of the first validation that reaches it."""
        with pytest.raises(SchemaError) as caught:
            compile_schema({"type": "object", "properties": {"a": {"items": {"$ref": "#/$defs/Gone"}}}})
        assert (
            str(caught.value)
            == "JSON Schema $ref '#/$defs/Gone' at /properties/a/items points to nothing in the schema"
        )

    def test_a_ref_key_inside_an_example_or_const_is_data_not_a_reference(self) -> None:
        schema = {
            "type": "object",
            "examples": [{"$ref": "#/nowhere"}],
            "properties": {"a": {"const": {"$ref": "#/x"}}},
        }
        assert compile_schema(schema).validate({"a": {"$ref": "#/x"}}) == {"a": {"$ref": "#/x"}}

    def test_a_remote_ref_that_cannot_be_fetched_fails_validation_with_an_issue(self) -> None:
        """toolwire fetches nothing: the value fails with an issue naming the reference, never a referencing error."""
        schema = compile_schema({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}})
        with pytest.raises(SchemaValidationError) as caught:
            schema.validate({"a": 1})
        assert caught.value.issues == [
            SchemaIssue((), "the schema's $ref cannot be resolved: Unresolvable: https://example.com/a.json")
        ]

    def test_a_ref_to_a_bundled_meta_schema_resolves(self) -> None:
        schema = compile_schema(
            {"type": "object", "properties": {"s": {"$ref": "http://json-schema.org/draft-07/schema#"}}}
        )
        assert schema.validate({"s": {"type": "string"}}) == {"s": {"type": "string"}}

    def test_nesting_depth_counts_dicts_and_lists_and_stops_past_the_limit(self) -> None:
        """Scalars add nothing; the walk ends as soon as the limit is passed."""
        assert nesting_depth({"a": [1, {"b": "x"}]}, 10) == 3
        assert nesting_depth("text", 10) == 0
        assert nesting_depth(_nested_arrays(50, "x"), 5) == 6

    def test_a_compiled_schema_compiles_to_itself(self) -> None:
        """Compiling is idempotent, so tools can share compiled schemas."""
        schema = compile_schema(Item)
        assert compile_schema(schema) is schema

    def test_is_object_reflects_the_root_type(self) -> None:
        """Only a root `type: object` counts as an object schema."""
        assert compile_schema(Item).is_object
        assert not compile_schema(list[int]).is_object
        assert not compile_schema({"properties": {}}).is_object


class TestRootRefs:
    def test_a_root_ref_dict_schema_is_inlined_and_unused_defs_dropped(self) -> None:
        """`{"$ref": "#/$defs/X", "$defs": ...}` becomes X itself; X leaves `$defs` when nothing else uses it."""
        schema = compile_schema(
            {
                "$ref": "#/$defs/Query",
                "description": "Search.",
                "$defs": {
                    "Query": {"type": "object", "properties": {"where": {"$ref": "#/$defs/Place"}}},
                    "Place": {"type": "string"},
                },
            }
        )
        assert schema.json_schema == {
            "type": "object",
            "properties": {"where": {"$ref": "#/$defs/Place"}},
            "$defs": {"Place": {"type": "string"}},
            "description": "Search.",
        }
        assert schema.validate({"where": "here"}) == {"where": "here"}

    def test_every_ref_still_resolves_after_inlining_mutually_recursive_models(self) -> None:
        """Person -> Company -> Person: the root's definition must stay while Company refers to it."""
        schema = compile_schema(Person).json_schema
        assert [ref for ref in _refs(schema) if resolve_ref(schema, ref) is None] == []

    def test_a_root_ref_with_a_dollar_schema_key_is_inlined(self) -> None:
        """Generated schemas (zod-to-json-schema, TypeBox) put `$schema` beside the root `$ref`."""
        schema = compile_schema(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": "#/$defs/Query",
                "$defs": {"Query": {"type": "object", "properties": {"q": {"type": "string"}}}},
            }
        )
        assert schema.is_object


class TestHelpers:
    @pytest.mark.parametrize(
        ("ref", "expected"),
        [
            ("#/$defs/a~1b", {"type": "integer"}),
            ("#/$defs/t~0n", {"type": "null"}),
            ("#/$defs/missing", None),
            ("other.json#/x", None),
            ("#/$defs/a~1b/type", None),
        ],
    )
    def test_resolve_ref_follows_local_json_pointers_only(self, ref: str, expected: Any) -> None:
        """`~1` is `/` and `~0` is `~`; remote and non-object targets resolve to None."""
        root = {"$defs": {"a/b": {"type": "integer"}, "t~n": {"type": "null"}}}
        assert resolve_ref(root, ref) == expected

    @pytest.mark.parametrize(
        ("value", "name"),
        [
            (None, "null"),
            (True, "boolean"),
            (1, "number"),
            (1.5, "number"),
            ("s", "string"),
            ([], "array"),
            ({}, "object"),
            (b"x", "bytes"),
        ],
    )
    def test_json_type_of_names_json_types(self, value: Any, name: str) -> None:
        """Messages say `boolean`, not `bool`, and a bool is never a number."""
        assert json_type_of(value) == name

    def test_deep_copy_json_detaches_every_container(self) -> None:
        """A copy shares no dict or list with its source."""
        source = {"a": [{"b": 1}], "c": "d"}
        copied = deep_copy_json(source)
        copied["a"][0]["b"] = 2
        assert source == {"a": [{"b": 1}], "c": "d"}
        assert copied == {"a": [{"b": 2}], "c": "d"}


def _nested_objects(levels: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = leaf or {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _nested_arrays(levels: int, description: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"a": schema}}


class TestPatternsAreBoundedInTime:
    """A pattern that backtracks without end (a hostile MCP server's schema, a careless one) cannot hang validation."""

    HOSTILE = "^(a|aa)+$"

    def test_a_value_a_pattern_cannot_settle_in_time_fails_with_an_issue_naming_it(self) -> None:
        schema = compile_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": self.HOSTILE}}})
        with pytest.raises(SchemaValidationError) as caught:
            schema.validate({"a": "a" * 60 + "c"})
        assert caught.value.issues == [
            SchemaIssue(("a",), "the value could not be matched against '^(a|aa)+$' in 0.25 s")
        ]

    def test_many_keys_against_hostile_property_patterns_share_one_budget(self) -> None:
        """200 keys that each would backtrack for minutes: the validation as a whole stops within its budget."""
        schema = compile_schema(
            {"type": "object", "patternProperties": {self.HOSTILE: {"type": "integer"}}, "additionalProperties": False}
        )
        keys = {"a" * 60 + f"c{index}": 1 for index in range(200)}
        with pytest.raises(SchemaValidationError) as caught:
            schema.validate(keys)
        assert {issue.message for issue in caught.value.issues} == {
            "the value could not be matched against '^(a|aa)+$' in 0.25 s"
        }

    def test_patterns_still_match_and_refuse_as_before(self) -> None:
        schema = compile_schema(
            {
                "type": "object",
                "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": False,
            }
        )
        assert schema.validate({"code": "ABC", "x-count": 2}) == {"code": "ABC", "x-count": 2}
        with pytest.raises(SchemaValidationError) as caught:
            schema.validate({"code": "abc", "x-count": "2", "other": 1})
        assert [str(issue) for issue in caught.value.issues] == [
            "at `(root)`: 'other' does not match any of the regexes: '^x-'",
            "at `code`: 'abc' does not match '^[A-Z]{3}$'",
            "at `x-count`: '2' is not of type 'integer'",
        ]
