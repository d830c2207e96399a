"""UI message chunks → the bytes of a Server-Sent Events body, framework-free.

Each chunk is one `data: {json}` frame; the stream ends with `data: [DONE]`, as the `ai`
package's own `JsonToSseTransformStream` writes it. Serve the bytes with
`UI_MESSAGE_STREAM_HEADERS` (`toolwire.ui.protocol`).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Final

import pydantic_core

DONE: Final = b"data: [DONE]\n\n"


def sse_frame(chunk: Mapping[str, Any]) -> bytes:
    """One `data: {json}` frame (JSON escapes every line break, so a frame is one line)."""
    return b"data: " + pydantic_core.to_json(chunk, bytes_mode="base64", serialize_unknown=True) + b"\n\n"


def encode_sse(chunks: Iterable[Mapping[str, Any]]) -> Iterator[bytes]:
    """The SSE frames of the chunks, then `data: [DONE]`."""
    for chunk in chunks:
        yield sse_frame(chunk)
    yield DONE


async def aencode_sse(chunks: AsyncIterable[Mapping[str, Any]]) -> AsyncIterator[bytes]:
    """`encode_sse` for an async chunk stream."""
    async for chunk in chunks:
        yield sse_frame(chunk)
    yield DONE
