"""Specification of `@tool` and the docstring parser: a typed function becomes a Tool that runs as written."""

from __future__ import annotations

from typing import Annotated, Any

import pydantic
import pytest

from toolwire import ToolDefinitionError, tool
from toolwire._docstrings import ParsedDocstring, parse_docstring
from toolwire.results import ToolResult
from toolwire.runtime import ToolContext, execute_tool


class Forecast(pydantic.BaseModel):
    city: str
    celsius: float


@tool
def get_weather(city: str, days: int = 1) -> Forecast:
    """Get the forecast for a city.

    Uses the national weather service.

    Args:
        city (str): The city name,
            as written locally.
        days: How many days ahead.

    Returns:
        The forecast.
    """
    return Forecast(city=city, celsius=20.5 + days)


@tool(id="numpy-sum", require_approval=True)
def numpy_sum(a: int, b: int) -> int:
    """Add two numbers.

    Parameters
    ----------
    a : int
        The first number.
    b : int, optional
        The second
        number.

    Returns
    -------
    int
        The sum.
    """
    return a + b


@tool(description="Concatenate with a separator.")
def rest_join(left: str, right: str, /, sep: str = "-", *, context: ToolContext) -> str:
    """Ignored summary.

    :param left: Left part.
    :param str right: Right part,
        trimmed.
    :type right: str
    :param sep: Separator.
    :returns: The joined text.
    """
    return f"{left}{sep}{right}@{context.tool_call_id}"


@tool
async def fetch_page(
    url: Annotated[str, pydantic.Field(description="Absolute URL")], ctx: Any = None
) -> dict[str, Any]:
    """Fetch a page."""
    return {"url": url, "call": ctx.tool_call_id if ctx is not None else None}


async def _run(target: Any, arguments: dict[str, Any], call_id: str = "call_1") -> ToolResult:
    result = await execute_tool(target, {"toolCallId": call_id, "toolName": target.id, "input": arguments})
    assert isinstance(result, ToolResult)
    return result


class TestSchemas:
    def test_a_google_docstring_gives_the_description_and_parameter_descriptions(self) -> None:
        """Summary paragraphs become the description; `Args:` entries describe the properties."""
        assert get_weather.id == "get_weather"
        assert get_weather.description == "Get the forecast for a city.\n\nUses the national weather service."
        assert get_weather.input_schema.json_schema == {
            "additionalProperties": False,
            "properties": {
                "city": {"description": "The city name, as written locally.", "type": "string"},
                "days": {"default": 1, "description": "How many days ahead.", "type": "integer"},
            },
            "required": ["city"],
            "title": "GetWeatherInput",
            "type": "object",
        }

    def test_the_return_annotation_becomes_the_output_schema(self) -> None:
        """A model return type is the output schema, compiled for serialization."""
        assert get_weather.output_schema is not None
        assert get_weather.output_schema.json_schema == {
            "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
            "required": ["city", "celsius"],
            "title": "Forecast",
            "type": "object",
        }

    def test_a_numpy_docstring_gives_the_parameter_descriptions(self) -> None:
        """`Parameters` with dashes is read; the `Returns` section is left out."""
        assert numpy_sum.description == "Add two numbers."
        assert numpy_sum.input_schema.json_schema["properties"] == {
            "a": {"description": "The first number.", "type": "integer"},
            "b": {"description": "The second number.", "type": "integer"},
        }

    def test_decorator_options_reach_create_tool(self) -> None:
        """`id=` and any create_tool keyword can be given to the decorator."""
        assert (numpy_sum.id, numpy_sum.require_approval) == ("numpy-sum", True)
        assert numpy_sum.input_schema.json_schema["title"] == "NumpySumInput"

    def test_a_rest_docstring_and_an_explicit_description(self) -> None:
        """`:param type name:` is read, `:type:` is skipped, and `description=` wins over the summary."""
        assert rest_join.description == "Concatenate with a separator."
        assert rest_join.input_schema.json_schema["properties"] == {
            "left": {"description": "Left part.", "type": "string"},
            "right": {"description": "Right part, trimmed.", "type": "string"},
            "sep": {"default": "-", "description": "Separator.", "type": "string"},
        }

    def test_context_parameters_are_not_part_of_the_input(self) -> None:
        """`context`, `ctx` and anything annotated ToolContext receive the context instead of input."""
        assert "context" not in rest_join.input_schema.json_schema["properties"]
        assert list(fetch_page.input_schema.json_schema["properties"]) == ["url"]

    def test_an_annotated_field_description_is_kept_when_the_docstring_is_silent(self) -> None:
        """`Annotated[str, Field(description=...)]` describes the property when the docstring does not."""
        assert fetch_page.input_schema.json_schema["properties"]["url"] == {
            "description": "Absolute URL",
            "type": "string",
        }

    def test_a_parameter_of_any_name_annotated_tool_context_receives_the_context(self) -> None:
        """The annotation alone marks the context parameter."""

        @tool
        def whoami(run: ToolContext) -> str:
            """Say the call id."""
            return run.tool_call_id

        assert whoami.input_schema.json_schema["properties"] == {}

    def test_no_return_annotation_or_none_means_no_output_schema(self) -> None:
        """Only a real return type is validated."""

        @tool
        def log(line: str) -> None:
            """Log a line."""

        assert log.output_schema is None

    def test_an_explicit_output_schema_wins_over_the_return_annotation(self) -> None:
        """`output_schema=` replaces what the annotation would give."""

        @tool(output_schema={"type": "string"})
        def name() -> int:
            """A name."""
            return 1

        assert name.output_schema is not None
        assert name.output_schema.json_schema == {"type": "string"}

    def test_unknown_arguments_are_refused(self) -> None:
        """The input model forbids extra properties, so typos fail validation."""
        with pytest.raises(ValueError, match="Extra inputs are not permitted"):
            get_weather.input_schema.validate({"city": "Oslo", "dayz": 2})


class TestErrors:
    def test_var_arguments_are_refused_naming_the_parameter(self) -> None:
        """`*args` cannot be described by a schema."""

        def spread(*values: int) -> int:
            """Sum."""
            return sum(values)

        with pytest.raises(ToolDefinitionError) as caught:
            tool(spread)
        assert str(caught.value) == "tool 'spread': `values` cannot be *args or **kwargs in a tool function"

    def test_a_function_without_docstring_or_description_is_refused(self) -> None:
        """The model needs a description; the error says where to put it."""

        def silent(x: int) -> int:
            return x

        with pytest.raises(ToolDefinitionError) as caught:
            tool(silent)
        assert str(caught.value) == ("tool 'silent': `description` is required: give a docstring or description=...")

    def test_a_parameter_named_like_a_base_model_attribute_is_accepted_without_warning(self) -> None:
        """`schema`, `json` and `copy` are ordinary parameter names for a tool function."""

        @tool
        def validate(schema: str, json: str) -> bool:
            """Check a document against a schema."""
            return bool(schema and json)

        assert list(validate.input_schema.json_schema["properties"]) == ["schema", "json"]

    def test_an_unresolvable_annotation_is_a_definition_error_naming_the_tool(self) -> None:
        """A local class under `from __future__ import annotations` cannot be resolved; say which tool."""

        class Local(pydantic.BaseModel):
            x: int

        def uses_local(value: Local) -> int:
            """Use a local type."""
            return value.x

        with pytest.raises(ToolDefinitionError, match="uses_local"):
            tool(uses_local)


class TestExecution:
    async def test_a_sync_function_runs_with_validated_arguments_and_its_model_output_is_json(self) -> None:
        """Arguments are converted by the schema and a returned model is shown as JSON."""
        result = await _run(get_weather, {"city": "Oslo", "days": "2"})
        assert result.output == {"type": "json", "value": {"city": "Oslo", "celsius": 22.5}}
        assert result.raw == Forecast(city="Oslo", celsius=22.5)

    async def test_positional_only_parameters_are_passed_positionally_and_context_by_keyword(self) -> None:
        """`left, right, /` work, and `context` receives the ToolContext of the call."""
        result = await _run(rest_join, {"left": "a", "right": "b"}, call_id="c9")
        assert result.output == {"type": "text", "value": "a-b@c9"}

    async def test_an_async_function_is_awaited_and_ctx_receives_the_context(self) -> None:
        """Coroutine functions run on the caller's loop; `ctx` is a context name too."""
        result = await _run(fetch_page, {"url": "https://example.com"}, call_id="c2")
        assert result.output == {"type": "json", "value": {"url": "https://example.com", "call": "c2"}}

    async def test_a_return_value_failing_the_annotation_is_an_error_result(self) -> None:
        """The return annotation is enforced like any output schema."""

        @tool
        def broken() -> int:
            """Return a wrong type."""
            return "many"  # type: ignore[return-value]  # the mistake under test

        result = await _run(broken, {})
        assert result.is_error
        assert result.output["value"].startswith(
            "Tool 'broken' returned output that does not match its output schema: at `(root)`: Input should be"
        )


class TestDocstringParser:
    def test_no_docstring_parses_to_nothing(self) -> None:
        """None and empty text give an empty result."""
        assert parse_docstring(None) == ParsedDocstring()
        assert parse_docstring("") == ParsedDocstring()

    def test_google_sections_other_than_args_are_left_out(self) -> None:
        """Raises, Examples and Notes never leak into descriptions."""
        parsed = parse_docstring(
            """Summary.

            Keyword Args:
                **options: Extra options.

            Raises:
                ValueError: never.

            Note:
                Ignored.
            """
        )
        assert parsed == ParsedDocstring("Summary.", {"options": "Extra options."})

    def test_a_google_continuation_that_looks_like_an_item_stays_with_its_parameter(self) -> None:
        """Deeper-indented `key: value` text belongs to the parameter above it."""
        parsed = parse_docstring(
            """Summary.

            Args:
                mode: One of
                    fast: quick and rough,
                    slow: careful.
                level: A level.
            """
        )
        assert parsed.params == {"mode": "One of fast: quick and rough, slow: careful.", "level": "A level."}

    def test_numpy_other_parameters_are_read_too(self) -> None:
        """`Other Parameters` is a parameter section in NumPy style."""
        parsed = parse_docstring("Summary.\n\nOther Parameters\n----------------\nverbose : bool\n    Talk more.\n")
        assert parsed == ParsedDocstring("Summary.", {"verbose": "Talk more."})

    def test_rest_fields_after_the_summary_end_the_description(self) -> None:
        """A field list starts where the description stops."""
        parsed = parse_docstring("Summary line.\n\n:param x: The x.\n:raises ValueError: never.\n  still raises.")
        assert parsed == ParsedDocstring("Summary line.", {"x": "The x."})

    def test_a_docstring_without_sections_is_all_description(self) -> None:
        """Plain text is kept whole (dedented, stripped)."""
        assert parse_docstring("\n    First.\n\n    Second.\n    ") == ParsedDocstring("First.\n\nSecond.")
