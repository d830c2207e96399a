"""An `execute` whose parameter is not the input model is refused."""

from __future__ import annotations

from pydantic import BaseModel

from toolwire import create_tool


class Weather(BaseModel):
    city: str


def run(args: int) -> str:
    return str(args)


# expected by mypy: var-annotated, arg-type
# expected by pyright: reportCallIssue, reportArgumentType, reportUnknownVariableType
weather = create_tool(id="weather", description="W.", input_schema=Weather, execute=run)
