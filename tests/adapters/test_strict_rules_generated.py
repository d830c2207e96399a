"""Property: for generated schemas of every kind tools use, each adapter encodes without an exception, and a
schema sent strict follows the provider's documented rules (checked independently of the transforms).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import create_tool, get_adapter

from .gemini.schema_strategies import root_schemas
from .strict_checks import anthropic_strict_problems, openai_strict_problems


@st.composite
def _wild_roots(draw: st.DrawFn) -> dict[str, Any]:
    """Root schemas with what generators add: `$schema`, pointers outside `$defs`, draft-07 `definitions`."""
    schema = draw(root_schemas())
    name = sorted(schema["properties"])[0]
    extra = draw(st.sets(st.sampled_from(["$schema", "pointer", "definitions", "all_of_ref"])))
    if "$schema" in extra:
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    if "pointer" in extra:
        schema["properties"]["again"] = {"$ref": f"#/properties/{name}"}
    if "definitions" in extra:
        schema["definitions"] = {"Old": schema["properties"][name]}
        schema["properties"]["old"] = {"$ref": "#/definitions/Old", "description": "Legacy"}
    if "all_of_ref" in extra and "$defs" in schema:
        schema["properties"]["wrapped"] = {"allOf": [{"$ref": "#/$defs/Shared"}], "description": "Wrapped"}
    return schema


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_wild_roots())
def test_a_schema_sent_strict_follows_the_documented_rules(api: str, schema: dict[str, Any]) -> None:
    tool = create_tool(id="t", description="d", input_schema=schema)
    entry = get_adapter(api).encode_tools([tool], strict=True)["tools"][0]
    function = entry.get("function", entry)
    if api == "anthropic" and entry.get("strict"):
        assert anthropic_strict_problems(entry["input_schema"]) == []
    elif api != "anthropic" and function.get("strict"):
        assert openai_strict_problems(function["parameters"]) == []


@pytest.mark.parametrize("settings_", [{}, {"schema_format": "openapi"}, {"schema_format": "openapi", "vertex": True}])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_wild_roots())
def test_gemini_encodes_every_generated_schema(settings_: dict[str, Any], schema: dict[str, Any]) -> None:
    """Both schema forms take every schema (the OpenAPI form refuses only recursion, which these lack)."""
    tool = create_tool(id="t", description="d", input_schema=schema)
    entry = get_adapter("gemini", **settings_).encode_tools([tool])["tools"][0]["functionDeclarations"][0]
    assert ("parameters_json_schema" in entry) == ("schema_format" not in settings_)
