"""Target declarations (`app`, `url`, `builtin`) and every check that can run before a request.

`parse_target` turns the author's dict (or an `AppTarget`/`UrlTarget`/`BuiltinTarget`) into
a parsed spec: templates split, the origin and the method literal, author headers cleared,
env names declared, components and builtins registered. It runs when a tool is created, and
again for a button's target when a handler returns an `action_required` card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import unquote

from ._addresses import Origin, blocked_reason, internal_name_reason, numeric_host
from ._errors import TargetSpecError
from ._host import ComponentInfo, TargetHost
from ._template import BodyTemplate, Ref, Template, parse_body, parse_template
from ._urls import UrlError, parse_url, valid_path_text, valid_query_text

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
METHODS: tuple[Method, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE")
FORBIDDEN_HEADERS = frozenset(
    {
        "authorization", "proxy-authorization", "cookie", "host", "content-length", "transfer-encoding",
        "connection", "keep-alive", "te", "trailer", "upgrade", "expect", "proxy-connection", "forwarded",
        "via", "x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip", "fastly-client-ip",
        "x-cluster-client-ip", "x-originating-ip", "toolwire-tool-context", "accept-encoding", "content-encoding",
        "x-http-method-override", "x-http-method", "x-method-override",
    }
)  # fmt: skip
"""Headers the platform owns (credentials, framing, hop-by-hop, forwarding and client identity, and the
method-override headers servers read as the method, which is literal); compared lower-cased."""
_FORBIDDEN_PREFIXES = ("x-forwarded-", "proxy-")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_KEYS = {
    "app": {"type", "component", "path", "method", "query", "headers", "body"},
    "url": {"type", "url", "method", "query", "headers", "body"},
    "builtin": {"type", "name"},
}


@dataclass(frozen=True, slots=True, kw_only=True)
class AppTarget:
    """A request to one of the app's components (the host supplies its base URL and identity)."""

    component: str
    path: str
    method: Method
    query: Mapping[str, str] | None = None
    headers: Mapping[str, str] | None = None
    body: Any = None
    """A JSON value whose strings may hold references; None sends no body."""

    def to_dict(self) -> dict[str, Any]:
        """The declaration as JSON, the form a card's button stores."""
        fields = {"component": self.component, "path": self.path, "method": self.method}
        return _without_none({"type": "app", **fields, "query": self.query, "headers": self.headers, "body": self.body})


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlTarget:
    """A request to an external endpoint; its origin is literal and passes the SSRF guard."""

    url: str
    method: Method
    query: Mapping[str, str] | None = None
    headers: Mapping[str, str] | None = None
    body: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The declaration as JSON."""
        fields = {"url": self.url, "method": self.method, "query": self.query, "headers": self.headers}
        return _without_none({"type": "url", **fields, "body": self.body})


@dataclass(frozen=True, slots=True, kw_only=True)
class BuiltinTarget:
    """A Python handler the host registered under `name`."""

    name: str

    def to_dict(self) -> dict[str, Any]:
        """The declaration as JSON."""
        return {"type": "builtin", "name": self.name}


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: dict(v) if isinstance(v, Mapping) and k != "body" else v for k, v in data.items() if v is not None}


@dataclass(frozen=True, slots=True)
class HttpSpec:
    """A parsed `app` or `url` target, ready to be resolved against an input."""

    kind: Literal["app", "url"]
    method: Method
    origin: Origin
    base_path: str
    """The component's path prefix (empty for `url` targets); the sent path must stay below it."""
    segments: tuple[Template, ...]
    """Path segments after the leading `/`, each rendered and encoded on its own."""
    literal_query: str
    """Query text written literally in a `url` target (already encoded)."""
    query: tuple[tuple[str, Template], ...]
    headers: tuple[tuple[str, Template], ...]
    body: BodyTemplate | None
    component: ComponentInfo | None


@dataclass(frozen=True, slots=True)
class BuiltinSpec:
    """A parsed `builtin` target."""

    name: str
    handler: Callable[..., Any]


Spec = HttpSpec | BuiltinSpec


def parse_target(raw: Any, host: TargetHost, env_scope: frozenset[str] | None = None) -> Spec:
    """Parse and check a declaration against `host` (`env_scope`: the only env names it may read).

    Raises:
        TargetSpecError: the first problem found, located by field (below `target`).
    """
    if isinstance(raw, (AppTarget, UrlTarget, BuiltinTarget)):
        raw = raw.to_dict()
    if not isinstance(raw, Mapping):
        raise TargetSpecError("", 'must be a dict with "type": "app", "url" or "builtin"')
    kind = raw.get("type")
    if kind not in _KEYS:
        raise TargetSpecError("type", f'must be "app", "url" or "builtin", got {kind!r}')
    unknown = sorted(str(k) for k in set(raw) - _KEYS[kind])
    if unknown:
        raise TargetSpecError(unknown[0], f"is not a field of {kind} targets; fields: {sorted(_KEYS[kind])}")
    if kind == "builtin":
        return _builtin(raw, host)
    return _http(cast(Literal["app", "url"], kind), raw, host, env_scope)


def _builtin(raw: Mapping[str, Any], host: TargetHost) -> BuiltinSpec:
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise TargetSpecError("name", "is required: the name of a handler the host registered")
    if name not in host.builtins:
        known = ", ".join(sorted(host.builtins)) or "none"
        raise TargetSpecError("name", f"{name!r} is not a builtin of the host (registered: {known})")
    return BuiltinSpec(name, host.builtins[name])


def _http(
    kind: Literal["app", "url"], raw: Mapping[str, Any], host: TargetHost, env_scope: frozenset[str] | None
) -> HttpSpec:
    method = _method(raw.get("method"))
    component: ComponentInfo | None = None
    literal_query = ""
    if kind == "app":
        component = _component(raw.get("component"), host)
        origin, base_path = component.origin, component.base_path
        path = raw.get("path")
        if not isinstance(path, str) or not path.startswith("/"):
            raise TargetSpecError(
                "path", "is required and must start with `/` (the component's base URL is the host's)"
            )
        if any(c in path for c in "?#"):
            raise TargetSpecError("path", "must not contain `?` or `#`: put query parameters in `query`")
        segments = _segments(path, "path")
    else:
        origin, segments, literal_query = _url(raw.get("url"), host)
        base_path = ""
    query = _query(raw.get("query"), literal_query)
    headers = _headers(raw.get("headers"))
    body = None
    if "body" in raw and raw["body"] is not None:
        if method == "GET":
            raise TargetSpecError("body", "is not allowed on a GET request")
        body = _body(raw["body"])
    spec = HttpSpec(kind, method, origin, base_path, segments, literal_query, query, headers, body, component)
    _check_env(spec, host, env_scope)
    return spec


def _method(value: Any) -> Method:
    if value not in METHODS:
        hint = f" (methods are upper case: {str(value).upper()!r})" if str(value).upper() in METHODS else ""
        raise TargetSpecError("method", f"is required and must be one of {list(METHODS)}, got {value!r}{hint}")
    return cast(Method, value)


def _component(name: Any, host: TargetHost) -> ComponentInfo:
    if not isinstance(name, str) or not name:
        raise TargetSpecError("component", "is required: the name of a component the host configured")
    if name not in host.components:
        known = ", ".join(sorted(host.components)) or "none"
        raise TargetSpecError("component", f"{name!r} is not a component of the host (configured: {known})")
    return host.components[name]


def _segments(path: str, field_name: str) -> tuple[Template, ...]:
    """Split on literal `/` before any substitution, so a value can never add a segment."""
    parts = path.split("/")[1:]
    segments: list[Template] = []
    for index, part in enumerate(parts):
        try:
            template = parse_template(part)
        except TargetSpecError as exc:
            raise TargetSpecError(field_name, exc.problem) from None
        last = index == len(parts) - 1
        literal = template.literal
        if literal is not None and (unquote(literal) in (".", "..") or (literal == "" and not last)):
            raise TargetSpecError(field_name, "must not contain `.` or `..` segments or `//`")
        if any(ref.root == "input" and not ref.path for ref in template.refs):
            raise TargetSpecError(
                field_name, "uses `${input}`, the whole input object; reference a field such as `${input.id}`"
            )
        for token in template.tokens:
            if isinstance(token, str) and not valid_path_text(token):
                raise TargetSpecError(
                    field_name, f"has characters not allowed in a URL path in {token!r}; percent-encode them"
                )
        segments.append(template)
    return tuple(segments)


def _url(value: Any, host: TargetHost) -> tuple[Origin, tuple[Template, ...], str]:
    if not isinstance(value, str) or not value:
        raise TargetSpecError("url", "is required: an absolute https:// URL")
    scheme, sep, rest = value.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise TargetSpecError("url", "must start with https:// (or http:// for an origin the host allow-listed)")
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "$" in authority or "@" in authority or "\\" in authority:
        raise TargetSpecError(
            "url", "must have a literal origin: no reference, `@` (user info) or `\\` before the path"
        )
    if "#" in tail:
        raise TargetSpecError("url", "must not have a #fragment (fragments are never sent)")
    path, _, query_text = tail.partition("?")
    origin = _literal_origin(f"{scheme}://{authority}", host)
    segments = _segments(path or "/", "url")
    query = parse_template(query_text) if query_text else Template("", ())
    if query.literal is None:
        raise TargetSpecError("url", "has references in its query; put templated values in `query`")
    if not valid_query_text(query.literal):
        raise TargetSpecError("url", "has characters not allowed in a URL query; percent-encode them")
    return origin, segments, query.literal


def _literal_origin(text: str, host: TargetHost) -> Origin:
    try:
        parsed = parse_url(text + "/")
    except UrlError as exc:
        raise TargetSpecError("url", f"{exc}") from None
    origin = parsed.origin
    if origin in host.trusted_origins:
        return origin
    if origin.scheme != "https" or origin.port != 443:
        raise TargetSpecError("url", f"must be https on port 443 unless the host allow-lists {origin}")
    address = numeric_host(origin.host)
    reason = blocked_reason(address) if address is not None else internal_name_reason(origin.host)
    if reason:
        raise TargetSpecError("url", f"points to {reason}; the host must allow-list {origin} to reach it")
    return origin


def _query(value: Any, literal_query: str) -> tuple[tuple[str, Template], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise TargetSpecError("query", "must map parameter names to text templates")
    literal_keys = {pair.split("=", 1)[0] for pair in literal_query.split("&") if pair}
    pairs: list[tuple[str, Template]] = []
    for key, item in value.items():
        where = f"query.{key}"
        if not isinstance(key, str) or not key or "${" in key:
            raise TargetSpecError("query", f"has an invalid parameter name {key!r}; names are literal text")
        if key in literal_keys:
            raise TargetSpecError(where, "is also written in the URL's query; give each parameter once")
        template = _template_value(item, where)
        if any(ref.root == "input" and not ref.path for ref in template.refs):
            raise TargetSpecError(where, "uses `${input}`, the whole input object; reference a field")
        pairs.append((key, template))
    return tuple(pairs)


def _headers(value: Any) -> tuple[tuple[str, Template], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise TargetSpecError("headers", "must map header names to text templates")
    pairs: list[tuple[str, Template]] = []
    seen: set[str] = set()
    for name, item in value.items():
        where = f"headers.{name}"
        lowered = str(name).strip().lower()
        if lowered in FORBIDDEN_HEADERS or lowered.startswith(_FORBIDDEN_PREFIXES):
            raise TargetSpecError(where, "is set by the platform and cannot be set by a target")
        if not isinstance(name, str) or not _TOKEN.fullmatch(name):
            raise TargetSpecError(where, "is not a valid header name (RFC 9110 token characters only)")
        if lowered in seen:
            raise TargetSpecError(where, "is given twice (header names are case-insensitive)")
        seen.add(lowered)
        template = _template_value(item, where)
        literal = "".join(t for t in template.tokens if isinstance(t, str))
        if any(c in literal for c in "\r\n\x00"):
            raise TargetSpecError(where, "contains CR, LF or NUL")
        if not all(" " <= c <= "\x7e" or c == "\t" or "\xa0" <= c <= "\xff" for c in literal):
            raise TargetSpecError(where, "has characters a header cannot carry (control characters or beyond Latin-1)")
        if any(ref.root == "input" and not ref.path for ref in template.refs):
            raise TargetSpecError(where, "uses `${input}`, the whole input object; reference a field")
        pairs.append((name, template))
    return tuple(pairs)


def _template_value(item: Any, where: str) -> Template:
    if not isinstance(item, str):
        raise TargetSpecError(where, f"must be text, got {type(item).__name__}")
    try:
        return parse_template(item)
    except TargetSpecError as exc:
        raise TargetSpecError(where, exc.problem) from None


def _body(value: Any) -> BodyTemplate:
    body = parse_body(value)
    _check_embedded_input(body.tree, "body")
    return body


def _check_embedded_input(node: Any, where: str) -> None:
    if isinstance(node, Template):
        if node.single_ref is None and any(r.root == "input" and not r.path for r in node.refs):
            raise TargetSpecError(where, "embeds `${input}` in text; use exactly `${input}` to send the input as JSON")
    elif isinstance(node, dict):
        for key, item in node.items():
            _check_embedded_input(item, f"{where}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _check_embedded_input(item, f"{where}[{index}]")


def located_refs(spec: HttpSpec) -> list[tuple[str, Ref]]:
    """Every reference the spec uses, with the field it appears in."""
    where = "path" if spec.kind == "app" else "url"
    refs = [(where, r) for s in spec.segments for r in s.refs]
    refs += [(f"query.{k}", r) for k, t in spec.query for r in t.refs]
    refs += [(f"headers.{k}", r) for k, t in spec.headers for r in t.refs]
    if spec.body is not None:
        refs += [("body", r) for r in spec.body.refs]
    return refs


def _check_env(spec: HttpSpec, host: TargetHost, env_scope: frozenset[str] | None) -> None:
    component = spec.component
    for where, ref in located_refs(spec):
        name = ref.env_name
        if name is None:
            continue
        if name not in host.env:
            raise TargetSpecError(
                where, f"uses `{ref}`, a variable the host does not declare (declared: {sorted(host.env)})"
            )
        if component is not None and component.env is not None and name not in component.env:
            raise TargetSpecError(where, f"uses `{ref}`, which component {component.name!r} does not declare")
        if env_scope is not None and name not in env_scope:
            raise TargetSpecError(where, f"uses `{ref}`, which the component that sent this card does not declare")
