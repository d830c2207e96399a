"""Run state: what tools of one conversation share (`context.agent`, `context.workflow`), saved as JSON.

Mirrors the seed's `execute.context.agent` (tool call id, messages, thread and resource ids,
`suspend`) and `execute.context.workflow` (`state`, `setState`, `suspend`). An `Agent` owns one
`RunState` and saves it with `export_state`; any host running tools can pass its own to
`execute_tool(..., run=...)` or `Toolbox(..., run=...)`.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import pydantic_core

from toolwire.exceptions import ArgumentError

from .suspension import SuspendRequested


class RunState:
    """Thread and resource ids plus a JSON object tools read and replace; thread-safe."""

    def __init__(
        self, *, thread_id: str | None = None, resource_id: str | None = None, values: Mapping[str, Any] | None = None
    ) -> None:
        self.thread_id = thread_id
        """The conversation's id in the host's store (the seed's memory thread)."""
        self.resource_id = resource_id
        """Who or what the conversation belongs to (the seed's memory resource, e.g. a user id)."""
        self._lock = threading.Lock()
        self._values: dict[str, Any] = _checked(values or {}, "values")

    @property
    def values(self) -> dict[str, Any]:
        """A copy of the current state."""
        with self._lock:
            return copy.deepcopy(self._values)

    def set(self, values: Mapping[str, Any]) -> None:
        """Replace the state (the seed's `setState`): a JSON object, or anything pydantic dumps to one.

        Raises:
            ArgumentError: not an object, or not JSON.
        """
        checked = _checked(values, "state")
        with self._lock:
            self._values = checked

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"threadId": self.thread_id, "resourceId": self.resource_id, "values": self.values}

    def load(self, data: Mapping[str, Any]) -> None:
        """Take the ids and values of a `to_dict` form."""
        self.thread_id = data.get("threadId")
        self.resource_id = data.get("resourceId")
        self.set(data.get("values") or {})


def _checked(values: Any, argument: str) -> dict[str, Any]:
    try:
        data = pydantic_core.to_jsonable_python(values)
    except pydantic_core.PydanticSerializationError as exc:
        raise ArgumentError(argument, "JSON (the run state is saved with export_state)", detail=str(exc)) from None
    if not isinstance(data, dict):
        raise ArgumentError(argument, "a JSON object (a dict)", values)
    return data


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentContext:
    """`context.agent`: set when an agent runs the tool."""

    tool_call_id: str
    """This call's id."""
    messages: Sequence[Any]
    """The conversation so far (neutral `Message` objects)."""
    thread_id: str | None
    """The agent's thread id (`Agent(thread_id=...)`)."""
    resource_id: str | None
    """The agent's resource id (`Agent(resource_id=...)`)."""

    def suspend(self, payload: Any = None) -> NoReturn:
        """Pause the call with `payload`; the run pauses until `agent.resume(tool_call_id, data)`."""
        raise SuspendRequested(payload)


@dataclass(frozen=True, slots=True)
class WorkflowContext:
    """`context.workflow`: the run state shared by every call of the conversation."""

    run: RunState

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the run state (changes need `set_state`)."""
        return self.run.values

    def set_state(self, values: Mapping[str, Any]) -> None:
        """Replace the run state; saved with the agent's `export_state` (parallel calls: last write wins).

        Raises:
            ArgumentError: not a JSON object.
        """
        self.run.set(values)

    def suspend(self, payload: Any = None) -> NoReturn:
        """Pause the call with `payload` (same as `context.suspend`)."""
        raise SuspendRequested(payload)
