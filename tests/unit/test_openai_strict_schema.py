"""The OpenAI strict-mode schema transform (`toolwire.adapters.openai._strict.to_strict_schema`)."""

from __future__ import annotations

import copy
from enum import StrEnum
from typing import Any, Literal

import jsonschema
import pydantic
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolwire.adapters.openai._strict import StrictResult, to_strict_schema
from toolwire.schema import compile_schema


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    result = to_strict_schema(schema)
    assert result.schema is not None, result.reasons
    return result.schema


class TestObjects:
    def test_every_object_is_closed_and_requires_every_property(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "inner": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            },
            "required": ["city", "inner"],
        }
        assert strict(schema) == {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "inner": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}},
                    "required": ["a"],
                    "additionalProperties": False,
                },
            },
            "required": ["city", "inner"],
            "additionalProperties": False,
        }

    def test_a_root_without_properties_becomes_an_empty_closed_object(self) -> None:
        assert strict({"type": "object"}) == {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        }

    def test_a_nested_object_without_properties_cannot_be_strict(self) -> None:
        result = to_strict_schema({"type": "object", "properties": {"meta": {"type": "object"}}, "required": ["meta"]})
        assert result == StrictResult(
            None, reasons=("`$.meta` is an object that declares no properties (any keys allowed)",)
        )

    def test_an_open_dict_cannot_be_strict(self) -> None:
        result = to_strict_schema(
            {"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": True}}}
        )
        assert result.schema is None
        assert result.reasons == ("`$.meta` accepts any extra keys through additionalProperties",)

    def test_a_map_with_typed_values_cannot_be_strict(self) -> None:
        result = to_strict_schema(
            {
                "type": "object",
                "properties": {"scores": {"type": "object", "additionalProperties": {"type": "integer"}}},
            }
        )
        assert result.reasons == ("`$.scores` accepts free-form keys (a map) through additionalProperties",)

    def test_pattern_properties_cannot_be_strict(self) -> None:
        result = to_strict_schema({"type": "object", "patternProperties": {"^x": {"type": "string"}}})
        assert result.reasons == (
            "`$` constrains free-form keys (patternProperties), which strict mode cannot express",
        )


class TestOptionalProperties:
    def test_an_optional_scalar_becomes_a_type_list_with_null(self) -> None:
        schema = {"type": "object", "properties": {"unit": {"type": "string", "description": "C or F"}}}
        assert strict(schema)["properties"] == {"unit": {"type": ["string", "null"], "description": "C or F"}}

    def test_an_optional_enum_is_wrapped_in_any_of_with_the_description_outside(self) -> None:
        schema = {
            "type": "object",
            "properties": {"unit": {"enum": ["c", "f"], "type": "string", "description": "Unit"}},
        }
        assert strict(schema)["properties"] == {
            "unit": {"anyOf": [{"enum": ["c", "f"], "type": "string"}, {"type": "null"}], "description": "Unit"}
        }

    def test_an_optional_object_is_wrapped_in_any_of(self) -> None:
        schema = {"type": "object", "properties": {"p": {"type": "object", "properties": {}}}}
        assert strict(schema)["properties"] == {
            "p": {
                "anyOf": [
                    {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
                    {"type": "null"},
                ]
            }
        }

    def test_an_optional_reference_is_any_of_the_reference_and_null(self) -> None:
        schema = {
            "type": "object",
            "properties": {"home": {"$ref": "#/$defs/Address"}},
            "$defs": {
                "Address": {"type": "object", "properties": {"street": {"type": "string"}}, "required": ["street"]}
            },
        }
        assert strict(schema)["properties"] == {"home": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}}

    def test_an_optional_any_of_gets_a_null_branch(self) -> None:
        schema = {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}
        assert strict(schema)["properties"] == {
            "v": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}
        }

    def test_an_optional_property_that_accepts_null_is_not_wrapped_again(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}},
        }
        assert strict(schema)["properties"] == {"v": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}

    def test_the_null_the_model_sends_for_an_optional_property_reads_back_as_absent(self) -> None:
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        }
        compiled = compile_schema(schema)
        jsonschema.validate({"city": "Paris", "unit": None}, strict(schema))
        assert compiled.drop_disallowed_nulls({"city": "Paris", "unit": None}) == {"city": "Paris"}


class TestKeywords:
    def test_one_of_becomes_any_of(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "string"}]}},
            "required": ["v"],
        }
        assert strict(schema)["properties"] == {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}

    def test_a_single_all_of_is_inlined(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"allOf": [{"$ref": "#/$defs/N"}], "description": "A number"}},
            "required": ["v"],
            "$defs": {"N": {"type": "integer"}},
        }
        assert strict(schema)["properties"] == {"v": {"anyOf": [{"$ref": "#/$defs/N"}], "description": "A number"}}

    def test_an_all_of_with_several_branches_cannot_be_strict(self) -> None:
        schema = {
            "type": "object",
            "properties": {"v": {"allOf": [{"type": "integer"}, {"minimum": 1}]}},
            "required": ["v"],
        }
        assert to_strict_schema(schema).reasons == (
            "`$.v` combines schemas with allOf, which strict mode cannot express",
        )

    def test_a_reference_with_siblings_is_wrapped(self) -> None:
        schema = {
            "type": "object",
            "properties": {"to": {"$ref": "#/$defs/A", "description": "Recipient", "title": "To"}},
            "required": ["to"],
            "$defs": {"A": {"type": "string"}},
        }
        assert strict(schema)["properties"] == {
            "to": {"anyOf": [{"$ref": "#/$defs/A"}], "description": "Recipient", "title": "To"}
        }

    def test_const_becomes_a_one_value_enum(self) -> None:
        schema = {"type": "object", "properties": {"kind": {"const": "circle", "type": "string"}}, "required": ["kind"]}
        assert strict(schema)["properties"] == {"kind": {"type": "string", "enum": ["circle"]}}

    def test_a_default_moves_into_the_description(self) -> None:
        schema = {
            "type": "object",
            "properties": {"n": {"type": "integer", "default": 3, "description": "How many"}},
            "required": ["n"],
        }
        result = to_strict_schema(schema)
        assert result.schema is not None
        assert result.schema["properties"] == {"n": {"type": "integer", "description": "How many. Default: 3."}}
        assert result.lossless

    def test_examples_move_into_the_description(self) -> None:
        schema = {
            "type": "object",
            "properties": {"q": {"type": "string", "examples": ["rust", "go"]}},
            "required": ["q"],
        }
        assert strict(schema)["properties"] == {"q": {"type": "string", "description": 'Examples: ["rust", "go"].'}}

    def test_annotations_without_meaning_for_the_model_are_dropped(self) -> None:
        schema = {
            "type": "object",
            "properties": {"q": {"type": "string", "deprecated": True, "readOnly": False, "x-order": 1}},
            "required": ["q"],
        }
        assert strict(schema)["properties"] == {"q": {"type": "string"}}

    def test_supported_constraints_are_kept(self) -> None:
        prop = {"type": "string", "pattern": "^[a-z]+$", "format": "email"}
        number = {"type": "number", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5}
        array = {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
        schema = {"type": "object", "properties": {"s": prop, "n": number, "a": array}, "required": ["s", "n", "a"]}
        result = to_strict_schema(schema)
        assert result.schema is not None
        assert result.schema["properties"] == {"s": prop, "n": number, "a": array}
        assert result.lossless


class TestRelaxedConstraints:
    def test_unsupported_constraints_move_into_the_description_and_are_listed(self) -> None:
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 2, "maxLength": 8}},
            "required": ["name"],
        }
        result = to_strict_schema(schema)
        assert result.schema is not None
        assert result.schema["properties"] == {
            "name": {"type": "string", "description": "Constraints: minLength=2, maxLength=8."}
        }
        assert result.relaxed == ("`$.name` minLength=2", "`$.name` maxLength=8")
        assert not result.lossless

    def test_an_unsupported_format_moves_into_the_description(self) -> None:
        schema = {
            "type": "object",
            "properties": {"site": {"type": "string", "format": "uri", "description": "Home page"}},
            "required": ["site"],
        }
        result = to_strict_schema(schema)
        assert result.schema is not None
        assert result.schema["properties"] == {
            "site": {"type": "string", "description": 'Home page. Constraints: format="uri".'}
        }
        assert result.relaxed == ('`$.site` format="uri"',)


class TestInexpressible:
    def test_an_untyped_property_cannot_be_strict(self) -> None:
        result = to_strict_schema({"type": "object", "properties": {"anything": {}}, "required": ["anything"]})
        assert result.reasons == ("`$.anything` accepts any JSON value (it has no type)",)

    def test_an_array_without_items_cannot_be_strict(self) -> None:
        result = to_strict_schema({"type": "object", "properties": {"xs": {"type": "array"}}, "required": ["xs"]})
        assert result.reasons == ("`$.xs` is an array whose items have no schema",)

    def test_a_tuple_cannot_be_strict(self) -> None:
        schema = {
            "type": "object",
            "properties": {"p": {"type": "array", "prefixItems": [{"type": "integer"}]}},
            "required": ["p"],
        }
        assert to_strict_schema(schema).reasons[0] == "`$.p` is a tuple (prefixItems), which strict mode cannot express"

    def test_a_remote_reference_cannot_be_strict(self) -> None:
        schema = {"type": "object", "properties": {"p": {"$ref": "https://example.com/s.json"}}, "required": ["p"]}
        assert to_strict_schema(schema).reasons == (
            "`$.p` uses a $ref outside the schema ('https://example.com/s.json')",
        )

    def test_every_reason_is_reported(self) -> None:
        schema = {"type": "object", "properties": {"a": {}, "b": {"type": "array"}}, "required": ["a", "b"]}
        assert to_strict_schema(schema).reasons == (
            "`$.a` accepts any JSON value (it has no type)",
            "`$.b` is an array whose items have no schema",
        )


class TestDefinitions:
    def test_definitions_are_rewritten_in_place(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "required": ["a"],
            "$defs": {
                "A": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                    "required": ["x"],
                }
            },
        }
        assert strict(schema)["$defs"] == {
            "A": {
                "type": "object",
                "properties": {
                    "x": {"type": "integer"},
                    "y": {"type": ["integer", "null"], "description": "Default: 0."},
                },
                "required": ["x", "y"],
                "additionalProperties": False,
            }
        }

    def test_a_recursive_schema_stays_recursive(self) -> None:
        schema = {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                    "required": ["name", "children"],
                }
            },
        }
        node = strict(schema)["$defs"]["Node"]
        assert node["properties"]["children"] == {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        assert node["additionalProperties"] is False

    def test_the_input_schema_is_never_modified(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "x"},
                "b": {"oneOf": [{"type": "integer"}], "default": 1},
            },
            "$defs": {"A": {"type": "object", "properties": {"x": {"const": 1}}}},
        }
        before = copy.deepcopy(schema)
        to_strict_schema(schema)
        assert schema == before


class Unit(StrEnum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Address(pydantic.BaseModel):
    """Where to deliver."""

    street: str
    zip_code: str | None = None


class Order(pydantic.BaseModel):
    """An order."""

    item: str = pydantic.Field(description="What to buy")
    quantity: int = 1
    unit: Unit = Unit.CELSIUS
    ship_to: Address
    gift: Literal["yes", "no"] | None = None


def test_a_pydantic_model_with_nested_models_enums_and_defaults() -> None:
    assert strict(compile_schema(Order).json_schema) == {
        "$defs": {
            "Address": {
                "description": "Where to deliver.",
                "properties": {
                    "street": {"type": "string"},
                    "zip_code": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["street", "zip_code"],
                "title": "Address",
                "type": "object",
                "additionalProperties": False,
            },
            "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
        },
        "description": "An order.",
        "properties": {
            "item": {"description": "What to buy", "type": "string"},
            "quantity": {"type": ["integer", "null"], "description": "Default: 1."},
            "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}], "description": 'Default: "celsius".'},
            "ship_to": {"$ref": "#/$defs/Address"},
            "gift": {"anyOf": [{"enum": ["yes", "no"], "type": "string"}, {"type": "null"}]},
        },
        "required": ["item", "quantity", "unit", "ship_to", "gift"],
        "title": "Order",
        "type": "object",
        "additionalProperties": False,
    }


def test_a_strict_pydantic_input_validates_after_null_repair() -> None:
    compiled = compile_schema(Order)
    sent = {
        "item": "tea",
        "quantity": None,
        "unit": None,
        "ship_to": {"street": "Main", "zip_code": None},
        "gift": None,
    }
    jsonschema.validate(sent, strict(compiled.json_schema))
    order = compiled.validate(compiled.drop_disallowed_nulls(sent))
    assert order == Order(item="tea", ship_to=Address(street="Main"))


def test_null_repair_inside_a_union_of_objects() -> None:
    """Strict mode makes the optional `note` of a union branch nullable; the null must read back as absent."""
    circle = {
        "type": "object",
        "properties": {"kind": {"const": "circle"}, "note": {"type": "string"}},
        "required": ["kind"],
    }
    square = {"type": "object", "properties": {"kind": {"const": "square"}}, "required": ["kind"]}
    schema = {"type": "object", "properties": {"shape": {"oneOf": [circle, square]}}, "required": ["shape"]}
    sent = {"shape": {"kind": "circle", "note": None}}
    jsonschema.validate(sent, strict(schema))
    assert compile_schema(schema).drop_disallowed_nulls(sent) == {"shape": {"kind": "circle"}}


def test_null_repair_inside_array_items() -> None:
    """Strict mode makes the optional `note` of each item nullable; the null must read back as absent."""
    item = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "note": {"type": "string"}},
        "required": ["text"],
    }
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": item}}, "required": ["items"]}
    sent = {"items": [{"text": "a", "note": None}]}
    jsonschema.validate(sent, strict(schema))
    assert compile_schema(schema).drop_disallowed_nulls(sent) == {"items": [{"text": "a"}]}


# -- properties: generated schemas --------------------------------------------------------------

_NAMES = ("a", "b", "c", "d")
Generated = tuple[dict[str, Any], st.SearchStrategy[Any]]


def _leaf() -> st.SearchStrategy[Generated]:
    return st.sampled_from(
        [
            ({"type": "string"}, st.text(max_size=4)),
            ({"type": "string", "enum": ["x", "y"]}, st.sampled_from(["x", "y"])),
            ({"type": "string", "minLength": 1}, st.text(min_size=1, max_size=4)),
            ({"type": "string", "format": "uri"}, st.just("https://example.com")),
            ({"type": "integer", "minimum": 0}, st.integers(0, 100)),
            ({"type": "number"}, st.floats(-1e6, 1e6, allow_nan=False)),
            ({"type": "boolean"}, st.booleans()),
            ({"const": "k"}, st.just("k")),
            ({"type": ["string", "null"]}, st.one_of(st.none(), st.text(max_size=3))),
            ({"$ref": "#/$defs/Point"}, st.fixed_dictionaries({"x": st.integers(), "y": st.integers()})),
        ]
    )


@st.composite
def _node(draw: st.DrawFn, depth: int) -> Generated:
    """A property schema."""
    if depth >= 2:
        return draw(_leaf())
    kind = draw(st.sampled_from(["leaf", "leaf", "array", "object", "nullable", "any_of", "one_of", "described_ref"]))
    if kind == "leaf":
        return draw(_leaf())
    if kind == "described_ref":
        return {"$ref": "#/$defs/Point", "description": "A point"}, st.fixed_dictionaries(
            {"x": st.integers(), "y": st.integers()}
        )
    if kind == "array":
        items, values = draw(_node(depth + 1))
        return {"type": "array", "items": items}, st.lists(values, max_size=2)
    if kind == "object":
        return draw(_object(depth + 1))
    if kind == "nullable":
        inner, values = draw(_node(depth + 1))
        return {"anyOf": [inner, {"type": "null"}]}, st.one_of(st.none(), values)
    if kind == "any_of":
        (first, first_values), (second, second_values) = draw(_leaf()), draw(_leaf())
        return {"anyOf": [first, second]}, st.one_of(first_values, second_values)
    left, left_values = draw(_object(depth + 1, tag="left"))
    right, right_values = draw(_object(depth + 1, tag="right"))
    return {"oneOf": [left, right]}, st.one_of(left_values, right_values)


@st.composite
def _object(draw: st.DrawFn, depth: int, tag: str | None = None) -> Generated:
    names = draw(st.lists(st.sampled_from(_NAMES), unique=True, max_size=3))
    properties: dict[str, Any] = {}
    required_values: dict[str, st.SearchStrategy[Any]] = {}
    optional_values: dict[str, st.SearchStrategy[Any]] = {}
    required: list[str] = []
    for name in names:
        schema, values = draw(_node(depth))
        if draw(st.booleans()):
            required.append(name)
            required_values[name] = values
        else:
            if draw(st.booleans()):
                schema = {**schema, "default": draw(values)}
            optional_values[name] = values
        properties[name] = schema
    if tag is not None:
        properties["tag"] = {"const": tag}
        required.append("tag")
        required_values["tag"] = st.just(tag)
    schema = {"type": "object", "properties": properties, "required": required}
    return schema, st.fixed_dictionaries(required_values, optional=optional_values)


@st.composite
def _root(draw: st.DrawFn) -> Generated:
    schema, values = draw(_object(0))
    point = {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
        "required": ["x", "y"],
    }
    return {**schema, "$defs": {"Point": point}}, values


_ALLOWED_KEYS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$ref", "$defs",
    "description", "title", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems",
}  # fmt: skip


def _assert_strict_rules(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _assert_strict_rules(item)
        return
    if not isinstance(node, dict):
        return
    assert set(node) <= _ALLOWED_KEYS, set(node) - _ALLOWED_KEYS
    if "$ref" in node:
        assert set(node) == {"$ref"}, node
    if node.get("type") == "object" or "properties" in node:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    for key in ("properties", "$defs"):
        for sub in node.get(key, {}).values():
            _assert_strict_rules(sub)
    for key in ("items", "anyOf"):
        if key in node:
            _assert_strict_rules(node[key])


def _fill(value: Any, schema: dict[str, Any], validator: Any, *, nullable_only: bool) -> Any:
    """What the model sends under strict mode for `value`: every absent property as null."""
    if "$ref" in schema:
        return _fill(
            value, validator.schema["$defs"][schema["$ref"].rsplit("/", 1)[1]], validator, nullable_only=nullable_only
        )
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branch = next(b for b in schema[key] if validator.evolve(schema=b).is_valid(value))
            return _fill(value, branch, validator, nullable_only=nullable_only)
    if isinstance(value, list):
        return [_fill(v, schema["items"], validator, nullable_only=nullable_only) for v in value]
    if isinstance(value, dict) and "properties" in schema:
        filled = {
            k: _fill(v, schema["properties"][k], validator, nullable_only=nullable_only) for k, v in value.items()
        }
        for name, sub in schema["properties"].items():
            if name not in value and (not nullable_only or validator.evolve(schema=sub).is_valid(None)):
                filled[name] = None
        return filled
    return value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_generated_schemas_satisfy_the_strict_rules_and_values_round_trip(data: st.DataObject) -> None:
    schema, values = data.draw(_root())
    result = to_strict_schema(schema)
    assert result.schema is not None, result.reasons
    _assert_strict_rules(result.schema)
    original = jsonschema.Draft202012Validator(schema)
    value = data.draw(values)
    assume(original.is_valid(value))
    sent = _fill(value, schema, original, nullable_only=False)
    assert jsonschema.Draft202012Validator(result.schema).is_valid(sent)
    repaired = compile_schema(schema).drop_disallowed_nulls(sent)
    assert original.is_valid(repaired)
    assert repaired == _fill(value, schema, original, nullable_only=True)
