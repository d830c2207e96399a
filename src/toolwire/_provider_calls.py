"""What an adapter does around the provider's SDK: requests, calls, results and history.

The base `Adapter` inherits this part: the agent loop builds a request (`build_request`),
checks the client (`client_mode`) and sends it (`invoke` / `ainvoke`); results and history are
encoded per provider (`encode_tool_results`, `encode_history`), with `encode_messages` as the
public entry that checks its argument and reports what the encoding degraded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ._clients import ClientMode, ClientSpec, client_mode
from .compat import Degradation, report
from .messages import Message, parse_messages

if TYPE_CHECKING:
    import ssl

    from .adapter import EncodedTools
    from .results import ToolResult


class EncodedMessages(dict[str, Any]):
    """The provider's request fields for a conversation (a dict, as before), plus what encoding it reported."""

    __slots__ = ("warnings",)

    def __init__(self, fields: Mapping[str, Any], *, warnings: list[Degradation]) -> None:
        super().__init__(fields)
        self.warnings = warnings
        """Every degradation (metadata of another provider dropped, parts described in text, ...), once."""


class ProviderCalls:
    """The SDK glue and history encoding every adapter has (see `Adapter`)."""

    api: ClassVar[str]
    client_spec: ClassVar[ClientSpec | None] = None
    """The SDK client `invoke`/`ainvoke` drive (None: any object is accepted)."""

    # -- calling the provider (used by the agent loop) -----------------------------------

    def build_request(
        self,
        *,
        model: str,
        messages: Sequence[Message],
        tools: EncodedTools | None,
        options: Mapping[str, Any],
        stream: bool,
        degradations: list[Degradation] | None = None,
    ) -> dict[str, Any]:
        """Keyword arguments for the SDK call: model, encoded messages, tools, caller options.

        With `degradations`, what encoding the history degraded is appended there and not
        reported (the caller reports it, once); without, it is reported as warnings.
        """
        raise NotImplementedError(f"{self.api} cannot build SDK requests")

    def client_mode(self, client: Any) -> ClientMode:
        """Whether `client` is this api's sync SDK client, its async one, or one serving both.

        Raises:
            ArgumentError: `client` is None, a client of another SDK, or lacks the method `invoke` calls.
        """
        return client_mode(self.api, self.client_spec, client)

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """Send `request` with the official SDK client; returns a source for `normalize`."""
        raise NotImplementedError(f"{self.api} cannot call an SDK client")

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """`invoke` with the SDK's async client; returns a source for `anormalize`."""
        raise NotImplementedError(f"{self.api} cannot call an async SDK client")

    def sdk_client(
        self,
        *,
        api_key: str,
        asynchronous: bool = False,
        http_client: Any = None,
        base_url: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> Any:
        """An official SDK client for this api, without retries (the conformance suite uses fake keys).

        `http_client` is an `httpx2.Client`/`AsyncClient` to send through; `base_url` replaces
        the provider's host (recording against a local server); `ssl_context` is the TLS context
        of every HTTP client the SDK builds itself (default: the SDK's own, each loading the CA
        store, about 25 ms a time).
        """
        raise NotImplementedError(f"{self.api} cannot build an SDK client")

    # -- results and history (implemented per provider) -----------------------------------

    def encode_tool_results(self, results: Sequence[ToolResult], /) -> list[dict[str, Any]]:
        """Provider messages/items carrying these results (parallel results grouped as required)."""
        raise NotImplementedError(f"{self.api} does not encode tool results yet")

    def encode_messages(self, messages: Sequence[Message | Mapping[str, Any]], /, **options: Any) -> EncodedMessages:
        """The provider's request fields for a neutral conversation, with the degradations on `.warnings`.

        Each degradation is also a `CompatibilityWarning`. The result is a dict (as before);
        `options` are the adapter's own (see its `encode_history`).

        Raises:
            ArgumentError: `messages` is not a list of messages, or an item cannot be read.
            ConfigurationError: an option the adapter does not have, or a message it cannot encode.
        """
        checked = parse_messages(messages)
        degradations: list[Degradation] = []
        fields = self.encode_history(checked, degradations, **options)
        report(degradations)
        return EncodedMessages(fields, warnings=degradations)

    def encode_history(self, messages: Sequence[Message], degradations: list[Degradation], /, **options: Any) -> Any:
        """The request fields for `messages`, appending each degradation to `degradations` (not reported)."""
        raise NotImplementedError(f"{self.api} does not encode messages yet")

    def _history_fields(
        self, messages: Sequence[Message], degradations: list[Degradation] | None, **options: Any
    ) -> Any:
        """`encode_history` for `build_request`: into the caller's list, or reported here without one."""
        found: list[Degradation] = [] if degradations is None else degradations
        fields = self.encode_history(parse_messages(messages), found, **options)
        if degradations is None:
            report(found, stacklevel=4)
        return fields
