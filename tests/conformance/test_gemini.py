"""The shipped conformance suite on the in-tree `gemini` adapter."""

from __future__ import annotations

from toolwire.testing.conformance import ConformanceSuite


class TestGeminiConformance(ConformanceSuite):
    """Every scenario and capability claim of `gemini`."""

    api = "gemini"
