"""A typo in a lambda's attribute is caught: the lambda's argument is the input model.

mypy matches an `execute` that could take the context first (so that a tool typed as never
suspending never does), and so names that signature; pyright names the attribute.
"""

from __future__ import annotations

from pydantic import BaseModel

from toolwire import create_tool


class Weather(BaseModel):
    city: str


# expected by mypy: misc, arg-type
# expected by pyright: reportAttributeAccessIssue, reportUnknownLambdaType
# expected by pyright: reportUnknownMemberType, reportUnknownVariableType
weather = create_tool(id="weather", description="W.", input_schema=Weather, execute=lambda args: args.citty)
