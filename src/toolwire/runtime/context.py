"""What `execute(input, context)` receives: request context, abort signal, ids, messages, tracing."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from .abort import AbortSignal
from .run_state import AgentContext, WorkflowContext
from .suspension import SuspendRequested

logger = logging.getLogger("toolwire")


class Observe:
    """Child spans and structured logs from inside a tool; a no-op without OpenTelemetry.

    With `opentelemetry-api` installed, spans are real spans under the current context and
    logs become span events; logs also go to the `toolwire.tools` logger.
    """

    def __init__(self, tool_name: str, tool_call_id: str) -> None:
        self._tool_name = tool_name
        self._tool_call_id = tool_call_id
        self._tracer = _tracer()
        self._records: list[dict[str, Any]] = []

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every span and log recorded so far, in order (kept even without tracing)."""
        return self._records

    @contextlib.contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[None]:
        """`with context.observe.span("fetch", url=...):` records a child span around the block."""
        self._records.append({"kind": "span", "name": name, "attributes": attributes})
        if self._tracer is None:
            yield
            return
        with self._tracer.start_as_current_span(name, attributes=_otel_attributes(attributes)):
            yield

    def log(self, message: str, **fields: Any) -> None:
        """A structured log line attached to the current span."""
        self._records.append({"kind": "log", "message": message, "fields": fields})
        logging.getLogger("toolwire.tools").info(
            "%s", message, extra={"tool_name": self._tool_name, "tool_call_id": self._tool_call_id, "fields": fields}
        )
        if self._tracer is not None:
            from opentelemetry import trace

            span = trace.get_current_span()
            if span.is_recording():  # a late log (e.g. remote progress) must not touch an ended span
                span.add_event(message, attributes=_otel_attributes(fields))


@functools.lru_cache(maxsize=1)
def _tracer() -> Any:
    """OpenTelemetry's tracer for toolwire (a proxy that follows the provider set later), or None."""
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("toolwire")


@contextlib.contextmanager
def tool_span(tool_name: str, tool_call_id: str) -> Iterator[Any]:
    """The span of one tool execution (OpenTelemetry GenAI conventions); None without OpenTelemetry."""
    tracer = _tracer()
    if tracer is None or not _tracing_configured():
        yield None
        return
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool_name,
        "gen_ai.tool.call.id": tool_call_id,
    }
    with tracer.start_as_current_span(f"execute_tool {tool_name}", attributes=attributes) as span:
        yield span


def _tracing_configured() -> bool:
    """Whether a tracer provider was set: until then every span is a no-op, not worth its cost per call."""
    from opentelemetry import trace

    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def mark_failed(span: Any, message: str) -> None:
    """Record on a tool span that the call ended in an error result."""
    if span is None:
        return
    from opentelemetry.trace import Status, StatusCode

    span.set_status(Status(StatusCode.ERROR, message[:200]))


def _otel_attributes(values: Mapping[str, Any]) -> dict[str, Any]:
    allowed = (str, bool, int, float)
    return {k: v if isinstance(v, allowed) else repr(v) for k, v in values.items()}


@dataclass(kw_only=True)
class ToolContext:
    """The second argument of `execute`."""

    tool_call_id: str
    tool_name: str
    request_context: Any = None
    """The host's request context, validated against `request_context_schema` when the tool has one."""
    abort_signal: AbortSignal = field(default_factory=AbortSignal)
    """Set when the host aborts or the call times out; sync tools should poll `.aborted`."""
    messages: Sequence[Any] | None = None
    """The conversation so far, when the caller passed it."""
    observe: Observe | None = None
    resumed: bool = False
    """Whether this run continues a suspended call (the resume data may be None)."""
    resume_data: Any = None
    """On resume: the data `resume()` was called with (validated against `resume_schema`)."""
    suspend_payload: Any = None
    """On resume: what the tool passed to `suspend()` the first time."""
    mcp: Any = None
    """MCP-specific context (elicitation) when the tool is served over MCP."""
    agent: AgentContext | None = None
    """Agent-specific context (call id, messages, thread and resource ids, `suspend`) when an agent runs the tool."""
    workflow: WorkflowContext | None = None
    """The run state (`state`, `set_state`, `suspend`) when the host keeps one (an agent always does)."""
    background: Any = None
    """A `BackgroundContext` (task id, attempt, `progress(data)`) when the call runs as a background task."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Free-form values for hosts that run tools (code mode, targets)."""

    def __post_init__(self) -> None:
        if self.observe is None:
            self.observe = Observe(self.tool_name, self.tool_call_id)

    def suspend(self, payload: Any = None) -> NoReturn:
        """Pause the call with `payload`; the host resumes it later with `resume(...)`."""
        raise SuspendRequested(payload)
