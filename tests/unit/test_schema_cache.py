"""Types are compiled once: tools rebuilt per request (closures over its context) reuse the schema."""

from __future__ import annotations

from typing import Annotated

import pydantic

from toolwire import create_tool
from toolwire.schema import compile_schema


class Lookup(pydantic.BaseModel):
    """A model compiled by these tests only."""

    key: str
    limit: int = 10

    @pydantic.computed_field  # type: ignore[prop-decorator]  # pydantic's documented spelling
    @property
    def label(self) -> str:
        """Only in the serialization schema."""
        return self.key


def test_a_type_compiles_to_one_shared_schema() -> None:
    """The second compile of a model returns the first result (no second JSON Schema generation)."""
    assert compile_schema(Lookup) is compile_schema(Lookup)


def test_tools_rebuilt_from_one_model_share_its_compiled_schema() -> None:
    """A tool factory called per request pays for the model's schema once."""
    first = create_tool(id="lookup", description="Look up.", input_schema=Lookup, execute=lambda v: v)
    second = create_tool(id="lookup", description="Look up.", input_schema=Lookup, execute=lambda v: v)
    assert first.input_schema is second.input_schema


def test_validation_and_serialization_modes_are_compiled_separately() -> None:
    """The mode is part of the cache key: a serialization schema is not the validation one."""
    validation = compile_schema(Lookup)
    serialization = compile_schema(Lookup, mode="serialization")
    assert serialization is not validation
    assert "label" in serialization.json_schema["properties"]
    assert "label" not in validation.json_schema["properties"]


def test_an_unhashable_type_form_still_compiles() -> None:
    """`Annotated` metadata that cannot be hashed is compiled without the cache."""
    unhashable = Annotated[int, {"note": "a dict is unhashable"}]
    assert compile_schema(unhashable).json_schema == {"type": "integer"}
    assert compile_schema(unhashable).validate(3) == 3
