"""Specification of suspend and resume: validated payloads, JSON state that survives a restart, resumed runs."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from toolwire import create_tool
from toolwire.results import ToolResult
from toolwire.runtime import Suspension, ToolContext, execute_tool, resume_tool
from toolwire.tools import Tool


class Question(pydantic.BaseModel):
    question: str


class Answer(pydantic.BaseModel):
    approved: bool


def _booking_tool(log: list[Any] | None = None, **options: Any) -> Tool:
    def execute(value: Any, context: ToolContext) -> str:
        if log is not None:
            log.append((context.resumed, context.resume_data, context.suspend_payload))
        if not context.resumed:
            context.suspend({"question": f"Book {value['room']}?"})
        return f"booked {value['room']}" if context.resume_data["approved"] else "cancelled"

    return create_tool(
        id="book",
        description="Book a room.",
        input_schema={"type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]},
        execute=execute,
        **options,
    )


async def _suspend(tool: Tool) -> Suspension:
    outcome = await execute_tool(tool, {"toolCallId": "c1", "toolName": "book", "input": {"room": "12"}})
    assert isinstance(outcome, Suspension)
    return outcome


class TestSuspend:
    async def test_suspend_returns_a_suspension_with_the_input_and_payload(self) -> None:
        """The call pauses; the state names the call and keeps its input and payload."""
        assert await _suspend(_booking_tool()) == Suspension(
            tool_call_id="c1",
            tool_name="book",
            input={"room": "12"},
            payload={"question": "Book 12?"},
            display_payload={"question": "Book 12?"},
        )

    async def test_the_payload_is_validated_against_the_suspend_schema(self) -> None:
        """A payload matching the schema is kept as JSON."""
        suspension = await _suspend(_booking_tool(suspend_schema=Question))
        assert suspension.payload == {"question": "Book 12?"}

    async def test_a_payload_failing_the_suspend_schema_is_an_error_result(self) -> None:
        """The tool broke its own contract; the model is told."""
        schema = {"type": "object", "properties": {"question": {"type": "integer"}}}
        outcome = await execute_tool(
            _booking_tool(suspend_schema=schema), {"toolCallId": "c1", "toolName": "book", "input": {"room": "12"}}
        )
        assert isinstance(outcome, ToolResult)
        assert outcome.output == {
            "type": "error-text",
            "value": "Tool 'book' suspended with a payload that fails its suspend schema: "
            "at `question`: 'Book 12?' is not of type 'integer'.",
        }

    async def test_the_display_payload_goes_through_the_display_suspend_transform(self) -> None:
        """A UI sees the transformed payload; the state keeps the real one."""
        tool = _booking_tool(transform={"display": {"suspend": lambda suspend_payload: {"ask": "confirm?"}}})
        suspension = await _suspend(tool)
        assert (suspension.payload, suspension.display_payload) == ({"question": "Book 12?"}, {"ask": "confirm?"})

    async def test_catching_exception_inside_the_tool_does_not_swallow_suspend(self) -> None:
        """Suspension is a BaseException, so a broad `except Exception` in user code lets it through."""

        def execute(value: Any, context: ToolContext) -> str:
            try:
                context.suspend("wait")
            except Exception:
                return "swallowed"

        outcome = await execute_tool(
            create_tool(id="t", description="T.", execute=execute), {"toolCallId": "c", "toolName": "t", "input": {}}
        )
        assert isinstance(outcome, Suspension)
        assert outcome.payload == "wait"


class TestResume:
    async def test_resume_runs_execute_again_with_resume_data_and_the_first_payload(self) -> None:
        """The second run knows it is resumed, with what was asked and what was answered."""
        log: list[Any] = []
        tool = _booking_tool(log)
        suspension = await _suspend(tool)
        result = await resume_tool(tool, suspension, {"approved": True})
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "text", "value": "booked 12"}
        assert log == [(False, None, None), (True, {"approved": True}, {"question": "Book 12?"})]

    async def test_resume_data_is_validated_and_given_as_json(self) -> None:
        """With a resume schema, execute gets the validated data in JSON form."""
        tool = _booking_tool(resume_schema=Answer)
        result = await resume_tool(tool, await _suspend(tool), {"approved": "false"})
        assert isinstance(result, ToolResult)
        assert result.output == {"type": "text", "value": "cancelled"}

    async def test_resume_data_failing_the_resume_schema_is_an_error_result(self) -> None:
        """Bad resume data never reaches execute."""
        tool = _booking_tool(resume_schema=Answer)
        result = await resume_tool(tool, await _suspend(tool), {"approved": "perhaps"})
        assert isinstance(result, ToolResult)
        assert result.output["value"].startswith("Resume data for tool 'book' is invalid: at `approved`: Input should")

    async def test_the_input_hook_does_not_fire_again_on_resume(self) -> None:
        """onInputAvailable belongs to the call, which already happened."""
        fired: list[str] = []
        tool = _booking_tool(on_input_available=lambda tool_call_id: fired.append(tool_call_id))
        suspension = await _suspend(tool)
        await resume_tool(tool, suspension, {"approved": True})
        assert fired == ["c1"]

    async def test_a_resumed_call_may_suspend_again(self) -> None:
        """Multi-step confirmations are chains of suspensions."""

        def execute(value: Any, context: ToolContext) -> str:
            step = (context.resume_data or {}).get("step", 0)
            if step < 2:
                context.suspend({"step": step + 1})
            return "done"

        tool = create_tool(id="t", description="T.", execute=execute)
        first = await execute_tool(tool, {"toolCallId": "c", "toolName": "t", "input": {}})
        assert isinstance(first, Suspension)
        second = await resume_tool(tool, first, {"step": 1})
        assert isinstance(second, Suspension)
        assert second.payload == {"step": 2}
        third = await resume_tool(tool, second, {"step": 2})
        assert isinstance(third, ToolResult)

    async def test_resuming_without_data_still_counts_as_resumed(self) -> None:
        """`resume(call_id)` with nothing to add (a plain "continue") must not loop back into suspend."""

        def execute(value: Any, context: ToolContext) -> str:
            if not context.resumed:
                context.suspend({"question": "continue?"})
            return "continued"

        tool = create_tool(id="t", description="T.", execute=execute)
        first = await execute_tool(tool, {"toolCallId": "c", "toolName": "t", "input": {}})
        assert isinstance(first, Suspension)
        assert isinstance(await resume_tool(tool, first, None), ToolResult)


class TestSuspensionState:
    def test_a_suspension_round_trips_through_json(self) -> None:
        """The state survives a process restart."""
        suspension = Suspension(
            tool_call_id="c1", tool_name="book", input={"room": "12"}, payload=[1], display_payload={"a": 1}
        )
        assert suspension.to_dict() == {
            "type": "tool-suspended",
            "toolCallId": "c1",
            "toolName": "book",
            "input": {"room": "12"},
            "payload": [1],
            "displayPayload": {"a": 1},
        }
        assert Suspension.from_dict(suspension.to_dict()) == suspension

    def test_reading_a_state_without_its_input_names_the_missing_field(self) -> None:
        """A truncated store is reported clearly."""
        with pytest.raises(ValueError, match=r"^suspended call state is missing 'input'$"):
            Suspension.from_dict({"toolCallId": "c", "toolName": "t"})
