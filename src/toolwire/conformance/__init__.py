"""The conformance suite: scenarios replayed from cassettes through the official SDKs."""

from __future__ import annotations

from toolwire.conformance.runner import ScenarioOutcome, run_scenario
from toolwire.conformance.scenarios import SCENARIOS, Scenario, ScenarioRun, scenario

__all__ = ["SCENARIOS", "Scenario", "ScenarioOutcome", "ScenarioRun", "run_scenario", "scenario"]
