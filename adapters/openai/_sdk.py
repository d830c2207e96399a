"""The official `openai` client, built the way the agent loop and the conformance suite need it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire._clients import ClientSpec
from toolwire._extras import optional_imports

if TYPE_CHECKING:
    import ssl


def openai_client_spec(method: str) -> ClientSpec:
    """The clients both OpenAI apis drive; they differ in the method they call."""
    return ClientSpec(
        package="openai",
        expected="an openai.OpenAI or openai.AsyncOpenAI client (or an Azure one)",
        sync_classes=("SyncAPIClient",),
        async_classes=("AsyncAPIClient",),
        method=method,
    )


def openai_client(
    *, api_key: str, asynchronous: bool, http_client: Any, base_url: str | None, ssl_context: ssl.SSLContext | None
) -> Any:
    """An `openai.OpenAI` (or `AsyncOpenAI`) client without retries, so a mismatch surfaces at once."""
    with optional_imports("the OpenAI adapters' SDK client"):
        import openai

    factory = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    if http_client is None and ssl_context is not None:
        default = openai.DefaultAsyncHttpxClient if asynchronous else openai.DefaultHttpxClient
        http_client = default(verify=ssl_context)
    return factory(api_key=api_key, http_client=http_client, base_url=base_url, max_retries=0)
