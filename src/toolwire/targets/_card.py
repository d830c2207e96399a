"""`action_required` cards: their schema, the JSON a suspended call stores, what a UI may show.

A handler answers `{"type": "action_required", "title", "description", "assignee"?,
"elements"?}`; each element is a button `{"type": "button", "id", "label", "variant"?,
"input", "target"?}`. The card is checked (sizes, ids, button targets) before the call is
suspended. The stored payload adds a random `cardId`, the thread it belongs to, an optional
expiry and a `signature` (HMAC-SHA256 under the host's `card_key`, over the payload, the tool
id and the tool call id), checked whenever the card is read back; the display form drops the
thread, the button inputs, the targets and the signature.

A `Press` is what resumes the call. Only `toolwire.targets.press`/`dismiss` make one (it
carries a private seal), so neither the model nor a generic resume endpoint can forge one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ._errors import TargetSpecError
from ._host import TargetHost
from ._spec import AppTarget, BuiltinTarget, UrlTarget, parse_target

Variant = Literal["primary", "secondary", "danger"]
VARIANTS: tuple[Variant, ...] = ("primary", "secondary", "danger")
MAX_TITLE = 200
MAX_DESCRIPTION = 4000
MAX_LABEL = 80
MAX_BUTTONS = 5
_BUTTON_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_CARD_KEYS = {"type", "title", "description", "assignee", "elements"}
_BUTTON_KEYS = {"type", "id", "label", "variant", "input", "target"}


@dataclass(frozen=True, slots=True)
class Button:
    """One button: its input is the result (no target) or the input of its target."""

    id: str
    label: str
    variant: Variant
    input: Any
    target: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        data = {"type": "button", "id": self.id, "label": self.label, "variant": self.variant, "input": self.input}
        if self.target is not None:
            data["target"] = dict(self.target)
        return data


@dataclass(frozen=True, slots=True)
class Card:
    """A checked `action_required` answer."""

    title: str
    description: str
    buttons: tuple[Button, ...]
    assignee: Mapping[str, str] | None = None
    env_scope: frozenset[str] | None = None
    """Env names the buttons' targets may read: those of the component that sent the card."""

    def button(self, button_id: str) -> Button | None:
        """The button with this id, if the card has one."""
        return next((b for b in self.buttons if b.id == button_id), None)

    def payload(self, *, card_id: str, thread_id: str, expires_at: float | None) -> dict[str, Any]:
        """The JSON a suspended call keeps (enough to press a button after a restart)."""
        data: dict[str, Any] = {
            "type": "action_required",
            "cardId": card_id,
            "threadId": thread_id,
            "title": self.title,
            "description": self.description,
            "elements": [b.to_json() for b in self.buttons],
        }
        if self.assignee is not None:
            data["assignee"] = dict(self.assignee)
        if expires_at is not None:
            data["expiresAt"] = expires_at
        if self.env_scope is not None:
            data["envScope"] = sorted(self.env_scope)
        return data


class CardSignatureError(ValueError):
    """A stored card whose signature does not match: changed since it was issued, or signed with another key."""


def card_signature(payload: Mapping[str, Any], key: bytes, *, tool_id: str, tool_call_id: str) -> str:
    """The HMAC-SHA256 of a stored card (all but its `signature`), bound to the tool and the call it suspends."""
    body = {k: v for k, v in payload.items() if k != "signature"}
    message = json.dumps(
        ["toolwire.card.v1", tool_id, tool_call_id, _canonical(body)],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        default=str,
    )
    digest = hmac.new(key, message.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _canonical(value: Any) -> Any:
    """Numbers a JSON store may rewrite (`1.0` read back as `1`) in one form, so the signature survives it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def signed(payload: dict[str, Any], key: bytes, *, tool_id: str, tool_call_id: str) -> dict[str, Any]:
    """The payload with its `signature`."""
    return {**payload, "signature": card_signature(payload, key, tool_id=tool_id, tool_call_id=tool_call_id)}


_STORED_KEYS = frozenset({"cardId", "threadId", "expiresAt", "envScope", "signature"})
"""What a stored card adds to the handler's card."""
_BAD_SIGNATURE = (
    "it was changed after it was issued, or signed by a host with another card_key "
    "(set TargetHost(card_key=...) to press cards after a restart)"
)


@dataclass(frozen=True, slots=True)
class CardRecord:
    """A card as a suspended call stores it."""

    card_id: str
    thread_id: str
    expires_at: float | None
    card: Card

    @classmethod
    def from_payload(cls, payload: Any, host: TargetHost, *, tool_call_id: str, tool_id: str) -> CardRecord:
        """Read a stored payload back (it may come from an export) if this host signed it for this call.

        Raises:
            CardSignatureError: a missing or wrong signature.
            ValueError: the payload is not one `Card.payload` wrote.
        """
        if not isinstance(payload, Mapping):
            raise ValueError("the suspended call holds no action card")
        given = payload.get("signature")
        expected = card_signature(payload, host.card_key, tool_id=tool_id, tool_call_id=tool_call_id)
        if not isinstance(given, str) or not hmac.compare_digest(
            given.encode("utf-8", "surrogatepass"), expected.encode("ascii")
        ):
            raise CardSignatureError(_BAD_SIGNATURE)
        if payload.get("type") != "action_required":
            raise ValueError("the suspended call holds no action card")
        card_id, thread_id, expires = payload.get("cardId"), payload.get("threadId"), payload.get("expiresAt")
        if not isinstance(card_id, str) or not isinstance(thread_id, str) or not card_id or not thread_id:
            raise ValueError("the stored card has no card id or thread id")
        if expires is not None and not isinstance(expires, (int, float)):
            raise ValueError("the stored card has a malformed expiry")
        scope = payload.get("envScope")
        if scope is not None and (not isinstance(scope, list) or not all(isinstance(n, str) for n in scope)):
            raise ValueError("the stored card has a malformed env scope")
        body = {k: v for k, v in payload.items() if k not in _STORED_KEYS}
        try:
            card = parse_card(body, host, frozenset(scope) if scope is not None else None)
        except TargetSpecError as exc:
            raise ValueError(f"the stored card is invalid: {exc}") from None
        return cls(card_id, thread_id, float(expires) if expires is not None else None, card)


def display_card(payload: Any) -> Any:
    """What a UI may show of a stored card: no thread, no button inputs, no targets."""
    if not isinstance(payload, Mapping) or payload.get("type") != "action_required":
        return payload
    shown: dict[str, Any] = {k: payload[k] for k in ("type", "cardId", "title", "description") if k in payload}
    if "assignee" in payload:
        shown["assignee"] = payload["assignee"]
    if "expiresAt" in payload:
        shown["expiresAt"] = payload["expiresAt"]
    shown["elements"] = [
        {k: e[k] for k in ("type", "id", "label", "variant") if k in e}
        for e in payload.get("elements", [])
        if isinstance(e, Mapping)
    ]
    return shown


def parse_card(data: Mapping[str, Any], host: TargetHost, env_scope: frozenset[str] | None = None) -> Card:
    """Check an `action_required` answer (button targets may read only `env_scope`, when given).

    Raises:
        TargetSpecError: a missing or oversized field, a bad button, or an invalid button target.
    """
    unknown = sorted(str(k) for k in set(data) - _CARD_KEYS)
    if unknown:
        raise TargetSpecError(unknown[0], f"is not a field of an action_required card; fields: {sorted(_CARD_KEYS)}")
    title = _text(data.get("title"), "title", MAX_TITLE)
    description = _text(data.get("description"), "description", MAX_DESCRIPTION)
    elements = data.get("elements", [])
    if not isinstance(elements, list):
        raise TargetSpecError("elements", "must be a list of buttons")
    if len(elements) > MAX_BUTTONS:
        raise TargetSpecError("elements", f"has {len(elements)} buttons; a card has at most {MAX_BUTTONS}")
    buttons = tuple(_button(e, f"elements[{i}]", host, env_scope) for i, e in enumerate(elements))
    ids = [b.id for b in buttons]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise TargetSpecError("elements", f"has two buttons with id {duplicate!r}")
    return Card(title, description, buttons, _assignee(data.get("assignee")), env_scope)


def _text(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TargetSpecError(where, "is required text")
    if len(value) > limit:
        raise TargetSpecError(where, f"is longer than {limit} characters")
    return value


def _button(element: Any, where: str, host: TargetHost, env_scope: frozenset[str] | None) -> Button:
    if not isinstance(element, Mapping) or element.get("type") != "button":
        raise TargetSpecError(where, 'must be a button: {"type": "button", "id", "label", "input", ...}')
    unknown = sorted(str(k) for k in set(element) - _BUTTON_KEYS)
    if unknown:
        raise TargetSpecError(f"{where}.{unknown[0]}", f"is not a field of a button; fields: {sorted(_BUTTON_KEYS)}")
    button_id = element.get("id")
    if not isinstance(button_id, str) or not _BUTTON_ID.fullmatch(button_id):
        raise TargetSpecError(f"{where}.id", "must be 1 to 64 letters, digits, `_` or `-`")
    label = _text(element.get("label"), f"{where}.label", MAX_LABEL)
    variant = element.get("variant", "secondary")
    if variant not in VARIANTS:
        raise TargetSpecError(f"{where}.variant", f"must be one of {list(VARIANTS)}, got {variant!r}")
    if "input" not in element:
        raise TargetSpecError(f"{where}.input", "is required: the button's result, or its target's input")
    target = element.get("target")
    if target is not None:
        try:
            parse_target(target, host, env_scope)
        except TargetSpecError as exc:
            raise exc.under(f"{where}.target") from None
        target = target.to_dict() if isinstance(target, (AppTarget, UrlTarget, BuiltinTarget)) else dict(target)
    return Button(button_id, label, cast(Variant, variant), element["input"], target)


def _assignee(value: Any) -> Mapping[str, str] | None:
    if value is None:
        return None
    if (
        not isinstance(value, Mapping)
        or set(value) != {"computerId"}
        or not isinstance(value["computerId"], str)
        or not 0 < len(value["computerId"]) <= 200
    ):
        raise TargetSpecError("assignee", 'must be {"computerId": "<device id>"}')
    return {"computerId": value["computerId"]}


_SEAL = object()


@dataclass(frozen=True, slots=True)
class Press:
    """A user's press (or dismissal, `button_id` None) of one card, made only by `press`/`dismiss`."""

    card_id: str
    button_id: str | None
    request_context: Any
    seal: object = field(default=None, repr=False, compare=False)


def make_press(card_id: str, button_id: str | None, request_context: Any) -> Press:
    """A sealed press (the only kind a suspended target call accepts)."""
    return Press(card_id, button_id, request_context, _SEAL)


def is_sealed(value: Any) -> bool:
    """Whether `value` is a press made by `make_press`."""
    return isinstance(value, Press) and value.seal is _SEAL
