"""The shipped conformance suite on the in-tree `anthropic` adapter."""

from __future__ import annotations

from toolwire.testing.conformance import ConformanceSuite


class TestAnthropicConformance(ConformanceSuite):
    """Every scenario and capability claim of `anthropic`."""

    api = "anthropic"
