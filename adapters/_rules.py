"""Documented provider rules on tool schemas, as data: each with its source and what toolwire does about it.

Each provider package has one table (`<provider>/_rules.py::RULES`); the schema transforms read
their limits and reasons from it, and the tests build a schema that breaks each rule from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RuleAction = Literal["rewrite", "inline", "drop", "degrade", "refuse", "keep"]
"""What toolwire does with a schema that breaks the rule: rewrite it into an accepted form, inline
a reference, drop a keyword the endpoint refuses (reported), send the tool without the feature
(reported), refuse the request with a `ConfigurationError`; `keep` records what is accepted as is."""


@dataclass(frozen=True, slots=True)
class ProviderRule:
    """One constraint a provider documents for tool schemas."""

    key: str
    """Stable id, also the key in the table (`strict.max_nesting_depth`)."""
    rule: str
    """What the provider requires, as its documentation says it."""
    source: str
    """Where it is written: a documentation URL with its section, or an SDK file and function."""
    action: RuleAction
    limit: int | None = None
    """The documented number, for limits."""

    def cite(self) -> str:
        """The rule with its source, for a degradation message."""
        return f"{self.rule} ({self.source})"


def rule_table(*rules: ProviderRule) -> dict[str, ProviderRule]:
    """Rules by key; a key given twice is a programming error."""
    table: dict[str, ProviderRule] = {}
    for rule in rules:
        if rule.key in table:
            raise ValueError(f"provider rule {rule.key!r} is defined twice")
        table[rule.key] = rule
    return table
