"""Attacks on the request path: encoded dot segments in redirects, deep answers, odd header values."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from typing import Any
from urllib.parse import unquote

import h11
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import create_tool
from toolwire.exceptions import ToolDefinitionError
from toolwire.results import ToolResult
from toolwire.runtime import execute_tool
from toolwire.targets import TargetHost, TargetRedirectError, TargetResponseError, binding_of
from toolwire.targets._answer import read_value
from toolwire.targets._context import ToolInvocation
from toolwire.targets._egress import _redirected
from toolwire.targets._redact import Redactor
from toolwire.targets._request import PreparedRequest, prepare
from toolwire.targets._spec import HttpSpec

pytestmark = pytest.mark.security

MAX_ANSWER_DEPTH = 100
"""How deep an answer may nest (the documented limit)."""

SCOPED = "http://api.test/scoped"
DOT_SPELLINGS = [".", "%2e", "%2E", "%252e", "%252E", "%25252e", "%u002e", "%U002E", "%c0%ae", "%e0%80%ae", "%ef%bc%8e"]
"""One `.`: plain, percent-encoded in either case, encoded twice or three times, IIS `%u`, overlong UTF-8, fullwidth."""
SUFFIXES = ["", ";", ";jsessionid=1", "%00", "%20", "%09", "%2f", "%5c", "%252f"]
"""What servers strip or split on after a dot segment (path parameters, NUL, blanks, encoded slashes)."""
FORMS = [
    "/scoped/{dots}/admin",
    "{dots}/admin",
    "http://api.test/scoped/{dots}/admin",
    "/scoped/x/{dots}/{dots}/admin",
    "/scoped/{dots}",
]
"""Absolute path, relative reference, absolute URL, two levels up, a final segment."""


def _scoped_request(path: str = "/redirect") -> PreparedRequest:
    host = TargetHost(components={"api": SCOPED})
    tool = create_tool(
        id="p",
        description="d",
        target={"type": "app", "component": "api", "path": path, "method": "GET"},
        target_host=host,
    )
    binding = binding_of(tool)
    assert binding is not None
    assert isinstance(binding.spec, HttpSpec)
    spec = binding.spec

    async def build() -> PreparedRequest:
        return await prepare(
            spec,
            {},
            host=host,
            redactor=Redactor(),
            tool_id="p",
            request_context=None,
            invocation=ToolInvocation("api"),
        )

    return asyncio.run(build())


REQUEST = _scoped_request()


def _segments_as_servers_read(target: str) -> list[str]:
    """The dot segments of a path once fully percent-decoded and normalized (an independent reading)."""
    text = target.split("?", 1)[0]
    for _ in range(5):
        text = unquote(text)
    pieces = re.split(r"[/\\]", unicodedata.normalize("NFKC", text))
    return [p for p in pieces if p.split(";", 1)[0].strip() in (".", "..")]


def _dot_segment(spellings: list[str], suffix: str) -> str:
    return "".join(spellings) + suffix


class TestEncodedDotSegmentsInRedirects:
    @pytest.mark.parametrize(
        "segment", ["%2e%2e", "%2E%2e", ".%2e", "%2e.", "%252e%252e", "%u002e%u002e", "..;", "%2e%2e%2fadmin"]
    )
    async def test_a_redirect_through_an_encoded_dot_segment_is_refused(
        self, segment: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`/scoped/%2e%2e/admin` is `/admin` to the server: refused before it is sent, credentials and all."""
        target = {
            "type": "app",
            "component": "api",
            "path": "/redirect",
            "method": "GET",
            "query": {"status": "302", "to": f"/scoped/{segment}/admin"},
        }
        result = await call(make_tool(target, make_host(components={"api": SCOPED})))
        assert (result.output["value"], len(handler.seen)) == (
            "Tool 'probe' failed: TargetRedirectError: the handler redirected (302) to a path with a `.` or `..` "
            "segment (perhaps encoded); targets do not follow it",
            1,
        )

    @settings(max_examples=300, deadline=None)
    @given(
        dots=st.lists(st.sampled_from(DOT_SPELLINGS), min_size=1, max_size=2),
        suffix=st.sampled_from(SUFFIXES),
        form=st.sampled_from(FORMS),
        status=st.sampled_from([301, 302, 303, 307, 308]),
    )
    def test_no_spelling_of_a_dot_segment_is_followed(
        self, dots: list[str], suffix: str, form: str, status: int
    ) -> None:
        """Every mix of encodings of `.` and `..`, with what servers strip after them, in every form of Location.

        Plain `.` and `..` are resolved when the Location is joined; the base path check then applies.
        """
        location = form.format(dots=_dot_segment(dots, suffix))
        try:
            followed = _redirected(REQUEST, status, location)
        except TargetRedirectError:
            return
        assert (set(dots), followed.target.startswith("/scoped/"), _segments_as_servers_read(followed.target)) == (
            {"."},
            True,
            [],
        )

    @pytest.mark.parametrize(
        "location", ["/scoped/v1.2/x", "/scoped/..hidden", "/scoped/%2e%2ehidden", "/scoped/a.b/c", "/scoped/%2e%2e.x"]
    )
    def test_dots_inside_a_name_are_still_followed(self, location: str) -> None:
        """Only whole dot segments are refused; a name containing dots is an ordinary path."""
        assert _redirected(REQUEST, 302, location).target == location


def _nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


class TestDeepAnswers:
    @pytest.mark.parametrize(
        ("answer", "status"),
        [
            ("[" * 5000 + "]" * 5000, 200),
            ('{"content": ' + "[" * 5000 + "]" * 5000 + "}", 200),
            ('{"a":' * 5000 + "1" + "}" * 5000, 200),
        ],
        ids=["array", "inside content", "object"],
    )
    async def test_an_answer_nested_thousands_deep_is_a_clear_target_error(
        self, answer: str, status: int, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Not a RecursionError: the answer contract names the limit."""
        tool = make_tool(
            {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}, make_host()
        )
        result = await call(tool, {"answer": answer, "media": "application/json", "status": status})
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetResponseError: the handler's answer is nested deeper than "
            f"{MAX_ANSWER_DEPTH} levels"
        )

    async def test_an_error_body_nested_thousands_deep_is_reported_as_its_text(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """A failing handler's deep JSON body is shown as (truncated) text, not as a RecursionError."""
        tool = make_tool(
            {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}, make_host()
        )
        body = "[" * 5000 + "]" * 5000
        result = await call(tool, {"answer": body, "media": "application/json", "status": 500})
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetHTTPError: the handler answered HTTP 500: " + "[" * 499 + "…"
        )

    async def test_a_builtin_returning_a_deep_value_is_a_clear_target_error(self, make_tool: Any, call: Any) -> None:
        """A host handler's Python value obeys the same limit."""
        host = TargetHost(builtins={"deep": lambda value: {"content": _nested(5000)}})
        result = await call(make_tool({"type": "builtin", "name": "deep"}, host))
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetResponseError: builtin 'deep''s answer is nested deeper than "
            f"{MAX_ANSWER_DEPTH} levels"
        )

    @pytest.mark.parametrize(
        ("answer", "problem"),
        [
            ('{"content": {"x": NaN}}', "NaN is not a JSON number"),
            ('{"content": [-Infinity]}', "-Infinity is not a JSON number"),
            ('{"content": 1e400}', "a number too large for a float"),
        ],
        ids=["NaN", "-Infinity", "overflowing number"],
    )
    async def test_an_answer_with_a_number_json_cannot_carry_is_a_clear_target_error(
        self, answer: str, problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Python's parser reads these as floats that no provider request or UI stream can encode."""
        tool = make_tool(
            {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}, make_host()
        )
        result = await call(tool, {"answer": answer, "media": "application/json"})
        assert result.output["value"] == (
            f"Tool 'probe' failed: TargetResponseError: the handler's JSON answer is not valid JSON ({problem})"
        )

    async def test_a_builtin_returning_nan_is_a_clear_target_error(self, make_tool: Any, call: Any) -> None:
        """A host handler's computed float obeys the same rule."""
        host = TargetHost(builtins={"ratio": lambda value: {"content": {"ratio": float("nan")}}})
        result = await call(make_tool({"type": "builtin", "name": "ratio"}, host))
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetResponseError: builtin 'ratio''s answer holds nan, which JSON cannot carry"
        )

    @settings(max_examples=60, deadline=None)
    @given(depth=st.integers(min_value=0, max_value=3 * MAX_ANSWER_DEPTH))
    def test_the_depth_limit_is_exact_and_never_a_recursion_error(self, depth: int) -> None:
        """Up to the limit an answer is read; one level more is refused with the answer contract's error."""
        host = TargetHost()
        value = {"content": _nested(depth - 1)} if depth else "text"
        if depth <= MAX_ANSWER_DEPTH:
            assert read_value(value, host, Redactor()) is not None
        else:
            with pytest.raises(TargetResponseError, match="nested deeper than"):
                read_value(value, host, Redactor())


def _sent_header(value: str) -> bytes | str:
    """The `X-Value` bytes the HTTP client was given for this input, or the error text of the refused call."""
    sent: list[bytes] = []

    def capture(request: httpx2.Request) -> httpx2.Response:
        sent.extend(v for k, v in request.headers.raw if k.lower() == b"x-value")
        return httpx2.Response(200, text="ok")

    host = TargetHost(components={"api": "https://api.example.com"}, transport=httpx2.MockTransport(capture))
    tool = create_tool(
        id="h",
        description="d",
        input_schema={"type": "object"},
        target={"type": "app", "component": "api", "path": "/x", "method": "GET", "headers": {"X-Value": "${input.v}"}},
        target_host=host,
    )
    outcome = asyncio.run(execute_tool(tool, {"toolCallId": "c", "toolName": "h", "input": {"v": value}}))
    assert isinstance(outcome, ToolResult)
    return sent[0] if sent else str(outcome.output["value"])


class TestHeaderValues:
    async def test_a_latin1_header_value_is_sent_as_latin1(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """`café` is a valid (obs-text) header value; it goes out as Latin-1 bytes, not as a client crash."""
        target = {
            "type": "app",
            "component": "api",
            "path": "/echo",
            "method": "GET",
            "headers": {"X-Name": "${input.v}"},
        }
        result = await call(make_tool(target, make_host()), {"v": "Zoë café"})
        assert (result.is_error, handler.seen[0].header("x-name")) == (False, ["Zoë café"])

    @pytest.mark.parametrize(
        ("value", "problem"),
        [
            ("日本", "would contain characters outside Latin-1"),
            ("a\x85b", "would contain a control character"),
            ("a\x9bb", "would contain a control character"),
            (" padded", "would start or end with a blank"),
            ("padded\t", "would start or end with a blank"),
        ],
    )
    async def test_a_header_value_no_client_can_send_is_a_clear_error(
        self, value: str, problem: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Refused before sending, with the header named, never an error from inside the HTTP client."""
        target = {
            "type": "app",
            "component": "api",
            "path": "/echo",
            "method": "GET",
            "headers": {"X-Name": "${input.v}"},
        }
        result = await call(make_tool(target, make_host()), {"v": value})
        assert (result.output["value"], handler.seen) == (
            f"Tool 'probe' failed: UnsafeRequestError: header 'X-Name' {problem}; nothing was sent",
            [],
        )

    def test_a_literal_header_value_outside_latin1_fails_at_creation(self) -> None:
        """The author's own text is checked when the tool is created."""
        host = TargetHost(components={"api": "https://api.example.com"})
        with pytest.raises(ToolDefinitionError, match=r"headers\.X-Name"):
            create_tool(
                id="h",
                description="d",
                target={
                    "type": "app",
                    "component": "api",
                    "path": "/x",
                    "method": "GET",
                    "headers": {"X-Name": "日本"},
                },
                target_host=host,
            )

    @settings(max_examples=300, deadline=None)
    @given(
        value=st.text(
            st.one_of(st.sampled_from(" \t\x7f\x85\x9b\xa0éü日\u2028"), st.characters(codec="utf-8")), max_size=12
        )
    )
    def test_any_header_value_is_refused_or_sent_unchanged(self, value: str) -> None:
        """Any input is refused before sending (the header named) or sent as Latin-1 bytes HTTP/1.1 keeps as is."""
        sent = _sent_header(value)
        if isinstance(sent, str):
            assert sent.startswith("Tool 'h' failed: UnsafeRequestError: header 'X-Value' would ")
            return
        parsed = h11.Request(method="GET", target="/", headers=[("Host", "api.example.com"), ("X-Value", sent)])
        assert (sent.decode("latin-1"), parsed.headers[1][1]) == (value, sent)


class TestTextThatIsNotUnicode:
    """A model can send `"\\ud800"` in JSON; Python decodes it to a lone surrogate, which UTF-8 cannot encode."""

    @pytest.mark.parametrize(
        ("target", "where"),
        [
            ({"path": "/reflect/${input.x}", "body": "${input}"}, "a URL value"),
            ({"path": "/reflect", "query": {"q": "${input.x}"}, "body": "${input}"}, "a URL value"),
            ({"path": "/reflect", "body": "${input}"}, "the body"),
            ({"path": "/reflect", "body": {"note": "${input.x}"}}, "the body"),
        ],
        ids=["path segment", "query value", "whole input body", "body field"],
    )
    async def test_a_lone_surrogate_is_a_clear_refusal_before_sending(
        self, target: dict[str, Any], where: str, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Not a UnicodeEncodeError from inside the client: the request is refused, naming where."""
        tool = make_tool({"type": "app", "component": "api", "method": "POST", **target}, make_host())
        result = await call(tool, {"answer": "ok", "x": "a\ud800b"})
        assert (result.output["value"], handler.seen) == (
            f"Tool 'probe' failed: UnsafeRequestError: {where} holds a lone surrogate "
            "(text that is not valid Unicode, so not UTF-8); nothing was sent",
            [],
        )
