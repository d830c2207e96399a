"""`context.mcp`: the MCP request a served tool runs for, and elicitation on both protocol eras.

Up to 2025-11-25 a question is a server-to-client `elicitation/create` request sent while
the call runs. From 2026-07-28 the protocol is stateless: the server answers the call with
an `InputRequiredResult`, the client retries with the answers, and the tool runs again from
the start, getting recorded answers back in order. Answers ride the sealed `requestState`
(AES-GCM, bound to the tool name and arguments by the SDK's `RequestStateBoundary`), an
answer counts only for the exact question it was given for, and each round's state can be
answered once (its random `round` id is redeemed in the server's `RoundLedger`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import mcp_types as types
import pydantic
from mcp.server.elicitation import render_elicitation_schema
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolwire.exceptions import ToolwireError
from toolwire.schema import SchemaValidationError, compile_schema

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

ElicitAction = Literal["accept", "decline", "cancel"]
_PRIMITIVE_TYPES = frozenset({"string", "number", "integer", "boolean"})
_STATE_VERSION = 2
_FORM_KEYS = ("$schema", "type", "properties", "required")


class ElicitationUnavailable(ToolwireError):
    """The MCP client cannot answer questions (no elicitation capability, or no channel back to it)."""


class ElicitationError(ToolwireError):
    """A question that MCP cannot ask, or an answer that does not match what was asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Elicitation:
    """The user's answer: `accept` (with `content`), `decline` or `cancel`."""

    action: ElicitAction
    content: Any = None
    """The submitted form, validated against the schema (a model instance for pydantic schemas)."""

    @property
    def accepted(self) -> bool:
        """Whether the user submitted the form."""
        return self.action == "accept"


class InputRequired(BaseException):
    """Ends a 2026-07-28 round that needs an answer; a BaseException so tools' `except Exception` lets it pass."""


@dataclass(slots=True)
class Rounds:
    """The 2026-07-28 answers recorded so far, this round's answers, and what this round still asks."""

    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    responses: Mapping[str, Any] = field(default_factory=dict)
    asked: dict[str, str] = field(default_factory=dict)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    round_id: str | None = None
    """The id of the round this request answers (redeemed once in the server's `RoundLedger`)."""

    @classmethod
    def from_request(cls, request_state: str | None, input_responses: Mapping[str, Any] | None) -> Rounds:
        """Read the (already unsealed) state and the client's answers; unreadable state counts as none."""
        try:
            state = json.loads(request_state) if request_state else {}
        except ValueError:
            state = {}
        if not isinstance(state, dict) or state.get("v") != _STATE_VERSION:
            state = {}
        responses = {key: _wire(value) for key, value in (input_responses or {}).items()}
        round_id = state.get("round")
        return cls(
            answers=dict(state.get("answers", {})),
            responses=responses,
            asked=dict(state.get("asked", {})),
            round_id=round_id if isinstance(round_id, str) else None,
        )

    def answer(self, key: str, request: dict[str, Any]) -> dict[str, Any]:
        """The recorded answer to exactly this question, or raise `InputRequired` to ask it."""
        digest = _digest(request)
        recorded = self.answers.get(key)
        if recorded is not None and recorded.get("digest") == digest:
            return dict(recorded["result"])
        response = self.responses.get(key)
        if isinstance(response, Mapping) and self.asked.get(key) == digest:
            self.answers[key] = {"digest": digest, "result": dict(response)}
            return dict(response)
        self.pending[key] = request
        raise InputRequired

    def input_required(self) -> types.InputRequiredResult:
        """The result that asks this round's pending questions and carries the answers so far."""
        state = {
            "v": _STATE_VERSION,
            "round": secrets.token_urlsafe(18),
            "answers": self.answers,
            "asked": {key: _digest(request) for key, request in self.pending.items()},
        }
        requests = {key: types.ElicitRequest.model_validate(request) for key, request in self.pending.items()}
        return types.InputRequiredResult(input_requests=dict(requests), request_state=_compact(state))


def _wire(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return value


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


def _digest(request: Mapping[str, Any]) -> str:
    return hashlib.sha256(_compact(request).encode()).hexdigest()


class McpContext:
    """What `execute` finds on `context.mcp` when its tool is served over MCP."""

    def __init__(self, request: ServerRequestContext[Any, Any], rounds: Rounds | None) -> None:
        self._request = request
        self._rounds = rounds
        self._loop = asyncio.get_running_loop()
        self._asked = 0

    @property
    def protocol_version(self) -> str:
        """The MCP revision this call speaks, e.g. `"2025-11-25"` or `"2026-07-28"`."""
        return self._request.protocol_version

    @property
    def headers(self) -> Mapping[str, str] | None:
        """HTTP request headers on streamable HTTP (client-supplied: never an identity proof); None on stdio."""
        headers = getattr(self._request.request, "headers", None)
        return headers if isinstance(headers, Mapping) else None

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's `Implementation` (`name`, `version`, ...) when it sent one."""
        params = self._request.session.client_params
        if params is not None:
            return params.client_info.model_dump(by_alias=True, mode="json", exclude_none=True)
        info = (self._request.meta or {}).get(types.CLIENT_INFO_META_KEY)
        return dict(info) if isinstance(info, Mapping) else None

    @property
    def meta(self) -> Mapping[str, Any] | None:
        """The request's `_meta`."""
        return self._request.meta

    @property
    def session(self) -> Any:
        """The SDK's `ServerSession`, for what this class does not wrap (notifications, sampling)."""
        return self._request.session

    @property
    def can_elicit(self) -> bool:
        """Whether the client can answer form questions on this call."""
        return self.why_no_elicitation is None

    @property
    def why_no_elicitation(self) -> str | None:
        """Why the client cannot be asked on this call, or None when it can."""
        if self._rounds is None and not self._request.session.can_send_request:
            return "this connection cannot carry a question to the MCP client (stateless HTTP before 2026-07-28)"
        capabilities = self._request.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        if elicitation is None or (elicitation.form is None and elicitation.url is not None):
            return "the MCP client does not support elicitation"
        return None

    async def elicit(self, message: str, schema: Any = None) -> Elicitation:
        """Ask the user through the client; `schema` is a flat object schema (pydantic model or JSON Schema dict).

        Raises:
            ElicitationUnavailable: the client cannot answer questions.
            ElicitationError: the schema is not a flat object of primitives, or the answer does not match it.
        """
        self._asked += 1
        requested, validator = _requested_schema(schema)
        answer = await self.ask(f"elicit-{self._asked}", message, requested)
        return _parse_answer(answer, validator)

    def elicit_sync(self, message: str, schema: Any = None) -> Elicitation:
        """`elicit` for synchronous tools, which run in a worker thread.

        Raises:
            RuntimeError: called on the event loop's own thread (use `await elicit(...)` there).
        """
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            raise RuntimeError("elicit_sync() would block the event loop; use `await context.mcp.elicit(...)`")
        return asyncio.run_coroutine_threadsafe(self.elicit(message, schema), self._loop).result()

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send a progress notification for this call (a no-op when the client asked for none)."""
        await self._request.session.report_progress(progress, total, message)

    async def ask(self, key: str, message: str, requested: dict[str, Any]) -> dict[str, Any]:
        """Ask one form question under `key` and return the `ElicitResult` JSON.

        Raises:
            ElicitationUnavailable: the client cannot answer questions.
            ElicitationError: the client's answer is malformed.
            MCPError: the client refused the request.
            InputRequired: (2026-07-28) the question goes to the client with this round's result.
        """
        reason = self.why_no_elicitation
        if reason is not None:
            raise ElicitationUnavailable(f"{reason}, so it cannot be asked")
        params = {"mode": "form", "message": message, "requestedSchema": requested}
        if self._rounds is not None:
            return self._rounds.answer(key, {"method": "elicitation/create", "params": params})
        session = self._request.session
        try:
            result = await session.elicit_form(message, requested, related_request_id=self._request.request_id)
        except pydantic.ValidationError:
            raise ElicitationError("the MCP client answered the question with a malformed result") from None
        return dict(_wire(result))


def is_modern(protocol_version: str) -> bool:
    """Whether this revision answers questions through `InputRequiredResult` rounds."""
    return protocol_version in MODERN_PROTOCOL_VERSIONS


def _requested_schema(schema: Any) -> tuple[dict[str, Any], Any]:
    if schema is None:
        return {"type": "object", "properties": {}}, None
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        try:
            return _form_keys(render_elicitation_schema(schema)), schema
        except TypeError as exc:
            raise ElicitationError(f"MCP cannot ask for {schema.__name__}: {exc}") from None
    compiled = compile_schema(schema)
    return form_schema(compiled.json_schema), compiled


def _form_keys(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The root keys a `requestedSchema` may have (2026-07-28 clients drop the others, e.g. `title`)."""
    return {key: value for key, value in schema.items() if key in _FORM_KEYS}


def form_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The `requestedSchema` for a JSON Schema, refused when MCP forms cannot show it.

    Raises:
        ElicitationError: not an object schema, or a property that is not a primitive (named).
    """
    if schema.get("type") != "object":
        raise ElicitationError("an elicitation schema must be an object schema")
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, Mapping) else None
        items = prop.get("items") if isinstance(prop, Mapping) else None
        multi_select = kind == "array" and isinstance(items, Mapping) and ("enum" in items or "anyOf" in items)
        if kind not in _PRIMITIVE_TYPES and not multi_select:
            raise ElicitationError(
                f"elicitation property {name!r} must be a string, number, integer, boolean or multi-select enum"
            )
    return _form_keys(schema)


def _parse_answer(answer: Mapping[str, Any], validator: Any) -> Elicitation:
    action = answer.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise ElicitationError(f"the client answered with an unknown action {action!r}")
    if action != "accept":
        return Elicitation(action=action)
    content = answer.get("content")
    if validator is None:
        return Elicitation(action="accept", content=content)
    if content is None:
        raise ElicitationError("the client accepted the question without sending the form's content")
    try:
        if isinstance(validator, type) and issubclass(validator, pydantic.BaseModel):
            return Elicitation(action="accept", content=validator.model_validate(content))
        return Elicitation(action="accept", content=validator.validate(content))
    except (pydantic.ValidationError, SchemaValidationError) as exc:
        raise ElicitationError(f"the client's answer does not match the requested schema: {exc}") from None
