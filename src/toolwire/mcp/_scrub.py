"""What an error result may tell an MCP client: no host file system paths or URL credentials, a bounded size.

A tool's unexpected exception can quote paths (`FileNotFoundError: ... '/srv/app/x.db'`, a
traceback line, `C:\\Users\\...`, `\\\\server\\share`, `file:///...`, `~/.aws/...`); the client
reads `[path]` instead, and a URL's `user:password@` (a database DSN) becomes `[credentials]@`.
URLs, MIME types and ratios such as `1/2` are not paths. Every error
text is cut to `MAX_ERROR_TEXT` characters. A `ToolError` (the tool's own wording for the
model) and an invalid-input error (built from the client's own arguments and the published
schema) are only cut. The server keeps the full text in its log and in the call's span.
"""

from __future__ import annotations

import re

from toolwire.exceptions import ToolError
from toolwire.schema import SchemaValidationError

MAX_ERROR_TEXT = 2000
PATH = "[path]"
_REST = r"[^\s'\"`<>|,;)\]]*"
_HOST_PATH = re.compile(
    # `file:` URLs, and any URL with an empty authority (`sqlite:///srv/app.db`): its path is a file's.
    # (A scheme starts after no scheme character and is short, so a long `a.a.a...` costs linear time.)
    rf"file:/{_REST}|(?<![\w+.-])[A-Za-z][\w+.-]{{0,31}}:///{_REST}"
    # UNC (`\\server\share`, doubled in a repr).
    rf"|(?<![\w\\])\\{{2,4}}[^\s\\/'\"`<>|]+\\{{1,2}}{_REST}"
    # Absolute POSIX, home-relative or drive-letter paths: not inside a word, a URL or a longer path
    # (after a colon too, as in `path:/srv/x`; a URL's `://` is never followed by a path's first character).
    rf"|(?<![\w./\\~%-])(?:~[\w.-]*|[A-Za-z]:)?(?:/|\\{{1,2}})(?=[^\s/\\'\"`<>|]){_REST}"
)
_URL_CREDENTIALS = re.compile(r"(?<=://)[^\s/?#@'\"`<>]+@")
CREDENTIALS = "[credentials]@"


def client_error_text(text: str, error: BaseException | None) -> str:
    """The error text to send: host paths scrubbed (unless the tool or the schema wrote it), size bounded."""
    if not isinstance(error, (ToolError, SchemaValidationError)):
        text = _HOST_PATH.sub(PATH, _URL_CREDENTIALS.sub(CREDENTIALS, text))
    if len(text) <= MAX_ERROR_TEXT:
        return text
    note = "… ({} characters cut; the full error is in the server log)"
    keep = MAX_ERROR_TEXT - len(note.format(len(text)))
    return text[:keep] + note.format(len(text) - keep)
