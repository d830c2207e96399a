"""Specification of URL parsing: one parser cross-checked by another, nothing ambiguous accepted."""

from __future__ import annotations

import pytest

from toolwire.targets._addresses import Origin
from toolwire.targets._urls import UrlError, check_sent_url, join_location, parse_url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://good.example\\@evil.example/", "contains a backslash, whitespace or a control character"),
        ("https://good.example/a\r\nb", "contains a backslash, whitespace or a control character"),
        (" https://good.example/", "contains a backslash, whitespace or a control character"),
        ("https://exa mple.com/", "is read differently by different URL parsers; write the host plainly"),
        ("https:///path-only", "must be an absolute http:// or https:// URL"),
        ("mailto:a@b.example", "must be an absolute http:// or https:// URL"),
        ("https://good.example:99999/", "is not a valid URL (Port out of range 0-65535)"),
        ("https://-bad-.example/", "has an invalid host '-bad-.example'"),
    ],
)
def test_ambiguous_or_malformed_urls_are_refused(url: str, problem: str) -> None:
    """Anything two parsers might read differently, or that is not a plain http(s) URL, fails."""
    with pytest.raises(UrlError) as caught:
        parse_url(url)
    assert str(caught.value) == problem


def test_user_info_is_noticed() -> None:
    """`user@host` is flagged so callers can refuse it."""
    assert parse_url("https://user@good.example/x").has_userinfo is True


def test_default_ports_compare_equal() -> None:
    """`https://a.example` and `https://a.example:443` are one origin."""
    assert (
        parse_url("https://A.example:443/x").origin
        == parse_url("https://a.example/x").origin
        == Origin("https", "a.example", 443)
    )


@pytest.mark.parametrize(
    ("location", "origin"),
    [
        ("/next", "https://api.example"),
        ("//evil.example/x", "https://evil.example"),
        ("http://api.example/x", "http://api.example"),
        ("https://api.example:8443/x", "https://api.example:8443"),
    ],
)
def test_redirect_locations_resolve_against_the_current_url(location: str, origin: str) -> None:
    """Protocol-relative and scheme-changing locations are other origins."""
    assert str(join_location(Origin("https", "api.example", 443), "/a/b", location).origin) == origin


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://api.test/base/../admin", "was rewritten by the URL parser (dot segments or unencoded characters)"),
        ("http://api.test/base/a b", "was rewritten by the URL parser (dot segments or unencoded characters)"),
        ("http://evil.test/base/x", "no longer goes to http://api.test"),
        ("http://api.test/basement/x", "leaves the base path '/base'"),
    ],
)
def test_the_sent_url_must_be_exactly_what_was_built(url: str, problem: str) -> None:
    """The final check catches normalization, origin changes and base-path escapes."""
    target = url.split("api.test", 1)[-1] if "api.test" in url else "/base/x"
    with pytest.raises(UrlError) as caught:
        check_sent_url(url, Origin("http", "api.test", 80), "/base", target)
    assert str(caught.value) == problem


@pytest.mark.parametrize(
    "url", ["https://bücher.example/x", "https://BÜCHER.example/x", "https://xn--bcher-kva.example/x"]
)
def test_international_hosts_are_compared_in_their_wire_form(url: str) -> None:
    """Both parsers' hosts are compared IDNA-encoded, so Unicode and punycode spellings agree."""
    assert parse_url(url).origin == Origin("https", "xn--bcher-kva.example", 443)
