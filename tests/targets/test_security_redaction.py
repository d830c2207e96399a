"""Attacks on secret redaction: a handler that sends an env secret back in another spelling.

A handler (or a library between it and toolwire) can echo a secret percent-encoded in either
hex case, with `/` left as is, form-encoded, upper-cased, in base64 (standard or URL-safe,
with or without padding, inside a Basic `user:secret` credential), in hex, or as JSON, Python
(`\\U`, octal) and HTML escapes. None of those spellings may reach the model, the display, an
error or a log line.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolwire.runtime import execute_tool
from toolwire.targets import REDACTED
from toolwire.targets._redact import Redactor

pytestmark = pytest.mark.security

SECRET = "sk-live/9f8e+7d6c 5b4a~ü€"
"""An env secret with the characters encoders treat differently: `/`, `+`, space, `~`, non-ASCII."""


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), text)


def _b64(data: bytes, *, urlsafe: bool = False, padded: bool = True) -> str:
    text = (base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)).decode("ascii")
    return text if padded else text.rstrip("=")


BASE64_SPELLINGS = frozenset(
    {
        "base64",
        "base64 without padding",
        "urlsafe base64",
        "urlsafe base64 without padding",
        "Basic credential user:secret",
        "base64 after two bytes",
        "base64, percent-encoded",
    }
)
"""Spellings whose first and last characters also encode neighbouring bytes: only the secret's own characters go."""
SPELLINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "upper-case": str.upper,
    "lower-case": str.lower,
    "swapped case": str.swapcase,
    "percent-encoded": lambda s: quote(s, safe=""),
    "percent-encoded, lower-case hex": lambda s: _lower_hex(quote(s, safe="")),
    "quote(safe='/')": lambda s: quote(s, safe="/"),
    "quote(safe='/'), lower-case hex": lambda s: _lower_hex(quote(s)),
    "every byte percent-encoded": lambda s: "".join(f"%{b:02x}" for b in s.encode()),
    "quote_plus": lambda s: quote_plus(s, safe=""),
    "quote_plus(safe='/')": lambda s: quote_plus(s, safe="/"),
    "percent-encoded twice": lambda s: quote(quote(s, safe=""), safe=""),
    "percent-encoded, upper-case text": lambda s: quote(s.upper(), safe=""),
    "base64": lambda s: _b64(s.encode()),
    "base64 without padding": lambda s: _b64(s.encode(), padded=False),
    "urlsafe base64": lambda s: _b64(s.encode(), urlsafe=True),
    "urlsafe base64 without padding": lambda s: _b64(s.encode(), urlsafe=True, padded=False),
    "Basic credential user:secret": lambda s: "Basic " + _b64(b"user:" + s.encode()),
    "base64 after two bytes": lambda s: _b64(b"ab" + s.encode()),
    "base64, percent-encoded": lambda s: quote(_b64(s.encode()), safe=""),
    "hex": lambda s: s.encode().hex(),
    "upper-case hex": lambda s: s.encode().hex().upper(),
    "JSON escapes (ensure_ascii)": lambda s: json.dumps(s)[1:-1],
    "JSON escapes of every character": lambda s: "".join(
        json.dumps(c)[1:-1] if ord(c) > 0xFFFF else f"\\u{ord(c):04x}" for c in s
    ),
    "HTML escaped": html.escape,
    "HTML decimal references": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "HTML hex references": lambda s: "".join(f"&#x{ord(c):X};" for c in s),
    "Python bytes repr": lambda s: repr(s.encode())[2:-1],
    "Python \\U escapes of every character": lambda s: "".join(f"\\U{ord(c):08x}" for c in s),
    "octal escapes of every byte (C, Python)": lambda s: "".join(f"\\{b:03o}" for b in s.encode()),
    "octal escapes without leading zeros": lambda s: "".join(f"\\{b:o}" for b in s.encode()),
    "octal escapes above 377, read modulo 256 (PHP, Python bytes)": lambda s: "".join(
        f"\\{b + 256:o}" for b in s.encode()
    ),
}


def _reflect(**fields: Any) -> dict[str, Any]:
    return {"type": "app", "component": "api", "path": "/reflect", "method": "POST", "body": "${input}", **fields}


_READ_AS_ONE_ESCAPE = re.compile(r"\\(?:[0-3][0-7]{0,2}|[4-7][0-7]?)$")


def _digit_joins_the_last_escape(encoded: str, after: str) -> bool:
    """A short octal escape followed by a digit that every reader takes as its own: no longer the secret's byte."""
    last = encoded[encoded.rfind("\\") :]
    return (
        bool(after)
        and _READ_AS_ONE_ESCAPE.match(last) is not None
        and _READ_AS_ONE_ESCAPE.match(last + after[0]) is not None
    )


class TestEverySpellingIsRedacted:
    @pytest.mark.parametrize("spelling", sorted(set(SPELLINGS) - BASE64_SPELLINGS))
    def test_the_redactor_replaces_the_whole_spelling(self, spelling: str) -> None:
        """`Redactor.text` replaces every character of the spelling, whatever surrounds it."""
        encoded = SPELLINGS[spelling](SECRET)
        assert Redactor([SECRET]).text(f"see [{encoded}] and x{encoded}y") == f"see [{REDACTED}] and x{REDACTED}y"

    @pytest.mark.parametrize("spelling", sorted(BASE64_SPELLINGS))
    def test_the_redactor_removes_the_secrets_base64_characters(self, spelling: str) -> None:
        """Of a base64 spelling at most the edge characters shared with neighbouring bytes stay."""
        encoded = SPELLINGS[spelling](SECRET)
        shown = Redactor([SECRET]).text(f"see [{encoded}] and x{encoded}y")
        left_over = len(shown) - len("see [] and xy") - 2 * len(REDACTED)
        assert (encoded in shown, shown.count(REDACTED), left_over <= 2 * 14) == (False, 2, True)

    @pytest.mark.parametrize("spelling", list(SPELLINGS))
    async def test_no_spelling_reaches_the_model_the_display_or_the_logs(
        self, spelling: str, make_host: Any, make_tool: Any, call: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A handler echoing the secret in content, markdown and an error body leaks it nowhere."""
        encoded = SPELLINGS[spelling](SECRET)
        tool = make_tool(_reflect(query={"k": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        caplog.set_level(logging.DEBUG)
        answered = await call(tool, {"answer": {"content": f"key={encoded}", "markdown": f"`{encoded}`"}})
        failed = await call(tool, {"answer": {"code": "bad", "error": f"key {encoded} revoked"}, "status": 401})
        as_text = await call(tool, {"answer": f"key {encoded}", "media": "text/plain"})
        seen = json.dumps([answered.output, answered.raw, failed.output, as_text.output]) + caplog.text
        assert (encoded in seen, json.dumps(encoded)[1:-1] in seen, REDACTED in seen) == (False, False, True)

    @settings(max_examples=200, deadline=None)
    @given(
        secret=st.text(st.characters(blacklist_categories=("Cs",)), min_size=8, max_size=40),
        spelling=st.sampled_from(sorted(SPELLINGS)),
        before=st.text(max_size=10),
        after=st.text(max_size=10),
    )
    def test_any_secret_in_any_spelling_is_removed(self, secret: str, spelling: str, before: str, after: str) -> None:
        """The property behind the examples: every spelling of every secret of 8+ characters."""
        encoded = SPELLINGS[spelling](secret)
        assume(not (spelling == "octal escapes without leading zeros" and _digit_joins_the_last_escape(encoded, after)))
        shown = Redactor([secret]).text(before + encoded + after)
        assert encoded not in shown

    def test_an_octal_escape_ends_where_a_browser_ends_it(self) -> None:
        """`\\600` is `\\60` then `0` (three digits only up to `\\377`): the secret before the digit is found."""
        encoded = SPELLINGS["octal escapes without leading zeros"]("12345678")
        assert encoded.endswith("\\70")
        assert Redactor(["12345678"]).text(f"{encoded}0 and {encoded}8") == f"{REDACTED}0 and {REDACTED}8"

    def test_an_octal_escape_above_377_is_also_read_modulo_256(self) -> None:
        """PHP and Python bytes read `\\550` as byte 0x68 (`h`): that reading is searched too."""
        encoded = "".join(f"\\{byte + 256:o}" for byte in b"hunter2.secret")
        assert encoded.startswith("\\550\\565")
        assert Redactor(["hunter2.secret"]).text(f"key {encoded}!") == f"key {REDACTED}!"

    def test_a_digit_that_every_reader_takes_into_the_escape_spells_another_byte(self) -> None:
        """`\\1` then `5` is `\\15` in C, Python and JavaScript: the text no longer holds that secret."""
        secret = "secret!\x01"
        assert Redactor([secret]).text("secret!\\15") == "secret!\\15"

    @pytest.mark.parametrize("text", ["İ {} İ", "ß {} ẞ", "{}İ%41"])
    def test_case_mappings_that_change_lengths_keep_the_right_span(self, text: str) -> None:
        """`İ` lower-cases to two characters; the secret next to it is still cut out exactly."""
        assert Redactor([SECRET]).text(text.format(SECRET.upper())) == text.format(REDACTED)

    def test_a_secret_sent_back_as_a_json_number_is_redacted(self) -> None:
        """A numeric secret (a PIN, an account number) may come back as a number, not as text."""
        redactor = Redactor(["4111111111111111"])
        assert redactor.json({"card": 4111111111111111, "n": 7, "ok": True}) == {"card": REDACTED, "n": 7, "ok": True}


class TestErrorsCarryNoSecret:
    """Messages built from what the handler sent (its keys, its answer type, a redirect) are redacted too."""

    @pytest.mark.parametrize(
        "answer",
        [
            {"content": "x", "KEYNAME": 1},
            {"type": "KEYNAME"},
            {"type": "action_required", "title": "t", "description": "d", "KEYNAME": 1},
        ],
        ids=["unknown key", "unknown answer type", "card field"],
    )
    async def test_a_secret_in_a_rejected_answer_stays_out_of_the_error_and_the_log(
        self, answer: dict[str, Any], make_host: Any, make_tool: Any, call: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The refusal names the problem without quoting the secret, in any spelling."""
        encoded = base64.b64encode(SECRET.encode()).decode()
        raw = json.loads(json.dumps(answer).replace("KEYNAME", encoded))
        tool = make_tool(_reflect(query={"k": "${env.KEY}"}), make_host(env={"KEY": SECRET}))
        caplog.set_level(logging.DEBUG)
        result = await call(tool, {"answer": raw}, {"thread_id": "t-1"})
        assert (result.is_error, encoded in result.output["value"] + caplog.text) == (True, False)

    async def test_a_secret_in_a_cross_origin_redirect_stays_out_of_the_error(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """The refused origin is named, with the secret (lower-cased by URL parsing) redacted."""
        secret = "tenant0secret0host"
        target = {
            "type": "app",
            "component": "api",
            "path": "/redirect",
            "method": "GET",
            "query": {"status": "302", "to": "https://${env.KEY}.example/x"},
        }
        result = await call(make_tool(target, make_host(env={"KEY": secret.upper()})))
        assert result.output["value"] == (
            "Tool 'probe' failed: TargetRedirectError: the handler redirected (302) to another origin "
            f"(https://{REDACTED}.example); targets follow same-origin redirects only"
        )

    async def test_the_identity_token_in_any_spelling_stays_out_of_the_model(
        self, make_host: Any, make_tool: Any, call: Any
    ) -> None:
        """The identity token is redacted from the model's view in its encoded spellings too."""
        token = "id-3x4mpl3-t0k3n/with+specials"
        host = make_host(identity_token=token)
        spellings = [quote(token, safe=""), _lower_hex(quote(token, safe="")), _b64(token.encode()), token.upper()]
        result = await call(make_tool(_reflect(), host), {"answer": {"content": " ".join(spellings)}})
        assert result.output == {"type": "text", "value": " ".join([REDACTED] * 4)}

    async def test_the_request_log_line_has_no_spelling_of_the_secret(
        self, make_host: Any, make_tool: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The logged request URL carries the secret as the URL encodes it: redacted."""
        target = {"type": "app", "component": "api", "path": "/echo/${env.KEY}", "method": "GET"}
        tool = make_tool(target, make_host(env={"KEY": SECRET}))
        caplog.set_level(logging.DEBUG)
        await execute_tool(tool, {"toolCallId": "c", "toolName": tool.id, "input": {}})
        assert (quote(SECRET, safe="") in caplog.text, f"http://api.test/echo/{REDACTED}" in caplog.text) == (
            False,
            True,
        )
