"""Specification of the thread/API context: what the host passes and what a handler reads."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from starlette.requests import Request

from toolwire.targets import TOOL_CONTEXT_HEADER, ToolContextError, ToolInvocation, is_thread_invocation, tool_context
from toolwire.targets._context import invocation_of


def _starlette(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    return Request({"type": "http", "method": "POST", "path": "/", "headers": raw, "query_string": b""})


class TestHandlerSide:
    def test_a_thread_header_reads_as_a_thread(self) -> None:
        """`{"source":"thread","threadId":...}` is a thread invocation."""
        context = tool_context(_starlette({TOOL_CONTEXT_HEADER: '{"source":"thread","threadId":"t-1"}'}))
        assert (context, is_thread_invocation(context)) == (ToolInvocation("thread", "t-1"), True)

    def test_an_api_header_reads_as_the_api(self) -> None:
        """`{"source":"api"}` is the Tools API, where cards are not allowed."""
        context = tool_context(_starlette({TOOL_CONTEXT_HEADER: '{"source":"api"}'}))
        assert (context, is_thread_invocation(context)) == (ToolInvocation("api"), False)

    def test_httpx_requests_and_plain_mappings_work_too(self) -> None:
        """Any object with `headers`, or the headers themselves, case-insensitively."""
        request = httpx2.Request("GET", "https://x.example", headers={"toolwire-tool-context": '{"source":"api"}'})
        assert (tool_context(request), tool_context({"TOOLWIRE-TOOL-CONTEXT": '{"source":"api"}'})) == (
            ToolInvocation("api"),
            ToolInvocation("api"),
        )

    @pytest.mark.parametrize(
        ("headers", "message"),
        [
            ({}, "the request has no Toolwire-Tool-Context header; it did not come from a toolwire target"),
            ({TOOL_CONTEXT_HEADER: "thread"}, "the Toolwire-Tool-Context header is not JSON"),
            ({TOOL_CONTEXT_HEADER: '{"source":"thread"}'}, "the Toolwire-Tool-Context header must be"),
            ({TOOL_CONTEXT_HEADER: '{"source":"thread","threadId":""}'}, "the Toolwire-Tool-Context header must be"),
            ({TOOL_CONTEXT_HEADER: '{"source":"api","extra":1}'}, "the Toolwire-Tool-Context header must be"),
        ],
    )
    def test_a_missing_or_malformed_header_is_an_error(self, headers: dict[str, str], message: str) -> None:
        """Handlers never guess the source."""
        with pytest.raises(ToolContextError) as caught:
            tool_context(_starlette(headers))
        assert str(caught.value).startswith(message)

    def test_an_object_without_headers_is_an_error(self) -> None:
        """The argument must be a request or its headers."""
        with pytest.raises(ToolContextError, match="cannot read headers from int"):
            tool_context(3)


class TestHostSide:
    @pytest.mark.parametrize(
        ("request_context", "invocation"),
        [
            (None, ToolInvocation("api")),
            ({}, ToolInvocation("api")),
            ({"thread_id": "t-9", "user": "u"}, ToolInvocation("thread", "t-9")),
        ],
    )
    def test_the_request_context_says_thread_or_api(self, request_context: Any, invocation: ToolInvocation) -> None:
        """A `thread_id` in the request context means a thread."""
        assert invocation_of(request_context) == invocation

    def test_an_object_request_context_works_too(self) -> None:
        """The thread id may be an attribute."""

        class Context:
            thread_id = "t-3"

        assert invocation_of(Context()) == ToolInvocation("thread", "t-3")

    def test_the_header_value_is_json_that_cannot_break_a_header(self) -> None:
        """Control characters in a thread id are escaped, never sent raw."""
        assert ToolInvocation("thread", "a\r\nX-Evil: 1").header_value() == (
            '{"source":"thread","threadId":"a\\r\\nX-Evil: 1"}'
        )
