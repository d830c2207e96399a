"""Action cards in durable runs: a press sent to the run is checked and applied inside its workflow.

A press must be made by `toolwire.targets.press` against the run's own toolbox (resume data
from outside can never press a card), so `DurableRun.press` sends the press's facts — call,
button, card id, the presser's request context, and when it was pressed — and the run applies
them when it is paused. The card's expiry is checked against the time of the press carried by
the message, not against the clock of the moment: a run replayed later takes the same decision.
`toolwire.targets` (the `http` extra) is imported only by agents with target tools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from toolwire.events import Error, Event
from toolwire.runtime import ResumeRefused, Toolbox
from toolwire.tools import Tool

PRESSED_AT: ContextVar[float | None] = ContextVar("toolwire_durable_pressed_at", default=None)
"""The time of the press being applied (None outside a press)."""


class PressClock:
    """A target host's clock that reads the time of the press being applied, if any."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock

    def __call__(self) -> float:
        pressed_at = PRESSED_AT.get()
        return pressed_at if pressed_at is not None else self.clock()


def fix_press_clocks(tools: Mapping[str, Tool]) -> None:
    """Give the hosts of the agent's target tools a `PressClock` (once per host)."""
    if not any(tool.target is not None for tool in tools.values()):
        return
    from toolwire.targets import binding_of

    for tool in tools.values():
        binding = binding_of(tool)
        if binding is not None and not isinstance(binding.host.clock, PressClock):
            binding.host.clock = PressClock(binding.host.clock)


async def apply_press(toolbox: Toolbox, message: Mapping[str, Any], emit: Callable[[Event], None]) -> None:
    """Press (or dismiss) a card of the run; a refused press is an `error` event, the card still waits."""
    from toolwire.targets import PressError, dismiss, press

    token = PRESSED_AT.set(float(message.get("pressedAt") or 0.0))
    tool_call_id = str(message.get("toolCallId"))
    card_id = str(message.get("cardId"))
    context = message.get("requestContext")
    try:
        button = message.get("buttonId")
        if button is None:
            await dismiss(toolbox, tool_call_id, card_id=card_id, request_context=context)
        else:
            await press(toolbox, tool_call_id, str(button), card_id=card_id, request_context=context)
    except PressError as exc:
        emit(Error(error_text=f"press refused ({exc.reason}): {exc}"))
    except ResumeRefused:
        pass  # the tool refused it: its `tool-resume-error` event says why
    finally:
        PRESSED_AT.reset(token)
