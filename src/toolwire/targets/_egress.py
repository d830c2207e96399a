"""The guarded client: the one place a target's request leaves the process.

`GuardedTransport` sits directly above the network transport. For an origin the host did not
trust (its components and allow-listed origins) it allows only https on port 443, resolves
the host once, refuses the request if any address is loopback, private, link-local,
multicast, reserved or a metadata address (IPv4-mapped, 6to4, Teredo and NAT64 forms
included), and pins the connection to the checked address, so a second DNS answer cannot
redirect it (rebinding). TLS still verifies the certificate against the host name.

`send` drives the transport directly (no client object: no cookie jar, no environment
proxies, no URL logging): timeouts on connect, read and the whole call; redirects followed
only within the same origin (and base path), never across origins, so credentials never
follow one; the answer read up to a byte cap counted after decompression. Keep-alive
connections (inside `async with host:`) are shared only for trusted origins: a pinned
connection is keyed by IP, and reusing it for another name would skip that name's TLS check.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import httpx2

from ._addresses import Origin, blocked_reason, internal_name_reason, numeric_host
from ._errors import (
    EgressBlocked,
    TargetConnectionError,
    TargetRedirectError,
    TargetResponseError,
    TargetTimeout,
)
from ._host import Resolver, TargetHost
from ._request import PreparedRequest
from ._urls import UrlError, ascii_host, has_dot_segment, join_location

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class Reply:
    """The handler's final answer: status, content type and the (decoded, capped) body."""

    status: int
    content_type: str
    body: bytes


async def system_resolve(host: str, port: int) -> Sequence[str]:
    """Every address the system resolver gives for `host`, in its order, without duplicates."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedTransport(httpx2.AsyncBaseTransport):
    """Checks and pins every destination before the inner transport may connect to it."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, host: TargetHost) -> None:
        self._inner = inner
        self._trusted = host.trusted_origins
        self._resolve: Resolver = host.resolver or system_resolve

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Refuse or pin the destination, then hand the request to the network."""
        return await self._inner.handle_async_request(await self.checked(request))

    async def checked(self, request: httpx2.Request) -> httpx2.Request:
        """The request as it may be sent: unchanged for trusted origins, pinned to a checked IP otherwise.

        Raises:
            EgressBlocked: a scheme, port or address a target may not reach.
            TargetConnectionError: the host name does not resolve.
        """
        url = request.url
        if url.scheme not in ("http", "https"):
            raise EgressBlocked(f"targets only speak http and https, not {url.scheme!r}")
        name = ascii_host(url)
        origin = Origin.of(url.scheme, name, url.port)
        if origin in self._trusted:
            return request
        if origin.scheme != "https" or origin.port != 443:
            raise EgressBlocked(f"{origin} is not https on port 443 and the host did not allow-list it")
        literal = numeric_host(name)
        if literal is not None:
            reason = blocked_reason(literal)
            if reason:
                raise EgressBlocked(f"{origin} is {reason}; the host did not allow-list it")
            return request
        name_reason = internal_name_reason(name)
        if name_reason:
            raise EgressBlocked(f"{name_reason}; the host did not allow-list {origin}")
        address = await self._pin(name, origin)
        pinned = url.copy_with(host=address)
        extensions = {**request.extensions, "sni_hostname": name}
        return httpx2.Request(
            request.method, pinned, headers=request.headers, stream=request.stream, extensions=extensions
        )

    async def _pin(self, name: str, origin: Origin) -> str:
        try:
            addresses = list(await self._resolve(name, origin.port))
        except OSError:
            raise TargetConnectionError(f"could not resolve {name!r}") from None
        if not addresses:
            raise TargetConnectionError(f"{name!r} has no address")
        for address in addresses:
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                raise EgressBlocked(f"{name!r} resolved to something that is not an IP address") from None
            reason = blocked_reason(ip)
            if reason:
                raise EgressBlocked(f"{name!r} resolves to {reason}; the host did not allow-list {origin}")
        return str(ipaddress.ip_address(addresses[0]))

    async def aclose(self) -> None:
        """Nothing to close: the inner transport belongs to whoever made it."""


async def send(host: TargetHost, request: PreparedRequest) -> Reply:
    """Send through the guard, follow same-origin redirects, read the capped answer.

    Raises:
        EgressBlocked: the guard refused a destination.
        TargetTimeout: a connect, read or total deadline passed.
        TargetConnectionError: the destination could not be reached.
        TargetRedirectError: a redirect to another origin, or too many redirects.
        TargetResponseError: an answer over the byte cap or in an encoding targets do not decode.
    """
    limits = host.limits
    # A pinned connection is verified for one name; pooling it by IP could serve another name.
    pooled = host.pooled_transport() if request.origin in host.trusted_origins else None
    shared = host.transport or pooled
    inner = shared or new_transport(host)
    guard = GuardedTransport(inner, host)
    try:
        async with asyncio.timeout(limits.total_timeout):
            return await _follow(guard, request, host)
    except TimeoutError:
        raise TargetTimeout(
            f"the request to {request.origin} took longer than {limits.total_timeout:g} seconds"
        ) from None
    except httpx2.TimeoutException as exc:
        raise TargetTimeout(f"the request to {request.origin} timed out ({type(exc).__name__})") from None
    except httpx2.HTTPError as exc:
        raise TargetConnectionError(f"could not reach {request.origin} ({type(exc).__name__})") from None
    finally:
        if shared is None:
            await inner.aclose()


def new_transport(host: TargetHost) -> httpx2.AsyncBaseTransport:
    """The network transport below the guard: the host's TLS context, no environment proxies."""
    return httpx2.AsyncHTTPTransport(verify=host.ssl_context(), trust_env=False)


async def _follow(guard: GuardedTransport, request: PreparedRequest, host: TargetHost) -> Reply:
    limits = host.limits
    connect, read = limits.connect_timeout, limits.read_timeout
    timeout = {"connect": connect, "read": read, "write": read, "pool": connect}
    for _ in range(limits.max_redirects + 1):
        outgoing = httpx2.Request(
            request.method,
            request.parsed.url,
            # httpx2 encodes str header values as ASCII; Latin-1 (checked in _request) goes as bytes.
            headers=[(name.encode("ascii"), value.encode("latin-1")) for name, value in request.headers],
            content=request.body,
            extensions={"timeout": timeout},
        )
        response = await guard.handle_async_request(outgoing)
        try:
            location = response.headers.get("location")
            if response.status_code in _REDIRECTS and location is not None:
                request = _redirected(request, response.status_code, location)
                continue
            body = await _read_capped(response, limits.max_response_bytes)
            return Reply(response.status_code, response.headers.get("content-type", ""), body)
        finally:
            await response.aclose()
    raise TargetRedirectError(f"the handler redirected more than {limits.max_redirects} times")


def _redirected(request: PreparedRequest, status: int, location: str) -> PreparedRequest:
    """The next hop of a same-origin redirect; anything else is refused, never followed."""
    try:
        nxt = join_location(request.origin, request.target, location)
    except UrlError:
        raise TargetRedirectError(f"the handler answered {status} with an invalid Location") from None
    if nxt.origin != request.origin or nxt.has_userinfo:
        raise TargetRedirectError(
            f"the handler redirected ({status}) to another origin ({nxt.origin}); "
            "targets follow same-origin redirects only"
        )
    if has_dot_segment(nxt.target):
        raise TargetRedirectError(
            f"the handler redirected ({status}) to a path with a `.` or `..` segment (perhaps encoded); "
            "targets do not follow it"
        )
    base = request.base_path
    if base and nxt.path != base and not nxt.path.startswith(base + "/"):
        raise TargetRedirectError(f"the handler redirected ({status}) outside the component's base path")
    method, body, headers = request.method, request.body, request.headers
    if status == 303 or (status in (301, 302) and method == "POST"):
        method, body = "GET", None
        headers = tuple((k, v) for k, v in headers if k.lower() not in ("content-type", "content-length"))
    return replace(request, method=method, target=nxt.target, body=body, headers=headers, parsed=nxt)


async def _read_capped(response: httpx2.Response, cap: int) -> bytes:
    """The body, decompressed step by step so a small compressed bomb cannot exceed `cap`."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        raise TargetResponseError(
            f"the handler's answer uses content-encoding {encoding!r}, which targets do not decode"
        )
    inflater = None if encoding in ("identity", "") else zlib.decompressobj(zlib.MAX_WBITS | 32)
    chunks: list[bytes] = []
    size = 0
    try:
        async for raw in response.aiter_raw():
            data = raw
            while data:
                if inflater is None:
                    piece, data = data, b""
                else:
                    piece = inflater.decompress(data, cap - size + 1)
                    data = inflater.unconsumed_tail
                size += len(piece)
                if size > cap:
                    raise TargetResponseError(f"the handler's answer is larger than {cap} bytes")
                chunks.append(piece)
        if inflater is not None:
            rest = inflater.flush()
            size += len(rest)
            if size > cap:
                raise TargetResponseError(f"the handler's answer is larger than {cap} bytes")
            chunks.append(rest)
    except zlib.error:
        raise TargetResponseError(f"the handler's answer is not valid {encoding} data") from None
    return b"".join(chunks)
