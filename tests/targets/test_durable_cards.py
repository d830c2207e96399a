"""Specification of action cards in durable runs: a press sent to the run resumes its call, checked there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbos import DBOS

from toolwire.deltas import StepFinished
from toolwire.durable import DurableAgent, DurableRun, RunPaused, dbos_config
from toolwire.exceptions import ResumeError
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer, call

THREAD = {"thread_id": "thread-1"}
GMAIL = {"type": "app", "component": "api", "path": "/tools/gmail-search", "method": "POST"}


@pytest.fixture
def launched(tmp_path: Path) -> Iterator[None]:
    DBOS(config=dbos_config("toolwire-card-tests", f"sqlite:///{tmp_path / 'dbos.sqlite'}", log_level="WARNING"))
    DBOS.launch()
    yield
    DBOS.destroy()


NOW = [1000.0]
"""The target host's clock in these tests (a card lives 60 seconds)."""


@pytest.fixture
def durable(launched: None, make_tool: Any, make_host: Any, request: pytest.FixtureRequest) -> Iterator[DurableAgent]:
    NOW[0] = 1000.0
    tool = make_tool(GMAIL, make_host(card_ttl=60, clock=lambda: NOW[0]), tool_id="gmail_search")
    script = [[call("c1", "gmail_search", "{}"), StepFinished("tool-calls")], answer("Gmail is connected.")]
    agent = DurableAgent(
        f"cards-{request.node.name}",
        api=ScriptedAdapter(script, by_turn=True),
        client=SCRIPTED_CLIENT,
        model="m",
        tools=[tool],
        request_context=THREAD,
    )
    yield agent
    agent.forget()


def _paused_card(run: DurableRun) -> tuple[str, int]:
    """The card id of the suspended call, and the offset after `run-paused`."""
    entries = [item.event for item in run.events(timeout=30)]
    assert entries[-1] == RunPaused(suspended=["c1"])
    (suspended,) = [e for e in entries if e.type == "tool-suspended"]
    return suspended.to_dict()["payload"]["cardId"], len(entries)


def test_a_press_sent_to_the_run_resumes_its_call_and_the_target_runs_once(durable: DurableAgent, handler: Any) -> None:
    """The run applies the press from its inbox: the button's target runs, the model reads its result."""
    run = durable.start("search my mail")
    card_id, _ = _paused_card(run)
    run.press("c1", "connect", card_id=card_id, request_context=THREAD, pressed_at=1030.0)
    result = run.result()
    assert [s.path for s in handler.seen] == ["/tools/gmail-search", "/oauth/start"]
    assert (result.text, result.paused) == ("Gmail is connected.", False)
    assert [r.output for r in result.messages[2].content] == [  # type: ignore[union-attr]
        {"type": "text", "value": "Connected with gmail.readonly in thread thread-1"}
    ]


def test_a_press_from_another_thread_is_refused_in_the_stream_and_the_card_waits(
    durable: DurableAgent, handler: Any
) -> None:
    """The run checks the presser: an `error` entry, `run-paused` again, and the card still works."""
    run = durable.start("search my mail")
    card_id, offset = _paused_card(run)
    run.press("c1", "connect", card_id=card_id, request_context={"thread_id": "thread-2"}, pressed_at=1030.0)
    refused = [item.event.to_dict() for item in run.events(offset, timeout=30)]
    assert refused[0] == {
        "type": "error",
        "errorText": "press refused (wrong_thread): this card belongs to another thread",
    }
    assert refused[-1]["type"] == "run-paused"
    run.dismiss("c1", card_id=card_id, request_context=THREAD)
    assert run.result().text == "Gmail is connected."
    assert [s.path for s in handler.seen] == ["/tools/gmail-search"]


def test_a_press_for_a_call_that_is_not_suspended_is_refused_before_it_is_sent(durable: DurableAgent) -> None:
    """The run's status lists its suspended calls."""
    run = durable.start("search my mail")
    card_id, _ = _paused_card(run)
    with pytest.raises(ResumeError, match="does not wait for 'c9'"):
        run.press("c9", "connect", card_id=card_id, request_context=THREAD)
    run.abort()


def test_the_expiry_is_checked_at_the_time_of_the_press_not_when_the_run_reads_it(
    durable: DurableAgent, handler: Any
) -> None:
    """The run receives the presses late (its clock says expired): one made in time counts, one made after does not."""
    run = durable.start("search my mail")
    card_id, offset = _paused_card(run)
    NOW[0] = 5000.0
    run.press("c1", "connect", card_id=card_id, request_context=THREAD, pressed_at=1070.0)
    refused = [item.event.to_dict() for item in run.events(offset, timeout=30)]
    assert refused[0]["errorText"].startswith("press refused (expired)")
    run.press("c1", "connect", card_id=card_id, request_context=THREAD, pressed_at=1059.0)
    assert run.result().text == "Gmail is connected."
    assert [s.path for s in handler.seen] == ["/tools/gmail-search", "/oauth/start"]
