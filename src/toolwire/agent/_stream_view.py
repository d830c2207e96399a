"""What a UI sees of a model's events: display transforms applied, the response's `finish` as `finish-step`."""

from __future__ import annotations

from collections.abc import Mapping

from toolwire.events import (
    Event,
    Finish,
    FinishStep,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputError,
    ToolInputStart,
)
from toolwire.runtime import display_stream_event
from toolwire.tools import Tool


class StreamView:
    """What a UI sees of a model's events, as the agent loop shows them (display transforms, `finish-step`).

    The step writes these views as the model streams; the loop computes the same ones from the
    recorded events afterwards (and they are not written again).
    """

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self._tools = tools
        self._calls: dict[str, str] = {}

    def shown(self, event: Event) -> Event | None:
        """The event as shown; None when a display transform hides it."""
        if isinstance(event, Finish):
            return FinishStep(finish_reason=event.finish_reason, usage=event.usage)
        if isinstance(event, ToolInputStart):
            if not event.provider_executed:
                self._calls[event.tool_call_id] = event.tool_name
            return event
        if isinstance(event, ToolInputDelta):
            return display_stream_event(self._tools.get(self._calls.get(event.tool_call_id, "")), event)
        if isinstance(event, (ToolInputAvailable, ToolInputError)) and not event.provider_executed:
            self._calls.pop(event.tool_call_id, None)
            return display_stream_event(self._tools.get(event.tool_name), event)
        return event
