"""URL parsing for targets: one parser (httpx2's, the client's own) cross-checked by `urlsplit`.

Every URL a target sends to, redirects to or embeds is parsed here. A URL on which the two
parsers disagree about scheme, host or port is refused: that disagreement is how
`https://good.com\\@evil.com/` style confusions become SSRF.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes, urlsplit

import httpx2
import idna

from ._addresses import Origin

_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?")
_UNSAFE = re.compile(r"[\\\r\n\t\x00]")
_PCHARS = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*")
_MAX_DECODINGS = 4
_PERCENT_U = re.compile(r"%[uU]([0-9A-Fa-f]{4})")
_OVERLONG = {b"\xc0\xae": b".", b"\xe0\x80\xae": b".", b"\xc0\xaf": b"/", b"\xe0\x80\xaf": b"/", b"\xc1\x9c": b"\\"}
"""Overlong UTF-8 for `.`, `/` and `\\`, which old decoders accepted."""
_QUERY_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")


class UrlError(ValueError):
    """A URL that toolwire will not send to (the message says why, without the URL's secrets)."""


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """An absolute URL split the way the client will send it."""

    origin: Origin
    target: str
    """Path and query exactly as they go on the request line."""
    has_userinfo: bool
    fragment: str
    url: httpx2.URL = field(compare=False, repr=False)
    """The client's own parse, reused when sending (parsing costs more than building the URL)."""

    @property
    def path(self) -> str:
        """The path part of `target`."""
        return self.target.split("?", 1)[0]


def parse_url(text: str) -> ParsedUrl:
    """Parse an absolute http(s) URL, refusing anything the two parsers read differently.

    Raises:
        UrlError: not absolute http(s), a malformed host or port, or a parser disagreement.
    """
    if _UNSAFE.search(text) or text != text.strip():
        raise UrlError("contains a backslash, whitespace or a control character")
    try:
        url = httpx2.URL(text)
        split = urlsplit(text)
        split_port = split.port
    except (ValueError, httpx2.InvalidURL) as exc:
        raise UrlError(f"is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise UrlError("must be an absolute http:// or https:// URL")
    origin = Origin.of(url.scheme, ascii_host(url), url.port)
    other = Origin.of(split.scheme, _idna(split.hostname or ""), split_port)
    if origin != other:
        raise UrlError("is read differently by different URL parsers; write the host plainly")
    if ":" not in origin.host and not _HOST_NAME.fullmatch(origin.host):
        raise UrlError(f"has an invalid host {origin.host!r}")
    return ParsedUrl(
        origin=origin,
        target=url.raw_path.decode("ascii"),
        has_userinfo=bool(url.userinfo) or "@" in split.netloc,
        fragment=url.fragment,
        url=url,
    )


def ascii_host(url: httpx2.URL) -> str:
    """The host as it goes on the wire and to DNS (IDNA-encoded; httpx2's `.host` is Unicode)."""
    return url.raw_host.decode("ascii")


def _idna(host: str) -> str:
    """`urlsplit`'s host in the same IDNA form httpx2 uses, so the two parses compare."""
    if host.isascii():
        return host
    try:
        return idna.encode(host.lower()).decode("ascii")
    except idna.IDNAError:
        raise UrlError(f"has a host that is not a valid international name ({host!r})") from None


def parse_base_url(text: str) -> tuple[Origin, str]:
    """A component's base URL as (origin, base path without a trailing slash).

    Raises:
        UrlError: userinfo, a query, a fragment, or a URL `parse_url` refuses.
    """
    parsed = parse_url(text)
    if parsed.has_userinfo or "?" in parsed.target or parsed.fragment:
        raise UrlError("must be a plain base URL: no user:password@, query or #fragment")
    return parsed.origin, parsed.path.rstrip("/")


def parse_origin(text: str) -> Origin:
    """An allow-listed origin such as `https://internal.example.com:8443`.

    Raises:
        UrlError: anything beyond scheme, host and port.
    """
    parsed = parse_url(text)
    if parsed.has_userinfo or parsed.target != "/" or parsed.fragment or text.rstrip("/").count("/") > 2:
        raise UrlError("must be an origin: scheme://host[:port] and nothing else")
    return parsed.origin


def valid_path_text(text: str) -> bool:
    """Whether literal text may appear as-is inside one path segment."""
    return _PCHARS.fullmatch(text) is not None


def valid_query_text(text: str) -> bool:
    """Whether literal text may appear as-is in a query string."""
    return _QUERY_CHARS.fullmatch(text) is not None


def join_location(origin: Origin, target: str, location: str) -> ParsedUrl:
    """Where a redirect's `Location` points, resolved against the URL that answered.

    Raises:
        UrlError: a location that does not resolve to an absolute http(s) URL.
    """
    if _UNSAFE.search(location):
        raise UrlError("contains a backslash or a control character")
    try:
        joined = httpx2.URL(f"{origin}{target}").join(location)
    except (ValueError, httpx2.InvalidURL) as exc:
        raise UrlError(f"is not a valid URL ({exc})") from None
    return parse_url(str(joined))


def has_dot_segment(path: str) -> bool:
    """Whether a path has a `.` or `..` segment as some server or proxy on the way may read it.

    Each segment is percent-decoded until it stops changing (IIS `%u` and overlong UTF-8
    included), NFKC-normalized (fullwidth dots), split on `/` and `\\` (encoded slashes), and
    stripped of what servers drop (`;parameters`, blanks, NUL). A segment still encoded after
    `_MAX_DECODINGS` rounds counts as a dot segment.
    """
    for segment in path.split("?", 1)[0].split("/"):
        text = segment
        for _ in range(_MAX_DECODINGS):
            decoded = _percent_decoded(text)
            if decoded == text:
                break
            text = decoded
        else:
            return True
        for piece in re.split(r"[/\\]", unicodedata.normalize("NFKC", text)):
            if piece.split(";", 1)[0].strip(" \t\x00") in (".", ".."):
                return True
    return False


def _percent_decoded(text: str) -> str:
    text = _PERCENT_U.sub(lambda match: chr(int(match[1], 16)), text)
    data = unquote_to_bytes(text)
    for overlong, plain in _OVERLONG.items():
        data = data.replace(overlong, plain)
    return data.decode("utf-8", "replace")


def check_sent_url(text: str, origin: Origin, base_path: str, target: str) -> ParsedUrl:
    """Check that the URL about to be sent goes to `origin`, under `base_path`, exactly as built.

    Raises:
        UrlError: the origin, the base path or the request target changed in parsing.
    """
    parsed = parse_url(text)
    if parsed.origin != origin or parsed.has_userinfo or parsed.fragment:
        raise UrlError(f"no longer goes to {origin}")
    if parsed.target != target:
        raise UrlError("was rewritten by the URL parser (dot segments or unencoded characters)")
    if base_path and parsed.path != base_path and not parsed.path.startswith(base_path + "/"):
        raise UrlError(f"leaves the base path {base_path!r}")
    return parsed
