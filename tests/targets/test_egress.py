"""Specification of the guarded client: SSRF checks with pinned DNS, redirects, one egress path."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import httpx2
import pytest

import toolwire.targets
from toolwire.targets import EgressBlocked, TargetHost
from toolwire.targets._egress import GuardedTransport

PUBLIC_IP = "93.184.216.34"


class Recorder(httpx2.AsyncBaseTransport):
    """The network below the guard: records what the guard let through, then answers via the app."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.requests: list[httpx2.Request] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)


@pytest.fixture
def recorder(handler: Any) -> Recorder:
    """A transport that records every request reaching the network."""
    return Recorder(httpx2.ASGITransport(handler))


def _url_target(url: str = "https://tools.example.com/echo", method: str = "GET") -> dict[str, Any]:
    return {"type": "url", "url": url, "method": method}


class TestSsrf:
    @pytest.mark.parametrize(
        ("address", "reason"),
        [
            ("127.0.0.1", "a loopback address"),
            ("127.8.9.10", "a loopback address"),
            ("0.0.0.0", "the unspecified address"),
            ("10.1.2.3", "a private address"),
            ("172.16.0.1", "a private address"),
            ("172.31.255.255", "a private address"),
            ("192.168.1.1", "a private address"),
            ("169.254.169.254", "a cloud metadata address"),
            ("169.254.1.1", "a link-local address"),
            ("100.64.0.1", "a reserved or non-global address"),
            ("224.0.0.1", "a multicast address"),
            ("::1", "a loopback address"),
            ("::", "the unspecified address"),
            ("fd00::1", "a private address"),
            ("fe80::1", "a link-local address"),
            ("::ffff:127.0.0.1", "a loopback address (inside an IPv6 address)"),
            ("::ffff:10.0.0.1", "a private address (inside an IPv6 address)"),
            ("2002:7f00:1::", "a loopback address (inside an IPv6 address)"),
            ("64:ff9b::a9fe:a9fe", "a cloud metadata address (inside an IPv6 address)"),
            ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "a private address (inside an IPv6 address)"),
            ("ff02::1", "a multicast address"),
        ],
    )
    async def test_names_resolving_to_internal_addresses_are_refused(
        self, address: str, reason: str, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """Checked after DNS: the request never reaches the network."""
        dns.answers["tools.example.com"] = [[address]]
        result = await call(make_tool(_url_target(), make_host(transport=recorder)))
        assert (result.output["value"], recorder.requests) == (
            "Tool 'probe' failed: EgressBlocked: "
            f"'tools.example.com' resolves to {reason}; the host did not allow-list https://tools.example.com",
            [],
        )

    async def test_one_internal_address_among_public_ones_is_refused(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """Every resolved address must be public, not just the first."""
        dns.answers["tools.example.com"] = [[PUBLIC_IP, "10.0.0.7"]]
        result = await call(make_tool(_url_target(), make_host(transport=recorder)))
        assert (result.error.__class__, recorder.requests) == (EgressBlocked, [])

    async def test_the_connection_is_pinned_to_the_checked_address(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """DNS rebinding: the first (checked) answer is used; the name stays in Host and TLS SNI."""
        dns.answers["tools.example.com"] = [[PUBLIC_IP], ["127.0.0.1"]]
        result = await call(make_tool(_url_target(), make_host(transport=recorder)))
        sent = recorder.requests[0]
        assert (result.is_error, str(sent.url), sent.headers["host"], sent.extensions["sni_hostname"], dns.calls) == (
            False,
            f"https://{PUBLIC_IP}/echo",
            "tools.example.com",
            "tools.example.com",
            [("tools.example.com", 443)],
        )

    async def test_an_international_name_is_resolved_in_its_wire_form(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """DNS, Host and SNI all get the IDNA form of the name."""
        dns.answers["xn--bcher-kva.example"] = [[PUBLIC_IP]]
        result = await call(make_tool(_url_target("https://bücher.example/echo"), make_host(transport=recorder)))
        sent = recorder.requests[0]
        assert (result.is_error, dns.calls, sent.headers["host"], sent.extensions["sni_hostname"]) == (
            False,
            [("xn--bcher-kva.example", 443)],
            "xn--bcher-kva.example",
            "xn--bcher-kva.example",
        )

    async def test_every_call_resolves_and_checks_again(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """A later answer pointing inside is refused on the next call."""
        dns.answers["tools.example.com"] = [[PUBLIC_IP], ["127.0.0.1"]]
        tool = make_tool(_url_target(), make_host(transport=recorder))
        first, second = await call(tool), await call(tool)
        assert (first.is_error, second.error.__class__, len(recorder.requests)) == (False, EgressBlocked, 1)

    async def test_an_allow_listed_internal_origin_skips_the_address_check(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """The host may let `url` targets reach a named internal origin, over http and any port."""
        host = make_host(transport=recorder, allowed_origins=["http://10.0.0.5:8080"])
        result = await call(make_tool(_url_target("http://10.0.0.5:8080/echo"), host))
        assert (result.is_error, str(recorder.requests[0].url), dns.calls) == (False, "http://10.0.0.5:8080/echo", [])

    async def test_an_unresolvable_name_fails_cleanly(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """DNS failure is a connection error the model can read."""
        result = await call(make_tool(_url_target("https://nowhere.example.com/x"), make_host()))
        assert (
            result.output["value"]
            == "Tool 'probe' failed: TargetConnectionError: could not resolve 'nowhere.example.com'"
        )

    async def test_a_resolver_answering_garbage_is_refused(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Only IP addresses are accepted from the resolver."""
        dns.answers["tools.example.com"] = [["not-an-ip"]]
        result = await call(make_tool(_url_target(), make_host()))
        assert result.error.__class__ is EgressBlocked

    @pytest.mark.parametrize(
        ("url", "message"),
        [
            ("file:///etc/passwd", "targets only speak http and https, not 'file'"),
            ("ftp://files.example.com/x", "targets only speak http and https, not 'ftp'"),
            (
                "http://tools.example.com/x",
                "http://tools.example.com is not https on port 443 and the host did not allow-list it",
            ),
            ("https://tools.example.com:8443/x", "https://tools.example.com:8443 is not https on port 443"),
            ("https://127.0.0.1/x", "https://127.0.0.1 is a loopback address; the host did not allow-list it"),
            (
                "https://[::ffff:169.254.169.254]/x",
                "https://[::ffff:169.254.169.254] is a cloud metadata address (inside an IPv6 address)",
            ),
            ("https://2130706433/x", "https://2130706433 is a loopback address"),
            ("https://metadata.google.internal/x", "'metadata.google.internal' is an internal name"),
            ("https://localhost/x", "'localhost' is an internal name"),
        ],
    )
    async def test_the_guard_refuses_on_its_own(self, url: str, message: str, dns: Any) -> None:
        """The guard re-checks scheme, port, literal addresses and names for every request."""
        guard = GuardedTransport(httpx2.MockTransport(lambda request: httpx2.Response(200)), TargetHost(resolver=dns))
        with pytest.raises(EgressBlocked) as caught:
            await guard.handle_async_request(httpx2.Request("GET", url))
        assert str(caught.value).startswith(message)

    async def test_a_public_literal_address_needs_no_dns(self, dns: Any) -> None:
        """A public IP literal is checked as it is and sent unchanged."""
        seen: list[str] = []

        def answer(request: httpx2.Request) -> httpx2.Response:
            seen.append(str(request.url))
            return httpx2.Response(200)

        guard = GuardedTransport(httpx2.MockTransport(answer), TargetHost(resolver=dns))
        await guard.handle_async_request(httpx2.Request("GET", f"https://{PUBLIC_IP}/x"))
        assert (seen, dns.calls) == ([f"https://{PUBLIC_IP}/x"], [])


class TestRedirects:
    async def _follow(self, location: str, make_host: Any, make_tool: Any, call: Any, status: int = 302) -> Any:
        target = {
            "type": "app",
            "component": "api",
            "path": "/redirect",
            "method": "GET",
            "query": {"status": str(status), "to": location},
        }
        return await call(make_tool(target, make_host()))

    async def test_a_same_origin_redirect_is_followed_with_credentials(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Within one origin the identity stays; the final answer is the result."""
        result = await self._follow("/echo/after?x=1", make_host, make_tool, call)
        assert (
            result.raw["content"]["path"],
            result.raw["content"]["query"],
            handler.seen[1].header("authorization"),
        ) == (
            "/echo/after",
            "x=1",
            ["Bearer identity-token-for-alice"],
        )

    @pytest.mark.parametrize(
        ("location", "origin"),
        [
            ("https://evil.example/x", "https://evil.example"),
            ("//evil.example/x", "http://evil.example"),
            ("https://api.test/echo", "https://api.test"),
            ("http://127.0.0.1/echo", "http://127.0.0.1"),
            ("http://api.test:8080/echo", "http://api.test:8080"),
        ],
    )
    async def test_a_redirect_to_another_origin_is_refused(
        self, location: str, origin: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Cross-origin (scheme, host or port) is never followed, so credentials never follow."""
        result = await self._follow(location, make_host, make_tool, call)
        assert (result.output["value"], len(handler.seen)) == (
            f"Tool 'probe' failed: TargetRedirectError: the handler redirected (302) to another origin ({origin}); "
            "targets follow same-origin redirects only",
            1,
        )

    async def test_a_redirect_out_of_the_component_base_path_is_refused(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Another app on the same origin does not get this app's identity token."""
        host = make_host(components={"api": "http://api.test/scoped"})
        result = await call(make_tool({"type": "app", "component": "api", "path": "/jump", "method": "GET"}, host))
        assert (result.output["value"], len(handler.seen)) == (
            "Tool 'probe' failed: TargetRedirectError: the handler redirected (302) outside the component's base path",
            1,
        )

    async def test_a_redirect_inside_the_base_path_is_followed(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Redirects that stay below the base path are fine."""
        host = make_host(components={"api": "http://api.test/scoped"})
        result = await call(make_tool({"type": "app", "component": "api", "path": "/inside", "method": "GET"}, host))
        assert result.raw["content"]["path"] == "/scoped/echo"

    async def test_a_redirect_loop_stops(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """At most `max_redirects` hops are followed."""
        result = await call(
            make_tool({"type": "app", "component": "api", "path": "/loop", "method": "GET"}, make_host())
        )
        assert (result.output["value"], len(handler.seen)) == (
            "Tool 'probe' failed: TargetRedirectError: the handler redirected more than 3 times",
            4,
        )

    async def test_see_other_after_post_becomes_a_get_without_body(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """303 switches to GET and drops the body, as browsers do."""
        target = {
            "type": "app",
            "component": "api",
            "path": "/redirect",
            "method": "POST",
            "query": {"status": "303", "to": "/echo/done"},
            "body": "${input}",
        }
        result = await call(make_tool(target, make_host()), {"a": 1})
        assert (result.raw["content"]["method"], handler.seen[1].body, handler.seen[1].header("content-type")) == (
            "GET",
            b"",
            [],
        )

    async def test_a_temporary_redirect_keeps_method_and_body(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """307 resends the same request."""
        target = {
            "type": "app",
            "component": "api",
            "path": "/redirect",
            "method": "POST",
            "query": {"status": "307", "to": "/echo/again"},
            "body": "${input}",
        }
        result = await call(make_tool(target, make_host()), {"a": 1})
        assert (result.raw["content"]["method"], result.raw["content"]["body"]) == ("POST", '{"a":1}')

    async def test_a_downgrade_to_http_is_refused(
        self, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """https -> http is another origin: never followed."""
        target = _url_target("https://tools.example.com/redirect?status=302&to=http://tools.example.com/echo")
        result = await call(make_tool(target, make_host(transport=recorder)))
        assert (result.error.__class__.__name__, str(result.error), len(recorder.requests)) == (
            "TargetRedirectError",
            "the handler redirected (302) to another origin (http://tools.example.com); "
            "targets follow same-origin redirects only",
            1,
        )

    async def test_a_url_target_redirect_is_checked_again(
        self, dns: Any, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
    ) -> None:
        """Each hop passes the guard (and DNS) again."""
        dns.answers["tools.example.com"] = [[PUBLIC_IP], ["10.0.0.1"]]
        target = _url_target("https://tools.example.com/redirect?status=302&to=/echo/next")
        result = await call(make_tool(target, make_host(transport=recorder)))
        assert (result.error.__class__, len(recorder.requests), len(dns.calls)) == (EgressBlocked, 1, 2)


_NETWORK_NAMES = {
    "AsyncClient",
    "Client",
    "AsyncHTTPTransport",
    "HTTPTransport",
    "getaddrinfo",
    "create_connection",
    "open_connection",
    "urlopen",
    "socket",
    "ssl",
    "httpcore2",
    "HTTPConnection",
    "HTTPSConnection",
}


def test_only_the_guarded_client_module_touches_the_network() -> None:
    """Every egress goes through `_egress`: no other module names a client, a transport or a socket."""
    package = Path(toolwire.targets.__file__).parent
    offenders: dict[str, set[str]] = {}
    for module in sorted(package.glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.alias):
                names.add(node.name.split(".")[0])
        found = names & _NETWORK_NAMES
        if found:
            offenders[module.name] = found
    assert offenders == {"_egress.py": {"AsyncHTTPTransport", "getaddrinfo", "socket"}, "_host.py": {"ssl"}}


async def test_without_a_custom_resolver_the_system_resolver_is_guarded(
    monkeypatch: pytest.MonkeyPatch, make_host: Any, make_tool: Any, call: Any, recorder: Recorder
) -> None:
    """The default resolver's answers pass the same check (here: a name resolving to loopback)."""

    async def loopback(self: Any, host: str, port: int, **kwargs: Any) -> list[Any]:
        return [(2, 1, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr("asyncio.BaseEventLoop.getaddrinfo", loopback)
    result = await call(make_tool(_url_target(), make_host(transport=recorder, resolver=None)))
    assert (result.error.__class__, recorder.requests) == (EgressBlocked, [])


async def test_pooled_connections_are_shared_only_with_trusted_origins(
    monkeypatch: pytest.MonkeyPatch, dns: Any, make_tool: Any, call: Any
) -> None:
    """Inside `async with host:` components reuse the pool; pinned external calls never do."""
    made: list[Recorder] = []

    def new_transport(host: TargetHost) -> Recorder:
        made.append(Recorder(httpx2.MockTransport(lambda request: httpx2.Response(200, text="ok"))))
        return made[-1]

    monkeypatch.setattr("toolwire.targets._egress.new_transport", new_transport)
    host = TargetHost(components={"api": "https://api.example.com"}, resolver=dns)
    app_tool = make_tool({"type": "app", "component": "api", "path": "/x", "method": "GET"}, host, tool_id="app")
    url_tool = make_tool(_url_target(), host, tool_id="url")
    async with host:
        await call(app_tool)
        await call(url_tool)
        await call(app_tool)
    assert [[str(r.url) for r in m.requests] for m in made] == [
        ["https://api.example.com/x", "https://api.example.com/x"],
        [f"https://{PUBLIC_IP}/echo"],
    ]
