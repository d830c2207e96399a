"""The shipped conformance suite on the in-tree `openai-responses` adapter."""

from __future__ import annotations

from toolwire.testing.conformance import ConformanceSuite


class TestOpenAIResponsesConformance(ConformanceSuite):
    """Every scenario and capability claim of `openai-responses`."""

    api = "openai-responses"
