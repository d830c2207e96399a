"""Strict-mode null repair (`CompiledSchema.drop_disallowed_nulls`) on every shape the strict transforms emit.

Strict mode (OpenAI) makes every property required: the model sends `null` for each optional
property it leaves out. Repair must give back the value the user's schema defines.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pydantic
import pytest
from pydantic import Discriminator, Field, Tag

from toolwire import compile_schema


class Filter(pydantic.BaseModel):
    field: str
    op: str = "eq"


class Search(pydantic.BaseModel):
    filters: list[Filter] | None = None


class Leaf(pydantic.BaseModel):
    name: str
    note: str = ""


class Tree(pydantic.BaseModel):
    leaf: Leaf | list[Leaf] | None = None


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    lives: int = 1
    bark: str = "woof"


class Owner(pydantic.BaseModel):
    pet: Cat | Dog = Field(discriminator="kind")


def _tag_of(value: Any) -> Any:
    return value.get("t") if isinstance(value, dict) else getattr(value, "t", None)


class Plain(pydantic.BaseModel):
    t: str
    size: int = 0


class Fancy(pydantic.BaseModel):
    t: str
    size: int = 0
    color: str = "red"


class Holder(pydantic.BaseModel):
    item: Annotated[Annotated[Plain, Tag("plain")] | Annotated[Fancy, Tag("fancy")], Discriminator(_tag_of)]


class Node(pydantic.BaseModel):
    name: str
    weight: int = 1
    children: list[Node] = []


class TestPydanticShapes:
    def test_objects_inside_an_optional_list(self) -> None:
        """`Optional[list[Filter]]`: the array branch of the anyOf is followed into its items."""
        repaired = compile_schema(Search).drop_disallowed_nulls({"filters": [{"field": "a", "op": None}]})
        assert repaired == {"filters": [{"field": "a"}]}

    def test_a_list_in_a_union_of_a_model_and_a_list_of_it(self) -> None:
        """`Union[Leaf, list[Leaf], None]` with a list: the array branch is chosen by the JSON type."""
        repaired = compile_schema(Tree).drop_disallowed_nulls({"leaf": [{"name": "a", "note": None}]})
        assert repaired == {"leaf": [{"name": "a"}]}

    def test_a_model_in_a_union_of_a_model_and_a_list_of_it(self) -> None:
        """`Union[Leaf, list[Leaf], None]` with an object: the model branch is chosen."""
        repaired = compile_schema(Tree).drop_disallowed_nulls({"leaf": {"name": "a", "note": None}})
        assert repaired == {"leaf": {"name": "a"}}

    def test_a_discriminated_union_branch_is_chosen_by_its_tag(self) -> None:
        """`Field(discriminator="kind")`: the `dog` branch, whose optional fields arrive as null."""
        repaired = compile_schema(Owner).drop_disallowed_nulls({"pet": {"kind": "dog", "lives": None, "bark": None}})
        assert repaired == {"pet": {"kind": "dog"}}
        assert compile_schema(Owner).validate(repaired) == Owner(pet=Dog(kind="dog"))

    def test_a_callable_discriminator_branch_is_chosen_by_the_keys_a_strict_emission_carries(self) -> None:
        """No tag in the schema: the branch whose properties are exactly the emitted keys."""
        schema = compile_schema(Holder)
        assert schema.drop_disallowed_nulls({"item": {"t": "fancy", "size": None, "color": None}}) == {
            "item": {"t": "fancy"}
        }
        assert schema.drop_disallowed_nulls({"item": {"t": "plain", "size": None}}) == {"item": {"t": "plain"}}

    def test_a_recursive_model_is_repaired_at_every_level(self) -> None:
        """`children: list[Node]` refers to the root's own definition."""
        sent = {"name": "a", "weight": None, "children": [{"name": "b", "weight": None, "children": None}]}
        repaired = compile_schema(Node).drop_disallowed_nulls(sent)
        assert repaired == {"name": "a", "children": [{"name": "b"}]}


_POINT = {"type": "object", "properties": {"x": {"type": "integer"}, "label": {"type": "string"}}, "required": ["x"]}


def _with_point(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "$defs": {"Point": _POINT}}


class TestJsonSchemaShapes:
    def test_a_ref_wrapped_in_a_one_branch_all_of(self) -> None:
        """`allOf: [{"$ref"}]` with a description (pydantic v1, many generators) is followed."""
        schema = _with_point({"at": {"allOf": [{"$ref": "#/$defs/Point"}], "description": "Where"}})
        assert compile_schema(schema).drop_disallowed_nulls({"at": {"x": 1, "label": None}}) == {"at": {"x": 1}}

    def test_every_all_of_branch_applies_at_once(self) -> None:
        """A property one branch requires keeps its null; one that no branch requires loses it."""
        schema = _with_point(
            {
                "p": {
                    "allOf": [
                        {"type": "object", "properties": {"a": {"type": "string"}}},
                        {"type": "object", "properties": {"a": {}, "b": {"type": "string"}}, "required": ["a"]},
                    ]
                }
            }
        )
        assert compile_schema(schema).drop_disallowed_nulls({"p": {"a": None, "b": None}}) == {"p": {"a": None}}

    def test_a_discriminator_mapping_chooses_between_branches_of_the_same_shape(self) -> None:
        """Both branches have `kind` and `v`; only the mapping says that `v` refuses null in `Int`."""
        schema = {
            "type": "object",
            "properties": {
                "value": {
                    "anyOf": [{"$ref": "#/$defs/Int"}, {"$ref": "#/$defs/Maybe"}],
                    "discriminator": {"propertyName": "kind", "mapping": {"i": "#/$defs/Int", "m": "#/$defs/Maybe"}},
                }
            },
            "required": ["value"],
            "$defs": {
                "Int": {"type": "object", "properties": {"kind": {"type": "string"}, "v": {"type": "integer"}}},
                "Maybe": {
                    "type": "object",
                    "properties": {"kind": {"type": "string"}, "v": {"type": ["integer", "null"]}},
                },
            },
        }
        compiled = compile_schema(schema)
        assert compiled.drop_disallowed_nulls({"value": {"kind": "i", "v": None}}) == {"value": {"kind": "i"}}
        assert compiled.drop_disallowed_nulls({"value": {"kind": "m", "v": None}}) == {
            "value": {"kind": "m", "v": None}
        }

    def test_a_tie_between_branches_is_settled_by_the_branch_the_repaired_value_satisfies(self) -> None:
        """Same keys, no tag: only the integer branch accepts `n: 3`, so its optional `s` is dropped."""
        schema = {
            "type": "object",
            "properties": {
                "v": {
                    "anyOf": [
                        {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}},
                        {"type": "object", "properties": {"n": {"type": "string"}, "s": {"type": ["string", "null"]}}},
                    ]
                }
            },
            "required": ["v"],
        }
        compiled = compile_schema(schema)
        assert compiled.drop_disallowed_nulls({"v": {"n": 3, "s": None}}) == {"v": {"n": 3}}
        assert compiled.drop_disallowed_nulls({"v": {"n": "3", "s": None}}) == {"v": {"n": "3", "s": None}}

    def test_an_anchor_reference_is_followed(self) -> None:
        """`{"$ref": "#point"}` resolves through `$anchor`."""
        schema = {
            "type": "object",
            "properties": {"at": {"$ref": "#point"}},
            "required": ["at"],
            "$defs": {"P": {**_POINT, "$anchor": "point"}},
        }
        assert compile_schema(schema).drop_disallowed_nulls({"at": {"x": 1, "label": None}}) == {"at": {"x": 1}}

    def test_a_reference_into_properties_is_followed(self) -> None:
        """`#/properties/home` pointers (outside `$defs`) resolve like any other."""
        schema = {
            "type": "object",
            "properties": {"home": _POINT, "work": {"$ref": "#/properties/home"}},
            "required": ["home", "work"],
        }
        sent = {"home": {"x": 1, "label": None}, "work": {"x": 2, "label": None}}
        assert compile_schema(schema).drop_disallowed_nulls(sent) == {"home": {"x": 1}, "work": {"x": 2}}

    def test_tuple_positions_are_repaired_by_their_own_schema(self) -> None:
        """`prefixItems`: the object at position 1 follows its own schema."""
        schema = _with_point(
            {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/Point"}]}}
        )
        assert compile_schema(schema).drop_disallowed_nulls({"pair": ["a", {"x": 1, "label": None}]}) == {
            "pair": ["a", {"x": 1}]
        }

    def test_values_of_a_typed_map_are_repaired(self) -> None:
        """`additionalProperties: {schema}` describes every other key."""
        schema = {"type": "object", "additionalProperties": {"$ref": "#/$defs/Point"}, "$defs": {"Point": _POINT}}
        assert compile_schema(schema).drop_disallowed_nulls({"a": {"x": 1, "label": None}}) == {"a": {"x": 1}}

    def test_a_null_for_a_property_a_sibling_type_refuses_is_dropped(self) -> None:
        """`{"$ref": X, "type": "string"}`: the sibling refuses null even though X accepts it."""
        schema = {
            "type": "object",
            "properties": {"s": {"$ref": "#/$defs/Any", "type": "string"}},
            "$defs": {"Any": {"type": ["string", "null"]}},
        }
        assert compile_schema(schema).drop_disallowed_nulls({"s": None}) == {}

    @pytest.mark.parametrize("depth", [10, 200])
    def test_a_self_referencing_union_terminates(self, depth: int) -> None:
        """`A = anyOf[A-list, A-object]` nested deep: the walk is bounded and leaves what it cannot reach."""
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {
                    "anyOf": [
                        {"type": "array", "items": {"$ref": "#/$defs/A"}},
                        {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "s": {"type": "string"}}},
                    ]
                }
            },
        }
        value: Any = {"s": None}
        for _ in range(depth):
            value = [value]
        repaired = compile_schema(schema).drop_disallowed_nulls({"a": value})
        innermost = repaired["a"]
        while isinstance(innermost, list):
            innermost = innermost[0]
        assert innermost == ({} if depth < 60 else {"s": None})
