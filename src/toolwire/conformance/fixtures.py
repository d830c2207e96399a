"""The tools every conformance scenario uses, built fresh per run so calls can be counted."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic

from toolwire.results import content, image_data, text_part
from toolwire.tools import Tool, create_tool

# A 1x1 transparent PNG: small enough to read in a cassette, real enough for any provider.
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


class WeatherInput(pydantic.BaseModel):
    """Where to get the weather."""

    city: str = pydantic.Field(description="City name, e.g. Paris")
    unit: Literal["celsius", "fahrenheit"] = pydantic.Field("celsius", description="Temperature unit")


class Attendee(pydantic.BaseModel):
    """Someone invited."""

    name: str
    email: str | None = None


class EventWhen(pydantic.BaseModel):
    """When the event happens."""

    date: str = pydantic.Field(description="ISO date, e.g. 2026-12-01")
    time: str | None = pydantic.Field(None, description="24h time, e.g. 14:30")


class CalendarEvent(pydantic.BaseModel):
    """A calendar entry to create."""

    title: str
    when: EventWhen
    attendees: list[Attendee] = pydantic.Field(default_factory=list)
    notes: str | None = None


@dataclass
class ToolLog:
    """What the scenario tools were called with, in order."""

    calls: list[tuple[str, Any]] = field(default_factory=list)


def scenario_tools(log: ToolLog) -> dict[str, Tool]:
    """Fresh tools that record their calls into `log`."""

    def get_weather(value: WeatherInput) -> dict[str, Any]:
        log.calls.append(("get_weather", value.model_dump()))
        temperatures = {"Paris": 18, "Tokyo": 22, "Berlin": 12}
        return {
            "city": value.city,
            "temperature": temperatures.get(value.city, 20),
            "unit": value.unit,
            "conditions": "sunny",
        }

    def make_chart(value: dict[str, Any]) -> bytes:
        log.calls.append(("make_chart", value))
        return PNG_1X1

    def get_time(value: dict[str, Any]) -> str:
        log.calls.append(("get_time", value))
        return "2026-11-30T09:00:00Z"

    def create_event(value: CalendarEvent) -> dict[str, Any]:
        log.calls.append(("create_event", value.model_dump()))
        return {"id": "evt_1", "title": value.title}

    def search_docs(value: dict[str, Any]) -> list[dict[str, str]]:
        log.calls.append(("search_docs", value))
        return [{"title": "Tool calling", "url": "https://docs.example.com/tools"}]

    def lookup_order(value: dict[str, Any]) -> dict[str, Any]:
        log.calls.append(("lookup_order", value))
        raise LookupError(f"order {value['order_id']} does not exist")

    return {
        "get_weather": create_tool(
            id="get_weather",
            description="Get the current weather for a city.",
            input_schema=WeatherInput,
            execute=get_weather,
        ),
        "make_chart": create_tool(
            id="make_chart",
            description="Draw a temperature chart for a city and return it as an image.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            execute=make_chart,
            to_model_output=lambda png: content(
                text_part("Chart attached."), image_data(png, "image/png", filename="chart.png")
            ),
        ),
        "get_time": create_tool(id="get_time", description="Get the current UTC time.", execute=get_time),
        "create_event": create_tool(
            id="create_event",
            description="Create a calendar event.",
            input_schema=CalendarEvent,
            strict=True,
            execute=create_event,
        ),
        "search_docs": create_tool(
            id="search_docs",
            description="Search the product documentation.",
            input_schema={
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                },
                "required": ["query"],
            },
            input_examples=[{"input": {"query": "streaming tool calls", "limit": 3}}],
            provider_options={
                "anthropic": {"cache_control": {"type": "ephemeral"}},
                "openai": {"defer_loading": False},
            },
            execute=search_docs,
        ),
        "lookup_order": create_tool(
            id="lookup_order",
            description="Look up an order by its id.",
            input_schema={"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
            execute=lookup_order,
        ),
    }
