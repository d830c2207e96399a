"""The state of one streaming tool call: its argument text, compact, and its partial value on demand.

The argument fragments are written as UTF-8 into one `BytesIO`: one byte per ASCII character
and no object per fragment (a list of 75,000 fragment strings takes five times the text), and
`getvalue()` hands the bytes to the parser without a copy. Lone surrogates (a surrogate pair
split across two events) are kept with `surrogatepass`, as `json.loads` keeps them.

Partial values are computed only when an event's `partial_input` is read: the incremental
parser then catches up from where it stopped to that event's position in the text. Unread,
it costs nothing; read at every delta, it costs one pass over the text, and its final value
is the call's input (no second parse).
"""

from __future__ import annotations

import io
from typing import Any

from ._partial_json import IncrementalJsonParser, parse_partial
from .events import ProviderMetadata
from .tools import Tool

NOT_PARSED: Any = object()
"""What `CallState.parsed_input` gives when the partial parser cannot supply the input."""


class CallState:
    """One call: ids, its tool, its argument text and (when partial values are read) its parser."""

    __slots__ = (
        "_parsed", "_parser", "_text", "executed", "metadata", "name", "partial", "tool", "tool_call_id", "write",
    )  # fmt: skip

    def __init__(
        self, tool_call_id: str, name: str, tool: Tool | None, executed: bool, metadata: Any, partial: bool
    ) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.tool = tool
        self.executed = executed
        self.metadata: ProviderMetadata | None = metadata
        self.partial = partial
        """`tool-input-delta` events carry the partial input (the stream was normalized with `partial=True`)."""
        self._text = io.BytesIO()
        self.write = self._text.write
        """Appends the UTF-8 bytes of a fragment; returns their length."""
        self._parser: IncrementalJsonParser | None = None
        self._parsed = 0
        """Bytes of the text the parser has been fed."""

    @property
    def size(self) -> int:
        """Bytes of argument text so far."""
        return self._text.tell()

    def data(self) -> bytes:
        """The whole argument text as UTF-8; call once the call is complete (the buffer is shared, not copied)."""
        return self._text.getvalue()

    def text(self) -> str:
        """The whole argument text (for error messages)."""
        return self._text.getvalue().decode("utf-8", errors="surrogatepass")

    def _slice(self, start: int, stop: int) -> str:
        text = self._text
        text.seek(start)
        data = text.read(stop - start)
        text.seek(0, io.SEEK_END)
        return data.decode("utf-8", errors="surrogatepass")

    def partial_value(self, position: int) -> Any:
        """The best-effort value of the text up to byte `position` (where a delta ended).

        For the call's latest delta it is the parser's live value, the parser first catching
        up from where it stopped; for an earlier one, a value computed afresh from its text.
        """
        if position != self._text.tell():
            return parse_partial(self._slice(0, position))
        parser = self._parser
        if parser is None:
            parser = self._parser = IncrementalJsonParser()
        if position > self._parsed:
            parser.feed(self._slice(self._parsed, position))
            self._parsed = position
        return parser.value()

    def parsed_input(self, data: bytes) -> Any:
        """The input from the partial parser when it has read the whole text, else `NOT_PARSED`."""
        parser = self._parser
        if parser is None or self._parsed != len(data) or not parser.complete:
            return NOT_PARSED
        return parser.value()
