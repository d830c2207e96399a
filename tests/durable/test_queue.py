"""Specification of background calls shared by two workers on one Postgres: every task runs once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import worker
from processes import Workers, fresh_database

from toolwire.durable import DurableAgent


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    started = Workers(fresh_database("postgres", tmp_path), tmp_path)
    yield started
    started.close()


@pytest.fixture
def definition(tmp_path: Path) -> Iterator[DurableAgent]:
    agent = worker.define_queue(tmp_path)
    yield agent
    agent.forget()


def test_two_workers_share_the_background_queue_and_run_each_task_once(
    workers: Workers, definition: DurableAgent, tmp_path: Path
) -> None:
    """A run enqueued by a client; six background calls; two workers taking one task at a time each."""
    first = workers.spawn("serve", "-", executor="worker-a")
    second = workers.spawn("serve", "-", executor="worker-b")
    run = definition.start("Do six things", until_idle=True, dbos_client=workers.client)
    finished = [item.event.to_dict() for item in run.events(until="end", timeout=60)]
    (tmp_path / "stop").touch()
    workers.finished(first)
    workers.finished(second)

    runs = [line.split() for line in (tmp_path / "effects.log").read_text().splitlines()]
    assert sorted(call_id for call_id, _ in runs) == worker.QUEUE_CALLS
    assert {executor for _, executor in runs} == {"worker-a", "worker-b"}
    ended = [e for e in finished if e["type"] == "background-task-finished"]
    assert sorted((e["toolCallId"], e["status"], e["output"]) for e in ended) == [
        (c, "completed", f"done {c}") for c in worker.QUEUE_CALLS
    ]
    results = [m for m in run.final_state()["messages"] if m["role"] == "user"][1:]
    assert len(results) == len(worker.QUEUE_CALLS)
