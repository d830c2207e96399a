"""`BackgroundConfig`: a tool's background-execution settings, and checking what `create_tool` was given for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .exceptions import ToolDefinitionError


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundConfig:
    """Background execution: the model gets an acknowledgement at once, the result arrives in a later turn.

    An agent runs such a call as a task (in-process, or on a durable engine's queue) and reports
    it with `background-task-*` events; `toolwire.runtime.background` has the details.
    """

    enabled: bool = True
    timeout: float | None = None
    """Seconds one attempt may run before it is aborted and reported as timed out (None: no limit)."""
    retries: int = 0
    """Further attempts after a failure (an exception or a timeout); a `ToolError` is an answer, never retried."""
    retry_delay: float = 1.0
    """Seconds before the first retry, doubled before each next one."""
    max_concurrency: int | None = None
    """At most this many tasks of this tool run at once (later ones wait their turn); None: no limit of its own."""
    acknowledgement: str | Callable[..., Any] | None = None
    """What the model reads at once: a template with `{task_id}`, `{tool_name}`, `{tool_call_id}`, or a
    callable receiving the `BackgroundTask` and returning text or a model output; None: a standard text."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Further settings kept for the host runtime."""


def build_background(tool_id: str, spec: bool | Mapping[str, Any] | BackgroundConfig | None) -> BackgroundConfig | None:
    """The settings `background=` stands for (None: runs in the turn).

    Raises:
        ToolDefinitionError: a value that is not true, false, a dict of valid settings or a `BackgroundConfig`.
    """
    if spec is None or spec is False:
        return None
    if spec is True:
        return BackgroundConfig()
    if isinstance(spec, BackgroundConfig):
        return spec
    if not isinstance(spec, Mapping):
        raise ToolDefinitionError(tool_id, "background", "must be true, false or a dict of settings")
    options = dict(spec)
    enabled = options.pop("enabled", True)
    timeout = options.pop("timeout", None)
    if not isinstance(enabled, bool) or not (timeout is None or _is_number(timeout)):
        raise ToolDefinitionError(tool_id, "background", "`enabled` must be a bool and `timeout` a number of seconds")
    retries = _pop_either(options, "retries", "retries", 0)
    delay = _pop_either(options, "retry_delay", "retryDelay", 1.0)
    limit = _pop_either(options, "max_concurrency", "maxConcurrency", None)
    acknowledgement = options.pop("acknowledgement", None)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise ToolDefinitionError(tool_id, "background", "`retries` must be an int >= 0")
    if not _is_number(delay) or delay < 0:
        raise ToolDefinitionError(tool_id, "background", "`retry_delay` must be a number of seconds >= 0")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ToolDefinitionError(tool_id, "background", "`max_concurrency` must be an int >= 1 or None")
    if acknowledgement is not None and not (isinstance(acknowledgement, str) or callable(acknowledgement)):
        raise ToolDefinitionError(tool_id, "background", "`acknowledgement` must be a string template or a callable")
    return BackgroundConfig(
        enabled=enabled,
        timeout=timeout,
        retries=retries,
        retry_delay=delay,
        max_concurrency=limit,
        acknowledgement=acknowledgement,
        options=options,
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pop_either(options: dict[str, Any], name: str, camel: str, default: Any) -> Any:
    """A setting given in snake_case or in the seed's camelCase."""
    value = options.pop(name, default)
    return options.pop(camel, value)
