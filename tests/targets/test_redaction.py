"""Specification of secret handling: env values never reach logs, errors, traces, the model or the display."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolwire.runtime import Observe, Suspension, Toolbox, ToolContext, execute_tool
from toolwire.targets import REDACTED
from toolwire.targets._redact import Redactor

SECRET = "sk-live-9f8e7d6c5b4a"
THREAD = {"thread_id": "thread-1"}


def _reflect(**fields: Any) -> dict[str, Any]:
    return {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}", **fields}


class TestRedactor:
    def test_encoded_spellings_are_redacted_too(self) -> None:
        """Raw, percent-encoded and JSON-escaped forms of a secret are all removed."""
        redactor = Redactor(['a b/"c'])
        assert (
            redactor.text('x a b/"c a%20b%2F%22c a+b%2F%22c a b/\\"c')
            == f"x {REDACTED} {REDACTED} {REDACTED} {REDACTED}"
        )

    def test_user_visible_secrets_stay_in_the_display(self) -> None:
        """The identity token is hidden from the model but may stay in what the user's UI shows."""
        redactor = Redactor(["env-secret"])
        redactor.add("id-token", user_visible=True)
        assert (redactor.text("env-secret id-token"), redactor.text("env-secret id-token", display=True)) == (
            f"{REDACTED} {REDACTED}",
            f"{REDACTED} id-token",
        )


class TestCall:
    async def test_an_echoed_secret_never_reaches_the_model(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A handler that repeats an env value back has it redacted from the content."""
        tool = make_tool(_reflect(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        result = await call(tool, {"answer": {"content": f"used {SECRET}", "markdown": f"key `{SECRET}`"}})
        assert (result.output, result.raw) == (
            {"type": "text", "value": f"used {REDACTED}"},
            {"content": f"used {REDACTED}", "markdown": f"key `{REDACTED}`"},
        )

    async def test_the_secret_is_sent_where_the_author_put_it(
        self, make_host: Any, make_tool: Any, call: Any, handler: Any
    ) -> None:
        """Redaction is for what comes back; the request carries the real value."""
        tool = make_tool(_reflect(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        await call(tool, {"answer": "ok"})
        assert handler.seen[0].header("x-key") == [SECRET]

    async def test_secrets_in_error_bodies_are_redacted(self, make_host: Any, make_tool: Any, call: Any) -> None:
        """A failing handler quoting the secret does not leak it through the error."""
        tool = make_tool(_reflect(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        result = await call(tool, {"answer": {"code": "bad_key", "error": f"key {SECRET} revoked"}, "status": 401})
        assert (
            result.output["value"]
            == f"Tool 'probe' failed: TargetHTTPError: the handler answered HTTP 401 (bad_key): key {REDACTED} revoked"
        )

    async def test_secrets_in_the_url_stay_out_of_logs_and_traces(
        self, make_host: Any, make_tool: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The request URL is logged and traced with the secret (in any encoding) replaced."""
        secret = "k/ey with space"
        target = {
            "type": "app",
            "component": "api",
            "path": "/echo/${env.KEY}",
            "method": "GET",
            "query": {"k": "${env.KEY}"},
        }
        tool = make_tool(target, make_host(env={"KEY": secret}))
        caplog.set_level(logging.DEBUG)
        outcome = await execute_tool(tool, {"toolCallId": "c", "toolName": tool.id, "input": {}})
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert (
            outcome.is_error,
            "k%2Fey%20with%20space" in logged,
            f"GET http://api.test/echo/{REDACTED}?k={REDACTED}" in logged,
        ) == (
            False,
            False,
            True,
        )

    async def test_the_trace_span_carries_the_redacted_url(self, make_host: Any, make_tool: Any) -> None:
        """What `observe` records for the request has no secret."""
        target = {"type": "app", "component": "api", "path": "/echo", "method": "GET", "query": {"k": "${env.KEY}"}}
        tool = make_tool(target, make_host(env={"KEY": SECRET}))
        context = ToolContext(tool_call_id="c", tool_name=tool.id)
        await tool.execute({}, context)
        observe = context.observe
        assert isinstance(observe, Observe)
        assert observe.records[0] == {
            "kind": "span",
            "name": "toolwire.target",
            "attributes": {
                "tool": "probe",
                "method": "GET",
                "url": f"http://api.test/echo?k={REDACTED}",
                "kind": "app",
            },
        }

    async def test_the_identity_token_is_hidden_from_the_model_but_kept_for_the_embed(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """The seed builds `embedUrl` with the identity; the user's UI keeps it, the model never sees it."""
        host = make_host(allowed_origins=["https://app.example.com"], identity_token="id-3x4mpl3-t0k3n")
        embed = "https://app.example.com/connect?token=id-3x4mpl3-t0k3n"
        result = await call(
            make_tool(_reflect(), host), {"answer": {"content": "token id-3x4mpl3-t0k3n", "embedUrl": embed}}
        )
        assert (result.output, result.raw["embedUrl"]) == ({"type": "text", "value": f"token {REDACTED}"}, embed)

    async def test_cards_never_carry_secrets(self, make_host: Any, make_tool: Any) -> None:
        """A card quoting a secret is stored and displayed redacted."""
        card = {
            "type": "action_required",
            "title": f"Rotate {SECRET}",
            "description": "Rotate the key.",
            "elements": [{"type": "button", "id": "ok", "label": "OK", "input": {"key": SECRET}}],
        }
        tool = make_tool(_reflect(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        toolbox = Toolbox([tool], request_context=THREAD)
        (outcome,) = await toolbox.run([{"toolCallId": "c", "toolName": tool.id, "input": {"answer": card}}])
        assert isinstance(outcome, Suspension)
        stored_and_shown = repr((outcome.payload, outcome.display_payload))
        assert (SECRET in stored_and_shown, outcome.payload["title"]) == (False, f"Rotate {REDACTED}")

    async def test_an_env_function_that_fails_does_not_leak_its_message(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """The failure names the variable and the exception type only."""

        def broken() -> str:
            raise RuntimeError(f"vault said {SECRET}")

        tool = make_tool(_reflect(headers={"X-Key": "${env.KEY}"}), make_host(env={"KEY": broken}))
        result = await call(tool, {"answer": "ok"})
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetReferenceError: "
            "`${env.KEY}` could not be read (RuntimeError); no request was sent"
        )
