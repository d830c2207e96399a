"""Every neutral tool choice mapped to `tool_choice` (`anthropic/types/tool_choice_*_param.py`), through the SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolwire import ConfigurationError, create_tool
from toolwire.adapter import Adapter
from toolwire.compat import Degradation

WireBody = Callable[..., dict[str, Any]]

TOOLS = [
    create_tool(id="get_weather", description="Weather."),
    create_tool(id="get_time", description="Time."),
    create_tool(id="send.mail", description="Mail."),
]


def entry(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": {"type": "object", "properties": {}}}


ALL_ENTRIES = [entry("get_weather", "Weather."), entry("get_time", "Time."), entry("send_mail", "Mail.")]


def on_the_wire(wire_body: WireBody, fragment: dict[str, Any]) -> dict[str, Any]:
    body = wire_body(**fragment)
    return {key: body[key] for key in fragment}


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        ("auto", None, {"type": "auto"}),
        ("required", None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        ({"tool": "send.mail"}, None, {"type": "tool", "name": "send_mail"}),
        ({"mode": "required"}, None, {"type": "any"}),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        (
            {"tool": "get_time", "parallel": False},
            None,
            {"type": "tool", "name": "get_time", "disable_parallel_tool_use": True},
        ),
        ("auto", True, {"type": "auto", "disable_parallel_tool_use": False}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ],
)
def test_choice_forms(adapter: Adapter, wire_body: WireBody, choice: Any, parallel: bool | None, expected: Any) -> None:
    fragment = adapter.encode_tools(TOOLS, choice, parallel=parallel)
    assert fragment == {"tools": ALL_ENTRIES, "tool_choice": expected}
    assert on_the_wire(wire_body, fragment) == fragment
    assert fragment.warnings == []


def test_no_choice_sends_no_tool_choice(adapter: Adapter) -> None:
    assert adapter.encode_tools(TOOLS) == {"tools": ALL_ENTRIES}


def test_an_allowed_subset_sends_only_those_tools_and_is_reported(adapter: Adapter, wire_body: WireBody) -> None:
    fragment = adapter.encode_tools(TOOLS, {"allowed": ["send.mail", "get_weather"], "mode": "auto"})
    assert fragment == {
        "tools": [entry("get_weather", "Weather."), entry("send_mail", "Mail.")],
        "tool_choice": {"type": "auto"},
    }
    assert on_the_wire(wire_body, fragment) == fragment
    assert fragment.warnings == [
        Degradation(
            api="anthropic",
            feature="tool_choice.allowed",
            action="Anthropic has no allowed-tools choice: sent only the allowed tools and left out 'get_time' "
            "(a changed tool list also restarts the prompt cache)",
        )
    ]


def test_an_allowed_subset_that_must_be_called_uses_any(adapter: Adapter) -> None:
    fragment = adapter.encode_tools(TOOLS, {"allowed": ["get_time"], "mode": "required", "parallel": False})
    assert fragment == {
        "tools": [entry("get_time", "Time.")],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    }


def test_an_allowed_subset_of_every_tool_is_not_a_degradation(adapter: Adapter) -> None:
    fragment = adapter.encode_tools(TOOLS, {"allowed": ["get_weather", "get_time", "send.mail"]})
    assert fragment == {"tools": ALL_ENTRIES, "tool_choice": {"type": "auto"}}
    assert fragment.warnings == []


def test_parallel_false_with_none_is_not_sent_and_reported(adapter: Adapter, wire_body: WireBody) -> None:
    fragment = adapter.encode_tools(TOOLS, "none", parallel=False)
    assert fragment == {"tools": ALL_ENTRIES, "tool_choice": {"type": "none"}}
    assert on_the_wire(wire_body, fragment) == fragment
    assert [w.feature for w in fragment.warnings] == ["tool_choice.parallel"]


def test_validated_is_ignored_and_reported(adapter: Adapter) -> None:
    fragment = adapter.encode_tools(TOOLS, {"mode": "required", "validated": True})
    assert fragment["tool_choice"] == {"type": "any"}
    assert [w.feature for w in fragment.warnings] == ["tool_choice.validated"]


def test_a_choice_naming_an_unknown_tool_is_an_error(adapter: Adapter) -> None:
    with pytest.raises(ConfigurationError, match=r"tool_choice names \['nope'\]"):
        adapter.encode_tools(TOOLS, {"tool": "nope"})
