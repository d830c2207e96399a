"""The conformance suite as pytest classes an adapter's tests subclass.

    from toolwire.testing.conformance import ConformanceSuite

    class TestMyAdapter(ConformanceSuite):
        api = "my-api"
        cassettes = Path(__file__).parent / "cassettes"   # <api>/<scenario>.yaml inside

Scenarios the adapter's `capabilities` rule out are skipped with the reason; the structural
tests check that the capability claims match what `encode_tools` reports.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, ClassVar

import pytest

from toolwire.compat import CompatibilityWarning
from toolwire.conformance.fixtures import ToolLog, scenario_tools
from toolwire.conformance.runner import Mode, run_scenario
from toolwire.conformance.scenarios import SCENARIOS, scenario
from toolwire.events import Finish, Start
from toolwire.registry import get_adapter

_NAMES = [item.name for item in SCENARIOS]


class ConformanceSuite:
    """Every bundled scenario plus the capability-claim checks, for one api."""

    api: ClassVar[str]
    cassettes: ClassVar[Path | None] = None
    """Folder holding `<api>/<scenario>.yaml` (default: toolwire's bundled cassettes)."""
    modes: ClassVar[tuple[Mode, ...]] = ("sync", "async")

    @pytest.mark.conformance
    @pytest.mark.parametrize("name", _NAMES)
    def test_scenario(self, name: str) -> None:
        """The scenario replays through the SDK with identical requests, events and wire facts."""
        outcome = run_scenario(self.api, scenario(name), modes=self.modes, root=self.cassettes)
        if outcome.status == "n/a":
            pytest.skip("; ".join(outcome.reasons))
        assert outcome.status != "fail", "\n".join(outcome.reasons)

    def _encode(self, **options: Any) -> list[str]:
        tools = scenario_tools(ToolLog())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CompatibilityWarning)
            encoded = get_adapter(self.api).encode_tools(list(tools.values()), **options)
        assert len(caught) == len(encoded.warnings)
        return [d.feature for d in encoded.warnings]

    def test_examples_degradation_matches_the_capability(self) -> None:
        """Input examples are reported as folded exactly when the api has no field for them."""
        folded = "input_examples" in self._encode()
        assert folded is not get_adapter(self.api).capabilities.native_input_examples

    def test_strict_degradation_matches_the_capability(self) -> None:
        """A strict tool is reported as degraded exactly when the api has no per-tool strict."""
        degraded = "strict" in self._encode()
        assert degraded is not get_adapter(self.api).capabilities.strict_tools

    def test_an_empty_response_still_starts_and_finishes(self) -> None:
        """Decoding nothing gives `start` and `finish`, never silence or an exception."""
        events = list(get_adapter(self.api).normalize([]))
        assert isinstance(events[0], Start)
        assert isinstance(events[-1], Finish)

    def test_garbage_becomes_an_error_event(self) -> None:
        """Bytes that are not the api's format give an `error` event and a `finish`."""
        events = list(get_adapter(self.api).normalize(b"data: {not json\n\n"))
        assert any(e.type == "error" for e in events)
        assert isinstance(events[-1], Finish)
