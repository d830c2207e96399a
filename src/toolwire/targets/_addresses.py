"""Which destinations a target may reach: address classes, numeric host spellings, internal names.

Pure functions, no I/O. The SSRF guard in `_egress` applies them to every address DNS returns;
tool creation applies them to literal hosts so a bad URL fails early.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_METADATA = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("fd00:ec2::254"),
        ipaddress.ip_address("100.100.100.200"),
    }
)
_INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain", ".intranet", ".corp", ".lan")
_NUMERIC_PART = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")


def blocked_reason(ip: IPAddress) -> str | None:
    """Why a target may not connect to `ip` (None: a public unicast address)."""
    if ip in _METADATA:
        return "a cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            inner = blocked_reason(embedded)
            return f"{inner} (inside an IPv6 address)" if inner else None
        if ip in _NAT64_LOCAL:
            return "a local NAT64 address"
        if ip.is_site_local:
            return "a site-local address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved or not ip.is_global:
        return "a reserved or non-global address"
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo client, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def numeric_host(host: str) -> IPAddress | None:
    """The address a numeric host spells, in every form a C resolver accepts; None for a name.

    Besides dotted quads and IPv6 literals this catches `inet_aton`'s legacy forms:
    `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`.
    """
    text = host.strip("[]")
    if "%" in text:
        text = text.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    return _inet_aton(text)


def _inet_aton(text: str) -> ipaddress.IPv4Address | None:
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_NUMERIC_PART.fullmatch(p) for p in parts):
        return None
    *head, last = [_number(p) for p in parts]
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for value in head:
        number = number * 256 + value
    return ipaddress.IPv4Address((number << (8 * (4 - len(head)))) | last)


def _number(part: str) -> int:
    if part[:2] in ("0x", "0X"):
        return int(part[2:], 16)
    return int(part, 8) if part.startswith("0") else int(part)


def internal_name_reason(host: str) -> str | None:
    """Why a host name is internal by its spelling alone (None: it may be public)."""
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(_INTERNAL_SUFFIXES):
        return f"{host!r} is an internal name"
    if "." not in name and ":" not in name:
        return f"{host!r} is a single-label name, which resolves through local search domains"
    return None


@dataclass(frozen=True, slots=True)
class Origin:
    """`scheme://host:port` with the port always explicit, so equal origins compare equal."""

    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, scheme: str, host: str, port: int | None) -> Origin:
        """The origin with the scheme's default port filled in."""
        scheme = scheme.lower()
        return cls(scheme, host.lower(), port if port is not None else (443 if scheme == "https" else 80))

    def __str__(self) -> str:
        default = (self.scheme == "https" and self.port == 443) or (self.scheme == "http" and self.port == 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}" if default else f"{self.scheme}://{host}:{self.port}"
