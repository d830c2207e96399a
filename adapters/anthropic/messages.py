"""`AnthropicAdapter`: the Messages API (`client.messages.create`), api name `"anthropic"`.

Tools become `ToolParam`s (strict schemas per `_schema.py`, native `input_examples`); tool choice
maps to `auto`/`any`/`tool`/`none` with `disable_parallel_tool_use`; streams and whole messages
decode through `_decode.py`; results and history encode through `_history.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from toolwire._clients import ClientSpec
from toolwire._extras import optional_imports
from toolwire.adapter import Adapter, EncodedTools, EncodeOptions
from toolwire.capabilities import Capabilities
from toolwire.compat import Degradation, report
from toolwire.exceptions import ConfigurationError
from toolwire.messages import Message
from toolwire.names import ANTHROPIC_NAMES, NameMap
from toolwire.results import ToolResult
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

from ._decode import AnthropicDecoder
from ._history import encode_history, tool_results_message
from ._tools import tool_choice_fragment, tool_entry, within_strict_budget

if TYPE_CHECKING:
    import ssl

DEFAULT_MAX_TOKENS = 4096
"""`max_tokens` when the caller gives none: the Messages API requires it."""
_REQUEST_FIELDS = frozenset({"model", "messages", "tool_choice", "stream"})
_STRICT_ONLY = frozenset({"strict.constraints", "input_examples"})
"""Degradations a strict encoding reports (constraints moved, examples the strict schema refuses)."""


class AnthropicAdapter(Adapter):
    """Anthropic Messages: tools, tool choice, streams, tool results and history."""

    api: ClassVar[str] = "anthropic"
    provider: ClassVar[str] = "anthropic"
    name_rules = ANTHROPIC_NAMES
    capabilities = Capabilities(
        strict_tools=True,
        native_input_examples=True,
        output_schema=False,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=False,
        streamed_arguments=True,
        image_tool_results=True,
        file_tool_results=True,
        reasoning=True,
        server_tools=True,
    )
    reserved_tool_fields = frozenset({"name", "description", "input_schema", "strict", "input_examples"})
    client_spec = ClientSpec(
        package="anthropic",
        expected="an anthropic.Anthropic or anthropic.AsyncAnthropic client (or Bedrock/Vertex variant)",
        sync_classes=("SyncAPIClient",),
        async_classes=("AsyncAPIClient",),
        method="messages.create",
    )

    # -- tool definitions --------------------------------------------------------------------

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """One `ToolParam`: name, description, input schema (strict when asked), examples."""
        return tool_entry(tool, wire_name, options, partial(self.degrade, degradations))

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        """`{"tools": [...], "tool_choice"?: {...}}`; strict only within the request's complexity limits."""
        degrade = partial(self.degrade, degradations)
        fragment = tool_choice_fragment(entries, choice, names, degrade)
        by_name = {names.wire(tool.id): tool for tool in tools}
        demoted = within_strict_budget(fragment["tools"], by_name, degrade)
        if demoted:  # what strict moved or dropped no longer applies to a tool sent without it
            degradations[:] = [d for d in degradations if not (d.feature in _STRICT_ONLY and d.tool_id in demoted)]
        return fragment

    # -- responses ---------------------------------------------------------------------------

    def new_decoder(self) -> AnthropicDecoder:
        """Decoding state for one response (stream events or a whole message)."""
        return AnthropicDecoder()

    # -- results and history -----------------------------------------------------------------

    def encode_tool_results(self, results: Sequence[ToolResult | Mapping[str, Any]], /) -> list[dict[str, Any]]:
        """ONE user message holding a `tool_result` block per result, in the order given.

        Raises:
            ConfigurationError: a result whose output is not a model-output form.
        """
        degradations: list[Degradation] = []
        message = tool_results_message(results, partial(self.degrade, degradations))
        report(degradations)
        return [] if message is None else [message]

    def encode_history(
        self, messages: Sequence[Message], degradations: list[Degradation], /, **options: Any
    ) -> dict[str, Any]:
        """`{"system"?: ..., "messages": [...]}`: the request fields for a neutral conversation.

        Raises:
            ConfigurationError: an unknown option, or a message or result toolwire cannot read.
        """
        if options:
            raise ConfigurationError(f"{self.api} encode_messages takes no options, got {sorted(options)}")
        return encode_history(messages, partial(self.degrade, degradations))

    # -- calling the SDK (agent loop, conformance suite) ----------------------------------------

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
        """`client.messages.create` keyword arguments; `max_tokens` (required by the API) defaults to 4096.

        A `tools` option holds Anthropic's own tool entries (web search, code execution, ...):
        they are sent after toolwire's tools.

        Raises:
            ConfigurationError: options that would replace the conversation or the tool choice,
                or a `system` option beside system messages.
        """
        clash = sorted(options.keys() & _REQUEST_FIELDS)
        if clash:
            raise ConfigurationError(f"{self.api} request options may not set {clash}: toolwire builds them")
        fields = self._history_fields(messages, degradations)
        if "system" in options and "system" in fields:
            raise ConfigurationError(
                f"{self.api}: give the system prompt either as a system message or as the `system` option, not both"
            )
        request: dict[str, Any] = {"model": model, "max_tokens": DEFAULT_MAX_TOKENS, **fields, **(tools or {})}
        request.update(options)
        if "tools" in options:
            request["tools"] = [*(tools["tools"] if tools else ()), *options["tools"]]
        request["stream"] = stream
        return request

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The SDK's event stream or `Message`; requests with `betas` go through `client.beta.messages`."""
        messages = client.beta.messages if "betas" in request else client.messages
        return messages.create(**request)

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The async SDK's event stream or `Message`."""
        messages = client.beta.messages if "betas" in request else client.messages
        return await messages.create(**request)

    def sdk_client(
        self,
        *,
        api_key: str,
        asynchronous: bool = False,
        http_client: Any = None,
        base_url: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> Any:
        """An `anthropic.Anthropic` (or `AsyncAnthropic`) client without retries."""
        with optional_imports("the anthropic adapter's SDK client"):
            import anthropic

        factory = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
        if http_client is None and ssl_context is not None:
            default = anthropic.DefaultAsyncHttpxClient if asynchronous else anthropic.DefaultHttpxClient
            http_client = default(verify=ssl_context)
        return factory(api_key=api_key, http_client=http_client, base_url=base_url, max_retries=0)
