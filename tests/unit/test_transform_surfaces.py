"""Specification of payload transforms on every surface: phase x target x surface, secrets never leak.

One tool lives a whole life on each surface — its input streams, it waits for approval, one call
suspends and is resumed, one fails — with a secret in the raw payload of every phase. For each
phase and target, the tool gets one transform (returning a marker); on the surfaces of that
target the secret of that phase must not appear, and the marker must, wherever the surface
shows that phase. A transform of one target never touches the other target's surfaces.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types
import pytest
from mcp import Client

from toolwire import Agent, create_tool
from toolwire.deltas import StepFinished
from toolwire.events import Event
from toolwire.mcp import build_server
from toolwire.runtime import Toolbox, ToolContext
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, streamed_call
from toolwire.tools import TRANSFORM_PHASES, Tool, TransformPhase

SECRET = {
    "input": "SECRET-INPUT",
    "input_delta": "SECRET-INPUT",
    "approval": "SECRET-INPUT",
    "output": "SECRET-OUTPUT",
    "error": "SECRET-ERROR",
    "suspend": "SECRET-SUSPEND",
    "resume": "SECRET-RESUME",
}
"""The secret in each phase's raw payload (the approval payload is the input)."""
WHOLE_SURFACE = {"input", "output", "error", "suspend", "resume"}
"""Phases whose secret must vanish from the whole surface; the others share the input's secret,
which their single transform hides only from their own payloads."""
OK_INPUT = {"mode": "ok", "path": "/srv/SECRET-INPUT"}
FAIL_INPUT = {"mode": "fail", "path": "/srv/SECRET-INPUT"}
RESUME = {"answer": "yes SECRET-RESUME"}
SHOWS: dict[str, set[str]] = {
    "agent events": set(TRANSFORM_PHASES),
    "toolbox events": {"input", "output", "error", "approval", "suspend", "resume"},
    "mcp": {"input", "approval", "suspend"},
    "transcript": {"input", "output", "error", "approval", "suspend", "resume"},
}
"""Phases each surface shows (toolbox and MCP show the input through the approval payload)."""
TARGET_OF = {"agent events": "display", "toolbox events": "display", "mcp": "display", "transcript": "transcript"}


def _marker(phase: str) -> Callable[..., Any]:
    if phase == "input_delta":
        return lambda input_text_delta: "SHOWN-input_delta"
    return lambda **_: {"shown": f"SHOWN-{phase}"}


def _execute(value: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    if value["mode"] == "fail":
        raise RuntimeError("database down at SECRET-ERROR")
    if not context.resumed:
        context.suspend({"question": "Confirm SECRET-SUSPEND?"})
    return {"displayName": "Acme", "apiKey": "SECRET-OUTPUT"}


def _tool(transform: dict[str, Any] | None) -> Tool:
    return create_tool(
        id="lookup",
        description="Looks up a customer.",
        input_schema={
            "type": "object",
            "properties": {"mode": {"type": "string"}, "path": {"type": "string"}},
            "required": ["mode", "path"],
        },
        resume_schema={"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
        require_approval=True,
        execute=_execute,
        transform=transform,
    )


Shown = dict[str, list[str]]
"""Phase -> the JSON of every payload of that phase a surface showed; key "all" for everything."""


def _from_events(events: list[Event]) -> Shown:
    shown: Shown = {phase: [] for phase in (*TRANSFORM_PHASES, "all")}
    deltas: dict[str, str] = {}
    for event in events:
        data = event.to_dict()
        shown["all"].append(json.dumps(data))
        kind = data["type"]
        if kind == "tool-input-delta":
            deltas[data["toolCallId"]] = deltas.get(data["toolCallId"], "") + data["inputTextDelta"]
        elif kind in ("tool-input-available", "tool-input-error"):
            shown["input"].append(json.dumps(data["input"]))
        elif kind == "tool-output-available":
            shown["output"].append(json.dumps(data["output"]))
        elif kind in ("tool-output-error", "tool-resume-error"):
            shown["error"].append(data["errorText"])
        elif kind == "tool-approval-request":
            shown["approval"].append(json.dumps(data.get("approvalDescriptor")))
            shown["input"].append(json.dumps(data.get("approvalDescriptor")))  # the approval payload is the input
        elif kind == "tool-suspended":
            shown["suspend"].append(json.dumps(data.get("payload")))
        elif kind == "tool-resumed":
            shown["resume"].append(json.dumps(data.get("payload")))
    shown["input_delta"] = list(deltas.values())
    shown["all"].extend(deltas.values())
    return shown


def _agent_run(tool: Tool) -> Agent:
    first = [
        *streamed_call("c1", "lookup", ['{"mode": "ok", ', '"path": "/srv/SECR', 'ET-INPUT"}']),
        *streamed_call("c2", "lookup", ['{"mode": "fail", "path": "/srv/SECRET-INPUT"}']),
        StepFinished("tool-calls"),
    ]
    agent = Agent(api=ScriptedAdapter([first, answer("done")]), client=SCRIPTED_CLIENT, model="m", tools=[tool])
    agent.events = list(agent.stream("look them up"))  # type: ignore[attr-defined]
    for request in agent.result().pending_approvals:
        agent.approve(request.approval_id)
    agent.events += list(agent.stream())  # type: ignore[attr-defined]
    agent.resume("c1", RESUME)
    agent.events += list(agent.stream())  # type: ignore[attr-defined]
    assert agent.result().text == "done"
    return agent


def _agent_events(tool: Tool) -> Shown:
    return _from_events(_agent_run(tool).events)  # type: ignore[attr-defined]


def _transcript(tool: Tool) -> Shown:
    entries = _agent_run(tool).transcript
    shown: Shown = {phase: [] for phase in (*TRANSFORM_PHASES, "all")}
    shown["all"].append(json.dumps(entries))
    for part in (p for entry in entries if isinstance(entry["content"], list) for p in entry["content"]):
        kind = part.get("type")
        if kind == "tool-call":
            shown["input"].append(json.dumps(part["input"]))
        elif kind == "tool-result":
            phase = "error" if part["toolCallId"] == "c2" else "output"
            shown[phase].append(json.dumps(part["output"]))
        elif kind == "tool-approval-request":
            shown["approval"].append(json.dumps(part["approvalDescriptor"]))
        elif kind == "tool-suspended":
            shown["suspend"].append(json.dumps(part["payload"]))
        elif kind == "tool-resumed":
            shown["resume"].append(json.dumps(part.get("resumeData")))
    return shown


async def _toolbox_events(tool: Tool) -> Shown:
    events: list[Event] = []
    box = Toolbox([tool], on_event=events.append)
    await box.run(
        [
            {"toolCallId": "c1", "toolName": "lookup", "input": OK_INPUT},
            {"toolCallId": "c2", "toolName": "lookup", "input": FAIL_INPUT},
        ]
    )
    for approval_id in list(box.pending_approvals):
        box.approve(approval_id)
    await box.run_decided()
    await box.resume("c1", RESUME)
    return _from_events(events)


async def _mcp(tool: Tool) -> Shown:
    asked: list[mcp_types.ElicitRequestParams] = []

    async def elicit(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        asked.append(params)
        content = RESUME if params.requested_schema.get("properties") else {}
        return mcp_types.ElicitResult(action="accept", content=content)

    server = build_server([tool], name="demo", version="1.0.0")
    async with Client(server, mode="legacy", elicitation_callback=elicit) as client:
        await client.call_tool("lookup", OK_INPUT)
        await client.call_tool("lookup", FAIL_INPUT)
    approvals = [p.message for p in asked if not p.requested_schema.get("properties")]
    questions = [p.message for p in asked if p.requested_schema.get("properties")]
    shown: Shown = {phase: [] for phase in (*TRANSFORM_PHASES, "all")}
    shown.update(input=approvals, approval=approvals, suspend=questions, all=[p.message for p in asked])
    return shown


async def _shown_on(surface: str, tool: Tool) -> Shown:
    if surface == "agent events":
        return _agent_events(tool)
    if surface == "transcript":
        return _transcript(tool)
    if surface == "toolbox events":
        return await _toolbox_events(tool)
    return await _mcp(tool)


CELLS = [
    (phase, target, surface) for phase in TRANSFORM_PHASES for target in ("display", "transcript") for surface in SHOWS
]


@pytest.mark.parametrize(("phase", "target", "surface"), CELLS, ids=["-".join(cell) for cell in CELLS])
async def test_a_transform_hides_its_phase_on_its_targets_surfaces_and_only_there(
    phase: TransformPhase, target: str, surface: str
) -> None:
    """The phase's secret is gone from the target's surfaces; the marker shows where the phase is shown."""
    shown = await _shown_on(surface, _tool({target: {phase: _marker(phase)}}))
    marker = f"SHOWN-{phase}"
    if TARGET_OF[surface] != target:
        assert not any(marker in text for text in shown["all"])
        return
    scope = shown["all"] if phase in WHOLE_SURFACE else shown[phase]
    assert not any(SECRET[phase] in text for text in scope)
    if phase in SHOWS[surface]:
        assert any(marker in text for text in shown[phase])


@pytest.mark.parametrize("surface", list(SHOWS))
async def test_without_transforms_each_surface_shows_the_raw_payloads(surface: str) -> None:
    """The harness sees what it checks: raw secrets appear where a surface shows a phase (resume excepted)."""
    shown = await _shown_on(surface, _tool(None))
    for phase in SHOWS[surface] - {"resume"}:
        assert any(SECRET[phase] in text for text in shown[phase]), phase
    assert not any(SECRET["resume"] in text for text in shown["all"])


RAW = {
    "input": [OK_INPUT, FAIL_INPUT],
    "input_delta": ['{"mode": "ok", ', '"path": "/srv/SECR', 'ET-INPUT"}', json.dumps(FAIL_INPUT)],
    "approval": [OK_INPUT, FAIL_INPUT],
    "output": [{"displayName": "Acme", "apiKey": "SECRET-OUTPUT"}],
    "error": ["Tool 'lookup' failed: RuntimeError: database down at SECRET-ERROR"],
    "suspend": [{"question": "Confirm SECRET-SUSPEND?"}],
    "resume": [RESUME],
}
"""What each phase's transform receives during the agent run: the raw value, never an envelope."""


@pytest.mark.parametrize("target", ["display", "transcript"])
def test_every_transform_receives_the_raw_value_of_its_phase(target: str) -> None:
    """Output transforms get what execute returned (the seed's `output?.displayName` works), and so on."""
    received: dict[str, list[Any]] = {phase: [] for phase in TRANSFORM_PHASES}

    def recorder(phase: str) -> Callable[..., Any]:
        keyword = {"input_delta": "input_text_delta", "suspend": "suspend_payload", "resume": "resume_data"}
        name = keyword.get(phase, phase)
        return lambda **values: received[phase].append(values[name]) or "shown"

    _agent_run(_tool({target: {phase: recorder(phase) for phase in TRANSFORM_PHASES}}))
    expected = dict(RAW) if target == "display" else {**RAW, "input_delta": []}
    assert {phase: sorted(map(json.dumps, values)) for phase, values in received.items()} == {
        phase: sorted(map(json.dumps, values)) for phase, values in expected.items()
    }


def test_the_seeds_customer_tool_shows_the_display_name_on_both_targets() -> None:
    """The seed's example, verbatim in Python: the API key stays with the model."""
    customer = create_tool(
        id="lookup-customer",
        description="Looks up a customer",
        input_schema={
            "type": "object",
            "properties": {"customerId": {"type": "string"}, "internalPath": {"type": "string"}},
        },
        execute=lambda value: {"displayName": "Acme", "apiKey": "secret-value", "debugScore": 0.97},
        transform={
            target: {
                "input": lambda input: {"customerId": (input or {}).get("customerId")},
                "output": lambda output: {"displayName": (output or {}).get("displayName")},
                "error": lambda: {"message": "Customer lookup failed"},
            }
            for target in ("display", "transcript")
        },
    )
    script = [
        [*streamed_call("c1", "lookup-customer", ['{"customerId": "42", "internalPath": "/x"}']), StepFinished("x")],
        answer("Acme"),
    ]
    agent = Agent(api=ScriptedAdapter(script), client=SCRIPTED_CLIENT, model="m", tools=[customer])
    events = [e.to_dict() for e in agent.stream("who is 42?")]
    assert [e for e in events if e["type"] in ("tool-input-available", "tool-output-available")] == [
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "lookup-customer",
            "input": {"customerId": "42"},
        },
        {"type": "tool-output-available", "toolCallId": "c1", "output": {"displayName": "Acme"}},
    ]
    assert [p for entry in agent.transcript[1:] for p in entry["content"]] == [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "lookup-customer", "input": {"customerId": "42"}},
        {"type": "tool-result", "toolCallId": "c1", "toolName": "lookup-customer", "output": {"displayName": "Acme"}},
        {"type": "text", "text": "Acme"},
    ]
    sent = agent.messages[2].content[0].output  # type: ignore[union-attr]
    assert sent == {"type": "json", "value": {"displayName": "Acme", "apiKey": "secret-value", "debugScore": 0.97}}


async def test_a_refused_resume_does_not_quote_data_a_resume_transform_hides() -> None:
    """The schema error would quote the data: with a display resume transform it is generic."""
    events: list[Event] = []
    tool = create_tool(
        id="ask",
        description="Ask.",
        execute=_execute,
        input_schema={"type": "object", "properties": {"mode": {"type": "string"}}},
        resume_schema={"type": "object", "properties": {"answer": {"type": "integer"}}},
        transform={"display": {"resume": lambda resume_data: "an answer"}},
    )
    box = Toolbox([tool], on_event=events.append)
    await box.run([{"toolCallId": "c1", "toolName": "ask", "input": {"mode": "ok"}}])
    await box.resume("c1", {"answer": "SECRET-RESUME"})
    assert events[-1].to_dict() == {"type": "tool-resume-error", "toolCallId": "c1", "errorText": "Tool 'ask' failed."}


def test_an_input_error_is_shown_in_full_when_only_the_output_is_transformed() -> None:
    """An input error quotes the input, which nothing hides here: the model's mistake stays readable."""
    tool = create_tool(
        id="lookup",
        description="Look up.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        execute=lambda value: "x",
        transform={"display": {"output": lambda output: "hidden"}},
    )
    script = [[*streamed_call("c1", "lookup", ['{"path": 7}']), StepFinished("tool-calls")], answer("sorry")]
    agent = Agent(api=ScriptedAdapter(script), client=SCRIPTED_CLIENT, model="m", tools=[tool])
    errors = [e.to_dict() for e in agent.stream("look") if e.type == "tool-input-error"]
    assert errors[0]["errorText"].startswith("Invalid input for tool 'lookup': at `path`: 7 is not of type 'string'")
