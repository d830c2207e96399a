"""Error text a browser may see: no stack traces, no credentials, no internals.

An exception that ends a run is logged in full on the server (with a reference) and shown to
the user as one sentence that says who failed. Error events of the stream keep their text,
cut before any traceback, with credential-looking tokens replaced and a length cap.
"""

from __future__ import annotations

import logging
import re
import secrets

logger = logging.getLogger("toolwire.ui")

MAX_ERROR_TEXT = 500
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\n\s+File \"")
_CREDENTIALS = re.compile(
    r"""
    (?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}            # OpenAI / Anthropic style keys
    | AIza[0-9A-Za-z_\-]{20,}                  # Google API keys
    | (?:Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]+  # authorization header values
    | (?<=://)[^/\s:@]+:[^/\s@]+(?=@)          # user:password in a URL
    | (?:api[_-]?key|access[_-]?token|secret|password|passwd|token)(["']?\s*[:=]\s*["']?)[^\s"',;&]+
    """,
    re.IGNORECASE | re.VERBOSE,
)


def redact(text: str) -> str:
    """`text` with credential-looking tokens replaced by `[redacted]`."""

    def replace(match: re.Match[str]) -> str:
        separator = match.group(1)
        if separator is not None:  # keep `api_key=` so the reader knows what was hidden
            return match.group(0)[: match.start(1) - match.start(0)] + separator + "[redacted]"
        return "[redacted]"

    return _CREDENTIALS.sub(replace, text)


def safe_error_text(text: str) -> str:
    """An error event's text as the UI may show it: before any traceback, redacted, capped."""
    found = _TRACEBACK.search(text)
    if found is not None:
        text = text[: found.start()].rstrip() or "The stream reported an error."
    text = redact(text)
    if len(text) > MAX_ERROR_TEXT:
        text = text[: MAX_ERROR_TEXT - 1] + "…"
    return text


def safe_exception_text(error: BaseException) -> str:
    """One sentence about an exception that ended a run; the details go to the server log."""
    reference = secrets.token_hex(4)
    logger.error("UI run failed (reference %s)", reference, exc_info=error)
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        if status in (401, 403):
            return f"The model provider refused the server's credentials (HTTP {status}, reference {reference})."
        if status == 429:
            return f"The model provider is rate limiting requests; try again shortly (reference {reference})."
        if status >= 500:
            return f"The model provider failed (HTTP {status}); try again (reference {reference})."
        return f"The model provider rejected the request (HTTP {status}, reference {reference})."
    name = type(error).__name__
    if "Timeout" in name or "Connection" in name:
        return f"The model provider could not be reached (reference {reference})."
    return f"The assistant failed while answering (reference {reference})."
