"""Specification of surviving a killed worker: SIGKILL mid tool step, mid model call, or while paused.

A worker process starts the run and is killed at a chosen point; another worker recovers it; a
client (this test, through `DBOSClient`) reads the stream and approves. The run must end with
every tool's effect exactly once (a tool in flight when the process died starts again: it had
not finished), no completed model call repeated, the conversation of an uninterrupted run, and
a stream without a duplicate event. Each case runs on SQLite and on Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import worker
from processes import Workers, until

from toolwire import Agent
from toolwire.durable import DurableAgent, RunPaused
from toolwire.testing.scripted import SCRIPTED_CLIENT


@pytest.fixture
def definition(tmp_path: Path) -> Iterator[DurableAgent]:
    """The agent as this process knows it (to read and answer runs; it runs nothing here)."""
    agent = worker.define(tmp_path)
    yield agent
    agent.forget()


def _lines(folder: Path, name: str) -> list[str]:
    path = folder / name
    return sorted(path.read_text().splitlines()) if path.exists() else []


def _normalized(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Approval ids (random per run) replaced; runtime events of one batch in call-id order (parallel calls)."""
    out: list[dict[str, Any]] = []
    for event in events:
        event = dict(event)
        if "approvalId" in event:
            event["approvalId"] = "approval"
        if event["type"] == "run-paused":
            event["approvals"] = ["approval" for _ in event["approvals"]]
        out.append(event)
    batch = {"tool-output-available", "tool-approval-request"}
    index = 0
    while index < len(out):
        end = index
        while end < len(out) and out[end]["type"] in batch:
            end += 1
        out[index:end] = sorted(out[index:end], key=lambda e: (e["type"], e["toolCallId"]))
        index = max(end, index + 1)
    return out


def _reference(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The same conversation run by a plain in-process `Agent`, uninterrupted: its events and final state."""
    folder.mkdir()
    agent = Agent(api=worker._TurnModel(folder), client=SCRIPTED_CLIENT, model="m", tools=worker.tools(folder))
    events = [e.to_dict() for e in agent.stream(worker.PROMPT)]
    (approval,) = agent.result().pending_approvals
    events.append(RunPaused(approvals=[approval.approval_id]).to_dict())
    agent.approve(approval.approval_id)
    events += [e.to_dict() for e in agent.stream()]
    return events, agent.export_state()


def _transcript(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript with approval ids replaced and tool parts in call-id order (parallel calls end in any order)."""
    entries = []
    for entry in state["transcript"]:
        parts = [{**p, "approvalId": "approval"} if "approvalId" in p else p for p in entry["content"]]
        if entry["role"] == "tool":
            parts = sorted(parts, key=lambda p: (p["type"], p.get("toolCallId", "")))
        entries.append({**entry, "content": parts})
    return entries


def _recorded(workers: Workers, run_id: str, name: str) -> int:
    """How many steps of this name the run has recorded."""
    return sum(1 for step in workers.client.list_workflow_steps(run_id) if step["function_name"] == name)


def _read_all(workers: Workers, definition: DurableAgent, run_id: str, approved: bool) -> list[dict[str, Any]]:
    """Every entry of the stream, each offset checked, approving the call when the run pauses (unless done)."""
    run = definition.attach(run_id, dbos_client=workers.client)
    entries = []
    for item in run.events(until="end", timeout=60):
        assert item.offset == len(entries)
        entries.append(item.event.to_dict())
        if isinstance(item.event, RunPaused) and not approved:
            run.approve(item.event.approvals[0])
            approved = True
    return entries


@pytest.mark.parametrize("hold", ["tool", "model", "pause"], ids=["mid-tool-step", "mid-model-call", "while-paused"])
def test_a_killed_worker_s_run_completes_once_in_a_new_worker(
    workers: Workers, definition: DurableAgent, tmp_path: Path, hold: str
) -> None:
    """Each effect once, no completed model call again, the uninterrupted conversation, no duplicate event."""
    run_id = "run-killed"
    first = workers.spawn("start", run_id, hold=hold)
    run = definition.attach(run_id, dbos_client=workers.client)
    approved = False
    if hold == "tool":
        until(lambda: (tmp_path / "held-tool").exists(), "the worker to hang in slow_lookup")
        # the calls beside it must have finished: a step in flight when the process dies runs again
        until(lambda: _recorded(workers, run_id, "toolwire.execute") == 1, "fast_lookup's step to be recorded")
    else:
        until(lambda: (run.status() or {}).get("state") == "paused", "the run to pause")
        if hold == "model":
            run.approve(run.status()["approvals"][0])  # type: ignore[index]
            approved = True
            until(lambda: (tmp_path / "held-model").exists(), "the worker to hang in the second model call")
    workers.kill(first)

    second = workers.spawn("serve", run_id, hold=hold)
    entries = _read_all(workers, definition, run_id, approved)
    workers.finished(second)

    expected_events, expected_state = _reference(tmp_path / "reference")
    state = run.final_state()
    assert _lines(tmp_path, "effects.log") == ["delete_file c3", "fast_lookup c2", "slow_lookup c1"]
    assert _lines(tmp_path, "starts.log") == ["slow_lookup c1"] * (2 if hold == "tool" else 1)
    assert _lines(tmp_path, "models.log") == ["turn 0", "turn 1"] + (["turn 1"] if hold == "model" else [])
    assert state["messages"] == expected_state["messages"]
    assert _transcript(state) == _transcript(expected_state)
    assert _normalized(entries) == _normalized(expected_events)
