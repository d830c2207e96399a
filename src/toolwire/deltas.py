"""What adapters yield while decoding a response: small deltas keyed by the provider's own key.

Adapters only map wire events to these; the core `StreamAssembler` owns call state, argument
buffering, parsing, validation and the public events. A key is whatever identifies a part on
the wire (a block index, an item id, `(choice, index)`); it is also the part id of text events.

Deltas are built once per provider event and dropped at once, so they are slotted but not
frozen: a frozen dataclass costs 2.3 times as much to build, on the hottest path of a stream.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ._long_strings import JsonString
from .events import FinishReason, ProviderMetadata, Usage


@dataclass(slots=True)
class MessageStarted:
    """The provider started a response (first frame)."""

    message_id: str | None = None
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class TextPiece:
    """Text for the part `key` (opened on first use)."""

    key: Hashable
    text: str


@dataclass(slots=True)
class ReasoningPiece:
    """Reasoning text for the part `key`; metadata (signatures) is merged into its end event."""

    key: Hashable
    text: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class PartFinished:
    """A text or reasoning part is complete."""

    key: Hashable
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class ToolCallStarted:
    """A tool call begins; `name` is the provider's (sanitized) name, mapped back by the core."""

    key: Hashable
    tool_call_id: str | None
    name: str | None
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class ToolArgsPiece:
    """A fragment of a call's JSON argument text."""

    key: Hashable
    text: str


@dataclass(slots=True)
class ToolCallFinished:
    """A call's input is complete.

    `arguments` is the full text when the provider restates it at the end (it wins over the
    buffered fragments; a `JsonString` when left undecoded); `input` is an already-parsed
    value (Gemini sends objects, not text); `rebuild` computes the input from the complete
    argument text the call's fragments made, for inputs the fragments cannot spell out alone
    (Vertex arguments sent out of order), so the decoder keeps no copy of the text.
    """

    key: Hashable
    arguments: str | JsonString | None = None
    input: Any = None
    has_input: bool = False
    provider_metadata: ProviderMetadata | None = None
    rebuild: Callable[[str], Any] | None = None


@dataclass(slots=True)
class ToolCallComplete:
    """A whole call in one piece (non-streamed responses, Gemini parts)."""

    key: Hashable
    tool_call_id: str | None
    name: str | None
    arguments: str | JsonString | None = None
    input: Any = None
    has_input: bool = False
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class ToolOutput:
    """The result of a call the provider ran itself (web search, code execution, MCP)."""

    tool_call_id: str
    output: Any
    is_error: bool = False
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class SourceFound:
    """A cited or grounding source: a web page (`url`) or a document (`media_type`, `title`).

    `source_id` is the provider's id when it gives one; the core derives a stable one otherwise
    and sends each source once per response.
    """

    kind: Literal["url", "document"]
    url: str | None = None
    title: str | None = None
    media_type: str | None = None
    filename: str | None = None
    source_id: str | None = None
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class FileFound:
    """A file the model returned: `url` is a `data:` URL for inline bytes."""

    url: str
    media_type: str
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class UsageReport:
    """Token usage; later reports fill in what earlier ones left unset."""

    usage: Usage


@dataclass(slots=True)
class StepFinished:
    """The provider said why the response ended."""

    reason: FinishReason
    raw_reason: str | None = None
    usage: Usage | None = None
    provider_metadata: ProviderMetadata | None = None


@dataclass(slots=True)
class StreamFailed:
    """The provider reported an error inside the response."""

    message: str


Delta: TypeAlias = (
    MessageStarted
    | TextPiece
    | ReasoningPiece
    | PartFinished
    | ToolCallStarted
    | ToolArgsPiece
    | ToolCallFinished
    | ToolCallComplete
    | ToolOutput
    | SourceFound
    | FileFound
    | UsageReport
    | StepFinished
    | StreamFailed
)
