"""Display and transcript transforms: what a UI stream or a saved transcript may show of a call.

The raw input and output stay with the runtime and the model; only these copies are reduced
(the seed's example: an API key in the output never reaches the display).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from toolwire._hooks import run_sync
from toolwire.tools import Tool, TransformPhase

logger = logging.getLogger("toolwire")

TransformTarget = Literal["display", "transcript"]

_PHASE_ARGUMENT: dict[TransformPhase, str] = {
    "input": "input",
    "input_delta": "input_text_delta",
    "output": "output",
    "error": "error",
    "approval": "approval",
    "suspend": "suspend_payload",
    "resume": "resume_data",
}


def transformed(tool: Tool | None, target: TransformTarget, phase: TransformPhase, value: Any, **extra: Any) -> Any:
    """`value` after the tool's transform for this target and phase (unchanged without one).

    A failing transform must not leak the raw value: it yields None and is logged.
    """
    if tool is None or tool.transform is None:
        return value
    transforms = tool.transform.display if target == "display" else tool.transform.transcript
    function = transforms.get(phase)
    if function is None:
        return value
    try:
        return run_sync(function(**{_PHASE_ARGUMENT[phase]: value, "tool_name": tool.id, **extra}))
    except Exception:
        logger.exception("%s transform %r of tool %r failed; nothing is shown", target, phase, tool.id)
        return None
