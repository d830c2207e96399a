"""Replays do not depend on the SDKs' environment variables."""

from __future__ import annotations

import pytest

from toolwire.conformance import run_scenario, scenario


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_a_base_url_variable_in_the_environment_does_not_redirect_a_replay(
    api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With OPENAI_BASE_URL and friends set (a proxy, a local server), the cassettes still replay."""
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.setenv(name, "http://127.0.0.1:9/elsewhere")
    outcome = run_scenario(api, scenario("single_call"), modes=("sync",))
    assert (outcome.status, outcome.reasons) == ("pass", [])
