"""The shipped conformance suite on the in-tree `openai-chat` adapter."""

from __future__ import annotations

from toolwire.testing.conformance import ConformanceSuite


class TestOpenAIChatConformance(ConformanceSuite):
    """Every scenario and capability claim of `openai-chat`."""

    api = "openai-chat"
