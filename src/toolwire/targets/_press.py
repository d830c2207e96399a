"""Pressing a card's button: the host's UI endpoint calls `press` (or `dismiss`), never the model.

A press names the suspended call, the card the user saw (its `cardId`, so a press meant for
an older card of the same call is refused) and the button, and comes with the presser's
request context. It is accepted only from the card's own thread, from the assignee's device
when the card has one, before the card expires, and once: the first press resumes the call
(`Toolbox.resume`), which removes the card; a concurrent or replayed press is refused.
A stored card whose signature is not this host's for this call (changed in an export, or signed
with another `card_key`) is refused too. Refusals raise `PressError` with a stable `reason`,
and leave the card waiting.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire.runtime.abort import AbortSignal
from toolwire.runtime.execute import Outcome
from toolwire.runtime.toolbox import Toolbox
from toolwire.tools import Tool

from ._bind import TargetBinding
from ._card import CardRecord, CardSignatureError, display_card, make_press
from ._context import invocation_of
from ._errors import PressError, TargetError


async def press(
    toolbox: Toolbox,
    tool_call_id: str,
    button_id: str,
    *,
    card_id: str,
    request_context: Any,
    messages: Sequence[Any] | None = None,
    abort: AbortSignal | None = None,
) -> Outcome:
    """Press `button_id` on the card suspended call `tool_call_id` shows; returns the call's outcome.

    The outcome is the tool result (the button's input, or its target's answer), or a new
    `Suspension` when the target answered another card.

    Raises:
        PressError: no such card, a stale card id, not from the card's thread or assignee,
            an unknown button, an expired card, or a press already being handled.
    """
    return await _resume(toolbox, tool_call_id, button_id, card_id, request_context, messages, abort)


async def dismiss(
    toolbox: Toolbox,
    tool_call_id: str,
    *,
    card_id: str,
    request_context: Any,
    messages: Sequence[Any] | None = None,
    abort: AbortSignal | None = None,
) -> Outcome:
    """Close the card without pressing a button (the seed's Ignore/Cancel); the model reads that it was dismissed.

    Anyone in the card's thread may dismiss it, the assignee or not, and so may an expired card.

    Raises:
        PressError: no such card, a stale card id, not from the card's thread, or a press in progress.
    """
    return await _resume(toolbox, tool_call_id, None, card_id, request_context, messages, abort)


def pending_card(toolbox: Toolbox, tool_call_id: str) -> Mapping[str, Any] | None:
    """The card suspended call `tool_call_id` shows, in its display form (None: no card waits)."""
    suspension = toolbox.suspended.get(tool_call_id)
    tool = toolbox.tools.get(suspension.tool_name) if suspension is not None else None
    binding = binding_of(tool) if tool is not None else None
    if suspension is None or tool is None or binding is None:
        return None
    try:
        CardRecord.from_payload(suspension.payload, binding.host, tool_call_id=tool_call_id, tool_id=binding.tool_id)
    except ValueError:
        return None
    shown = display_card(suspension.payload)
    return shown if isinstance(shown, Mapping) and shown.get("type") == "action_required" else None


def binding_of(tool: Tool) -> TargetBinding | None:
    """The target binding behind a tool created with `target=`, if it is one."""
    owner = getattr(tool.execute, "__self__", None)
    return owner if isinstance(owner, TargetBinding) else None


async def _resume(
    toolbox: Toolbox,
    tool_call_id: str,
    button_id: str | None,
    card_id: str,
    request_context: Any,
    messages: Sequence[Any] | None,
    abort: AbortSignal | None,
) -> Outcome:
    suspension = toolbox.suspended.get(tool_call_id)
    if suspension is None:
        raise PressError(
            "no_card", f"no card waits on tool call {tool_call_id!r} (never suspended, or already resolved)"
        )
    tool = toolbox.tools.get(suspension.tool_name)
    binding = binding_of(tool) if tool is not None else None
    if binding is None:
        raise PressError("not_a_target_tool", f"tool call {tool_call_id!r} was not suspended by a target tool")
    try:
        record = CardRecord.from_payload(
            suspension.payload, binding.host, tool_call_id=tool_call_id, tool_id=binding.tool_id
        )
    except CardSignatureError as exc:
        raise PressError(
            "bad_signature", f"the card of tool call {tool_call_id!r} fails its signature check: {exc}"
        ) from None
    except ValueError as exc:
        raise PressError("no_card", f"tool call {tool_call_id!r} holds no valid card: {exc}") from None
    if not isinstance(card_id, str) or not secrets.compare_digest(
        card_id.encode("utf-8", "surrogatepass"), record.card_id.encode("utf-8", "surrogatepass")
    ):
        raise PressError("stale_card", "this press is for another card than the one the call shows now")
    _check_presser(record, button_id, request_context, binding)
    if record.card_id in binding.claims:
        raise PressError("in_progress", "a press on this card is already being handled")
    binding.claims.add(record.card_id)
    try:
        press_data = make_press(record.card_id, button_id, request_context)
        return await toolbox.resume(tool_call_id, press_data, messages=messages, abort=abort)
    except KeyError:
        raise PressError("no_card", f"the card of tool call {tool_call_id!r} was resolved meanwhile") from None
    finally:
        binding.claims.discard(record.card_id)


def _check_presser(record: CardRecord, button_id: str | None, request_context: Any, binding: TargetBinding) -> None:
    try:
        invocation = invocation_of(request_context)
    except TargetError as exc:
        raise PressError("not_thread", str(exc)) from None
    if not invocation.is_thread:
        raise PressError("not_thread", "cards can only be pressed from their thread; this request has no thread_id")
    if invocation.thread_id != record.thread_id:
        raise PressError("wrong_thread", "this card belongs to another thread")
    if button_id is None:
        return
    if record.expires_at is not None and binding.host.clock() >= record.expires_at:
        raise PressError("expired", f"the card {record.card.title!r} expired; it can only be dismissed")
    assignee = record.card.assignee
    if assignee is not None and _computer_id(request_context) != assignee["computerId"]:
        raise PressError("not_assignee", "only the device the card is assigned to may press its buttons")
    if record.card.button(button_id) is None:
        known = ", ".join(repr(b.id) for b in record.card.buttons) or "none"
        raise PressError("unknown_button", f"the card has no button {button_id!r} (buttons: {known})")


def _computer_id(request_context: Any) -> Any:
    if isinstance(request_context, Mapping):
        return request_context.get("computer_id")
    return getattr(request_context, "computer_id", None)
