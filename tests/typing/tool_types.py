"""The types toolwire gives a user's code; checked by mypy --strict and pyright strict, never run.

`tests/typing/test_type_checkers.py` runs both checkers on this module: it must type-check with
no error. Each `assert_type` states what a checker infers; `fails/` holds what must be refused.
"""

from __future__ import annotations

from typing import Any, assert_type

from pydantic import BaseModel

from toolwire import Agent, ApprovalRequest, Suspension, Tool, ToolContext, ToolResult, create_tool, tool
from toolwire.events import Event, SourceUrl
from toolwire.messages import AssistantMessage, MediaPart, ReasoningPart, TextPart
from toolwire.results import ToolCall
from toolwire.runtime import execute_tool, execute_tool_sync
from toolwire.schema import CompiledSchema, compile_schema
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter

CALL = {"toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}}


class Weather(BaseModel):
    city: str


async def forecast(args: Weather) -> list[str]:
    return [args.city]


def ask_first(args: Weather, context: ToolContext) -> str:
    if not context.resumed:
        context.suspend({"question": f"Which {args.city}?"})
    return str(context.resume_data)


# -- create_tool infers the input, the output and the outcome -------------------------------------

plain = create_tool(id="weather", description="Weather.", input_schema=Weather, execute=lambda args: args.city)
assert_type(plain, Tool[Weather, str, ToolResult])

awaited = create_tool(id="forecast", description="Forecast.", input_schema=Weather, execute=forecast)
assert_type(awaited, Tool[Weather, list[str], ToolResult])

suspending = create_tool(id="ask", description="Ask.", input_schema=Weather, execute=ask_first)
assert_type(suspending, Tool[Weather, str, ToolResult | Suspension])

guarded = create_tool(
    id="delete", description="Delete.", input_schema=Weather, execute=lambda args: True, require_approval=True
)
assert_type(guarded, Tool[Weather, bool, ToolResult | ApprovalRequest])

from_dict = create_tool(
    id="echo", description="Echo.", input_schema={"type": "object"}, execute=lambda args: str(args["x"])
)
assert_type(from_dict, Tool[Any, str, ToolResult])

no_schema = create_tool(id="ping", description="Ping.", execute=lambda args: 1)
assert_type(no_schema, Tool[Any, int, ToolResult])

front_end = create_tool(id="confirm", description="Confirm.", input_schema=Weather)
assert_type(front_end, Tool[Weather, Any, ToolResult])

assert_type(plain.input_schema.validate({"city": "Paris"}), Weather)
assert_type(compile_schema(Weather), CompiledSchema[Weather])
assert_type(compile_schema({"type": "object"}), CompiledSchema[Any])


# -- @tool: the input is the model built from the parameters ---------------------------------------


@tool
def get_weather(city: str) -> float:
    """Temperature in a city."""
    return 18.0


assert_type(get_weather, Tool[BaseModel, float, ToolResult | Suspension])


@tool(require_approval=True)
async def remove(path: str) -> bool:
    """Remove a file."""
    return True


assert_type(remove, Tool[BaseModel, bool])


# -- execute_tool: a ToolResult unless the tool may suspend or ask ------------------------------


async def run_calls(any_tool: Tool) -> None:
    assert_type(await execute_tool(plain, CALL), ToolResult)
    assert_type(await execute_tool(awaited, CALL), ToolResult)
    assert_type(await execute_tool(suspending, CALL), ToolResult | Suspension)
    assert_type(await execute_tool(guarded, CALL), ToolResult | ApprovalRequest)
    assert_type(await execute_tool(guarded, CALL, approved=True), ToolResult)
    assert_type(await execute_tool(any_tool, CALL), ToolResult | Suspension | ApprovalRequest)
    assert_type(await execute_tool(any_tool, CALL, approved=True), ToolResult | Suspension)
    text = (await execute_tool(plain, CALL)).output["value"]
    assert_type(text, Any)


def run_sync() -> None:
    assert_type(execute_tool_sync(plain, CALL), ToolResult)
    assert_type(execute_tool_sync(guarded, CALL, approved=True, settings=None), ToolResult)


# -- every inferred tool is still a Tool ----------------------------------------------------------

every: list[Tool] = [plain, awaited, suspending, guarded, from_dict, get_weather, remove]
mixed = [plain, awaited, from_dict]
agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m", tools=mixed)


# -- events narrow by class; an assistant message may hold the files a model returned ------------


def cited_pages(events: list[Event]) -> list[str]:
    return [event.url for event in events if isinstance(event, SourceUrl)]


def returned_files(message: AssistantMessage) -> list[MediaPart]:
    assert_type(message.content[0], TextPart | ReasoningPart | MediaPart | ToolCall | ToolResult)
    return [part for part in message.content if isinstance(part, MediaPart)]
