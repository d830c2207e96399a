"""Property: instance → strict emission (absent → null, per the strict schema) → `normalize` gives the instance back.

Schemas are generated both as pydantic models and as JSON Schemas, with optionals, nested models,
lists, unions (of models, of a model and a list of it), discriminated unions (by tag and by
`discriminator.mapping` alone), `$ref`s, `allOf` wrappers and recursion. The emission is what the
provider's strict mode may produce: the value written against the OpenAI strict schema, any
branch of a union that accepts it, every property the value leaves out sent as `null`.
"""

from __future__ import annotations

import itertools
import json
from typing import Annotated, Any, Literal, Optional, Union

import jsonschema
import pydantic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Discriminator, Field, Tag

from toolwire import compile_schema, create_tool, get_adapter
from toolwire.events import ToolInputAvailable
from toolwire.schema import resolve_ref

Generated = tuple[Any, st.SearchStrategy[Any]]
"""A schema (or a type) and a strategy for JSON values it accepts."""

_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class NoBranchFits(Exception):
    """No branch of a strict union accepts the value."""


def emit(value: Any, node: dict[str, Any], root: dict[str, Any], data: st.DataObject) -> Any:
    """A strict emission of `value`: written against the strict schema, absent properties as null."""
    if "$ref" in node:
        target = resolve_ref(root, node["$ref"])
        assert target is not None, node
        return emit(value, target, root, data)
    if "anyOf" in node:
        validator = jsonschema.Draft202012Validator(root)
        fitting: list[Any] = []
        for branch in node["anyOf"]:
            try:
                emission = emit(value, branch, root, data)
            except NoBranchFits:
                continue
            if validator.evolve(schema=branch).is_valid(emission):
                fitting.append(emission)
        if not fitting:
            raise NoBranchFits(value, node)
        return data.draw(st.sampled_from(fitting))
    if isinstance(value, dict) and isinstance(node.get("properties"), dict):
        properties = node["properties"]
        undeclared = {k: v for k, v in value.items() if k not in properties}  # makes this branch not fit
        return {
            **{name: emit(value[name], sub, root, data) if name in value else None for name, sub in properties.items()},
            **undeclared,
        }
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [emit(item, node["items"], root, data) for item in value]
    return value


def round_trip(schema_source: Any, value: Any, data: st.DataObject) -> ToolInputAvailable:
    """The event `normalize` gives for a strict emission of `value` by the model (OpenAI Chat, strict tool)."""
    tool = create_tool(id="t", description="d", input_schema=schema_source, strict=True)
    adapter = get_adapter("openai-chat")
    function = adapter.encode_tools([tool])["tools"][0]["function"]
    assert function["strict"] is True
    strict_schema = function["parameters"]
    sent = emit(value, strict_schema, strict_schema, data)
    jsonschema.Draft202012Validator(strict_schema).validate(sent)
    call = {"id": "call_1", "type": "function", "function": {"name": "t", "arguments": json.dumps(sent)}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    body = {"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}
    events = list(adapter.normalize(json.dumps(body).encode(), tools=[tool]))
    available = [event for event in events if isinstance(event, ToolInputAvailable)]
    assert len(available) == 1, events
    return available[0]


# -- JSON Schemas -----------------------------------------------------------------------------------

_POINT = {
    "type": "object",
    "properties": {
        "x": {"type": "integer"},
        "label": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["x"],
}
_TREE = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "size": {"type": "integer", "minimum": 0},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
    },
    "required": ["name"],
}
_DEFS = {
    "Point": _POINT,
    "Tree": _TREE,
    "Int": {"type": "object", "properties": {"kind": {"type": "string"}, "v": {"type": "integer"}}},
    "Maybe": {"type": "object", "properties": {"kind": {"type": "string"}, "v": {"type": ["integer", "null"]}}},
}


def _point_values() -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(
        {"x": st.integers(-5, 5)}, optional={"label": st.text(max_size=3), "tags": st.lists(st.text(max_size=2))}
    )


def _tree_values() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.fixed_dictionaries({"name": st.text(max_size=2)}, optional={"size": st.integers(0, 3)}),
        lambda children: st.fixed_dictionaries(
            {"name": st.text(max_size=2)},
            optional={"size": st.integers(0, 3), "children": st.lists(children, max_size=2)},
        ),
        max_leaves=4,
    )


_LEAVES: list[Generated] = [
    ({"type": "string"}, st.text(max_size=3)),
    ({"type": "string", "minLength": 1}, st.text(min_size=1, max_size=3)),
    ({"type": "integer"}, st.integers(-9, 9)),
    ({"type": "number"}, st.floats(-10, 10, allow_nan=False)),
    ({"type": "boolean"}, st.booleans()),
    ({"enum": ["x", "y"]}, st.sampled_from(["x", "y"])),
    ({"const": "k"}, st.just("k")),
    ({"type": ["string", "null"]}, st.one_of(st.none(), st.text(max_size=2))),
    ({"$ref": "#/$defs/Point"}, _point_values()),
    ({"allOf": [{"$ref": "#/$defs/Point"}], "description": "A point"}, _point_values()),
    ({"$ref": "#/$defs/Tree"}, _tree_values()),
]


@st.composite
def _node(draw: st.DrawFn, depth: int) -> Generated:
    if depth >= 3:
        return draw(st.sampled_from(_LEAVES))
    kind = draw(
        st.sampled_from(["leaf", "leaf", "object", "array", "optional", "model_or_list", "tagged", "mapped", "scalars"])
    )
    if kind == "leaf":
        return draw(st.sampled_from(_LEAVES))
    if kind == "object":
        return draw(_object(depth + 1))
    if kind == "array":
        items, values = draw(_node(depth + 1))
        return {"type": "array", "items": items}, st.lists(values, max_size=2)
    if kind == "optional":
        inner, values = draw(_node(depth + 1))
        return {"anyOf": [inner, {"type": "null"}], "default": None}, st.one_of(st.none(), values)
    if kind == "model_or_list":
        model, values = draw(_object(depth + 1))
        schema = {"anyOf": [model, {"type": "array", "items": model}, {"type": "null"}]}
        return schema, st.one_of(values, st.lists(values, max_size=2), st.none())
    if kind == "tagged":
        return draw(_tagged_union(depth + 1))
    if kind == "mapped":
        return _MAPPED_UNION
    (first, first_values), (second, second_values) = draw(st.sampled_from(_LEAVES)), draw(st.sampled_from(_LEAVES))
    return {"anyOf": [first, second]}, st.one_of(first_values, second_values)


@st.composite
def _object(draw: st.DrawFn, depth: int, extra: dict[str, Generated] | None = None) -> Generated:
    """An object; optional properties that accept null are always present in values (absent ≡ null there)."""
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), unique=True, max_size=3))
    properties: dict[str, Any] = {}
    required: list[str] = []
    present: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name in names:
        schema, values = draw(_node(depth))
        properties[name] = schema
        if draw(st.booleans()):
            required.append(name)
            present[name] = values
        elif jsonschema.Draft202012Validator({**schema, "$defs": _DEFS}).is_valid(None):
            present[name] = values
        else:
            optional[name] = values
    for name, (schema, values) in (extra or {}).items():
        properties[name] = schema
        required.append(name)
        present[name] = values
    return {"type": "object", "properties": properties, "required": required}, st.fixed_dictionaries(
        present, optional=optional
    )


@st.composite
def _tagged_union(draw: st.DrawFn, depth: int) -> Generated:
    """pydantic's `Field(discriminator=...)`: branches carry a `const` tag (and the mapping names them)."""
    branches = [draw(_object(depth, {"kind": ({"const": tag, "type": "string"}, st.just(tag))})) for tag in "pq"]
    schema = {"oneOf": [b for b, _ in branches], "discriminator": {"propertyName": "kind"}}
    return schema, st.one_of(*(v for _, v in branches))


_MAPPED_UNION: Generated = (
    {
        "anyOf": [{"$ref": "#/$defs/Int"}, {"$ref": "#/$defs/Maybe"}],
        "discriminator": {"propertyName": "kind", "mapping": {"i": "#/$defs/Int", "m": "#/$defs/Maybe"}},
    },
    st.one_of(
        st.fixed_dictionaries({"kind": st.just("i")}, optional={"v": st.integers(0, 3)}),
        st.fixed_dictionaries({"kind": st.just("m"), "v": st.one_of(st.none(), st.integers(0, 3))}),
    ),
)
"""Branches told apart by `discriminator.mapping` alone: same keys, but `v` refuses null in `Int` only."""


@_SETTINGS
@given(st.data())
def test_a_json_schema_instance_survives_strict_emission_and_repair(data: st.DataObject) -> None:
    """Exact round trip: every null the emission added for an absent optional property is dropped again."""
    schema, values = data.draw(_object(0))
    schema = {**schema, "$defs": _DEFS}
    value = data.draw(values)
    jsonschema.Draft202012Validator(schema).validate(value)
    assert round_trip(schema, value, data).input == value


# -- pydantic models --------------------------------------------------------------------------------

_MODELS = itertools.count()


class TreeModel(pydantic.BaseModel):
    name: str
    size: int = 0
    children: list[TreeModel] = []


def _tree_model_values() -> st.SearchStrategy[Any]:
    return _tree_values()


_SCALARS: list[Generated] = [
    (int, st.integers(-9, 9)),
    (str, st.text(max_size=3)),
    (bool, st.booleans()),
    (float, st.floats(-10, 10, allow_nan=False)),
    (Literal["x", "y"], st.sampled_from(["x", "y"])),
    (TreeModel, _tree_model_values()),
]


@st.composite
def _field_type(draw: st.DrawFn, depth: int) -> Generated:
    """An annotation and a strategy for JSON values pydantic validates into it."""
    if depth >= 3:
        return draw(st.sampled_from(_SCALARS))
    kind = draw(
        st.sampled_from(["scalar", "scalar", "list", "optional", "model", "model_or_list", "tagged", "callable"])
    )
    if kind == "scalar":
        return draw(st.sampled_from(_SCALARS))
    if kind == "list":
        inner, values = draw(_field_type(depth + 1))
        return list[inner], st.lists(values, max_size=2)  # type: ignore[valid-type]
    if kind == "optional":
        inner, values = draw(_field_type(depth + 1))
        return Optional[inner], st.one_of(st.none(), values)  # type: ignore[valid-type]  # noqa: UP045
    if kind == "model":
        return draw(_model(depth + 1))
    if kind == "model_or_list":
        model, values = draw(_model(depth + 1))
        return Union[model, list[model], None], st.one_of(values, st.lists(values, max_size=2), st.none())  # type: ignore[valid-type]  # noqa: UP007
    if kind == "tagged":
        first, first_values = draw(_model(depth + 1, tag=("kind", "p")))
        second, second_values = draw(_model(depth + 1, tag=("kind", "q")))
        annotation = Annotated[Union[first, second], Field(discriminator="kind")]  # type: ignore[valid-type]  # noqa: UP007
        return annotation, st.one_of(first_values, second_values)
    first, first_values = draw(_model(depth + 1, tag=("t", "a"), plain_tag=True))
    second, second_values = draw(_model(depth + 1, tag=("t", "b"), plain_tag=True))
    annotation = Annotated[
        Union[Annotated[first, Tag("a")], Annotated[second, Tag("b")]],  # type: ignore[valid-type]  # noqa: UP007
        Discriminator(_tag_of),
    ]
    return annotation, st.one_of(first_values, second_values)


def _tag_of(value: Any) -> Any:
    return value.get("t") if isinstance(value, dict) else getattr(value, "t", None)


@st.composite
def _model(draw: st.DrawFn, depth: int, tag: tuple[str, str] | None = None, *, plain_tag: bool = False) -> Generated:
    """A fresh model; optional fields have a non-null default, or None when they accept null."""
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3))
    fields: dict[str, Any] = {}
    present: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name in names:
        annotation, values = draw(_field_type(depth))
        if draw(st.booleans()):
            fields[name] = (annotation, ...)
            present[name] = values
            continue
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(annotation)
        default = None if _accepts_none(adapter) else draw(values)
        fields[name] = (annotation, Field(default=adapter.validate_python(default)))
        optional[name] = values
    if tag is not None:
        key, label = tag
        # A callable discriminator reads a plain string field, which the JSON Schema cannot tie to a
        # branch: a required field of its own tells the branches apart (the keys a strict emission carries).
        fields[key] = (str, ...) if plain_tag else (Literal[label], ...)
        present[key] = st.just(label)
        if plain_tag:
            fields[f"only_{label}"] = (int, ...)
            present[f"only_{label}"] = st.integers(0, 3)
    model = pydantic.create_model(f"M{next(_MODELS)}", **fields)
    return model, st.fixed_dictionaries(present, optional=optional)


def _accepts_none(adapter: pydantic.TypeAdapter[Any]) -> bool:
    try:
        adapter.validate_python(None)
    except pydantic.ValidationError:
        return False
    return True


@_SETTINGS
@given(st.data())
def test_a_pydantic_instance_survives_strict_emission_and_repair(data: st.DataObject) -> None:
    """The repaired emission validates into the same model instance as the original value."""
    model, values = data.draw(_model(0))
    value = data.draw(values)
    assert round_trip(model, value, data).validated_input == compile_schema(model).validate(value)
