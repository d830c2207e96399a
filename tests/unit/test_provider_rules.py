"""The provider rule tables: every rule keyed once, sourced, and a limit where it is one."""

from __future__ import annotations

import re

import pytest

from toolwire.adapters._rules import ProviderRule, rule_table
from toolwire.adapters.anthropic._rules import RULES as ANTHROPIC
from toolwire.adapters.gemini._rules import RULES as GEMINI
from toolwire.adapters.openai._rules import RULES as OPENAI

_ALL = [
    (name, rule)
    for name, table in (("openai", OPENAI), ("anthropic", ANTHROPIC), ("gemini", GEMINI))
    for rule in table.values()
]
_SOURCE = re.compile(r"https://\S+|[a-z_]+(/[A-Za-z_.]+)+\.py|API error text")


@pytest.mark.parametrize(("provider", "rule"), _ALL, ids=[f"{p}:{r.key}" for p, r in _ALL])
def test_every_rule_names_its_source(provider: str, rule: ProviderRule) -> None:
    """A documentation URL, an SDK file, or the provider's own error text."""
    assert _SOURCE.search(rule.source), (provider, rule.source)


@pytest.mark.parametrize(("provider", "rule"), _ALL, ids=[f"{p}:{r.key}" for p, r in _ALL])
def test_a_limit_rule_carries_its_number(provider: str, rule: ProviderRule) -> None:
    """Keys with `max_` are limits: the code reads the number from the table."""
    assert ("max_" in rule.key or "large_enum" in rule.key) == (rule.limit is not None), (provider, rule.key)


def test_a_key_defined_twice_is_refused() -> None:
    rule = ProviderRule("x", "rule", "https://example.com", "keep")
    with pytest.raises(ValueError, match="provider rule 'x' is defined twice"):
        rule_table(rule, rule)


def test_a_rule_cites_itself_with_its_source() -> None:
    rule = ProviderRule("x", "at most 3 things", "https://example.com/doc, Limits", "degrade", limit=3)
    assert rule.cite() == "at most 3 things (https://example.com/doc, Limits)"
