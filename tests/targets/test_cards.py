"""Specification of `action_required` cards: their schema, the stored payload and what the display sees."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolwire.events import ToolSuspended
from toolwire.runtime import Suspension, Toolbox
from toolwire.targets import Component, pending_card

API = "http://api.test"
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


def _button(**fields: Any) -> dict[str, Any]:
    return {"type": "button", "id": "a", "label": "A", "input": 1, **fields}


MALFORMED_CARDS = [
    ({"title": ""}, "`title` is required text"),
    ({"title": "t" * 201}, "`title` is longer than 200 characters"),
    ({"description": None}, "`description` is required text"),
    ({"footer": "x"}, "`footer` is not a field of an action_required card"),
    ({"elements": {"id": "ok"}}, "`elements` must be a list of buttons"),
    (
        {"elements": [{"type": "link", "id": "a"}]},
        '`elements[0]` must be a button: {"type": "button", "id", "label", "input", ...}',
    ),
    ({"elements": [_button(id="a b")]}, "`elements[0].id` must be 1 to 64 letters, digits, `_` or `-`"),
    (
        {"elements": [{"type": "button", "id": "a", "label": "A"}]},
        "`elements[0].input` is required: the button's result, or its target's input",
    ),
    (
        {"elements": [_button(variant="loud")]},
        "`elements[0].variant` must be one of ['primary', 'secondary', 'danger'], got 'loud'",
    ),
    ({"elements": [_button(label="L" * 81)]}, "`elements[0].label` is longer than 80 characters"),
    ({"elements": [_button(onClick="x")]}, "`elements[0].onClick` is not a field of a button"),
    ({"elements": [_button(), _button()]}, "`elements` has two buttons with id 'a'"),
    ({"elements": [_button(id=f"b{i}") for i in range(6)]}, "`elements` has 6 buttons; a card has at most 5"),
    ({"assignee": {"userId": "u"}}, '`assignee` must be {"computerId": "<device id>"}'),
]
BAD_BUTTON_TARGETS = [
    (
        {"type": "app", "component": "web", "path": "/x", "method": "POST"},
        "`elements[0].target.component` 'web' is not a component of the host (configured: api)",
    ),
    (
        {"type": "app", "component": "api", "path": "/x", "method": "POST", "headers": {"Authorization": "x"}},
        "`elements[0].target.headers.Authorization` is set by the platform and cannot be set by a target",
    ),
    (
        {"type": "url", "url": "https://169.254.169.254/latest", "method": "GET"},
        "`elements[0].target.url` points to a cloud metadata address",
    ),
    (
        {"type": "app", "component": "api", "path": "/x", "method": "POST", "body": {"k": "${env.SECRET}"}},
        "`elements[0].target.body` uses `${env.SECRET}`, a variable the host does not declare",
    ),
]


async def _parked(tool: Any, value: Any = None, context: Any = THREAD) -> tuple[Toolbox, Suspension]:
    toolbox = Toolbox([tool], request_context=context)
    (outcome,) = await toolbox.run([{"toolCallId": "call-1", "toolName": tool.id, "input": value or {}}])
    assert isinstance(outcome, Suspension), outcome
    return toolbox, outcome


class TestSuspension:
    async def test_the_seed_card_suspends_the_call(self, make_host: Any, make_tool: Any) -> None:
        """In a thread, `action_required` pauses the call and stores the card with a fresh id and its signature."""
        _, suspension = await _parked(make_tool(GMAIL, make_host()))
        payload = dict(suspension.payload)
        card_id = payload.pop("cardId")
        signature = payload.pop("signature")
        assert re.fullmatch(r"[A-Za-z0-9_-]{24}", card_id)
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", signature)
        assert payload == {
            "type": "action_required",
            "threadId": "thread-1",
            "title": "Connect Gmail",
            "description": "Connect Gmail before Kazzle can search messages.",
            "elements": [
                {
                    "type": "button",
                    "id": "connect",
                    "label": "Connect Gmail",
                    "variant": "primary",
                    "input": {"scope": "gmail.readonly"},
                    "target": {
                        "type": "app",
                        "component": "api",
                        "path": "/oauth/start",
                        "method": "POST",
                        "body": "${input}",
                    },
                },
                {"type": "button", "id": "later", "label": "Not now", "variant": "secondary", "input": {"later": True}},
            ],
        }

    async def test_the_display_sees_the_card_without_thread_inputs_or_targets(
        self, make_host: Any, make_tool: Any
    ) -> None:
        """The UI gets what it renders and the card id it presses with, nothing it could misuse."""
        events: list[Any] = []
        tool = make_tool(GMAIL, make_host())
        toolbox = Toolbox([tool], request_context=THREAD, on_event=events.append)
        (suspension,) = await toolbox.run([{"toolCallId": "call-1", "toolName": tool.id, "input": {}}])
        shown = {
            "type": "action_required",
            "cardId": suspension.payload["cardId"],
            "title": "Connect Gmail",
            "description": "Connect Gmail before Kazzle can search messages.",
            "elements": [
                {"type": "button", "id": "connect", "label": "Connect Gmail", "variant": "primary"},
                {"type": "button", "id": "later", "label": "Not now", "variant": "secondary"},
            ],
        }
        assert (events, pending_card(toolbox, "call-1")) == (
            [ToolSuspended(tool_call_id="call-1", payload=shown)],
            shown,
        )

    async def test_outside_a_thread_a_card_is_an_error(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """On the Tools API a handler must answer a domain error instead; a card fails the call."""
        result = await call(make_tool(REFLECT, make_host()), {"answer": _card()})
        assert result.output["value"] == (
            "Tool 'probe' failed: CardError: the handler asked for a user action (action_required), which needs a "
            'thread; on the Tools API (source "api") it must answer a normal error instead'
        )

    async def test_an_expiry_is_stored_when_the_host_sets_a_ttl(self, make_host: Any, make_tool: Any) -> None:
        """`card_ttl` stamps `expiresAt` from the host clock."""
        _, suspension = await _parked(
            make_tool(REFLECT, make_host(card_ttl=60, clock=lambda: 1000.0)), {"answer": _card()}
        )
        assert suspension.payload["expiresAt"] == 1060.0

    @pytest.mark.parametrize(("overrides", "problem"), MALFORMED_CARDS)
    async def test_malformed_cards_are_refused(
        self, overrides: dict[str, Any], problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """The card schema is enforced before the call is suspended."""
        result = await call(make_tool(REFLECT, make_host()), {"answer": _card(**overrides)}, THREAD)
        assert result.output["value"].startswith(
            f"Tool 'probe' failed: TargetResponseError: the handler answered an invalid action_required card: {problem}"
        )

    @pytest.mark.parametrize(("target", "problem"), BAD_BUTTON_TARGETS)
    async def test_button_targets_pass_the_same_checks(
        self, target: Any, problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """A handler cannot hand out a target an author could not declare."""
        card = _card(elements=[{"type": "button", "id": "go", "label": "Go", "input": {}, "target": target}])
        result = await call(make_tool(REFLECT, make_host()), {"answer": card}, THREAD)
        assert result.output["value"].startswith(
            f"Tool 'probe' failed: TargetResponseError: the handler answered an invalid action_required card: {problem}"
        )


class TestEnvScope:
    """A card's buttons may read only the env names of the component that sent the card."""

    def _host(self, make_host: Any) -> Any:
        return make_host(components={"api": Component(url=API, env=("KEY",))}, env={"KEY": "k-1", "OTHER": "o-2"})

    def _card_with(self, name: str) -> dict[str, Any]:
        target = {
            "type": "url",
            "url": "https://tools.example.com/x",
            "method": "GET",
            "headers": {"X-Key": "${env." + name + "}"},
        }
        return _card(elements=[{"type": "button", "id": "go", "label": "Go", "input": {}, "target": target}])

    async def test_a_button_cannot_read_another_components_secret(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Cross-component escalation through a card is refused."""
        result = await call(make_tool(REFLECT, self._host(make_host)), {"answer": self._card_with("OTHER")}, THREAD)
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetResponseError: the handler answered an invalid action_required card: "
            "`elements[0].target.headers.X-Key` uses `${env.OTHER}`, "
            "which the component that sent this card does not declare"
        )

    async def test_the_scope_is_stored_and_never_displayed(self, make_host: Any, make_tool: Any) -> None:
        """The stored card remembers its scope for the press; the UI never sees it."""
        _, suspension = await _parked(make_tool(REFLECT, self._host(make_host)), {"answer": self._card_with("KEY")})
        assert (suspension.payload["envScope"], "envScope" in suspension.display_payload) == (["KEY"], False)
