"""Reading a handler's answer: text, `{"content", "markdown", "embedUrl"}`, a card, or an error.

`content` is what the model reads and is required. `markdown` and `embedUrl` are for the
display stream only; `embedUrl` must be an absolute https URL on a component's or an
allow-listed origin, is never fetched here, and wins over `markdown`. A non-2xx status is an
error carrying the handler's `code` and `error`. Every string is redacted before it leaves.
An answer (a builtin's value too) nested deeper than `MAX_ANSWER_DEPTH` levels is refused; an
error body too deep to parse is reported as its (truncated) text.

The app's own handlers (`app` and `builtin` targets) must follow that contract. An external
endpoint (`url` target) usually does not: its other JSON, or an empty 2xx, becomes the content
as it is; and it may not answer `action_required`, so a third party can never put buttons
in front of the user that would run the app's own targets with the app's identity.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._card import Card, parse_card
from ._egress import Reply
from ._errors import TargetHTTPError, TargetResponseError, TargetSpecError
from ._host import TargetHost
from ._redact import Redactor
from ._template import json_kind
from ._urls import UrlError, parse_url

MAX_MARKDOWN = 20_000
MAX_EMBED_URL = 2048
MAX_ERROR_TEXT = 500
MAX_ANSWER_DEPTH = 100
"""How deeply an answer may nest objects and arrays (deeper ones would exhaust the recursion limit downstream)."""
_CONTAINERS = (Mapping, list, tuple)
_ANSWER_KEYS = {"content", "markdown", "embedUrl"}
_BINARY_TYPES = (
    "image/",
    "audio/",
    "video/",
    "font/",
    "application/octet-stream",
    "application/pdf",
    "application/zip",
)


@dataclass(frozen=True, slots=True)
class Answer:
    """A handler's result: `content` for the model, `markdown`/`embed_url` for the display."""

    content: Any
    markdown: str | None = None
    embed_url: str | None = None

    def to_raw(self) -> dict[str, Any]:
        """The JSON the tool returns (`ToolResult.raw`); the model sees only `content`."""
        raw: dict[str, Any] = {"content": self.content}
        if self.markdown is not None:
            raw["markdown"] = self.markdown
        if self.embed_url is not None:
            raw["embedUrl"] = self.embed_url
        return raw


def read_reply(
    reply: Reply,
    host: TargetHost,
    redactor: Redactor,
    *,
    external: bool = False,
    env_scope: frozenset[str] | None = None,
) -> Answer | Card:
    """The answer a handler's HTTP reply carries (`external`: an endpoint outside the app; `env_scope`: see `Card`).

    Raises:
        TargetHTTPError: a status outside 2xx.
        TargetResponseError: binary content, invalid JSON, or JSON outside the contract.
    """
    if not 200 <= reply.status < 300:
        raise http_error(reply, redactor)
    media = reply.content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        value = _parsed_json(reply.body)
        if external:
            return external_value(value, host, redactor)
        return read_value(value, host, redactor, env_scope=env_scope)
    if media.startswith(_BINARY_TYPES):
        raise TargetResponseError(f"the handler answered binary content ({media}); answer text or JSON")
    text = _decode(reply)
    if not text.strip() and external:
        return Answer(content=f"(empty answer, HTTP {reply.status})")
    if not text.strip():
        raise TargetResponseError(
            f"the handler answered {reply.status} with no content; answer text or JSON with `content`"
        )
    return Answer(content=redactor.text(text))


def read_value(
    value: Any,
    host: TargetHost,
    redactor: Redactor,
    source: str = "the handler",
    env_scope: frozenset[str] | None = None,
) -> Answer | Card:
    """The answer a decoded JSON value (or a builtin handler's return value) carries.

    Raises:
        TargetResponseError: a value outside the answer contract.
    """
    check_depth(value, source)
    if isinstance(value, str):
        if not value.strip():
            raise TargetResponseError(f"{source} answered empty text")
        return Answer(content=redactor.text(value))
    if not isinstance(value, Mapping):
        raise TargetResponseError(
            f'{source} answered {json_kind(value)}; answer text, {{"content": ...}} or an action_required card'
        )
    kind = value.get("type")
    if kind == "action_required":
        try:
            return parse_card(redactor.json(value), host, env_scope)
        except TargetSpecError as exc:
            raise TargetResponseError(f"{source} answered an invalid action_required card: {exc}") from None
    if "type" in value:
        raise TargetResponseError(f"{source} answered an unknown answer type {str(kind)[:40]!r}")
    return contract_answer(value, host, redactor, source)


def contract_answer(value: Mapping[str, Any], host: TargetHost, redactor: Redactor, source: str) -> Answer:
    """Check `{"content", "markdown"?, "embedUrl"?}` and redact it.

    Raises:
        TargetResponseError: unknown keys, no content, oversized markdown or a refused `embedUrl`.
    """
    unknown = sorted(str(k)[:40] for k in set(value) - _ANSWER_KEYS)
    if unknown:
        raise TargetResponseError(f"{source}'s answer has unknown keys {unknown}; an answer has {sorted(_ANSWER_KEYS)}")
    if value.get("content") is None:
        raise TargetResponseError(f"{source}'s answer has no `content`, the part the model reads")
    markdown = value.get("markdown")
    if markdown is not None and (not isinstance(markdown, str) or len(markdown) > MAX_MARKDOWN):
        raise TargetResponseError(f"{source}'s `markdown` must be text of at most {MAX_MARKDOWN} characters")
    embed = value.get("embedUrl")
    if embed is not None:
        check_embed_url(embed, host, source)
    return Answer(
        content=redactor.json(value["content"]),
        markdown=redactor.text(markdown, display=True) if markdown is not None else None,
        embed_url=redactor.text(embed, display=True) if embed is not None else None,
    )


def external_value(value: Any, host: TargetHost, redactor: Redactor) -> Answer:
    """An external endpoint's JSON: a contract answer if it is one, otherwise the content itself.

    Raises:
        TargetResponseError: an `action_required` card, or a contract answer with a bad `embedUrl`.
    """
    check_depth(value, "the endpoint")
    if isinstance(value, Mapping) and value.get("type") == "action_required":
        raise TargetResponseError(
            "an external endpoint answered action_required; only the app's own handlers (app or builtin targets) may"
        )
    if isinstance(value, Mapping) and "content" in value and set(value) <= _ANSWER_KEYS:
        return contract_answer(value, host, redactor, "the endpoint")
    return Answer(content=redactor.json(value))


def check_embed_url(url: Any, host: TargetHost, source: str = "the handler") -> None:
    """Refuse an `embedUrl` that is not absolute https on an allowed origin (it is never fetched).

    Raises:
        TargetResponseError: a relative, non-https, credentialed or foreign URL.
    """
    problem = f"{source}'s `embedUrl` "
    if not isinstance(url, str) or len(url) > MAX_EMBED_URL:
        raise TargetResponseError(problem + f"must be a URL of at most {MAX_EMBED_URL} characters")
    try:
        parsed = parse_url(url)
    except UrlError as exc:
        raise TargetResponseError(problem + f"{exc}") from None
    if parsed.origin.scheme != "https":
        raise TargetResponseError(problem + "must be an absolute https:// URL")
    if parsed.has_userinfo:
        raise TargetResponseError(problem + "must not carry user:password@ credentials")
    if parsed.origin not in host.embed_origins:
        raise TargetResponseError(problem + f"points to {parsed.origin}, an origin the host does not allow for embeds")


def http_error(reply: Reply, redactor: Redactor) -> TargetHTTPError:
    """The error for a non-2xx reply: the handler's `code`/`error` when it sent them, else its body text."""
    code: str | None = None
    error: str | None = None
    try:
        data = json.loads(reply.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if isinstance(data, Mapping):
        code = data.get("code") if isinstance(data.get("code"), str) else None
        error = data.get("error") if isinstance(data.get("error"), str) else None
    if error is None:
        text = reply.body.decode("utf-8", errors="replace").strip()
        error = text or None
    return TargetHTTPError(
        reply.status,
        redactor.text(code[:100]) if code else None,
        _truncate(redactor.text(error)) if error else None,
    )


def _parsed_json(body: bytes) -> Any:
    """A JSON answer's value.

    Raises:
        TargetResponseError: not UTF-8 JSON, or nested past what the parser's recursion allows.
    """
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_not_a_number, parse_float=_finite_float)
    except (UnicodeDecodeError, ValueError) as exc:
        raise TargetResponseError(f"the handler's JSON answer is not valid JSON ({_short(exc)})") from None
    except RecursionError:
        raise TargetResponseError(f"the handler's answer is nested deeper than {MAX_ANSWER_DEPTH} levels") from None


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("a number too large for a float")
    return value


def check_depth(value: Any, source: str = "the handler") -> None:
    """Refuse a value nested deeper than `MAX_ANSWER_DEPTH` (checked without recursion, cycles included).

    Also refuse NaN and infinities (a builtin's computed floats): no JSON, so no provider or UI
    stream, can carry them.

    Raises:
        TargetResponseError: a deeper value, or one holding NaN or an infinity.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise TargetResponseError(f"{source}'s answer holds {value!r}, which JSON cannot carry")
    if not isinstance(value, _CONTAINERS):
        return
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        children = node.values() if isinstance(node, Mapping) else node
        if depth > MAX_ANSWER_DEPTH:
            raise TargetResponseError(f"{source}'s answer is nested deeper than {MAX_ANSWER_DEPTH} levels")
        for child in children:
            if isinstance(child, _CONTAINERS):
                stack.append((child, depth + 1))
            elif isinstance(child, float) and not math.isfinite(child):
                raise TargetResponseError(f"{source}'s answer holds {child!r}, which JSON cannot carry")


def _decode(reply: Reply) -> str:
    charset = "utf-8"
    for parameter in reply.content_type.split(";")[1:]:
        key, _, value = parameter.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"').lower()
    try:
        text = reply.body.decode(charset)
    except (LookupError, UnicodeDecodeError):
        raise TargetResponseError(
            f"the handler's answer is not text in {charset!r}; binary answers are refused"
        ) from None
    if "\x00" in text:
        raise TargetResponseError("the handler's answer contains NUL bytes; binary answers are refused")
    return text


def _truncate(text: str) -> str:
    return text if len(text) <= MAX_ERROR_TEXT else text[: MAX_ERROR_TEXT - 1] + "…"


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:120]
