"""Declarative tool targets: tools whose execute is an HTTP request (or a host's builtin handler).

```python
host = TargetHost(components={"api": "https://api.example.com"}, env={"API_KEY": key},
                  identity_token=lambda request_context: sign(request_context["user"]))
save = create_tool(
    id="save_bookmark", description="Save a bookmark URL.", input_schema=SaveBookmarkInput,
    target={"type": "app", "component": "api", "path": "/tools/save-bookmark",
            "method": "POST", "body": "${input}"},
    target_host=host,
)
toolbox = Toolbox([save], request_context={"thread_id": thread.id, "user": user})
```

- Targets: `app` (`component`, `path`, `method`, `query`?, `headers`?, `body`?), `url` (`url`,
  `method`, `query`?, `headers`?, `body`?), `builtin` (`name`). No implicit defaults: the method
  is required and without `body` none is sent. `load_tools(path)` reads them from JSON/YAML.
- References `${input}`, `${input.a.0}`, `${env.NAME}` resolve in one pass, per position
  (`toolwire.targets._template`); a missing one fails the call before anything is sent.
- Egress goes through one guarded client (`toolwire.targets._egress`): SSRF checks with
  pinned DNS for origins the host did not trust, same-origin redirects only, caps.
  `async with host:` keeps connections to the host's own origins alive for a block.
- Answers: text, `{"content", "markdown"?, "embedUrl"?}` (the model reads `content` only;
  the display stream gets `markdown`/`embedUrl`), or an `action_required` card.
- Thread context: the host puts `thread_id` in the request context (a mapping key or an
  attribute; `computer_id` too when cards may be assigned to a device). `app` targets get the
  `Toolwire-Tool-Context` header, read by `tool_context(request)` in the handler.
- Cards: in a thread, `action_required` suspends the call; the `ToolSuspended` event carries
  the card's display form with its `cardId`. The host's UI endpoint answers a click with
  `await press(toolbox, tool_call_id, button_id, card_id=..., request_context=...)` (or
  `dismiss(...)`), which checks the card's signature (`TargetHost(card_key=...)`), thread,
  device, expiry and single use, then resumes the call. A press is never tool input, so the
  model cannot press a button; any other resume data is refused and the card keeps waiting.
"""

from __future__ import annotations

from typing import Any

from toolwire._extras import optional_imports
from toolwire.exceptions import ToolDefinitionError

with optional_imports("toolwire.targets"):
    import httpx2  # noqa: F401 - fail here, with the fix, rather than deep inside a submodule

from ._answer import Answer
from ._bind import TargetBinding
from ._card import Button, Card, Press
from ._context import TOOL_CONTEXT_HEADER, ToolContextError, ToolInvocation, is_thread_invocation, tool_context
from ._errors import (
    CardError,
    EgressBlocked,
    PressError,
    PressRequired,
    TargetConfigError,
    TargetConnectionError,
    TargetError,
    TargetHTTPError,
    TargetRedirectError,
    TargetReferenceError,
    TargetResponseError,
    TargetSpecError,
    TargetTimeout,
    UnsafeRequestError,
)
from ._host import Component, TargetHost, TargetLimits, default_host, set_default_host
from ._loader import TOOLS_JSON_MESSAGE, load_tools, tools_from_data, tools_from_text
from ._press import binding_of, dismiss, pending_card, press
from ._redact import REDACTED
from ._spec import FORBIDDEN_HEADERS, METHODS, AppTarget, BuiltinTarget, Method, UrlTarget, parse_target

__all__ = [
    "FORBIDDEN_HEADERS",
    "METHODS",
    "REDACTED",
    "TOOLS_JSON_MESSAGE",
    "TOOL_CONTEXT_HEADER",
    "Answer",
    "AppTarget",
    "BuiltinTarget",
    "Button",
    "Card",
    "CardError",
    "Component",
    "EgressBlocked",
    "Method",
    "Press",
    "PressError",
    "PressRequired",
    "TargetBinding",
    "TargetConfigError",
    "TargetConnectionError",
    "TargetError",
    "TargetHTTPError",
    "TargetHost",
    "TargetLimits",
    "TargetRedirectError",
    "TargetReferenceError",
    "TargetResponseError",
    "TargetTimeout",
    "ToolContextError",
    "ToolInvocation",
    "UnsafeRequestError",
    "UrlTarget",
    "bind_target",
    "binding_of",
    "default_host",
    "dismiss",
    "is_thread_invocation",
    "load_tools",
    "pending_card",
    "press",
    "set_default_host",
    "tool_context",
    "tools_from_data",
    "tools_from_text",
]


def bind_target(tool_id: str, target: Any, target_host: Any) -> TargetBinding:
    """Check a tool's target against its host (or the default host) and bind them.

    Called by `create_tool(..., target=..., target_host=...)`.

    Raises:
        ToolDefinitionError: no host, or a declaration that fails a check (names the field).
    """
    host = target_host if target_host is not None else default_host()
    if host is None:
        raise ToolDefinitionError(
            tool_id,
            "target_host",
            "is required: pass target_host=TargetHost(...) or call toolwire.targets.set_default_host(...) once",
        )
    if not isinstance(host, TargetHost):
        raise ToolDefinitionError(
            tool_id, "target_host", f"must be a toolwire.targets.TargetHost, got {type(host).__name__}"
        )
    try:
        spec = parse_target(target, host)
    except TargetSpecError as exc:
        raise ToolDefinitionError(tool_id, f"target.{exc.field}" if exc.field else "target", exc.problem) from None
    return TargetBinding(tool_id, spec, host)
