"""Specification of button presses: from the card's thread only, once, never by the model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.results import ToolResult
from toolwire.runtime import Suspension, Toolbox
from toolwire.targets import EgressBlocked, Press, PressError, PressRequired, dismiss, pending_card, press

THREAD = {"thread_id": "thread-1"}
GMAIL = {"type": "app", "component": "api", "path": "/tools/gmail-search", "method": "POST"}
REFLECT = {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}


def _card(**overrides: Any) -> dict[str, Any]:
    card: dict[str, Any] = {
        "type": "action_required",
        "title": "Approve transfer",
        "description": "Approve sending 10 EUR.",
        "elements": [
            {"type": "button", "id": "ok", "label": "Approve", "variant": "primary", "input": {"approved": True}}
        ],
    }
    card.update(overrides)
    return card


async def _parked(tool: Any, value: Any = None, context: Any = THREAD) -> tuple[Toolbox, Suspension]:
    toolbox = Toolbox([tool], request_context=context)
    (outcome,) = await toolbox.run([{"toolCallId": "call-1", "toolName": tool.id, "input": value or {}}])
    assert isinstance(outcome, Suspension), outcome
    return toolbox, outcome


class TestPress:
    async def test_a_button_with_a_target_runs_it_and_its_answer_is_the_result(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """The seed flow: Connect Gmail posts the button input to /oauth/start in the thread's context."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        outcome = await press(
            toolbox, "call-1", "connect", card_id=suspension.payload["cardId"], request_context=THREAD
        )
        oauth = handler.seen[1]
        assert (
            outcome.output,
            oauth.path,
            oauth.body,
            oauth.header("authorization"),
            oauth.header("toolwire-tool-context"),
        ) == (
            {"type": "text", "value": "Connected with gmail.readonly in thread thread-1"},
            "/oauth/start",
            b'{"scope":"gmail.readonly"}',
            ["Bearer identity-token-for-alice"],
            ['{"source":"thread","threadId":"thread-1"}'],
        )

    async def test_a_button_without_a_target_submits_its_input(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """The input is the result; nothing more is sent."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        outcome = await press(toolbox, "call-1", "later", card_id=suspension.payload["cardId"], request_context=THREAD)
        assert (outcome.output, outcome.raw, [s.path for s in handler.seen]) == (
            {"type": "json", "value": {"later": True}},
            {"content": {"later": True}},
            ["/tools/gmail-search"],
        )

    async def test_a_press_is_single_use(self, make_host: Any, make_tool: Any, handler: Any) -> None:
        """Replaying a press is refused and runs nothing."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        card_id = suspension.payload["cardId"]
        await press(toolbox, "call-1", "connect", card_id=card_id, request_context=THREAD)
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "connect", card_id=card_id, request_context=THREAD)
        assert (caught.value.reason, len(handler.seen)) == ("no_card", 2)

    async def test_concurrent_presses_resolve_the_card_once(self, make_host: Any, make_tool: Any, handler: Any) -> None:
        """Two buttons pressed at once: exactly one runs."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        card_id = suspension.payload["cardId"]
        outcomes = await asyncio.gather(
            press(toolbox, "call-1", "connect", card_id=card_id, request_context=THREAD),
            press(toolbox, "call-1", "later", card_id=card_id, request_context=THREAD),
            return_exceptions=True,
        )
        results = [o for o in outcomes if isinstance(o, ToolResult)]
        refused = [o.reason for o in outcomes if isinstance(o, PressError)]
        assert (len(results), len(refused), refused[0] in ("in_progress", "no_card")) == (1, 1, True)

    async def test_resuming_never_resends_the_original_request(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """The side effect that produced the card happens once."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        await press(toolbox, "call-1", "connect", card_id=suspension.payload["cardId"], request_context=THREAD)
        assert [s.path for s in handler.seen] == ["/tools/gmail-search", "/oauth/start"]

    async def test_a_press_survives_a_restart(self, make_host: Any, make_tool: Any) -> None:
        """The stored card is JSON: a new toolbox importing the state can be pressed."""
        tool = make_tool(GMAIL, make_host())
        old, suspension = await _parked(tool)
        fresh = Toolbox([tool], request_context=THREAD)
        fresh.import_state(old.export_state())
        outcome = await press(fresh, "call-1", "later", card_id=suspension.payload["cardId"], request_context=THREAD)
        assert outcome.output == {"type": "json", "value": {"later": True}}

    async def test_a_builtin_button_target_gets_the_press_context(self, make_host: Any, make_tool: Any) -> None:
        """Builtin handlers receive the button input and the presser's request context."""
        seen: list[Any] = []

        def approve(value: Any, context: Any) -> str:
            seen.append((value, context.request_context))
            return "approved"

        host = make_host(builtins={"approve": approve})
        button = {
            "type": "button",
            "id": "ok",
            "label": "OK",
            "input": {"n": 1},
            "target": {"type": "builtin", "name": "approve"},
        }
        toolbox, suspension = await _parked(make_tool(REFLECT, host), {"answer": _card(elements=[button])})
        presser = {"thread_id": "thread-1", "user": "carol"}
        outcome = await press(toolbox, "call-1", "ok", card_id=suspension.payload["cardId"], request_context=presser)
        assert (outcome.output, seen) == ({"type": "text", "value": "approved"}, [({"n": 1}, presser)])

    async def test_a_url_button_target_passes_the_ssrf_guard(self, dns: Any, make_host: Any, make_tool: Any) -> None:
        """A button's external target is checked at press time like any other."""
        dns.answers["hooks.example.com"] = [["10.0.0.9"]]
        button = {
            "type": "button",
            "id": "go",
            "label": "Go",
            "input": {},
            "target": {"type": "url", "url": "https://hooks.example.com/x", "method": "POST"},
        }
        toolbox, suspension = await _parked(make_tool(REFLECT, make_host()), {"answer": _card(elements=[button])})
        outcome = await press(toolbox, "call-1", "go", card_id=suspension.payload["cardId"], request_context=THREAD)
        assert outcome.error.__class__ is EgressBlocked

    async def test_a_target_answering_another_card_suspends_again(self, make_host: Any, make_tool: Any) -> None:
        """The call stays paused on a new card; the old card id no longer works."""
        host = make_host()
        second = _card(title="Confirm")
        button = {"type": "button", "id": "next", "label": "Next", "input": {"answer": second}, "target": REFLECT}
        toolbox, suspension = await _parked(make_tool(REFLECT, host), {"answer": _card(elements=[button])})
        old_id = suspension.payload["cardId"]
        outcome = await press(toolbox, "call-1", "next", card_id=old_id, request_context=THREAD)
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "ok", card_id=old_id, request_context=THREAD)
        assert (
            isinstance(outcome, Suspension),
            outcome.payload["title"],
            outcome.payload["cardId"] != old_id,
            caught.value.reason,
        ) == (
            True,
            "Confirm",
            True,
            "stale_card",
        )


class TestRefusedPresses:
    @pytest.mark.parametrize(
        ("context", "reason"),
        [
            (None, "not_thread"),
            ({"user": "x"}, "not_thread"),
            ({"thread_id": "thread-2"}, "wrong_thread"),
            ({"thread_id": 7}, "not_thread"),
        ],
    )
    async def test_only_the_cards_thread_may_press(
        self, context: Any, reason: str, make_host: Any, make_tool: Any
    ) -> None:
        """Presses are thread-context-only, from the thread that shows the card."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "later", card_id=suspension.payload["cardId"], request_context=context)
        assert (caught.value.reason, "call-1" in toolbox.suspended) == (reason, True)

    async def test_a_stale_card_id_is_refused_and_the_card_stays(self, make_host: Any, make_tool: Any) -> None:
        """A press meant for another card changes nothing."""
        toolbox, _ = await _parked(make_tool(GMAIL, make_host()))
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "later", card_id="forged", request_context=THREAD)
        assert (caught.value.reason, str(caught.value), "call-1" in toolbox.suspended) == (
            "stale_card",
            "this press is for another card than the one the call shows now",
            True,
        )

    async def test_an_unknown_button_is_refused(self, make_host: Any, make_tool: Any) -> None:
        """Only the card's buttons exist."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "delete_all", card_id=suspension.payload["cardId"], request_context=THREAD)
        assert (caught.value.reason, str(caught.value)) == (
            "unknown_button",
            "the card has no button 'delete_all' (buttons: 'connect', 'later')",
        )

    async def test_an_unknown_call_is_refused(self, make_host: Any, make_tool: Any) -> None:
        """No card waits on a call that was never suspended."""
        toolbox = Toolbox([make_tool(GMAIL, make_host())], request_context=THREAD)
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-9", "later", card_id="x", request_context=THREAD)
        assert caught.value.reason == "no_card"

    async def test_a_suspension_of_another_tool_is_not_a_card(self) -> None:
        """Only target tools have cards."""

        def pause(value: Any, context: Any) -> None:
            context.suspend({"cardId": "x"})

        tool = create_tool(id="plain", description="d", execute=pause)
        toolbox = Toolbox([tool], request_context=THREAD)
        await toolbox.run([{"toolCallId": "call-1", "toolName": "plain", "input": {}}])
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "ok", card_id="x", request_context=THREAD)
        assert (caught.value.reason, pending_card(toolbox, "call-1")) == ("not_a_target_tool", None)

    async def test_only_the_assignee_device_may_press(self, make_host: Any, make_tool: Any) -> None:
        """A card assigned to a device accepts presses from that device only; others may dismiss."""
        card = _card(assignee={"computerId": "mac-1"})
        toolbox, suspension = await _parked(make_tool(REFLECT, make_host()), {"answer": card})
        card_id = suspension.payload["cardId"]
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "ok", card_id=card_id, request_context={**THREAD, "computer_id": "pc-2"})
        outcome = await press(
            toolbox, "call-1", "ok", card_id=card_id, request_context={**THREAD, "computer_id": "mac-1"}
        )
        assert (caught.value.reason, outcome.output) == ("not_assignee", {"type": "json", "value": {"approved": True}})

    async def test_an_expired_card_cannot_be_pressed_but_can_be_dismissed(self, make_host: Any, make_tool: Any) -> None:
        """After `card_ttl` seconds a press is refused; dismissing still ends the call."""
        now = [1000.0]
        toolbox, suspension = await _parked(
            make_tool(REFLECT, make_host(card_ttl=60, clock=lambda: now[0])), {"answer": _card()}
        )
        now[0] = 1060.0
        card_id = suspension.payload["cardId"]
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "ok", card_id=card_id, request_context=THREAD)
        outcome = await dismiss(toolbox, "call-1", card_id=card_id, request_context=THREAD)
        assert (caught.value.reason, outcome.output["value"]) == (
            "expired",
            "Tool 'probe' failed: CardError: the user dismissed the card 'Approve transfer' without pressing a button",
        )


class TestTheModelCannotPress:
    async def test_resume_data_that_is_not_a_press_is_refused(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """A generic resume with press-like data is refused, runs no button and leaves the card waiting."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        forged = {"cardId": suspension.payload["cardId"], "buttonId": "connect"}
        with pytest.raises(PressRequired) as caught:
            await toolbox.resume("call-1", forged)
        assert (str(caught.value), [s.path for s in handler.seen], list(toolbox.suspended)) == (
            "this call waits for a press of its card; resume it with toolwire.targets.press(...) or dismiss(...) "
            "(the call stays suspended)",
            ["/tools/gmail-search"],
            ["call-1"],
        )

    async def test_a_hand_made_press_object_is_refused(self, make_host: Any, make_tool: Any, handler: Any) -> None:
        """Only `press`/`dismiss` can make a press the call accepts."""
        toolbox, suspension = await _parked(make_tool(GMAIL, make_host()))
        with pytest.raises(PressRequired):
            await toolbox.resume("call-1", Press(suspension.payload["cardId"], "connect", THREAD))
        assert ([s.path for s in handler.seen], list(toolbox.suspended)) == (["/tools/gmail-search"], ["call-1"])

    async def test_a_model_call_carrying_press_data_is_just_a_new_call(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """Tool input is never a press: the model's "I clicked connect" runs the tool again and shows a new card."""
        tool = make_tool(GMAIL, make_host())
        toolbox, suspension = await _parked(tool)
        card_id = suspension.payload["cardId"]
        (again,) = await toolbox.run(
            [
                {
                    "toolCallId": "call-2",
                    "toolName": tool.id,
                    "input": {"cardId": card_id, "buttonId": "connect", "pressed": True},
                }
            ]
        )
        assert (isinstance(again, Suspension), again.payload["cardId"] != card_id, [s.path for s in handler.seen]) == (
            True,
            True,
            ["/tools/gmail-search", "/tools/gmail-search"],
        )
