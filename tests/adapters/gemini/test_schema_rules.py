"""Gemini's documented schema rules (`toolwire.adapters.gemini._rules.RULES`) as the adapter applies them."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import create_tool, get_adapter
from toolwire.adapter import Adapter
from toolwire.adapters.gemini._rules import RULES
from toolwire.adapters.gemini._tools import MAX_DECLARATIONS

from .sdk_bodies import SdkBodies

_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["name"],
    "additionalProperties": False,
}


def _encode(adapter: Adapter) -> Any:
    return adapter.encode_tools([create_tool(id="t", description="d", input_schema=_SCHEMA)])


class TestAdditionalProperties:
    def test_the_openapi_form_on_the_gemini_api_drops_it_and_reports_every_place(self, sdk: SdkBodies) -> None:
        """`openapi.additional_properties`: google-genai refuses it outside Vertex AI."""
        encoded = _encode(get_adapter("gemini", schema_format="openapi"))
        assert encoded["tools"][0]["functionDeclarations"][0]["parameters"] == {
            "type": "OBJECT",
            "properties": {"name": {"type": "STRING"}, "scores": {"type": "OBJECT"}},
            "required": ["name"],
        }
        assert [(d.feature, d.action) for d in encoded.warnings] == [
            (
                "schema.additionalProperties",
                "dropped at `input_schema.properties.scores`, `input_schema` for the Gemini API: "
                f"{RULES['openapi.additional_properties'].cite()} (toolwire still validates it; "
                "schema_format='json' keeps it)",
            )
        ]
        assert sdk.send(config=dict(encoded))["tools"] == encoded["tools"]

    def test_the_openapi_form_on_vertex_keeps_it(self, vertex_sdk: SdkBodies) -> None:
        encoded = _encode(get_adapter("gemini", schema_format="openapi", vertex=True))
        assert encoded["tools"][0]["functionDeclarations"][0]["parameters"] == {
            "type": "OBJECT",
            "properties": {
                "name": {"type": "STRING"},
                "scores": {"type": "OBJECT", "additional_properties": {"type": "INTEGER"}},
            },
            "required": ["name"],
            "additional_properties": False,
        }
        assert encoded.warnings == []
        assert vertex_sdk.send(config=dict(encoded))["tools"] == encoded["tools"]

    @pytest.mark.parametrize("values", [{}, {"description": "Anything"}, True])
    def test_a_map_of_any_values_stays_open_on_vertex(self, values: Any) -> None:
        """Not a map of STRING, which is what an untyped schema becomes elsewhere."""
        schema = {"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": values}}}
        adapter = get_adapter("gemini", schema_format="openapi", vertex=True)
        encoded = adapter.encode_tools([create_tool(id="t", description="d", input_schema=schema)])
        parameters = encoded["tools"][0]["functionDeclarations"][0]["parameters"]
        assert parameters["properties"]["meta"] == {"type": "OBJECT", "additional_properties": True}

    def test_streamed_arguments_imply_vertex(self) -> None:
        adapter = get_adapter("gemini", schema_format="openapi", stream_function_call_arguments=True)
        assert _encode(adapter).warnings == []

    @pytest.mark.parametrize("vertex", [False, True])
    def test_the_json_schema_form_keeps_it_on_both_platforms(self, vertex: bool) -> None:
        """`json.additional_properties`: `parameters_json_schema` documents it."""
        encoded = _encode(get_adapter("gemini", vertex=vertex))
        assert encoded["tools"][0]["functionDeclarations"][0]["parameters_json_schema"] == _SCHEMA
        assert encoded.warnings == []


def test_the_declaration_limit_is_the_documented_one() -> None:
    """`max_function_declarations`: 512, from the `Tool.function_declarations` docstring."""
    assert MAX_DECLARATIONS == RULES["max_function_declarations"].limit == 512
