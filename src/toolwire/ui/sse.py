"""UI message chunks → the bytes of a Server-Sent Events body, framework-free.

Each chunk is one `data: {json}` frame; the stream ends with `data: [DONE]`, as the `ai`
package's own `JsonToSseTransformStream` writes it. Serve the bytes with
`UI_MESSAGE_STREAM_HEADERS` (`toolwire.ui.protocol`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Final

import pydantic_core

DONE: Final = b"data: [DONE]\n\n"


def sse_frame(chunk: Mapping[str, Any]) -> bytes:
    """One `data: {json}` frame (JSON escapes every line break, so a frame is one line).

    Written as the `ai` package's `JSON.stringify` would: NaN and infinities become `null`, a lone
    surrogate (JSON text may carry one, and so may JavaScript strings) an escape. A chunk that is
    not JSON at all (a value holding itself) becomes an `error` chunk saying so.
    """
    try:
        body = pydantic_core.to_json(chunk, bytes_mode="base64", serialize_unknown=True, inf_nan_mode="null")
    except (pydantic_core.PydanticSerializationError, ValueError):
        body = _escaped_json(chunk)
    return b"data: " + body + b"\n\n"


def _escaped_json(chunk: Mapping[str, Any]) -> bytes:
    """The chunk through the standard library, which escapes lone surrogates (pydantic refuses them)."""
    try:
        value = pydantic_core.to_jsonable_python(
            chunk, bytes_mode="base64", serialize_unknown=True, inf_nan_mode="null"
        )
        return json.dumps(value, separators=(",", ":")).encode("ascii")
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError, RecursionError) as exc:
        error = {
            "type": "error",
            "errorText": f"a {chunk.get('type', 'UI')!s:.40} chunk could not be written as JSON: {type(exc).__name__}",
        }
        return json.dumps(error, separators=(",", ":")).encode("ascii")


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
