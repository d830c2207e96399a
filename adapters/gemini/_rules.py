"""Gemini's documented rules on function-declaration schemas, read by the schema transforms and their tests.

Sources are google-genai's own docstrings and checks (`google/genai/types.py`,
`google/genai/_transformers.py`, the installed SDK), which the Gemini API reference pages
repeat; each rule names the one it comes from.
"""

from __future__ import annotations

from typing import Final

from .._rules import ProviderRule, rule_table

_TYPES: Final = "google/genai/types.py"

RULES: Final = rule_table(
    ProviderRule(
        "openapi.additional_properties",
        "in the OpenAPI-subset `parameters`/`response` schema, additionalProperties is accepted on Vertex AI only "
        "('additionalProperties is only supported in Gemini Enterprise Agent Platform mode, not in Gemini "
        "Developer API mode')",
        "google/genai/_transformers.py::_raise_for_unsupported_mldev_properties (run by process_schema)",
        "drop",
    ),
    ProviderRule(
        "json.additional_properties",
        "`parameters_json_schema` takes additionalProperties (its documented example sets it to false), "
        "on the Gemini API and on Vertex AI alike",
        f"{_TYPES} FunctionDeclaration.parameters_json_schema and GenerationConfig.response_json_schema docstrings",
        "keep",
    ),
    ProviderRule(
        "json.ref_siblings",
        "when `$ref` is set on a sub-schema, no other properties may be set except those starting with `$`",
        f"{_TYPES} GenerationConfig.response_json_schema docstring",
        "inline",
    ),
    ProviderRule(
        "json.titles",
        "titles inside `$defs` make Gemini answer MALFORMED_FUNCTION_CALL",
        "https://github.com/googleapis/python-genai/issues/1732",
        "drop",
    ),
    ProviderRule(
        "max_function_declarations",
        "the maximum number of declared functions is 512",
        f"{_TYPES} Tool.function_declarations docstring",
        "refuse",
        limit=512,
    ),
)
