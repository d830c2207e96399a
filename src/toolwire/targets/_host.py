"""The host side of targets: components, env secrets, allowed origins, identity, builtins, limits.

One `TargetHost` holds everything a deployment decides and an author may not: where each
component lives, the env values `${env.NAME}` reads, which internal origins `url` targets may
reach, the identity token sent to `app` targets, and the Python handlers `builtin` targets call.
`set_default_host` registers one host for tools created without `target_host=`.
"""

from __future__ import annotations

import asyncio
import secrets
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolwire._callbacks import Callback, count_positional, make_callback
from toolwire.exceptions import ToolDefinitionError

from ._addresses import Origin
from ._errors import TargetConfigError
from ._template import ENV_NAME
from ._urls import UrlError, parse_base_url, parse_origin

if TYPE_CHECKING:
    import httpx2

EnvValue = str | None | Callable[[], str | None]
"""A literal value, None (declared, not set), or a function read on every request."""
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""`resolve(host, port)` -> the host's IP addresses (the SSRF guard checks every one)."""
IDENTITY_ARGUMENTS = frozenset({"request_context", "component", "tool_id"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Component:
    """One of the app's own services: its base URL and, optionally, the env names it may read."""

    url: str
    env: tuple[str, ...] | None = None
    """Env names `${env.NAME}` may use in this component's targets (None: every host env name)."""


@dataclass(frozen=True, slots=True)
class ComponentInfo:
    """A component after its URL was parsed."""

    name: str
    origin: Origin
    base_path: str
    env: frozenset[str] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetLimits:
    """Timeouts and sizes every target request obeys."""

    connect_timeout: float = 5.0
    read_timeout: float = 20.0
    """Seconds without a byte from the handler before the call fails."""
    total_timeout: float = 60.0
    """Seconds for the whole call, redirects included (a trickling handler cannot hold it open)."""
    max_response_bytes: int = 1_048_576
    """Largest answer read, counted after decompression."""
    max_redirects: int = 3
    """Same-origin redirects followed before the call fails."""

    def __post_init__(self) -> None:
        timeouts = (self.connect_timeout, self.read_timeout, self.total_timeout)
        if not all(isinstance(t, (int, float)) and t > 0 for t in timeouts):
            raise TargetConfigError(f"timeouts must be positive numbers of seconds, got {timeouts}")
        if self.max_response_bytes <= 0 or self.max_redirects < 0:
            raise TargetConfigError("max_response_bytes must be positive and max_redirects zero or more")


class TargetHost:
    """Everything a deployment decides for targets; authors never set any of it."""

    def __init__(
        self,
        *,
        components: Mapping[str, str | Component] | None = None,
        env: Mapping[str, EnvValue] | None = None,
        allowed_origins: Iterable[str] = (),
        identity_token: str | Callable[..., Any] | None = None,
        builtins: Mapping[str, Callable[..., Any]] | None = None,
        limits: TargetLimits | None = None,
        card_ttl: float | None = None,
        card_key: str | bytes | None = None,
        reject_tools_json: bool = False,
        transport: httpx2.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Check and keep the host's configuration.

        `allowed_origins` are internal origins `url` targets may reach past the SSRF guard
        (and over http or a non-443 port), and origins `embedUrl` may point to besides the
        components' https origins. `identity_token` is a string or a function taking any of
        `request_context`, `component`, `tool_id` (sync or async). `transport` replaces the
        network below the guard (tests, custom TLS); it never bypasses the guard. `card_key`
        (32+ bytes of secret randomness) signs the cards a suspended call stores, so a changed
        `export_state` is refused; without it each host signs with a random key of its own, and
        cards cannot be pressed after a restart.

        Raises:
            TargetConfigError: a malformed component URL, env name, origin, handler or limit.
        """
        self.components = _components(components or {})
        self.env: Mapping[str, EnvValue] = _env(env or {})
        self.allowed_origins = frozenset(_origin(o) for o in allowed_origins)
        self.trusted_origins = self.allowed_origins | {c.origin for c in self.components.values()}
        """Origins sent to without the public-address check: components and allow-listed origins."""
        self.embed_origins = frozenset(o for o in self.trusted_origins if o.scheme == "https")
        """Origins an `embedUrl` may point to."""
        self.identity: Callback | str | None = _identity(identity_token)
        self.builtins = _builtins(builtins or {})
        self.limits = limits or TargetLimits()
        if card_ttl is not None and card_ttl <= 0:
            raise TargetConfigError(f"card_ttl must be a positive number of seconds, got {card_ttl!r}")
        self.card_ttl = card_ttl
        self.card_key = _card_key(card_key)
        """HMAC-SHA256 key of stored cards (see `toolwire.targets._card.card_signature`)."""
        self.reject_tools_json = reject_tools_json
        self.transport = transport
        self.resolver = resolver
        self.clock = clock
        self._ssl: ssl.SSLContext | None = None
        self._ssl_lock = threading.Lock()
        self._pools: dict[asyncio.AbstractEventLoop, tuple[int, httpx2.AsyncBaseTransport]] = {}

    async def __aenter__(self) -> TargetHost:
        """Reuse connections for the calls made inside `async with host:` on this event loop.

        Outside such a block every call opens its own connection and closes it, which needs
        no cleanup; inside it, keep-alive connections to components and allow-listed origins
        are shared and closed on exit (connections to other origins stay one per call).
        """
        from ._egress import new_transport

        loop = asyncio.get_running_loop()
        depth, transport = self._pools.get(loop, (0, None))
        self._pools[loop] = (depth + 1, transport or new_transport(self))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        loop = asyncio.get_running_loop()
        depth, transport = self._pools.pop(loop)
        if depth > 1:
            self._pools[loop] = (depth - 1, transport)
        else:
            await transport.aclose()

    def pooled_transport(self) -> httpx2.AsyncBaseTransport | None:
        """The shared transport of the running loop's `async with host:` block, if any."""
        entry = self._pools.get(asyncio.get_running_loop())
        return entry[1] if entry is not None else None

    def ssl_context(self) -> ssl.SSLContext:
        """The TLS context of every request (built once: building one costs tens of milliseconds)."""
        with self._ssl_lock:
            if self._ssl is None:
                import httpx2

                self._ssl = httpx2.create_ssl_context(trust_env=False)
            return self._ssl

    def __repr__(self) -> str:
        return f"TargetHost(components={sorted(self.components)}, env={sorted(self.env)})"


def _components(spec: Mapping[str, str | Component]) -> dict[str, ComponentInfo]:
    parsed: dict[str, ComponentInfo] = {}
    for name, value in spec.items():
        component = Component(url=value) if isinstance(value, str) else value
        if not isinstance(name, str) or not name or not isinstance(component, Component):
            raise TargetConfigError(f"components must map names to base URLs or Component(...), got {name!r}")
        try:
            origin, base_path = parse_base_url(component.url)
        except UrlError as exc:
            raise TargetConfigError(f"component {name!r}: base URL {exc}") from None
        env = None if component.env is None else frozenset(component.env)
        parsed[name] = ComponentInfo(name=name, origin=origin, base_path=base_path, env=env)
    return parsed


def _env(spec: Mapping[str, EnvValue]) -> dict[str, EnvValue]:
    for name, value in spec.items():
        if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
            raise TargetConfigError(f"env name {name!r} is not a valid name ([A-Za-z_][A-Za-z0-9_]*)")
        if not (value is None or isinstance(value, str) or callable(value)):
            raise TargetConfigError(f"env {name!r} must be text, None or a function returning text")
    return dict(spec)


def _origin(text: str) -> Origin:
    try:
        return parse_origin(text)
    except UrlError as exc:
        raise TargetConfigError(f"allowed origin {text!r} {exc}") from None


def _identity(token: str | Callable[..., Any] | None) -> Callback | str | None:
    if token is None or isinstance(token, str):
        return token
    try:
        return make_callback(token, tool_id=None, field="identity_token", offered=IDENTITY_ARGUMENTS)
    except ToolDefinitionError as exc:
        raise TargetConfigError(f"identity_token {exc.problem}") from None


def _card_key(key: str | bytes | None) -> bytes:
    if key is None:
        return secrets.token_bytes(32)
    material = key.encode("utf-8") if isinstance(key, str) else key
    if not isinstance(material, bytes) or len(material) < 32:
        raise TargetConfigError(
            'card_key must be at least 32 bytes of secret randomness: python -c "import secrets; '
            'print(secrets.token_hex(32))"'
        )
    return material


def _builtins(spec: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    for name, handler in spec.items():
        if not isinstance(name, str) or not name:
            raise TargetConfigError(f"builtin names must be non-empty text, got {name!r}")
        required, maximum = count_positional(handler) if callable(handler) else (9, 0)
        if required > 2 or maximum < 1:
            raise TargetConfigError(f"builtin {name!r} must be a function taking `(input)` or `(input, context)`")
    return dict(spec)


_default: TargetHost | None = None


def set_default_host(host: TargetHost | None) -> None:
    """Use `host` for every tool created with a target and no `target_host=` (None: forget it)."""
    global _default
    if host is not None and not isinstance(host, TargetHost):
        raise TypeError(f"set_default_host expects a TargetHost, got {type(host).__name__}")
    _default = host


def default_host() -> TargetHost | None:
    """The host registered with `set_default_host`, if any."""
    return _default
