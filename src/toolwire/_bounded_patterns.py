"""JSON Schema `pattern` keywords checked with a time bound, so a pattern cannot hang validation.

A model writes the values these patterns are matched against, and a loaded MCP tool's server
writes the patterns: Python's `re` backtracks without limit (`^(a|aa)+$` on 60 characters runs
for minutes, holding the interpreter). The `regex` package matches the same syntax and stops
a match at a timeout; jsonschema offers no such hook, hence these keyword functions.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsonschema import ValidationError

MATCH_TIMEOUT_SECONDS: Final = 0.25
"""The longest one pattern may take on one value; past it the value fails validation."""
BUDGET_SECONDS: Final = 1.0
"""The time all pattern matches of one validation may take together (a value with many keys)."""

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("toolwire_pattern_deadline", default=None)


@contextlib.contextmanager
def pattern_budget() -> Iterator[None]:
    """Bound the pattern matching inside the block to `BUDGET_SECONDS` in all (nested blocks share the outer one)."""
    if _deadline.get() is not None:
        yield
        return
    token = _deadline.set(time.monotonic() + BUDGET_SECONDS)
    try:
        yield
    finally:
        _deadline.reset(token)


class PatternTimeout(Exception):
    """A pattern took longer than `MATCH_TIMEOUT_SECONDS` on a value."""


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    import regex  # with the first pattern checked, like jsonschema: `import toolwire` stays light

    try:
        return regex.compile(pattern)
    except regex.error:  # the regex package refuses a few forms `re` takes: keep jsonschema's behaviour
        return None


def search(pattern: str, text: str) -> bool:
    """`re.search(pattern, text)`, bounded in time.

    Raises:
        PatternTimeout: the match ran past `MATCH_TIMEOUT_SECONDS`.
    """
    compiled = _compiled(pattern)
    if compiled is None:
        return re.search(pattern, text) is not None
    timeout = MATCH_TIMEOUT_SECONDS
    deadline = _deadline.get()
    if deadline is not None:
        timeout = min(timeout, deadline - time.monotonic())
        if timeout <= 0:
            raise PatternTimeout(pattern)
    try:
        return compiled.search(text, timeout=timeout) is not None
    except TimeoutError:
        raise PatternTimeout(pattern) from None


def _error(message: str) -> ValidationError:
    from jsonschema import ValidationError

    return ValidationError(message)


def _too_slow(pattern: str) -> ValidationError:
    return _error(f"the value could not be matched against {pattern[:80]!r} in {MATCH_TIMEOUT_SECONDS} s")


def pattern(validator: Any, pattern_: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        if not search(pattern_, instance):
            yield _error(f"{instance!r} does not match {pattern_!r}")
    except PatternTimeout:
        yield _too_slow(pattern_)


def pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern_, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = search(pattern_, key)
            except PatternTimeout:
                yield _too_slow(pattern_)
                return
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern_)


def additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if "patternProperties" not in schema or not validator.is_type(instance, "object"):
        from jsonschema import _keywords

        plain: Any = _keywords.additionalProperties  # typed as returning None, a generator in fact
        yield from plain(validator, additional, instance, schema)
        return
    declared = schema.get("properties", {})
    extras: list[str] = []
    for key in instance:
        if key in declared:
            continue
        try:
            if not any(search(pattern_, key) for pattern_ in schema["patternProperties"]):
                extras.append(key)
        except PatternTimeout as slow:
            yield _too_slow(str(slow))
            return
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif not additional and extras:
        joined = ", ".join(repr(key) for key in sorted(extras))
        patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
        yield _error(f"{joined} {'does' if len(extras) == 1 else 'do'} not match any of the regexes: {patterns}")


KEYWORDS: Final = {
    "pattern": pattern,
    "patternProperties": pattern_properties,
    "additionalProperties": additional_properties,
}
