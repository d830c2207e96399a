"""What `create_tool(target=...)` runs: the target's execute, the model/display split, card resumes.

`execute(input, context)` resolves and sends the request (or calls the builtin), reads the
answer and returns `{"content", "markdown"?, "embedUrl"?}`; `to_model_output` gives the model
`content` only, and the display transform gives the UI `content` plus `embedUrl` or, without
one, `markdown`. An `action_required` answer suspends the call (threads only). A resume must
carry a sealed `Press` for the stored (signed) card: a button without a target submits its
input as the result, a button with one runs it; the original request is never sent again.
Anything else raises `PressRequired` (a runtime `ResumeRefused`), and the card keeps waiting.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import secrets
from collections.abc import Mapping
from typing import Any

import pydantic_core

from toolwire._callbacks import count_positional, make_callback
from toolwire.results import ModelOutput, default_output
from toolwire.runtime.context import Observe, ToolContext
from toolwire.tools import TRANSFORM_ARGUMENTS, PhaseTransforms, ToolTransform

from ._answer import Answer, read_reply, read_value
from ._card import Card, CardRecord, display_card, is_sealed, signed
from ._context import ToolInvocation, invocation_of
from ._egress import send
from ._errors import CardError, PressRequired, TargetError, TargetSpecError
from ._host import TargetHost
from ._redact import Redactor
from ._request import prepare
from ._spec import BuiltinSpec, Spec, parse_target

logger = logging.getLogger("toolwire.targets")
_PRESS_REQUIRED = (
    "this call waits for a press of its card; resume it with toolwire.targets.press(...) or dismiss(...) "
    "(the call stays suspended)"
)


class TargetBinding:
    """A tool's target bound to its host: the `execute`, `to_model_output` and `transform` it gets."""

    def __init__(self, tool_id: str, spec: Spec, host: TargetHost) -> None:
        self.tool_id = tool_id
        self.spec = spec
        self.host = host
        self.claims: set[str] = set()
        """Card ids whose press is being handled (a second concurrent press is refused)."""
        self.transform = ToolTransform(
            display=PhaseTransforms(
                output=make_callback(display_output, tool_id=tool_id, field="transform", offered=TRANSFORM_ARGUMENTS),
                suspend=make_callback(display_suspend, tool_id=tool_id, field="transform", offered=TRANSFORM_ARGUMENTS),
            )
        )

    async def execute(self, input: Any, context: ToolContext) -> dict[str, Any]:
        """Run the target for a model's call, or handle the press that resumes a suspended one."""
        if context.suspend_payload is not None or context.resume_data is not None:
            return await self._resume(context)
        invocation = invocation_of(context.request_context)
        value = pydantic_core.to_jsonable_python(input)
        result = await self._run(self.spec, value, context, context.request_context, invocation)
        return self._settle(result, context, invocation)

    def to_model_output(self, raw: Any) -> ModelOutput:
        """The model reads `content` only: text as text, anything else as JSON."""
        if isinstance(raw, Mapping) and "content" in raw:
            return default_output(raw["content"])
        return default_output(raw)

    async def _run(
        self, spec: Spec, value: Any, context: ToolContext, request_context: Any, invocation: ToolInvocation
    ) -> Answer | Card:
        redactor = Redactor(v for v in self.host.env.values() if isinstance(v, str))
        try:
            return await self._answer(spec, value, context, request_context, invocation, redactor)
        except TargetError as exc:
            # Messages quote what the handler sent (keys, types, a redirect's origin): redact before anyone logs them.
            exc.args = (redactor.text(str(exc)),)
            raise

    async def _answer(
        self,
        spec: Spec,
        value: Any,
        context: ToolContext,
        request_context: Any,
        invocation: ToolInvocation,
        redactor: Redactor,
    ) -> Answer | Card:
        if isinstance(spec, BuiltinSpec):
            result = await _call_builtin(spec, value, context)
            return read_value(result, self.host, redactor, source=f"builtin {spec.name!r}")
        request = await prepare(
            spec,
            value,
            host=self.host,
            redactor=redactor,
            tool_id=self.tool_id,
            request_context=request_context,
            invocation=invocation,
        )
        shown_url = redactor.text(request.url)
        logger.debug("tool %r: %s %s", self.tool_id, request.method, shown_url)
        observe = context.observe or Observe(context.tool_name, context.tool_call_id)
        with observe.span("toolwire.target", tool=self.tool_id, method=request.method, url=shown_url, kind=spec.kind):
            reply = await send(self.host, request)
        observe.log("target answered", status=reply.status, bytes=len(reply.body))
        scope = spec.component.env if spec.component is not None else None
        return read_reply(reply, self.host, redactor, external=spec.kind == "url", env_scope=scope)

    def _settle(self, result: Answer | Card, context: ToolContext, invocation: ToolInvocation) -> dict[str, Any]:
        if isinstance(result, Answer):
            return result.to_raw()
        if not invocation.is_thread or invocation.thread_id is None:
            raise CardError(
                "the handler asked for a user action (action_required), which needs a thread; "
                'on the Tools API (source "api") it must answer a normal error instead'
            )
        ttl = self.host.card_ttl
        payload = result.payload(
            card_id=secrets.token_urlsafe(18),
            thread_id=invocation.thread_id,
            expires_at=self.host.clock() + ttl if ttl is not None else None,
        )
        context.suspend(signed(payload, self.host.card_key, tool_id=self.tool_id, tool_call_id=context.tool_call_id))

    async def _resume(self, context: ToolContext) -> dict[str, Any]:
        """Refusals raise `PressRequired` before anything runs, so the toolbox keeps the card waiting."""
        try:
            record = CardRecord.from_payload(
                context.suspend_payload, self.host, tool_call_id=context.tool_call_id, tool_id=self.tool_id
            )
        except ValueError as exc:
            raise PressRequired(f"this call's card cannot be pressed: {exc} (the call stays suspended)") from None
        press = context.resume_data
        if not is_sealed(press) or press.card_id != record.card_id:
            raise PressRequired(_PRESS_REQUIRED)
        if press.button_id is None:
            raise CardError(f"the user dismissed the card {record.card.title!r} without pressing a button")
        button = record.card.button(press.button_id)
        if button is None:
            raise PressRequired(_PRESS_REQUIRED)
        if button.target is None:
            return Answer(content=button.input).to_raw()
        try:
            spec = parse_target(button.target, self.host, record.card.env_scope)
        except TargetSpecError as exc:
            raise CardError(f"button {button.id!r} has an invalid target: {exc}") from None
        invocation = invocation_of(press.request_context)
        pressed = dataclasses.replace(
            context, request_context=press.request_context, resume_data=None, suspend_payload=None
        )
        value = pydantic_core.to_jsonable_python(button.input)
        result = await self._run(spec, value, pressed, press.request_context, invocation)
        return self._settle(result, context, invocation)


async def _call_builtin(spec: BuiltinSpec, value: Any, context: ToolContext) -> Any:
    """Call a host's Python handler with `(input)` or `(input, context)`; it may be async."""
    handler = spec.handler
    args = (value, context) if count_positional(handler)[1] >= 2 else (value,)
    result = handler(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def display_output(output: Any) -> Any:
    """The display stream's view: `content` plus `embedUrl`, or `markdown` when there is no embed."""
    if not isinstance(output, Mapping) or "content" not in output:
        return output
    shown: dict[str, Any] = {"content": output["content"]}
    if output.get("embedUrl") is not None:
        shown["embedUrl"] = output["embedUrl"]
    elif output.get("markdown") is not None:
        shown["markdown"] = output["markdown"]
    return shown


def display_suspend(suspend_payload: Any) -> Any:
    """The card as a UI may show it."""
    return display_card(suspend_payload)
