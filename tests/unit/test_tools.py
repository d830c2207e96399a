"""Specification of `create_tool`: every definition error names the tool and the field; every schema source compiles."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import sys
import typing
from typing import Any, Literal, NotRequired

import pydantic
import pytest
from typing_extensions import TypedDict

from toolwire import ToolDefinitionError, create_tool
from toolwire.tools import InputExample


def _error(**overrides: Any) -> ToolDefinitionError:
    arguments: dict[str, Any] = {"id": "weather", "description": "Get the weather."}
    arguments.update(overrides)
    with pytest.raises(ToolDefinitionError) as caught:
        create_tool(**arguments)
    return caught.value


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(pydantic.BaseModel):
    city: str = pydantic.Field(description="City name")
    country: str | None = None


class Query(pydantic.BaseModel):
    """Weather query."""

    place: Place
    unit: Unit = Unit.CELSIUS
    days: Literal[1, 3, 7] = 1
    note: str | None = None
    value: int | str


class Node(pydantic.BaseModel):
    """A tree node."""

    name: str
    children: list[Node] = []


class Point(TypedDict):
    x: int
    label: NotRequired[str]


@dataclasses.dataclass
class Span:
    start: int
    unit: str = "day"


class TestRequiredFields:
    @pytest.mark.parametrize("bad_id", [None, "", "   ", 42])
    def test_a_missing_or_blank_id_is_refused_without_a_tool_name(self, bad_id: Any) -> None:
        """An id is required; the error says so and has no tool to name."""
        error = _error(id=bad_id)
        assert (error.tool_id, error.field) == (None, "id")
        assert str(error) == "tool without an id: `id` is required and must be a non-empty string"

    def test_an_id_without_any_ascii_letter_or_digit_is_refused(self) -> None:
        """No provider alphabet can carry an id made only of non-Latin script."""
        error = _error(id="天気")
        assert (error.tool_id, error.field) == ("天気", "id")
        assert error.problem == "has no ASCII letter or digit, so no provider can carry it even after mapping"

    def test_an_id_with_accents_is_accepted(self) -> None:
        """Accented letters transliterate to ASCII, so the id is carriable."""
        assert create_tool(id="météo", description="Weather.").id == "météo"

    @pytest.mark.parametrize("description", [None, "", " \n"])
    def test_a_missing_description_is_refused(self, description: Any) -> None:
        """The model needs a description to decide when to call the tool."""
        error = _error(description=description)
        assert str(error) == "tool 'weather': `description` is required: say what the tool does"


class TestSchemaErrors:
    @pytest.mark.parametrize(
        ("schema", "shown"),
        [
            (int, '{"type": "integer"}'),
            ({"type": "number"}, '{"type": "number"}'),
            (list[int], '{"items": {"type": "integer"}, "type": "array"}'),
        ],
    )
    def test_an_input_schema_neither_object_nor_string_is_refused_showing_the_schema(
        self, schema: Any, shown: str
    ) -> None:
        """Providers take object inputs, and free text for free-form tools; nothing else."""
        error = _error(input_schema=schema)
        assert (error.tool_id, error.field) == ("weather", "input_schema")
        assert error.problem == f"must be an object schema, or a string schema for a free-form tool (got {shown})"

    def test_an_invalid_json_schema_names_the_keyword_problem(self) -> None:
        """A dict that is not a valid JSON Schema is refused at definition time."""
        error = _error(input_schema={"type": "object", "properties": {"a": {"type": "strng"}}})
        assert error.field == "input_schema"
        assert error.problem.startswith("invalid JSON Schema: 'strng' is not valid")

    @pytest.mark.parametrize("field", ["output_schema", "suspend_schema", "resume_schema", "request_context_schema"])
    def test_every_optional_schema_names_its_own_field(self, field: str) -> None:
        """A bad secondary schema names the field it was given in."""
        error = _error(**{field: {"type": 5}})
        assert (error.tool_id, error.field) == ("weather", field)

    @pytest.mark.parametrize("field", ["input_schema", "output_schema", "resume_schema"])
    def test_a_schema_nested_past_the_depth_limit_names_the_tool_and_field(self, field: str) -> None:
        """150 nested objects are a definition error, never a RecursionError from the schema check."""
        schema: dict[str, Any] = {"type": "string"}
        for _ in range(150):
            schema = {"type": "object", "properties": {"child": schema}}
        error = _error(**{field: schema})
        assert (error.tool_id, error.field) == ("weather", field)
        assert error.problem == (
            "JSON Schema nests objects and arrays more than 100 levels deep, past what its validator can "
            "check; flatten it, or describe a recursive shape with `$defs` and `$ref`"
        )

    def test_a_type_pydantic_cannot_adapt_is_refused(self) -> None:
        """An arbitrary object is neither a type nor a JSON Schema."""
        error = _error(input_schema=object())
        assert error.field == "input_schema"
        assert error.problem.startswith("cannot build a JSON Schema from <object object")

    @pytest.mark.skipif(sys.version_info >= (3, 12), reason="pydantic accepts typing.TypedDict from Python 3.12")
    def test_a_typing_typed_dict_before_python_312_is_refused_with_pydantic_advice(self) -> None:
        """pydantic needs typing_extensions.TypedDict before 3.12; the error says which to use."""

        class Legacy(typing.TypedDict):
            a: int

        error = _error(input_schema=Legacy)
        assert error.field == "input_schema"
        assert "typing_extensions.TypedDict" in error.problem


_BAD_BACKGROUND = "`enabled` must be a bool and `timeout` a number of seconds"


class TestOptionErrors:
    @pytest.mark.parametrize(
        ("overrides", "field", "problem"),
        [
            ({"strict": "yes"}, "strict", "must be true, false or None, got 'yes'"),
            ({"require_approval": 1}, "require_approval", "must be true, false or None, got 1"),
            ({"to_model_output": "text"}, "to_model_output", "must be a function, got str"),
            ({"execute": 3}, "execute", "must be a function, got int"),
            ({"execute": lambda: None}, "execute", "must accept `(input)` or `(input, context)`"),
            ({"execute": lambda a, b, c: None}, "execute", "must accept `(input)` or `(input, context)`"),
            ({"provider_options": ["openai"]}, "provider_options", "must map provider names to option dicts"),
            ({"provider_options": {"openai": True}}, "provider_options['openai']", "must be a dict of options"),
            ({"input_examples": "city"}, "input_examples", 'must be a list of {"input": {...}} objects'),
            ({"input_examples": [{"city": "Paris"}]}, "input_examples[0]", 'must be {"input": {...}}'),
            ({"input_examples": [{"input": {}, "note": 1}]}, "input_examples[0]", 'must be {"input": {...}}'),
            ({"background": "yes"}, "background", "must be true, false or a dict of settings"),
            ({"background": {"timeout": "1s"}}, "background", _BAD_BACKGROUND),
            ({"background": {"enabled": 1}}, "background", _BAD_BACKGROUND),
            (
                {"target": {"url": "https://example.com"}, "execute": lambda i: i},
                "target",
                "replaces `execute`: give one or the other",
            ),
        ],
    )
    def test_a_malformed_option_names_the_field(self, overrides: dict[str, Any], field: str, problem: str) -> None:
        """Each malformed option is refused with the tool, the field and what is wrong."""
        error = _error(**overrides)
        assert (error.tool_id, error.field, error.problem) == ("weather", field, problem)

    def test_an_input_example_that_fails_the_schema_names_its_position_and_the_issue(self) -> None:
        """Examples are checked against the input schema, so the model never sees a wrong one."""
        error = _error(
            input_schema={"type": "object", "properties": {"days": {"type": "integer"}}},
            input_examples=[{"input": {"days": 1}}, {"input": {"days": "two"}}],
        )
        assert error.field == "input_examples[1]"
        assert error.problem == "does not match the input schema: at `days`: 'two' is not of type 'integer'"

    def test_an_execute_with_a_required_keyword_only_parameter_is_refused(self) -> None:
        """`execute(input, *, context)` can never be called as `execute(input, context)`: say so at definition."""

        def execute(value: Any, *, context: Any) -> Any:
            return value

        error = _error(execute=execute)
        assert (error.tool_id, error.field) == ("weather", "execute")

    def test_an_input_example_that_is_not_json_is_refused_naming_its_position(self) -> None:
        """An example the provider cannot be sent (a datetime) is a definition error, not a crash."""
        error = _error(input_examples=[{"input": {"when": datetime.datetime(2025, 1, 1)}}])
        assert error.field == "input_examples[0]"


class TestSchemaSources:
    def test_the_default_input_schema_is_an_empty_object(self) -> None:
        """A tool without inputs still sends an object schema."""
        tool = create_tool(id="now", description="The time.")
        assert tool.input_schema.json_schema == {"type": "object", "properties": {}}
        assert tool.input_schema.kind == "json-schema"

    def test_a_pydantic_model_keeps_nested_models_enums_literals_optionals_unions_defaults_and_descriptions(
        self,
    ) -> None:
        """Everything pydantic says about a model reaches the canonical schema, without per-field titles."""
        tool = create_tool(id="weather", description="Weather.", input_schema=Query)
        assert tool.input_schema.json_schema == {
            "$defs": {
                "Place": {
                    "properties": {
                        "city": {"description": "City name", "type": "string"},
                        "country": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                    },
                    "required": ["city"],
                    "title": "Place",
                    "type": "object",
                },
                "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
            },
            "description": "Weather query.",
            "properties": {
                "place": {"$ref": "#/$defs/Place"},
                "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
                "days": {"default": 1, "enum": [1, 3, 7], "type": "integer"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "value": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            },
            "required": ["place", "value"],
            "title": "Query",
            "type": "object",
        }
        assert tool.input_schema.kind == "pydantic"
        assert tool.input_schema.python_type is Query

    def test_a_pydantic_schema_validates_to_a_model_instance(self) -> None:
        """`execute` receives the typed value, with defaults and enum members applied."""
        tool = create_tool(id="weather", description="Weather.", input_schema=Query)
        value = tool.input_schema.validate({"place": {"city": "Oslo"}, "value": 3, "unit": "fahrenheit"})
        assert value == Query(place=Place(city="Oslo"), value=3, unit=Unit.FAHRENHEIT)

    def test_a_recursive_model_has_its_root_ref_inlined_and_keeps_its_defs(self) -> None:
        """Providers need an object at the root, so the root `$ref` is replaced by its target."""
        schema = create_tool(id="tree", description="Tree.", input_schema=Node).input_schema.json_schema
        node = {
            "description": "A tree node.",
            "properties": {
                "name": {"type": "string"},
                "children": {"default": [], "items": {"$ref": "#/$defs/Node"}, "type": "array"},
            },
            "required": ["name"],
            "title": "Node",
            "type": "object",
        }
        assert schema == {**node, "$defs": {"Node": node}}

    def test_a_typed_dict_compiles_with_its_required_keys(self) -> None:
        """A typing_extensions TypedDict is a schema source; NotRequired keys are optional."""
        schema = create_tool(id="p", description="P.", input_schema=Point).input_schema
        assert schema.json_schema == {
            "properties": {"x": {"type": "integer"}, "label": {"type": "string"}},
            "required": ["x"],
            "title": "Point",
            "type": "object",
        }
        assert schema.validate({"x": "3"}) == {"x": 3}

    def test_a_dataclass_compiles_and_validates_to_an_instance(self) -> None:
        """A dataclass is a schema source; its defaults become schema defaults."""
        schema = create_tool(id="s", description="S.", input_schema=Span).input_schema
        assert schema.json_schema == {
            "properties": {"start": {"type": "integer"}, "unit": {"default": "day", "type": "string"}},
            "required": ["start"],
            "title": "Span",
            "type": "object",
        }
        assert schema.validate({"start": 2}) == Span(start=2)

    def test_a_json_schema_dict_is_kept_as_given_and_validates_to_itself(self) -> None:
        """A dict schema is canonical as written; validation returns the JSON value unchanged."""
        source = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        schema = create_tool(id="w", description="W.", input_schema=source).input_schema
        assert schema.json_schema == source
        assert schema.json_schema is not source
        assert schema.kind == "json-schema"
        value = {"city": "Lima"}
        assert schema.validate(value) is value

    def test_the_output_schema_is_built_in_serialization_mode(self) -> None:
        """An output model's computed fields appear in its schema, as in what `execute` returns."""

        class Reading(pydantic.BaseModel):
            celsius: float

            @pydantic.computed_field  # type: ignore[prop-decorator]  # pydantic's documented pattern
            @property
            def fahrenheit(self) -> float:
                return self.celsius * 9 / 5 + 32

        tool = create_tool(id="w", description="W.", output_schema=Reading)
        assert tool.output_schema is not None
        assert tool.output_schema.json_schema["required"] == ["celsius", "fahrenheit"]

    def test_input_examples_are_stored_as_json(self) -> None:
        """Examples are copied into JSON form (tuples become lists) so every encoder can send them."""
        tool = create_tool(
            id="w",
            description="W.",
            input_schema={"type": "object", "properties": {"days": {"type": "array"}}},
            input_examples=[{"input": {"days": (1, 2)}}],
        )
        assert tool.input_examples == (InputExample(input={"days": [1, 2]}),)
