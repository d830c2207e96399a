"""Specification of how a handler's answer becomes a result: content for the model, the rest for the display."""

from __future__ import annotations

import asyncio
import tracemalloc
from typing import Any

import pytest

from toolwire.events import ToolOutputAvailable
from toolwire.runtime import AbortSignal, Toolbox, execute_tool
from toolwire.targets import TargetHTTPError, TargetLimits

REFLECT = {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}"}


def _get(path: str) -> dict[str, Any]:
    return {"type": "app", "component": "api", "path": path, "method": "GET"}


async def _displayed(tool: Any, value: Any) -> tuple[Any, Any]:
    """(what the model reads, what the display stream shows) for one call."""
    events: list[Any] = []
    toolbox = Toolbox([tool], on_event=events.append)
    (result,) = await toolbox.run([{"toolCallId": "call-1", "toolName": tool.id, "input": value}])
    shown = [e.output for e in events if isinstance(e, ToolOutputAvailable)]
    return result.output, shown[0] if shown else None


class TestSuccess:
    async def test_plain_text_is_what_the_model_reads(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A text/plain answer is the content."""
        result = await call(make_tool(_get("/text"), make_host()))
        assert (result.output, result.raw) == ({"type": "text", "value": "plain words"}, {"content": "plain words"})

    async def test_the_charset_is_honoured(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Text is decoded with the declared charset."""
        result = await call(make_tool(_get("/latin1"), make_host()))
        assert result.output == {"type": "text", "value": "café"}

    async def test_the_seed_bookmark_answer(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """`{"content": "Saved ..."}` is read as text."""
        target = {**REFLECT, "path": "/tools/save-bookmark"}
        result = await call(make_tool(target, make_host()), {"url": "https://example.com", "title": "Example"})
        assert result.output == {"type": "text", "value": "Saved Example"}

    async def test_structured_content_is_json_for_the_model(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Non-text content reaches the model as JSON."""
        result = await call(make_tool(REFLECT, make_host()), {"answer": {"content": {"count": 2, "ids": [1, 2]}}})
        assert result.output == {"type": "json", "value": {"count": 2, "ids": [1, 2]}}

    async def test_markdown_goes_to_the_display_only(self, make_host: Any, make_tool: Any) -> None:
        """The model reads `content`; the display stream gets `content` and `markdown`."""
        answer = {"content": "Saved 3 links", "markdown": "**Saved** [3 links](https://app.example.com/l)"}
        model, display = await _displayed(make_tool(REFLECT, make_host()), {"answer": answer})
        assert (model, display) == ({"type": "text", "value": "Saved 3 links"}, answer)

    async def test_embed_url_goes_to_the_display_and_wins_over_markdown(self, make_host: Any, make_tool: Any) -> None:
        """With both, the display shows the embed; the model still reads only `content`."""
        host = make_host(allowed_origins=["https://app.example.com"])
        answer = {"content": "Chart ready", "markdown": "ignored", "embedUrl": "https://app.example.com/chart/7"}
        model, display = await _displayed(make_tool(REFLECT, host), {"answer": answer})
        assert (model, display) == (
            {"type": "text", "value": "Chart ready"},
            {"content": "Chart ready", "embedUrl": "https://app.example.com/chart/7"},
        )

    async def test_an_https_component_origin_may_be_embedded(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """The app's own https components are embed origins without listing them."""
        host = make_host(components={"api": "http://api.test", "web": "https://web.example.com/app"})
        result = await call(
            make_tool(REFLECT, host), {"answer": {"content": "ok", "embedUrl": "https://web.example.com/x"}}
        )
        assert result.raw == {"content": "ok", "embedUrl": "https://web.example.com/x"}


class TestEmbedUrl:
    @pytest.mark.parametrize(
        ("url", "problem"),
        [
            ("/connect", "must be an absolute http:// or https:// URL"),
            ("http://app.example.com/x", "must be an absolute https:// URL"),
            ("javascript:alert(1)", "must be an absolute http:// or https:// URL"),
            ("data:text/html,<script>x</script>", "must be an absolute http:// or https:// URL"),
            ("https://user:pw@app.example.com/x", "must not carry user:password@ credentials"),
            ("https://evil.example/x", "points to https://evil.example, an origin the host does not allow for embeds"),
            ("https://app.example.com\\@evil.example/", "contains a backslash, whitespace or a control character"),
            (42, "must be a URL of at most 2048 characters"),
        ],
    )
    async def test_unsafe_embeds_are_refused(
        self, url: Any, problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """`embedUrl` is absolute https on an allowed origin, without credentials."""
        host = make_host(allowed_origins=["https://app.example.com"])
        result = await call(make_tool(REFLECT, host), {"answer": {"content": "x", "embedUrl": url}})
        assert result.output["value"] == f"Tool 'probe' failed: TargetResponseError: the handler's `embedUrl` {problem}"

    async def test_the_embed_is_never_fetched(self, make_host: Any, make_tool: Any, call: Any, handler: Any) -> None:
        """Only the handler is called; the embed URL is passed along untouched."""
        host = make_host(allowed_origins=["https://app.example.com"])
        await call(make_tool(REFLECT, host), {"answer": {"content": "x", "embedUrl": "https://app.example.com/e"}})
        assert [s.path for s in handler.seen] == ["/reflect"]


class TestContract:
    @pytest.mark.parametrize(
        ("answer", "problem"),
        [
            ({"markdown": "only"}, "the handler's answer has no `content`, the part the model reads"),
            ({"content": None}, "the handler's answer has no `content`, the part the model reads"),
            (
                {"content": "x", "html": "<b>"},
                "the handler's answer has unknown keys ['html']; an answer has ['content', 'embedUrl', 'markdown']",
            ),
            ({"type": "card", "content": "x"}, "the handler answered an unknown answer type 'card'"),
            ({"content": "x", "markdown": 5}, "the handler's `markdown` must be text of at most 20000 characters"),
            ([1, 2], 'the handler answered an array; answer text, {"content": ...} or an action_required card'),
            ("", "the handler answered empty text"),
        ],
    )
    async def test_answers_outside_the_contract_fail(
        self, answer: Any, problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Malformed answers become errors that say what is wrong."""
        result = await call(make_tool(REFLECT, make_host()), {"answer": answer})
        assert result.output["value"] == f"Tool 'probe' failed: TargetResponseError: {problem}"

    @pytest.mark.parametrize(
        ("path", "problem"),
        [
            ("/png", "the handler answered binary content (image/png); answer text or JSON"),
            ("/nul", "the handler's answer contains NUL bytes; binary answers are refused"),
            ("/bad-json", "the handler's JSON answer is not valid JSON (Expecting value: line 1 column 13 (char 12))"),
            ("/empty", "the handler answered 200 with no content; answer text or JSON with `content`"),
            ("/brotli", "the handler's answer uses content-encoding 'br', which targets do not decode"),
        ],
    )
    async def test_unreadable_answers_fail(
        self, path: str, problem: str, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """Binary, broken JSON, empty and undecodable answers are refused with a reason."""
        result = await call(make_tool(_get(path), make_host()))
        assert result.output["value"] == f"Tool 'probe' failed: TargetResponseError: {problem}"


class TestErrors:
    async def test_the_seed_domain_error_keeps_code_and_message(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """A 409 with `{code, error}` is an error result quoting both; the exception keeps them."""
        target = {"type": "app", "component": "api", "path": "/tools/gmail-search", "method": "POST"}
        result = await call(make_tool(target, make_host()))
        error = result.error
        assert (result.output, type(error), error.status, error.code, error.error) == (
            {
                "type": "error-text",
                "value": "Tool 'probe' failed: TargetHTTPError: the handler answered HTTP 409 (connect_required): "
                "Gmail must be connected before this tool can run.",
            },
            TargetHTTPError,
            409,
            "connect_required",
            "Gmail must be connected before this tool can run.",
        )

    async def test_a_text_error_body_is_quoted(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Without JSON, the (truncated, redacted) text is the message."""
        result = await call(make_tool({**_get("/status/503"), "query": {"kind": "text"}}, make_host()))
        assert (
            result.output["value"]
            == "Tool 'probe' failed: TargetHTTPError: the handler answered HTTP 503: upstream exploded"
        )

    async def test_a_long_error_body_is_truncated(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """The model gets at most 500 characters of an error body."""
        result = await call(
            make_tool(REFLECT, make_host()), {"answer": "e" * 2000, "status": 500, "media": "text/plain"}
        )
        assert (
            result.output["value"]
            == "Tool 'probe' failed: TargetHTTPError: the handler answered HTTP 500: " + "e" * 499 + "…"
        )


class TestLimits:
    async def test_an_answer_over_the_cap_is_refused(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """The body is read up to `max_response_bytes`, then the call fails."""
        result = await call(make_tool(_get("/big"), make_host()))
        assert (
            result.output["value"]
            == "Tool 'probe' failed: TargetResponseError: the handler's answer is larger than 1048576 bytes"
        )

    async def test_a_gzip_bomb_is_capped_while_decompressing(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """24 MiB of zeros in 24 KiB of gzip fails at the cap without inflating it all."""
        tracemalloc.start()
        try:
            result = await call(make_tool(_get("/bomb"), make_host()))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert (result.output["value"], peak < 8 * 1024 * 1024) == (
            "Tool 'probe' failed: TargetResponseError: the handler's answer is larger than 1048576 bytes",
            True,
        )

    async def test_a_handler_that_never_answers_times_out(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """The total deadline covers a handler that hangs."""
        host = make_host(limits=TargetLimits(total_timeout=0.05))
        result = await call(make_tool(_get("/never"), host))
        assert (
            result.output["value"]
            == "Tool 'probe' failed: TargetTimeout: the request to http://api.test took longer than 0.05 seconds"
        )


EXTERNAL = {"type": "url", "url": "https://tools.example.com/reflect", "method": "POST", "body": "${input}"}


class TestExternalEndpoints:
    """`url` targets call endpoints outside the app, which need not follow the handler contract."""

    async def test_other_json_is_the_content(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """An API's own JSON reaches the model as JSON."""
        result = await call(make_tool(EXTERNAL, make_host()), {"answer": {"id": 7, "status": "created"}})
        assert result.output == {"type": "json", "value": {"id": 7, "status": "created"}}

    async def test_a_contract_answer_is_still_read_as_one(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """An endpoint that speaks the contract gets its markdown shown, not read."""
        result = await call(make_tool(EXTERNAL, make_host()), {"answer": {"content": "ok", "markdown": "**ok**"}})
        assert (result.output, result.raw) == ({"type": "text", "value": "ok"}, {"content": "ok", "markdown": "**ok**"})

    async def test_an_empty_success_says_so(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A 2xx with no body (a typical DELETE) is a success the model can read."""
        target = {"type": "url", "url": "https://tools.example.com/empty", "method": "GET"}
        result = await call(make_tool(target, make_host()))
        assert result.output == {"type": "text", "value": "(empty answer, HTTP 200)"}

    async def test_an_external_card_is_refused(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A third party cannot put buttons in front of the user (they could run the app's own targets)."""
        card = {"type": "action_required", "title": "Click", "description": "Please", "elements": []}
        result = await call(make_tool(EXTERNAL, make_host()), {"answer": card}, {"thread_id": "t"})
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetResponseError: an external endpoint answered action_required; "
            "only the app's own handlers (app or builtin targets) may"
        )

    async def test_an_error_without_code_quotes_the_body(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """Foreign error shapes are quoted (truncated, redacted) so the model can act on them."""
        result = await call(
            make_tool(EXTERNAL, make_host()), {"answer": {"error": {"message": "bad id"}}, "status": 400}
        )
        assert result.output["value"] == (
            'Tool \'probe\' failed: TargetHTTPError: the handler answered HTTP 400: {"error":{"message":"bad id"}}'
        )


async def test_an_abort_stops_a_pending_request(make_host: Any, make_tool: Any, handler: Any) -> None:
    """The host's abort signal cancels the request in flight."""
    signal = AbortSignal()
    tool = make_tool(_get("/never"), make_host())
    task = asyncio.ensure_future(
        execute_tool(tool, {"toolCallId": "c", "toolName": tool.id, "input": {}}, abort=signal)
    )
    while not handler.seen:
        await asyncio.sleep(0)
    signal.abort("user left")
    result = await task
    assert result.output == {"type": "error-text", "value": "Tool 'probe' was aborted (user left)."}
