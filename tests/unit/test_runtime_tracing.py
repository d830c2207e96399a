"""Tracing: each execution is a span, and `context.observe` adds child spans and logs to it."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from toolwire import create_tool, execute_tool

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def _provider() -> None:
    """OpenTelemetry allows one global provider per process: set it once, export to memory."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    trace.set_tracer_provider(provider)


@pytest.fixture(autouse=True)
def _clean() -> None:
    _EXPORTER.clear()


def _observed(value: dict[str, Any], context: Any) -> str:
    with context.observe.span("fetch", url="https://example.com"):
        context.observe.log("fetched", status=200)
    return "done"


async def test_an_execution_is_a_span_named_after_the_tool() -> None:
    """GenAI semantic conventions: `execute_tool <name>` with the tool name and call id."""
    tool = create_tool(id="lookup", description="Look up.", execute=_observed)
    await execute_tool(tool, {"toolCallId": "call_1", "toolName": "lookup", "input": {}})
    spans = {span.name: span for span in _EXPORTER.get_finished_spans()}
    outer = spans["execute_tool lookup"]
    assert dict(outer.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "call_1",
    }


async def test_observe_spans_are_children_and_logs_are_events() -> None:
    """The tool's own span and log land under the execution span."""
    tool = create_tool(id="lookup", description="Look up.", execute=_observed)
    await execute_tool(tool, {"toolCallId": "call_1", "toolName": "lookup", "input": {}})
    spans = {span.name: span for span in _EXPORTER.get_finished_spans()}
    child = spans["fetch"]
    assert child.parent is not None
    assert child.parent.span_id == spans["execute_tool lookup"].context.span_id
    assert dict(child.attributes or {}) == {"url": "https://example.com"}
    assert [(e.name, dict(e.attributes or {})) for e in child.events] == [("fetched", {"status": 200})]


async def test_a_failed_execution_marks_its_span_as_an_error() -> None:
    """An error result sets the span status to ERROR with the message."""

    def boom(value: dict[str, Any]) -> None:
        raise RuntimeError("disk full")

    tool = create_tool(id="save", description="Save.", execute=boom)
    await execute_tool(tool, {"toolCallId": "c", "toolName": "save", "input": {}})
    (span,) = _EXPORTER.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "Tool 'save' failed: RuntimeError: disk full"
