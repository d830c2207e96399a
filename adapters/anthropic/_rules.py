"""Anthropic's documented rules for strict tool schemas, read by `_schema.py`, `_tools.py` and their tests.

Sources: the structured-outputs page (https://platform.claude.com/docs/en/build-with-claude/structured-outputs),
sections "JSON Schema limitations" and "Schema complexity limits", and the SDK's own transformer
(`anthropic/lib/_parse/_transform.py::transform_schema`), which applies the structural rules.
The complexity numbers (20 strict tools, 24 optional parameters, 16 union parameters per
request) are the page's as remembered when this table was written, the 24 also quoted by the
project's issue 17; neither `shared/reference/wire-formats.md` nor the SDK states them, and the
live page could not be re-read here (no network): check them there when it changes.
"""

from __future__ import annotations

from typing import Final

from .._rules import ProviderRule, rule_table

_PAGE: Final = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"
_SDK: Final = "anthropic/lib/_parse/_transform.py::transform_schema"

RULES: Final = rule_table(
    ProviderRule(
        "strict.closed_objects",
        "additionalProperties must be false on every object",
        f"{_PAGE}, JSON Schema limitations; {_SDK}",
        "rewrite",
    ),
    ProviderRule(
        "strict.all_of_ref",
        "allOf is supported, except with a $ref inside",
        f"{_PAGE}, JSON Schema limitations (Supported: anyOf and allOf, allOf with $ref not supported)",
        "rewrite",
    ),
    ProviderRule(
        "strict.ref_siblings",
        "a $ref stands alone (the SDK keeps only the $ref)",
        _SDK,
        "rewrite",
    ),
    ProviderRule(
        "strict.recursive",
        "recursive schemas are not supported",
        f"{_PAGE}, JSON Schema limitations (Not supported: recursive schemas)",
        "degrade",
    ),
    ProviderRule(
        "strict.external_ref",
        "external $ref (e.g. 'http://...') is not supported",
        f"{_PAGE}, JSON Schema limitations (Not supported: external $ref)",
        "degrade",
    ),
    ProviderRule(
        "strict.required_declared",
        "with additionalProperties: false, a `required` name that is not a property can never be satisfied",
        f"{_PAGE}, JSON Schema limitations (additionalProperties must be false)",
        "degrade",
    ),
    ProviderRule(
        "strict.min_items",
        "array minItems is supported for the values 0 and 1 only",
        f"{_PAGE}, JSON Schema limitations; {_SDK}",
        "rewrite",
    ),
    ProviderRule(
        "strict.constraints",
        "numerical, string-length and other array constraints are not supported",
        f"{_PAGE}, JSON Schema limitations; {_SDK} (moves them into the description)",
        "rewrite",
    ),
    ProviderRule(
        "strict.max_strict_tools",
        "a request may have at most 20 tools with strict: true",
        f"{_PAGE}, Schema complexity limits",
        "degrade",
        limit=20,
    ),
    ProviderRule(
        "strict.max_optional_parameters",
        "the strict schemas of a request may have at most 24 optional parameters in total",
        f"{_PAGE}, Schema complexity limits",
        "degrade",
        limit=24,
    ),
    ProviderRule(
        "strict.max_union_parameters",
        "the strict schemas of a request may have at most 16 parameters with union types (anyOf, type arrays)",
        f"{_PAGE}, Schema complexity limits",
        "degrade",
        limit=16,
    ),
    ProviderRule(
        "input_schema.root_combinators",
        "input_schema does not support oneOf, allOf, or anyOf at the top level",
        "API error text, reported in anthropics/claude-code#5319 and mobile-next/mobile-mcp#344",
        "rewrite",
    ),
)
