"""Specification of how a call's input becomes the request: per-position encoding, fail-closed references."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from toolwire.targets import TargetHost

ECHO_POST = {"type": "app", "component": "api", "path": "/echo", "method": "POST"}


def _echo(**fields: Any) -> dict[str, Any]:
    return {**ECHO_POST, **fields}


class TestBody:
    async def test_whole_input_is_sent_as_json(
        self, make_host: Callable[..., TargetHost], make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`body: "${input}"` sends the typed input as the JSON body."""
        tool = make_tool({**_echo(path="/tools/save-bookmark"), "body": "${input}"}, make_host())
        result = await call(tool, {"url": "https://example.com", "title": "Example"})
        assert (result.output, json.loads(handler.seen[0].body)) == (
            {"type": "text", "value": "Saved Example"},
            {"url": "https://example.com", "title": "Example"},
        )

    async def test_without_a_body_none_is_sent(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """No implicit body: the request carries zero bytes and no content type."""
        await call(make_tool(_echo(), make_host()), {"ignored": True})
        assert (handler.seen[0].body, handler.seen[0].header("content-type")) == (b"", [])

    async def test_whole_value_references_keep_json_types(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """A body value that is exactly `${input.x}` keeps its JSON type."""
        body = {
            "count": "${input.count}",
            "on": "${input.on}",
            "tags": "${input.tags}",
            "meta": "${input.meta}",
            "none": "${input.none}",
        }
        value = {"count": 3, "on": True, "tags": ["a", "b"], "meta": {"k": 1}, "none": None}
        await call(make_tool(_echo(body=body), make_host()), value)
        assert json.loads(handler.seen[0].body) == value

    async def test_quotes_and_markup_cannot_change_the_body_structure(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Substitution is structural: `"`, `\\`, `</script>` and newlines stay inside one string."""
        hostile = 'x", "admin": true, "y": "\\</script>\n'
        await call(
            make_tool(_echo(body={"name": "${input.name}", "note": "hi ${input.name}"}), make_host()), {"name": hostile}
        )
        assert json.loads(handler.seen[0].body) == {"name": hostile, "note": "hi " + hostile}

    async def test_the_body_is_compact_utf8_json(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """The body bytes are UTF-8 JSON with the declared content type."""
        await call(make_tool(_echo(body={"city": "${input.city}"}), make_host()), {"city": "Zürich"})
        assert (handler.seen[0].body, handler.seen[0].header("content-type")) == (
            '{"city":"Zürich"}'.encode(),
            ["application/json"],
        )

    async def test_an_author_content_type_is_kept(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Authors may name a JSON media type of their own."""
        target = _echo(body="${input}", headers={"Content-Type": "application/vnd.api+json"})
        await call(make_tool(target, make_host()), {"a": 1})
        assert handler.seen[0].header("content-type") == ["application/vnd.api+json"]


class TestMissingReferences:
    async def test_an_absent_value_fails_before_any_request(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """No empty substitution: the call fails and nothing is sent."""
        result = await call(make_tool(_echo(body={"b": "${input.a.b}"}), make_host()), {"a": {}})
        assert (result.output, handler.seen) == (
            {
                "type": "error-text",
                "value": "Tool 'probe' failed: TargetReferenceError: "
                "`${input.a.b}` has no value: `input.a` has no key 'b'; no request was sent",
            },
            [],
        )

    async def test_a_declared_but_unset_env_value_fails(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """An env variable declared without a value never becomes an empty header."""
        tool = make_tool(_echo(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": None}))
        result = await call(tool)
        assert (result.output["value"], handler.seen) == (
            "Tool 'probe' failed: TargetReferenceError: `${env.KEY}` is declared but has no value; no request was sent",
            [],
        )

    @pytest.mark.parametrize("where", ["path", "query", "header"])
    async def test_a_present_null_fails_outside_the_body(
        self, where: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Null has no text form for a path, a query or a header."""
        target = {
            "path": _echo(path="/echo/${input.v}"),
            "query": _echo(query={"v": "${input.v}"}),
            "header": _echo(headers={"X-V": "${input.v}"}),
        }[where]
        result = await call(make_tool(target, make_host()), {"v": None})
        assert (result.is_error, "`${input.v}` is null" in result.output["value"], handler.seen) == (True, True, [])


class TestPath:
    @pytest.mark.parametrize(
        ("value", "sent"),
        [
            ("a/b", "/echo/a%2Fb"),
            ("%2e%2e", "/echo/%252e%252e"),
            ("../admin", "/echo/..%2Fadmin"),
            ("//evil.com", "/echo/%2F%2Fevil.com"),
            ("https://evil.com", "/echo/https%3A%2F%2Fevil.com"),
            ("@evil.com", "/echo/%40evil.com"),
            ("\\@evil.com", "/echo/%5C%40evil.com"),
            ("?x=1", "/echo/%3Fx%3D1"),
            ("#frag", "/echo/%23frag"),
            ("%00", "/echo/%2500"),
            ("．．", "/echo/%EF%BC%8E%EF%BC%8E"),
            ("a b", "/echo/a%20b"),
        ],
    )
    async def test_values_are_one_encoded_segment(
        self, value: str, sent: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Every character that could leave the segment is percent-encoded; host and base stay."""
        result = await call(make_tool(_echo(path="/echo/${input.id}"), make_host()), {"id": value})
        assert (result.raw["content"]["path"], handler.seen[0].host) == (sent, "api.test")

    @pytest.mark.parametrize(("value", "shown"), [("..", "'..'"), (".", "'.'"), ("", "empty")])
    async def test_dot_and_empty_segments_are_refused(
        self, value: str, shown: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`.`, `..` and empty segments survive encoding, so they are refused."""
        result = await call(make_tool(_echo(path="/echo/${input.id}/tail"), make_host()), {"id": value})
        assert (result.output["value"], handler.seen) == (
            "Tool 'probe' failed: UnsafeRequestError: "
            f"the path segment built from `${{input.id}}` would be {shown}; nothing was sent",
            [],
        )

    async def test_two_references_cannot_make_a_dot_segment(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """The check runs on the whole rendered segment."""
        result = await call(make_tool(_echo(path="/echo/${input.a}${input.b}"), make_host()), {"a": ".", "b": "."})
        assert (result.is_error, handler.seen) == (True, [])

    async def test_a_component_base_path_is_kept(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """Paths are appended below the component's base path."""
        host = make_host(components={"api": "http://api.test/echo"})
        result = await call(make_tool({**ECHO_POST, "path": "/items/${input.id}"}, host), {"id": 42})
        assert result.raw["content"]["path"] == "/echo/items/42"

    async def test_a_url_target_keeps_its_literal_path_and_query(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`url` targets may template the path; their literal query comes first, then `query`."""
        target = {
            "type": "url",
            "url": "https://tools.example.com/echo/v1/${input.id}?$filter=a%20b",
            "method": "GET",
            "query": {"page": "${input.page}"},
        }
        result = await call(make_tool(target, make_host()), {"id": "x/y", "page": 2})
        assert (result.raw["content"]["path"], result.raw["content"]["query"], handler.seen[0].host) == (
            "/echo/v1/x%2Fy",
            "$filter=a%20b&page=2",
            "tools.example.com",
        )


class TestQuery:
    @pytest.mark.parametrize(
        ("value", "sent"),
        [
            ("a&b=c", "q=a%26b%3Dc"),
            ("=", "q=%3D"),
            ("#", "q=%23"),
            ("\n", "q=%0A"),
            ("é", "q=%C3%A9"),
            ("a+b c", "q=a%2Bb%20c"),
        ],
    )
    async def test_values_are_encoded_as_data(
        self, value: str, sent: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """A value cannot add parameters or end the query."""
        result = await call(make_tool(_echo(method="GET", query={"q": "${input.q}"}), make_host()), {"q": value})
        assert result.raw["content"]["query"] == sent

    async def test_a_list_repeats_the_parameter(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A whole-value reference to a list of scalars sends the key once per item, in order."""
        result = await call(
            make_tool(_echo(method="GET", query={"tag": "${input.tags}"}), make_host()), {"tags": ["a", "b c", 3]}
        )
        assert result.raw["content"]["query"] == "tag=a&tag=b%20c&tag=3"

    async def test_env_text_typed_by_the_model_stays_literal(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Single pass: `${env.KEY}` in the input is sent as text and the secret store is never read."""
        reads: list[str] = []

        def key() -> str:
            reads.append("KEY")
            return "sk-live-123"

        tool = make_tool(_echo(method="GET", query={"q": "${input.q}"}), make_host(env={"KEY": key}))
        result = await call(tool, {"q": "${env.KEY}"})
        assert (result.raw["content"]["query"], reads) == ("q=%24%7Benv.KEY%7D", [])


class TestHeaders:
    @pytest.mark.parametrize(
        ("value", "problem"),
        [
            ("a\r\nX-Evil: 1", "would contain CR, LF or NUL"),
            ("a\nb", "would contain CR, LF or NUL"),
            ("a\x00b", "would contain CR, LF or NUL"),
            ("a\x1bb", "would contain a control character"),
            ("snow ☃", "would contain characters outside Latin-1"),
            ("x" * 8193, "would be longer than 8192 characters"),
        ],
    )
    async def test_unsafe_values_are_refused_before_sending(
        self, value: str, problem: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Header injection is impossible: the call fails and nothing is sent."""
        result = await call(make_tool(_echo(headers={"X-Note": "${input.note}"}), make_host()), {"note": value})
        assert (result.output["value"], handler.seen) == (
            f"Tool 'probe' failed: UnsafeRequestError: header 'X-Note' {problem}; nothing was sent",
            [],
        )

    async def test_author_headers_are_sent(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """Templated header values arrive as rendered."""
        await call(make_tool(_echo(headers={"X-Trace": "t-${input.n}"}), make_host()), {"n": 7})
        assert handler.seen[0].header("x-trace") == ["t-7"]

    async def test_the_platform_sets_identity_and_context_last(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """An `app` target gets exactly one Authorization (the host's) and the tool-context header."""
        await call(make_tool(_echo(), make_host()), {}, {"thread_id": "thread-9"})
        seen = handler.seen[0]
        assert (seen.header("authorization"), seen.header("toolwire-tool-context")) == (
            ["Bearer identity-token-for-alice"],
            ['{"source":"thread","threadId":"thread-9"}'],
        )

    async def test_the_api_source_without_a_thread(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """No `thread_id` in the request context means the Tools API."""
        await call(make_tool(_echo(), make_host()))
        assert handler.seen[0].header("toolwire-tool-context") == ['{"source":"api"}']

    async def test_an_identity_function_gets_the_request_context(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """The token may be minted per user, per component, per tool (sync or async)."""

        async def token(request_context: Any, component: str, tool_id: str) -> str:
            return f"{request_context['user']}.{component}.{tool_id}"

        await call(make_tool(_echo(), make_host(identity_token=token)), {}, {"user": "bob"})
        assert handler.seen[0].header("authorization") == ["Bearer bob.api.probe"]

    async def test_url_targets_get_no_platform_identity(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """The identity token and the thread id never go to external endpoints."""
        target = {"type": "url", "url": "https://tools.example.com/echo", "method": "GET"}
        await call(make_tool(target, make_host()), {}, {"thread_id": "t"})
        assert (handler.seen[0].header("authorization"), handler.seen[0].header("toolwire-tool-context")) == ([], [])

    async def test_an_identity_token_with_a_line_break_is_refused(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """A broken host token never reaches the wire, and is not echoed."""
        result = await call(make_tool(_echo(), make_host(identity_token="a\r\nX-Evil: 1")))
        assert (result.output["value"], handler.seen) == (
            "Tool 'probe' failed: TargetError: the host's identity token is not a valid header value",
            [],
        )


class TestSinglePass:
    async def test_reference_text_nested_in_the_input_is_sent_verbatim(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`$${x}`, `${env.KEY}` and `${input.a}` deep inside the input are data, never references."""
        value = {"a": {"b": "$${x}", "c": ["${env.KEY}", "${input.a}"]}}
        await call(make_tool(_echo(body="${input}"), make_host(env={"KEY": "secret-value"})), value)
        assert json.loads(handler.seen[0].body) == value

    async def test_an_escape_in_a_header_sends_the_literal_text(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`$${input.x}` written by the author is the text `${input.x}`."""
        await call(make_tool(_echo(headers={"X-Template": "$${input.x} = ${input.x}"}), make_host()), {"x": "1"})
        assert handler.seen[0].header("x-template") == ["${input.x} = 1"]
