"""Resolving a parsed target against one input into the exact request that will be sent.

Each value is encoded for where it goes: path segments percent-encoded one by one (an empty,
`.` or `..` segment is refused), query values form-encoded, header values refused when they
hold CR, LF, NUL or other control characters, text outside Latin-1 or blanks at either end,
the body substituted inside the JSON tree.
The finished URL is parsed again and must still go to the declared origin, under the base
path, byte for byte as built. Platform headers (identity, tool context) are set last.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from toolwire._callbacks import Callback

from ._addresses import Origin
from ._context import TOOL_CONTEXT_HEADER, ToolInvocation
from ._errors import TargetError, TargetReferenceError, UnsafeRequestError
from ._host import TargetHost
from ._redact import Redactor
from ._spec import HttpSpec
from ._template import Scope, Template, render_body, render_text, scalar_text
from ._urls import ParsedUrl, UrlError, check_sent_url

MAX_HEADER_VALUE = 8192
_LINE_BREAK = re.compile(r"[\r\n\x00]")
_CONTROL = re.compile(r"[\x01-\x08\x0b-\x1f\x7f-\x9f]")
_NOT_UNICODE = "{where} holds a lone surrogate (text that is not valid Unicode, so not UTF-8); nothing was sent"


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request with every reference resolved and every invariant checked."""

    method: str
    origin: Origin
    base_path: str
    target: str
    """Path and query, encoded, exactly as on the request line."""
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    parsed: ParsedUrl = field(compare=False, repr=False)
    """`target` on `origin`, as the client parsed it when it was checked."""

    @property
    def url(self) -> str:
        """The full URL."""
        return f"{self.origin}{self.target}"


def env_lookup(host: TargetHost, redactor: Redactor) -> Any:
    """An env reader for one request: fails closed on unset values, reads each name once, registers secrets."""
    read_values: dict[str, str] = {}

    def read(name: str) -> str:
        if name not in read_values:
            read_values[name] = _read_env(host, name)
            redactor.add(read_values[name])
        return read_values[name]

    return read


def _read_env(host: TargetHost, name: str) -> str:
    reference = "${env." + name + "}"
    if name not in host.env:
        raise TargetReferenceError(reference, "names a variable the host does not declare")
    value = host.env[name]
    if callable(value):
        try:
            value = value()
        except Exception as exc:
            raise TargetReferenceError(reference, f"could not be read ({type(exc).__name__})") from None
    if value is None or value == "":
        raise TargetReferenceError(reference, "is declared but has no value")
    if not isinstance(value, str):
        raise TargetReferenceError(reference, f"must be text, the host gave {type(value).__name__}")
    return value


async def prepare(
    spec: HttpSpec,
    value: Any,
    *,
    host: TargetHost,
    redactor: Redactor,
    tool_id: str,
    request_context: Any,
    invocation: ToolInvocation,
) -> PreparedRequest:
    """Resolve `spec` against the input `value`.

    Raises:
        TargetReferenceError: a missing reference, or a value that cannot go where it is used.
        UnsafeRequestError: a value that would change the request's structure.
    """
    scope = Scope(value, env_lookup(host, redactor))
    try:
        target = _path(spec, scope) + _query(spec, scope)
    except UnicodeEncodeError:
        raise UnsafeRequestError(_NOT_UNICODE.format(where="a URL value")) from None
    try:
        parsed = check_sent_url(f"{spec.origin}{target}", spec.origin, spec.base_path, target)
    except UrlError as exc:
        raise UnsafeRequestError(f"the request URL {exc}; nothing was sent") from None
    headers = {name.lower(): (name, _header(name, template, scope)) for name, template in spec.headers}
    body = None
    if spec.body is not None:
        try:
            body = json.dumps(render_body(spec.body, scope), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except ValueError:
            raise UnsafeRequestError("the body holds a number JSON cannot carry (NaN or infinity)") from None
        try:
            body.encode("utf-8")
        except UnicodeEncodeError:
            raise UnsafeRequestError(_NOT_UNICODE.format(where="the body")) from None
        headers.setdefault("content-type", ("Content-Type", "application/json"))
    headers.setdefault("accept", ("Accept", "application/json, text/plain;q=0.9, */*;q=0.5"))
    headers.setdefault("user-agent", ("User-Agent", "toolwire-targets"))
    headers["accept-encoding"] = ("Accept-Encoding", "gzip, deflate")
    if spec.kind == "app":
        token = await _identity(host, request_context, spec, tool_id, redactor)
        if token is not None:
            headers["authorization"] = ("Authorization", f"Bearer {token}")
        headers["toolwire-tool-context"] = (TOOL_CONTEXT_HEADER, invocation.header_value())
    return PreparedRequest(
        method=spec.method,
        origin=spec.origin,
        base_path=spec.base_path,
        target=target,
        headers=tuple(headers.values()),
        body=body.encode("utf-8") if body is not None else None,
        parsed=parsed,
    )


def _path(spec: HttpSpec, scope: Scope) -> str:
    rendered: list[str] = []
    for segment in spec.segments:
        text = render_text(segment, scope, "a URL path", encode=_encode_segment)
        if segment.refs and text in ("", ".", ".."):
            names = ", ".join(f"`{r}`" for r in segment.refs)
            shown = "empty" if not text else f"{text!r}"
            raise UnsafeRequestError(f"the path segment built from {names} would be {shown}; nothing was sent")
        rendered.append(text)
    return spec.base_path + "/" + "/".join(rendered)


def _encode_segment(text: str) -> str:
    return quote(text, safe="")


def _query(spec: HttpSpec, scope: Scope) -> str:
    pairs = [spec.literal_query] if spec.literal_query else []
    for key, template in spec.query:
        for item in _query_values(template, scope):
            pairs.append(f"{quote(key, safe='')}={quote(item, safe='')}")
    return "?" + "&".join(pairs) if pairs else ""


def _query_values(template: Template, scope: Scope) -> list[str]:
    """A query value; a whole-value reference to a list of scalars repeats the parameter."""
    ref = template.single_ref
    if ref is not None:
        value = scope.lookup(ref)
        if isinstance(value, Sequence) and not isinstance(value, str):
            return [scalar_text(item, ref, "a query parameter") for item in value]
    return [render_text(template, scope, "a query parameter")]


def _header(name: str, template: Template, scope: Scope) -> str:
    value = render_text(template, scope, "a header")
    _check_header_value(name, value)
    return value


def _check_header_value(name: str, value: str) -> None:
    if _LINE_BREAK.search(value):
        raise UnsafeRequestError(f"header {name!r} would contain CR, LF or NUL; nothing was sent")
    if _CONTROL.search(value):
        raise UnsafeRequestError(f"header {name!r} would contain a control character; nothing was sent")
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise UnsafeRequestError(
            f"header {name!r} would contain characters outside Latin-1; nothing was sent"
        ) from None
    if value != value.strip(" \t"):
        # HTTP/1.1 strips these, so the value would not arrive as resolved; h11 refuses to send it at all.
        raise UnsafeRequestError(f"header {name!r} would start or end with a blank; nothing was sent")
    if len(value) > MAX_HEADER_VALUE:
        raise UnsafeRequestError(
            f"header {name!r} would be longer than {MAX_HEADER_VALUE} characters; nothing was sent"
        )


async def _identity(
    host: TargetHost, request_context: Any, spec: HttpSpec, tool_id: str, redactor: Redactor
) -> str | None:
    identity = host.identity
    if identity is None:
        return None
    token: Any = identity
    if isinstance(identity, Callback):
        component = spec.component.name if spec.component is not None else None
        try:
            token = identity(request_context=request_context, component=component, tool_id=tool_id)
            if inspect.isawaitable(token):
                token = await token
        except Exception as exc:
            raise TargetError(f"the host could not issue an identity token ({type(exc).__name__})") from None
    if not isinstance(token, str) or not token:
        raise TargetError("the host's identity token is not non-empty text")
    redactor.add(token, user_visible=True)
    try:
        _check_header_value("Authorization", token)
    except UnsafeRequestError:
        raise TargetError("the host's identity token is not a valid header value") from None
    return token
