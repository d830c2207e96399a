"""OpenAI's documented rules for strict function schemas (Structured Outputs), read by `_strict.py` and its tests.

Source: the Structured Outputs guide, "Supported schemas"
(https://platform.openai.com/docs/guides/structured-outputs, section names below). The SDK
(`openai/lib/_pydantic.py::_ensure_strict_json_schema`) applies the structural rules but states
no limit; the numbers are the guide's as quoted in `shared/reference/wire-formats.md` §2.2
(5000 properties, 10 levels) and in the project's issue 17 (enum and string sizes). They could
not be re-read from the live page here (no network): check them there when it changes.
"""

from __future__ import annotations

from typing import Final

from .._rules import ProviderRule, rule_table

_GUIDE: Final = "https://platform.openai.com/docs/guides/structured-outputs, Supported schemas"

RULES: Final = rule_table(
    ProviderRule(
        "strict.root_object",
        "the root must be an object, not anyOf (or a $ref)",
        f"{_GUIDE} › Root objects must not be anyOf and must be an object",
        "degrade",
    ),
    ProviderRule(
        "strict.all_required",
        "every property must be listed in `required`; optional ones are spelled as nullable",
        f"{_GUIDE} › All fields must be required",
        "rewrite",
    ),
    ProviderRule(
        "strict.closed_objects",
        "every object must set additionalProperties: false",
        f"{_GUIDE} › additionalProperties: false must always be set in objects",
        "rewrite",
    ),
    ProviderRule(
        "strict.required_declared",
        "every name in `required` must be a declared property (required lists exactly the properties)",
        f"{_GUIDE} › All fields must be required",
        "degrade",
    ),
    ProviderRule(
        "strict.max_properties",
        "a schema may have up to 5000 object properties in total",
        f"{_GUIDE} › Objects have limitations on nesting depth and size",
        "degrade",
        limit=5000,
    ),
    ProviderRule(
        "strict.max_nesting_depth",
        "objects may be nested up to 10 levels deep",
        f"{_GUIDE} › Objects have limitations on nesting depth and size",
        "degrade",
        limit=10,
    ),
    ProviderRule(
        "strict.max_string_length",
        "the property names, definition names, enum values and const values of a schema may total "
        "at most 120,000 characters",
        f"{_GUIDE} › Limitations on total string size",
        "degrade",
        limit=120_000,
    ),
    ProviderRule(
        "strict.max_enum_values",
        "a schema may have up to 1000 enum values across all enum properties",
        f"{_GUIDE} › Limitations on enum size",
        "degrade",
        limit=1000,
    ),
    ProviderRule(
        "strict.large_enum_string_length",
        "one string enum with more than 250 values may total at most 15,000 characters",
        f"{_GUIDE} › Limitations on enum size",
        "degrade",
        limit=15_000,
    ),
    ProviderRule(
        "strict.large_enum_values",
        "the 15,000-character total applies to string enums of more than 250 values",
        f"{_GUIDE} › Limitations on enum size",
        "degrade",
        limit=250,
    ),
    ProviderRule(
        "strict.keywords",
        "only the supported keywords may appear (no `$schema`, `$id`, `$anchor`, `default`, `minLength`, ...)",
        f"{_GUIDE} › Supported properties; Some type-specific keywords are not yet supported",
        "rewrite",
    ),
    ProviderRule(
        "strict.refs",
        "a `$ref` points at a definition in the root `$defs` (or is `#`, for root recursion)",
        f"{_GUIDE} › Definitions are supported; Recursive schemas are supported",
        "rewrite",
    ),
)
