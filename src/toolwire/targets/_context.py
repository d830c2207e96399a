"""Thread or API: how a call was invoked, how the host says so, and how a handler reads it.

The host conveys the thread through the request context: a mapping (or object) whose
`thread_id` is the conversation's id means the call runs in a thread; no `thread_id` means
the Tools API. `app` targets receive it as the `Toolwire-Tool-Context` header,
`{"source":"thread","threadId":"..."}` or `{"source":"api"}`, which `tool_context(request)`
reads on the handler side. The header says where a call comes from; the handler checks who
sent it through the `Authorization` identity token.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import TargetError

TOOL_CONTEXT_HEADER = "Toolwire-Tool-Context"
Source = Literal["thread", "api"]


@dataclass(frozen=True, slots=True)
class ToolInvocation:
    """Where a call comes from: a conversation thread (with its id) or the Tools API."""

    source: Source
    thread_id: str | None = None

    @property
    def is_thread(self) -> bool:
        """Whether the call runs inside a thread (where `action_required` cards are allowed)."""
        return self.source == "thread"

    def header_value(self) -> str:
        """The `Toolwire-Tool-Context` header value (JSON, ASCII-escaped, so no CR/LF can appear)."""
        data: dict[str, str] = {"source": self.source}
        if self.thread_id is not None:
            data["threadId"] = self.thread_id
        return json.dumps(data, separators=(",", ":"), ensure_ascii=True)


def invocation_of(request_context: Any) -> ToolInvocation:
    """The invocation the host's request context describes (`thread_id` present: a thread).

    Raises:
        TargetError: a `thread_id` that is not non-empty text.
    """
    if isinstance(request_context, Mapping):
        thread_id = request_context.get("thread_id")
    else:
        thread_id = getattr(request_context, "thread_id", None)
    if thread_id is None:
        return ToolInvocation("api")
    if not isinstance(thread_id, str) or not thread_id:
        raise TargetError("the host's request context has a `thread_id` that is not non-empty text")
    return ToolInvocation("thread", thread_id)


class ToolContextError(ValueError):
    """A request carries no `Toolwire-Tool-Context` header, or a malformed one."""


def tool_context(request: Any) -> ToolInvocation:
    """Read the invocation from a handler's request (Starlette, httpx, or a mapping of headers).

    Raises:
        ToolContextError: the header is missing or is not one of the two documented forms.
    """
    headers = getattr(request, "headers", request)
    value = _header(headers, TOOL_CONTEXT_HEADER)
    if value is None:
        raise ToolContextError(
            f"the request has no {TOOL_CONTEXT_HEADER} header; it did not come from a toolwire target"
        )
    try:
        data = json.loads(value)
    except ValueError:
        raise ToolContextError(f"the {TOOL_CONTEXT_HEADER} header is not JSON") from None
    if data == {"source": "api"}:
        return ToolInvocation("api")
    if (
        isinstance(data, dict)
        and set(data) == {"source", "threadId"}
        and data["source"] == "thread"
        and isinstance(data["threadId"], str)
        and data["threadId"]
    ):
        return ToolInvocation("thread", data["threadId"])
    raise ToolContextError(
        f'the {TOOL_CONTEXT_HEADER} header must be {{"source":"api"}} or {{"source":"thread","threadId":...}}'
    )


def is_thread_invocation(context: ToolInvocation) -> bool:
    """Whether a handler may answer `action_required` (the seed's `isThreadToolInvocation`)."""
    return context.is_thread


def _header(headers: Any, name: str) -> str | None:
    getter = getattr(headers, "get", None)
    if getter is None:
        raise ToolContextError(f"cannot read headers from {type(headers).__name__}; pass the request or its headers")
    value = getter(name)
    if value is None and isinstance(headers, Mapping):
        lowered = name.lower()
        value = next((v for k, v in headers.items() if isinstance(k, str) and k.lower() == lowered), None)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value if isinstance(value, str) else None
