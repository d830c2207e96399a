"""Matching the browser's answers against what the paused run waits for.

An answer is accepted only for a call the saved run waits on, of the kind it waits for: an
approval decision carrying the approval id the runtime issued for that very call (random and
single-use); an output or an error for a browser-side call; resume data for a suspended call; a button
(or a dismissal) for a card. Anything else is refused with a `ChatRequestError` that says what
is wrong, and nothing of the saved run is used.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._agent import CallKind
from ._parts import UIToolPart
from .reading import Conversation


class ChatRequestError(Exception):
    """A request the bridge refuses before streaming; `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """One accepted answer."""

    kind: CallKind
    part: UIToolPart
    approval_id: str | None = None
    """The runtime's approval id the answer quotes."""


def match_answers(conversation: Conversation, paused: Mapping[str, Any]) -> list[Answer]:
    """The answers in the request's last step, each checked against the paused run.

    Raises:
        ChatRequestError: an unknown, replayed or forged answer, or no answer at all.
    """
    waiting: Mapping[str, tuple[CallKind, str | None]] = {k: tuple(v) for k, v in paused.get("calls", {}).items()}
    answers: list[Answer] = []
    for part in conversation.last_step:
        kind, approval_id = waiting.get(part.tool_call_id, (None, None))
        if part.state == "approval-responded":
            answers.append(_approval(part, kind, approval_id))
        elif part.state in ("output-available", "output-error") and kind is not None:
            answers.append(_output(part, kind))
        # Other parts are calls the server ran itself: their results are in the saved run, not taken from here.
    if not answers:
        listed = ", ".join(f"{call} ({kind})" for call, (kind, _) in waiting.items()) or "nothing"
        raise ChatRequestError(409, f"the request answers none of the calls the run waits on: {listed}")
    return answers


def _approval(part: UIToolPart, kind: CallKind | None, approval_id: str | None) -> Answer:
    answered = str((part.approval or {}).get("id"))
    if kind != "approval" or approval_id is None or not secrets.compare_digest(answered, approval_id):
        raise ChatRequestError(
            409,
            f"approval {answered!r} of tool call {part.tool_call_id!r} is not waiting for an answer "
            "(already answered, never issued by this server, or for another call)",
        )
    return Answer(kind="approval", part=part, approval_id=approval_id)


def _output(part: UIToolPart, kind: CallKind) -> Answer:
    if kind == "approval":
        raise ChatRequestError(
            409, f"tool call {part.tool_call_id!r} waits for an approval; the browser cannot supply its output"
        )
    if kind == "suspended" and part.state == "output-error":
        raise ChatRequestError(
            400,
            f"tool call {part.tool_call_id!r} is resumed with data: send the data (`addToolOutput` with an "
            "`output`), not an error",
        )
    if kind == "card" and card_press(part) is None:
        raise ChatRequestError(
            400,
            f"card of tool call {part.tool_call_id!r} is answered with "
            '{"cardId": ..., "buttonId": ...} or {"cardId": ..., "dismiss": true}',
        )
    return Answer(kind=kind, part=part)


def card_press(part: UIToolPart) -> tuple[str, str | None] | None:
    """(card id, button id or None to dismiss) of a card answer, or None when malformed."""
    output = part.output
    if part.state != "output-available" or not isinstance(output, Mapping):
        return None
    card_id = output.get("cardId")
    if not isinstance(card_id, str):
        return None
    if output.get("dismiss") is True and "buttonId" not in output:
        return card_id, None
    button_id = output.get("buttonId")
    return (card_id, button_id) if isinstance(button_id, str) else None
