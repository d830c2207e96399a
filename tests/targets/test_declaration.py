"""Specification of what `create_tool(target=...)` checks before any request exists."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import ToolDefinitionError, create_tool
from toolwire.targets import (
    AppTarget,
    BuiltinTarget,
    Component,
    TargetBinding,
    TargetHost,
    UrlTarget,
    binding_of,
    set_default_host,
)

HOST = TargetHost(
    components={
        "api": "https://api.example.com/v1",
        "billing": Component(url="https://billing.example.com", env=("KEY",)),
    },
    env={"KEY": "k-123", "OTHER": "o-456"},
    allowed_origins=["http://10.0.0.5:8080"],
    builtins={"clock": lambda value: "noon"},
)


def _problem(target: Any, host: TargetHost | None = HOST) -> tuple[str, str]:
    with pytest.raises(ToolDefinitionError) as caught:
        create_tool(id="t", description="d", target=target, target_host=host)
    assert caught.value.tool_id == "t"
    return caught.value.field, caught.value.problem


def _app(**fields: Any) -> dict[str, Any]:
    return {"type": "app", "component": "api", "path": "/x", "method": "POST", **fields}


def _url(url: str, **fields: Any) -> dict[str, Any]:
    return {"type": "url", "url": url, "method": "GET", **fields}


class TestShape:
    def test_the_seed_declaration_is_accepted(self) -> None:
        """The bookmark target from the platform page builds a tool."""
        tool = create_tool(
            id="save_bookmark",
            description="Save a bookmark URL and return a confirmation.",
            target={
                "type": "app",
                "component": "api",
                "path": "/tools/save-bookmark",
                "method": "POST",
                "body": "${input}",
            },
            target_host=HOST,
        )
        assert (isinstance(binding_of(tool), TargetBinding), tool.target["path"]) == (True, "/tools/save-bookmark")

    def test_dataclass_targets_are_accepted(self) -> None:
        """`AppTarget`, `UrlTarget` and `BuiltinTarget` are the typed spellings of the dicts."""
        for target in (
            AppTarget(component="api", path="/x", method="GET"),
            UrlTarget(url="https://tools.example.com/x", method="GET"),
            BuiltinTarget(name="clock"),
        ):
            assert binding_of(create_tool(id="t", description="d", target=target, target_host=HOST)) is not None

    def test_target_and_execute_together_are_refused(self) -> None:
        """A target replaces execute."""
        with pytest.raises(ToolDefinitionError, match="replaces `execute`"):
            create_tool(id="t", description="d", target=_app(), execute=lambda value: value, target_host=HOST)

    def test_a_non_dict_target_is_refused(self) -> None:
        """The target must be a declaration."""
        assert _problem("https://example.com") == ("target", 'must be a dict with "type": "app", "url" or "builtin"')

    def test_an_unknown_type_is_refused(self) -> None:
        """Only app, url and builtin exist."""
        assert _problem({"type": "kazzle", "name": "x"}) == (
            "target.type",
            'must be "app", "url" or "builtin", got \'kazzle\'',
        )

    def test_an_unknown_field_is_refused(self) -> None:
        """A typo never silently drops part of a declaration."""
        field, problem = _problem(_app(header={"X": "1"}))
        assert (field, problem.split(";")[0]) == ("target.header", "is not a field of app targets")

    def test_without_a_host_the_host_field_is_named(self) -> None:
        """No `target_host` and no default host is a definition error."""
        assert _problem(_app(), host=None) == (
            "target_host",
            "is required: pass target_host=TargetHost(...) or call toolwire.targets.set_default_host(...) once",
        )

    def test_the_default_host_is_used_when_none_is_given(self) -> None:
        """`set_default_host` is read when the tool is created."""
        set_default_host(HOST)
        tool = create_tool(id="t", description="d", target=_app())
        assert getattr(binding_of(tool), "host", None) is HOST

    def test_a_host_of_the_wrong_type_is_refused(self) -> None:
        """`target_host` must be a TargetHost."""
        assert _problem(_app(), host={"components": {}}) == (  # type: ignore[arg-type]
            "target_host",
            "must be a toolwire.targets.TargetHost, got dict",
        )


class TestMethod:
    def test_the_method_is_required(self) -> None:
        """No implicit default method."""
        field, problem = _problem({"type": "app", "component": "api", "path": "/x"})
        assert (field, problem) == (
            "target.method",
            "is required and must be one of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], got None",
        )

    def test_a_referenced_method_is_refused(self) -> None:
        """`${input.m}` cannot choose the method."""
        assert _problem(_app(method="${input.m}"))[0] == "target.method"

    def test_lower_case_is_refused_with_a_hint(self) -> None:
        """`post` is not `POST`."""
        assert _problem(_app(method="post"))[1].endswith("(methods are upper case: 'POST')")

    def test_a_body_on_get_is_refused(self) -> None:
        """GET carries no body."""
        assert _problem(_app(method="GET", body="${input}")) == ("target.body", "is not allowed on a GET request")


class TestAppPath:
    def test_an_unknown_component_is_refused(self) -> None:
        """The component must be one the host configured."""
        assert _problem(_app(component="web")) == (
            "target.component",
            "'web' is not a component of the host (configured: api, billing)",
        )

    @pytest.mark.parametrize("path", ["x", "https://evil.com/x", "//evil.com/x"])
    def test_the_path_must_be_a_local_absolute_path(self, path: str) -> None:
        """The origin is the host's: a path cannot carry one."""
        field, _ = _problem(_app(path=path))
        assert field == "target.path"

    @pytest.mark.parametrize("path", ["/a/../admin", "/a/./b", "/a//b", "/..", "/a/%2e%2e/b", "/a/%2E/b"])
    def test_dot_segments_and_empty_segments_are_refused(self, path: str) -> None:
        """No traversal written by the author either."""
        assert _problem(_app(path=path)) == ("target.path", "must not contain `.` or `..` segments or `//`")

    def test_a_query_in_the_path_is_refused(self) -> None:
        """Query parameters go in `query`."""
        assert _problem(_app(path="/x?a=1")) == (
            "target.path",
            "must not contain `?` or `#`: put query parameters in `query`",
        )

    def test_a_backslash_in_the_path_is_refused(self) -> None:
        """`\\` is read as `/` by some parsers."""
        assert _problem(_app(path="/a\\b"))[1].startswith("has characters not allowed in a URL path")

    def test_the_whole_input_cannot_be_a_path_segment(self) -> None:
        """`${input}` is an object."""
        assert _problem(_app(path="/items/${input}"))[1].startswith("uses `${input}`, the whole input object")

    def test_a_trailing_slash_is_kept(self) -> None:
        """`/items/` is a legitimate path."""
        assert binding_of(create_tool(id="t", description="d", target=_app(path="/items/"), target_host=HOST))


class TestUrlOrigin:
    @pytest.mark.parametrize(
        "url",
        [
            "https://${input.host}/x",
            "https://api.example.com${input.p}",
            "https://api.example.com:${input.port}/x",
            "${input.scheme}://api.example.com/x",
            "https://${env.KEY}@api.example.com/x",
        ],
    )
    def test_a_reference_in_the_origin_is_refused(self, url: str) -> None:
        """Scheme, host, port and user info are literal author values."""
        field, problem = _problem(_url(url))
        assert field == "target.url"
        assert problem in (
            "must have a literal origin: no reference, `@` (user info) or `\\` before the path",
            "must start with https:// (or http:// for an origin the host allow-listed)",
        )

    @pytest.mark.parametrize(
        "url", ["https://good.com\\@evil.com/x", "https://user:pw@good.com/x", "https://good.com@evil.com"]
    )
    def test_user_info_and_backslashes_are_refused(self, url: str) -> None:
        """`@` and `\\` before the path are how origins get smuggled."""
        assert _problem(_url(url)) == (
            "target.url",
            "must have a literal origin: no reference, `@` (user info) or `\\` before the path",
        )

    @pytest.mark.parametrize(
        "url", ["ftp://files.example.com/x", "file:///etc/passwd", "gopher://x", "data:text/plain,x"]
    )
    def test_non_http_schemes_are_refused(self, url: str) -> None:
        """Targets speak http(s) only."""
        assert _problem(_url(url)) == (
            "target.url",
            "must start with https:// (or http:// for an origin the host allow-listed)",
        )

    def test_plain_http_needs_an_allow_listed_origin(self) -> None:
        """Public targets are https."""
        assert _problem(_url("http://tools.example.com/x")) == (
            "target.url",
            "must be https on port 443 unless the host allow-lists http://tools.example.com",
        )

    def test_another_port_needs_an_allow_listed_origin(self) -> None:
        """Public targets use 443."""
        assert _problem(_url("https://tools.example.com:8443/x"))[1].startswith("must be https on port 443")

    @pytest.mark.parametrize(
        ("url", "reason"),
        [
            ("https://127.0.0.1/x", "a loopback address"),
            ("https://2130706433/x", "a loopback address"),
            ("https://127.1/x", "a loopback address"),
            ("https://0x7f.1/x", "a loopback address"),
            ("https://[::1]/x", "a loopback address"),
            ("https://[::ffff:127.0.0.1]/x", "a loopback address (inside an IPv6 address)"),
            ("https://10.1.2.3/x", "a private address"),
            ("https://169.254.169.254/latest/meta-data", "a cloud metadata address"),
            ("https://0.0.0.0/x", "the unspecified address"),
            ("https://localhost/x", "'localhost' is an internal name"),
            ("https://metadata.google.internal/x", "'metadata.google.internal' is an internal name"),
            ("https://intranet/x", "'intranet' is a single-label name, which resolves through local search domains"),
        ],
    )
    def test_literal_internal_destinations_are_refused(self, url: str, reason: str) -> None:
        """Blocked addresses in any spelling fail when the tool is created."""
        field, problem = _problem(_url(url))
        assert (field, problem.split("; ")[0]) == ("target.url", f"points to {reason}")

    def test_an_allow_listed_internal_origin_is_accepted(self) -> None:
        """The host decides which internal origins are reachable."""
        assert binding_of(create_tool(id="t", description="d", target=_url("http://10.0.0.5:8080/x"), target_host=HOST))

    def test_a_fragment_is_refused(self) -> None:
        """Fragments are never sent."""
        assert _problem(_url("https://tools.example.com/x#part")) == (
            "target.url",
            "must not have a #fragment (fragments are never sent)",
        )

    def test_a_reference_in_the_url_query_is_refused(self) -> None:
        """Templated query values go in `query`, where they are encoded."""
        assert _problem(_url("https://tools.example.com/x?q=${input.q}")) == (
            "target.url",
            "has references in its query; put templated values in `query`",
        )

    def test_unencoded_characters_in_the_literal_query_are_refused(self) -> None:
        """The literal query is sent as written, so it must already be encoded."""
        assert _problem(_url("https://tools.example.com/x?q=a b")) == (
            "target.url",
            "has characters not allowed in a URL query; percent-encode them",
        )

    def test_a_parameter_given_twice_is_refused(self) -> None:
        """Author-literal and `query` parameters may not collide."""
        assert _problem(_url("https://tools.example.com/x?page=1", query={"page": "${input.page}"})) == (
            "target.query.page",
            "is also written in the URL's query; give each parameter once",
        )


class TestHeaders:
    @pytest.mark.parametrize(
        "name",
        [
            "Authorization",
            "authorization",
            " AUTHORIZATION",
            "Proxy-Authorization",
            "Cookie",
            "Host",
            "Content-Length",
            "Transfer-Encoding",
            "Connection",
            "TE",
            "Upgrade",
            "X-Forwarded-For",
            "x-forwarded-host",
            "Forwarded",
            "Via",
            "True-Client-IP",
            "CF-Connecting-IP",
            "X-Client-IP",
            "X-HTTP-Method-Override",
            "X-Method-Override",
            "Toolwire-Tool-Context",
            "Accept-Encoding",
        ],
    )
    def test_platform_owned_headers_are_refused(self, name: str) -> None:
        """Credentials, framing, hop-by-hop, forwarding, client address and method override: the platform's."""
        assert _problem(_app(headers={name: "x"})) == (
            f"target.headers.{name}",
            "is set by the platform and cannot be set by a target",
        )

    def test_a_header_name_outside_the_token_grammar_is_refused(self) -> None:
        """Names are RFC 9110 tokens."""
        assert _problem(_app(headers={"X Bad": "1"})) == (
            "target.headers.X Bad",
            "is not a valid header name (RFC 9110 token characters only)",
        )

    def test_a_header_given_twice_is_refused(self) -> None:
        """Header names are case-insensitive."""
        assert (
            _problem(_app(headers={"X-Tag": "1", "x-tag": "2"}))[1]
            == "is given twice (header names are case-insensitive)"
        )

    def test_a_line_break_in_an_author_value_is_refused(self) -> None:
        """CR/LF in the declaration itself fails early."""
        assert _problem(_app(headers={"X-Tag": "a\r\nX-Evil: 1"})) == ("target.headers.X-Tag", "contains CR, LF or NUL")

    def test_non_text_header_values_are_refused(self) -> None:
        """Header values are templates (text)."""
        assert _problem(_app(headers={"X-Count": 3})) == ("target.headers.X-Count", "must be text, got int")


class TestEnv:
    def test_an_undeclared_env_name_is_refused(self) -> None:
        """`${env.NAME}` must name a variable the host declares."""
        assert _problem(_app(headers={"X-Key": "${env.UNDECLARED}"})) == (
            "target.headers.X-Key",
            "uses `${env.UNDECLARED}`, a variable the host does not declare (declared: ['KEY', 'OTHER'])",
        )

    def test_a_component_may_restrict_its_env_names(self) -> None:
        """A component that lists env names may use only those."""
        assert _problem(_app(component="billing", headers={"X-Key": "${env.OTHER}"})) == (
            "target.headers.X-Key",
            "uses `${env.OTHER}`, which component 'billing' does not declare",
        )

    def test_env_values_are_not_read_at_creation(self) -> None:
        """Secrets are resolved per request, never when the tool is built."""
        reads: list[str] = []
        host = TargetHost(
            components={"api": "https://api.example.com"}, env={"KEY": lambda: reads.append("KEY") or "k"}
        )
        create_tool(id="t", description="d", target=_app(headers={"X-Key": "${env.KEY}"}), target_host=host)
        assert reads == []


class TestBuiltin:
    def test_an_unregistered_builtin_is_refused(self) -> None:
        """The handler must exist on the host."""
        assert _problem({"type": "builtin", "name": "nope"}) == (
            "target.name",
            "'nope' is not a builtin of the host (registered: clock)",
        )


def test_an_octal_loopback_spelling_is_refused() -> None:
    """`0177.0.0.1` (octal 127) is not a host toolwire will send to."""
    field, problem = _problem(_url("https://0177.0.0.1/x"))
    assert (field, problem) == ("target.url", "is not a valid URL (Invalid IPv4 address: '0177.0.0.1')")
