"""Display and transcript transforms: what a UI stream or a saved transcript may show of a call.

The raw input and output stay with the runtime and the model; only these copies are reduced
(the seed's example: an API key in the output never reaches the display). Each phase's
transform receives the raw value of that phase, by keyword:

| phase | keyword | raw value |
| --- | --- | --- |
| `input` | `input` | the call's input (JSON; the raw text when it did not parse) |
| `input_delta` | `input_text_delta` | one fragment of the input text as the model streams it |
| `output` | `output` | what `execute` returned (not the model-facing envelope) |
| `error` | `error` | the error text the model reads |
| `approval` | `approval` | the input of the call waiting for approval |
| `suspend` | `suspend_payload` | what the tool passed to `suspend()` |
| `resume` | `resume_data` | the data the call is resumed with |

Every transform may also ask for `tool_call_id` and `tool_name`. Where a phase has no transform
of its own, a target never shows more than its transforms let through:

- `input_delta`: deltas spell out the raw input, so with an `input` transform they are not shown;
- `approval`: falls back to the `input` transform (the approval payload is the input);
- `error`: error texts can quote payloads, so a target that transforms a payload the error may
  quote (any, for a failed execution; the input, for an input error; the data, for a refused
  resume) shows a generic error instead;
- `resume`: not shown at all (resume data can carry the presser's request context).

A failing transform is logged and shows nothing (None; a generic text for errors).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from toolwire._hooks import run_sync
from toolwire.tools import PhaseTransforms, Tool, TransformPhase

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
PAYLOAD_PHASES: tuple[TransformPhase, ...] = ("input", "input_delta", "output", "approval", "suspend", "resume")
"""Every phase with a payload (all but `error`): what an error raised while running a call may quote."""
INPUT_PHASES: tuple[TransformPhase, ...] = ("input", "input_delta", "approval")
"""The phases whose payload is the call's input."""


def transformed(tool: Tool | None, target: TransformTarget, phase: TransformPhase, value: Any, **extra: Any) -> Any:
    """`value` after the tool's transform for this target and phase (unchanged without one).

    A failing transform must not leak the raw value: it yields None and is logged.
    """
    phases = _phases(tool, target)
    function = phases.get(phase) if phases is not None else None
    if function is None or tool is None:
        return value
    try:
        return run_sync(function(**{_PHASE_ARGUMENT[phase]: value, "tool_name": tool.id, **extra}))
    except Exception:
        logger.exception("%s transform %r of tool %r failed; nothing is shown", target, phase, tool.id)
        return None


def shown_input(tool: Tool | None, target: TransformTarget, value: Any, tool_call_id: str) -> Any:
    """The call's input as `target` may show it."""
    return transformed(tool, target, "input", value, tool_call_id=tool_call_id)


def shown_input_delta(tool: Tool | None, target: TransformTarget, text: str, tool_call_id: str) -> str | None:
    """One input fragment as `target` may show it; None: show no delta."""
    phases = _phases(tool, target)
    if phases is None:
        return text
    if phases.input_delta is None:
        return None if phases.input is not None else text
    shown = transformed(tool, target, "input_delta", text, tool_call_id=tool_call_id)
    return None if shown is None else _as_text(shown)


def shown_output(tool: Tool | None, target: TransformTarget, raw: Any, tool_call_id: str) -> Any:
    """What `execute` returned, as `target` may show it."""
    return transformed(tool, target, "output", raw, tool_call_id=tool_call_id)


def shown_error(
    tool: Tool | None,
    target: TransformTarget,
    text: str,
    tool_call_id: str,
    quoting: tuple[TransformPhase, ...] = PAYLOAD_PHASES,
) -> str:
    """An error text as `target` may show it (a transform returning an object is shown as its JSON).

    `quoting` names the payloads the text may quote (an input error quotes the input, a refused
    resume its data): without an `error` transform, a transform on any of them makes it generic.
    """
    phases = _phases(tool, target)
    if phases is None or tool is None:
        return text
    if phases.error is None:
        hides = any(phases.get(phase) is not None for phase in quoting)
        return generic_error(tool) if hides else text
    shown = transformed(tool, target, "error", text, tool_call_id=tool_call_id)
    return generic_error(tool) if shown is None else _as_text(shown)


def shown_approval(tool: Tool | None, target: TransformTarget, value: Any, tool_call_id: str) -> Any:
    """The input of a call waiting for approval, as `target` may show it to the approver."""
    phases = _phases(tool, target)
    if phases is not None and phases.approval is None:
        return shown_input(tool, target, value, tool_call_id)
    return transformed(tool, target, "approval", value, tool_call_id=tool_call_id)


def shown_suspend(tool: Tool | None, target: TransformTarget, payload: Any, tool_call_id: str) -> Any:
    """A suspend payload as `target` may show it."""
    return transformed(tool, target, "suspend", payload, tool_call_id=tool_call_id)


def shown_resume(tool: Tool | None, target: TransformTarget, data: Any, tool_call_id: str) -> Any:
    """Resume data as `target` may show it; None without a `resume` transform."""
    phases = _phases(tool, target)
    if phases is None or phases.resume is None:
        return None
    return transformed(tool, target, "resume", data, tool_call_id=tool_call_id)


def generic_error(tool: Tool) -> str:
    """The error text shown where the real one might quote a hidden payload."""
    return f"Tool {tool.id!r} failed."


def _phases(tool: Tool | None, target: TransformTarget) -> PhaseTransforms | None:
    if tool is None or tool.transform is None:
        return None
    return tool.transform.display if target == "display" else tool.transform.transcript


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
