"""Specification of `execute_tool`: hook order, input and context validation, errors as results, output forms."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from typing import Any

import pydantic
import pytest

from toolwire import ToolCall, create_tool
from toolwire.results import ToolResult
from toolwire.runtime import ExecutionSettings, ToolContext, execute_tool, execute_tool_sync
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool

CITY_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "default": "c"}},
    "required": ["city"],
}


class Reading(pydantic.BaseModel):
    city: str
    celsius: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Account(pydantic.BaseModel):
    user_id: str


async def _result(tool: Tool, arguments: Any = None, **kwargs: Any) -> ToolResult:
    call = {"toolCallId": "c1", "toolName": tool.id, "input": {} if arguments is None else arguments}
    outcome = await execute_tool(tool, call, **kwargs)
    assert isinstance(outcome, ToolResult)
    return outcome


class TestOrder:
    async def test_input_hook_then_execute_then_output_hook(self) -> None:
        """The seed's order: onInputAvailable, execute, onOutput, each with its data."""
        log: list[Any] = []

        def execute(value: Any) -> dict[str, int]:
            log.append(("execute", value))
            return {"celsius": 21}

        tool = create_tool(
            id="weather",
            description="Weather.",
            input_schema=CITY_SCHEMA,
            execute=execute,
            on_input_available=lambda input, tool_call_id: log.append(("input", input, tool_call_id)),
            on_output=lambda output, tool_name: log.append(("output", output, tool_name)),
        )
        result = await _result(tool, {"city": "Oslo"})
        assert log == [
            ("input", {"city": "Oslo"}, "c1"),
            ("execute", {"city": "Oslo"}),
            ("output", {"celsius": 21}, "weather"),
        ]
        assert result == ToolResult(
            tool_call_id="c1",
            tool_name="weather",
            output={"type": "json", "value": {"celsius": 21}},
            raw={"celsius": 21},
        )

    async def test_the_input_hook_is_skipped_when_the_stream_already_fired_it(self) -> None:
        """A call from a `tool-input-available` event says its hook ran; it must not run twice."""
        log: list[str] = []
        tool = create_tool(
            id="t", description="T.", execute=lambda v: "ok", on_input_available=lambda: log.append("input")
        )
        call = ToolCall(tool_call_id="c1", tool_name="t", input={}, input_hook_fired=True)
        await execute_tool(tool, call)
        assert log == []

    async def test_hooks_receive_messages_and_the_abort_signal(self) -> None:
        """What the host passes is offered to the hooks (onOutput gets no messages, as in the seed)."""
        seen: dict[str, Any] = {}
        tool = create_tool(
            id="t",
            description="T.",
            execute=lambda v: "ok",
            on_input_available=lambda messages, abort_signal: seen.update(messages=messages, signal=abort_signal),
            on_output=lambda abort_signal: seen.update(output_signal=abort_signal),
        )
        await _result(tool, messages=["hello"])
        assert seen["messages"] == ["hello"]
        assert seen["signal"] is seen["output_signal"]

    async def test_async_hooks_are_awaited(self) -> None:
        """Hooks may be coroutines."""
        log: list[str] = []

        async def on_output(output: Any) -> None:
            log.append(output)

        tool = create_tool(id="t", description="T.", execute=lambda v: "done", on_output=on_output)
        await _result(tool)
        assert log == ["done"]

    async def test_a_raising_hook_is_logged_and_the_call_goes_on(self, caplog: pytest.LogCaptureFixture) -> None:
        """Hook failures never fail the call."""

        def broken() -> None:
            raise RuntimeError("hook down")

        tool = create_tool(id="t", description="T.", execute=lambda v: "ok", on_input_available=broken)
        with caplog.at_level(logging.ERROR, logger="toolwire"):
            result = await _result(tool)
        assert result.output == {"type": "text", "value": "ok"}
        assert [r.getMessage() for r in caplog.records] == [
            "hook on_input_available of tool 't' failed; the call goes on"
        ]


class TestInput:
    async def test_invalid_input_is_an_error_result_naming_the_field_and_showing_the_schema(self) -> None:
        """execute does not run; the model is told what to fix."""
        ran: list[Any] = []
        tool = create_tool(id="weather", description="W.", input_schema=CITY_SCHEMA, execute=ran.append)
        result = await _result(tool, {"city": 5})
        assert ran == []
        assert result.output == {
            "type": "error-text",
            "value": "Invalid input for tool 'weather': at `city`: 5 is not of type 'string'. "
            f"Call it again with input matching {json.dumps(CITY_SCHEMA, separators=(',', ':'))}",
        }
        assert isinstance(result.error, SchemaValidationError)

    async def test_input_given_as_json_text_is_parsed(self) -> None:
        """Calls read from a transcript may carry their input as text; blank text is `{}`."""
        tool = create_tool(id="echo", description="E.", execute=lambda v: v)
        assert (await _result(tool, '{"a": 1}')).raw == {"a": 1}
        assert (await _result(tool, "  ")).raw == {}

    async def test_input_text_that_is_not_json_is_an_error_result(self) -> None:
        """The model is asked for a JSON object."""
        tool = create_tool(id="echo", description="E.", execute=lambda v: v)
        result = await _result(tool, "{oops")
        assert result.output["value"].startswith("The input for tool 'echo' is not valid JSON (Expecting property")
        assert result.output["value"].endswith("; send a JSON object.")

    async def test_input_nested_past_what_a_recursive_schema_can_follow_is_an_error_result(self) -> None:
        """400 nested objects under a `$ref: #` schema: the model is told, nothing raises RecursionError."""
        ran: list[Any] = []
        schema = {"type": "object", "additionalProperties": {"$ref": "#"}}
        tool = create_tool(id="tree", description="T.", input_schema=schema, execute=ran.append)
        value: dict[str, Any] = {}
        for _ in range(400):
            value = {"a": value}
        result = await _result(tool, value)
        assert ran == []
        assert result.output == {
            "type": "error-text",
            "value": "Invalid input for tool 'tree': at `(root)`: the value is nested too deeply to be validated. "
            'Call it again with input matching {"type":"object","additionalProperties":{"$ref":"#"}}',
        }

    async def test_strict_mode_nulls_are_repaired_before_validation(self) -> None:
        """A null for an optional non-nullable field means absent, so pydantic fills the default."""

        class Query(pydantic.BaseModel):
            city: str
            days: int = 3

        tool = create_tool(id="q", description="Q.", input_schema=Query, execute=lambda v: v)
        assert (await _result(tool, {"city": "Oslo", "days": None})).raw == Query(city="Oslo", days=3)

    async def test_a_pydantic_input_reaches_execute_as_a_model_instance(self) -> None:
        """execute works with typed values."""
        tool = create_tool(id="r", description="R.", input_schema=Reading, execute=lambda r: r.celsius * 2)
        assert (await _result(tool, {"city": "Oslo", "celsius": "1.5"})).output == {"type": "json", "value": 3.0}


class TestRequestContext:
    async def test_a_valid_request_context_is_validated_and_passed_typed(self) -> None:
        """execute sees the request context as the schema's type."""
        tool = create_tool(
            id="me",
            description="Me.",
            request_context_schema=Account,
            execute=lambda value, context: context.request_context,
        )
        assert (await _result(tool, request_context={"user_id": "u1"})).raw == Account(user_id="u1")

    async def test_an_invalid_request_context_is_an_error_result_and_execute_never_runs(self) -> None:
        """The seed: the context is validated before execute, and an error object is returned."""
        ran: list[Any] = []
        tool = create_tool(id="me", description="Me.", request_context_schema=Account, execute=ran.append)
        result = await _result(tool, request_context={"user": "u1"})
        assert ran == []
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'me' cannot run: the request context is invalid: at `user_id`: Field required.",
        }

    async def test_a_missing_request_context_is_validated_as_empty(self) -> None:
        """No context at all fails a schema with required fields."""
        tool = create_tool(id="me", description="Me.", request_context_schema=Account, execute=lambda v: v)
        assert (await _result(tool)).is_error

    async def test_without_a_schema_the_context_is_passed_as_given(self) -> None:
        """Any object may be a request context."""
        marker = object()
        tool = create_tool(id="me", description="Me.", execute=lambda v, context: context.request_context is marker)
        assert (await _result(tool, request_context=marker)).raw is True


class TestExecute:
    async def test_execute_with_one_parameter_gets_only_the_input(self) -> None:
        """`execute(input)` is enough."""
        tool = create_tool(id="one", description="One.", execute=lambda value: sorted(value))
        assert (await _result(tool, {"b": 1, "a": 2})).raw == ["a", "b"]

    async def test_execute_with_two_parameters_gets_the_context(self) -> None:
        """The context carries the call id, the tool name and an abort signal."""

        def execute(value: Any, context: ToolContext) -> list[Any]:
            return [context.tool_call_id, context.tool_name, context.abort_signal.aborted]

        tool = create_tool(id="two", description="Two.", execute=execute)
        assert (await _result(tool)).raw == ["c1", "two", False]

    async def test_a_sync_execute_runs_off_the_event_loop_thread(self) -> None:
        """Blocking tools do not block other calls."""
        tool = create_tool(id="thread", description="T.", execute=lambda v: threading.get_ident())
        assert (await _result(tool)).raw != threading.get_ident()

    async def test_an_async_callable_object_is_awaited(self) -> None:
        """Objects with `async def __call__` count as async executes."""

        class Fetch:
            async def __call__(self, value: Any) -> str:
                return "fetched"

        tool = create_tool(id="f", description="F.", execute=Fetch())
        assert (await _result(tool)).output == {"type": "text", "value": "fetched"}

    async def test_an_exception_becomes_an_error_result_keeping_the_exception(self) -> None:
        """The model reads what failed; the host keeps the exception."""
        boom = ValueError("station offline")

        def execute(value: Any) -> None:
            raise boom

        result = await _result(create_tool(id="w", description="W.", execute=execute))
        assert result.output == {"type": "error-text", "value": "Tool 'w' failed: ValueError: station offline"}
        assert result.error is boom
        assert result.is_error

    async def test_a_tool_without_execute_is_an_error_result(self) -> None:
        """Tools executed elsewhere cannot run here."""
        result = await _result(create_tool(id="remote", description="R."))
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'remote' cannot be run here: it has no execute function.",
        }

    def test_execute_tool_sync_runs_without_a_loop(self) -> None:
        """Synchronous code gets the same result."""
        tool = create_tool(id="s", description="S.", execute=lambda v: "sync")
        outcome = execute_tool_sync(tool, {"toolCallId": "c", "toolName": "s", "input": {}})
        assert isinstance(outcome, ToolResult)
        assert outcome.output == {"type": "text", "value": "sync"}

    async def test_execute_tool_sync_refuses_to_run_inside_a_loop(self) -> None:
        """Inside async code, `await execute_tool` is the way."""
        tool = create_tool(id="s", description="S.", execute=lambda v: "sync")
        with pytest.raises(RuntimeError, match="cannot be called from a running event loop"):
            execute_tool_sync(tool, {"toolCallId": "c", "toolName": "s", "input": {}})


class TestOutput:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("sunny", {"type": "text", "value": "sunny"}),
            ({"c": 21}, {"type": "json", "value": {"c": 21}}),
            (Reading(city="Oslo", celsius=21), {"type": "json", "value": {"city": "Oslo", "celsius": 21.0}}),
            (Point(x=1, y=2), {"type": "json", "value": {"x": 1, "y": 2}}),
            (None, {"type": "json", "value": None}),
        ],
    )
    async def test_the_default_model_output(self, raw: Any, expected: dict[str, Any]) -> None:
        """Strings are text; dicts, models and dataclasses are JSON; `raw` keeps the original."""
        result = await _result(create_tool(id="o", description="O.", execute=lambda v: raw))
        assert result.output == expected
        assert result.raw is raw

    async def test_to_model_output_shapes_what_the_model_sees(self) -> None:
        """The seed's example: text plus an image for the model, the full output for the application."""
        tool = create_tool(
            id="w",
            description="W.",
            execute=lambda v: {"location": "Seattle", "radar": "https://e/r.png"},
            to_model_output=lambda o: {
                "type": "content",
                "value": [{"type": "text", "text": o["location"]}, {"type": "image-url", "url": o["radar"]}],
            },
        )
        result = await _result(tool)
        assert result.output == {
            "type": "content",
            "value": [{"type": "text", "text": "Seattle"}, {"type": "image-url", "url": "https://e/r.png"}],
        }
        assert result.raw == {"location": "Seattle", "radar": "https://e/r.png"}

    async def test_an_invalid_to_model_output_is_an_error_result(self) -> None:
        """What `to_model_output` returns is checked like any model output."""
        tool = create_tool(id="w", description="W.", execute=lambda v: 1, to_model_output=lambda o: {"type": "image"})
        result = await _result(tool)
        assert result.output["value"].startswith(
            "Tool 'w' produced output the model cannot be shown: a model output must be a dict with type in"
        )

    async def test_a_raising_to_model_output_is_an_error_result(self) -> None:
        """A bug in `to_model_output` is reported to the model, not raised into the agent loop."""
        tool = create_tool(id="w", description="W.", execute=lambda v: {}, to_model_output=lambda o: o["missing"])
        result = await _result(tool)
        assert result.is_error

    async def test_output_failing_the_output_schema_is_an_error_by_default(self) -> None:
        """Validation happens before onOutput, so the hook never sees a bad output."""
        seen: list[Any] = []
        tool = create_tool(
            id="r",
            description="R.",
            output_schema=Reading,
            execute=lambda v: {"city": "Oslo"},
            on_output=lambda output: seen.append(output),
        )
        result = await _result(tool)
        assert seen == []
        assert result.output == {
            "type": "error-text",
            "value": "Tool 'r' returned output that does not match its output schema: at `celsius`: Field required.",
        }

    async def test_output_failing_the_output_schema_is_a_logged_warning_in_warn_mode(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """`output_validation="warn"` keeps the result and logs the mismatch."""
        tool = create_tool(id="r", description="R.", output_schema=Reading, execute=lambda v: {"city": "Oslo"})
        with caplog.at_level(logging.WARNING, logger="toolwire"):
            result = await _result(tool, settings=ExecutionSettings(output_validation="warn"))
        assert result.output == {"type": "json", "value": {"city": "Oslo"}}
        assert [r.getMessage() for r in caplog.records] == [
            "tool 'r' output does not match its output schema: at `celsius`: Field required"
        ]
