"""The agent loop: a tool-using conversation on any api over its official SDK client."""

from __future__ import annotations

from ._agent import Agent
from ._arguments import Prompt
from ._loop import Run, StepLoop
from ._state import AgentResult

__all__ = ["Agent", "AgentResult", "Prompt", "Run", "StepLoop"]
