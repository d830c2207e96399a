"""The `openai-chat` adapter: OpenAI Chat Completions, and OpenAI-compatible servers.

Tool entries are `{"type": "function", "function": {"name", "description", "parameters",
"strict"?}}` (`openai/types/chat/chat_completion_function_tool_param.py`). Two profiles:

- `"openai"` (default): everything the official API takes, `strict` included.
- `"compatible"`: for vLLM, Ollama, LM Studio, llama.cpp, OpenRouter-style proxies, which
  reject or ignore fields only OpenAI knows. It never sends `strict` (schemas go as defined),
  turns an `allowed_tools` choice into sending only the allowed tools, and sends no `file`
  content parts; each omission is reported. Select it with
  `get_adapter("openai-chat", profile="compatible")`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from toolwire.adapter import Adapter, EncodedTools, EncodeOptions
from toolwire.capabilities import Capabilities
from toolwire.compat import Degradation, report
from toolwire.exceptions import ConfigurationError
from toolwire.messages import Message, to_messages
from toolwire.names import OPENAI_NAMES, NameMap
from toolwire.results import ToolResult
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

from ._chat_decode import ChatDecoder
from ._chat_history import ChatResultEncoder, chat_messages
from ._sdk import openai_client, openai_client_spec
from ._tools import (
    chat_tool_choice,
    choice_fields,
    custom_tool,
    no_tools_fragment,
    strict_parameters,
    strict_requested,
    tool_description,
)

if TYPE_CHECKING:
    import ssl

RESPONSES_ONLY_OPTIONS: Final = frozenset({"defer_loading", "allowed_callers", "async", "output_schema", "namespace"})
"""`provider_options.openai` keys only Responses tools have (`function_tool_param.py`): not sent to Chat."""

ChatProfile = Literal["openai", "compatible"]
PROFILES: Final[tuple[ChatProfile, ...]] = ("openai", "compatible")


class OpenAIChatAdapter(Adapter):
    """OpenAI Chat Completions (`client.chat.completions.create`)."""

    api = "openai-chat"
    provider = "openai"
    name_rules = OPENAI_NAMES
    capabilities = Capabilities(
        strict_tools=True,
        native_input_examples=False,
        output_schema=False,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=True,
        streamed_arguments=True,
        image_tool_results=False,
        file_tool_results=False,
        reasoning=False,
        server_tools=False,
    )
    reserved_tool_fields = frozenset({"type", "function", "custom"})
    unsupported_provider_options = RESPONSES_ONLY_OPTIONS
    client_spec = openai_client_spec("chat.completions.create")

    def __new__(cls, *, profile: ChatProfile = "openai") -> OpenAIChatAdapter:
        """The compatible profile is its own subclass, so `capabilities` tell the truth about it."""
        if cls is OpenAIChatAdapter and profile == "compatible":
            cls = OpenAICompatibleChatAdapter
        return super().__new__(cls)

    def __init__(self, *, profile: ChatProfile = "openai") -> None:
        if profile not in PROFILES:
            raise ConfigurationError(f"openai-chat profile {profile!r} is not one of {list(PROFILES)}")
        self.profile: ChatProfile = profile

    def takes_free_form_tools(self) -> bool:
        """OpenAI takes custom tools; the compatible profile sends them as object tools."""
        return not self._compatible

    def settings_key(self) -> tuple[Any, ...]:
        """The profile changes what a tool entry contains."""
        return (self.profile,)

    @property
    def _compatible(self) -> bool:
        return self.profile == "compatible"

    # -- tool definitions --------------------------------------------------------------------

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """`{"type": "function", "function": {...}}`, or `{"type": "custom", "custom": {...}}` for a free-form tool."""
        if tool.free_form:
            return {"type": "custom", "custom": custom_tool(self, tool, wire_name, options, degradations)}
        function: dict[str, Any] = {
            "name": wire_name,
            "description": tool_description(self, tool, options, degradations),
        }
        if self._compatible:
            function["parameters"] = tool.input_schema.json_schema
            if strict_requested(tool, options):
                self.degrade(
                    degradations,
                    "strict",
                    "not sent: the compatible profile omits `strict` (OpenAI-compatible servers reject or ignore "
                    "it); the schema is sent as defined",
                    tool.id,
                )
        else:
            strict, function["parameters"] = strict_parameters(self, tool, options, degradations)
            if strict is not None:
                function["strict"] = strict
        if tool.output_schema is not None:
            self.degrade(
                degradations,
                "output_schema",
                "not sent: Chat Completions has no field for it (the runtime still validates outputs)",
                tool.id,
            )
        return {"type": "function", "function": function}

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        """`tools`, and `tool_choice` / `parallel_tool_calls` when asked for."""
        if not entries:
            return no_tools_fragment(self, choice, degradations)
        if choice is not None and choice.mode == "allowed" and self._compatible:
            allowed = set(choice.tool_ids)
            entries = [entry for entry, tool in zip(entries, tools, strict=True) if tool.id in allowed]
            self.degrade(
                degradations,
                "tool_choice.allowed",
                "the compatible profile has no allowed_tools choice: sent only the allowed tools "
                f"({', '.join(choice.tool_ids)}) with tool_choice {choice.allowed_mode!r}",
            )
            wire_choice: str | dict[str, Any] | None = choice.allowed_mode
        else:
            free_form = frozenset(t.id for t in tools if t.free_form and self.takes_free_form_tools())
            wire_choice = chat_tool_choice(choice, names, free_form) if choice is not None else None
        return {"tools": entries, **choice_fields(self, choice, wire_choice, degradations)}

    # -- responses ----------------------------------------------------------------------------

    def new_decoder(self) -> ChatDecoder:
        """Chat chunks, whole completions and SDK helper events."""
        return ChatDecoder()

    # -- results and history --------------------------------------------------------------------

    def encode_tool_results(self, results: Sequence[ToolResult], /) -> list[dict[str, Any]]:
        """One `role: "tool"` message per result, then one `user` message with their images and files."""
        degradations: list[Degradation] = []
        messages = ChatResultEncoder(self, degradations, file_parts=not self._compatible).encode(results)
        report(degradations)
        return messages

    def encode_history(
        self, messages: Sequence[Message], degradations: list[Degradation], /, **options: Any
    ) -> dict[str, Any]:
        """`{"messages": [...]}` for a neutral conversation.

        Raises:
            ConfigurationError: an option this adapter does not have.
        """
        if options:
            raise ConfigurationError(f"openai-chat encode_messages takes no options, got {sorted(options)}")
        encoded = chat_messages(
            self,
            to_messages(messages),
            degradations,
            file_parts=not self._compatible,
            raw_arguments=not self._compatible,
        )
        return {"messages": encoded}

    # -- calling the SDK (agent loop) ---------------------------------------------------------

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
        """`client.chat.completions.create` keyword arguments; streams ask for the usage chunk."""
        request: dict[str, Any] = {"model": model, **self._history_fields(messages, degradations), **(tools or {})}
        if stream and not self._compatible:
            request["stream_options"] = {"include_usage": True}
        request.update({key: value for key, value in options.items() if key != "tools"})
        if options.get("tools"):  # the provider's own tools (web search, ...) go after toolwire's
            request["tools"] = [*request.get("tools", ()), *options["tools"]]
        request["stream"] = stream
        return request

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The SDK's stream (iterable of chunks) or completion object."""
        return client.chat.completions.create(**request)

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The async SDK's stream or completion object."""
        return await client.chat.completions.create(**request)

    def sdk_client(
        self,
        *,
        api_key: str,
        asynchronous: bool = False,
        http_client: Any = None,
        base_url: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> Any:
        """An `openai.OpenAI` (or `AsyncOpenAI`) client without retries."""
        return openai_client(
            api_key=api_key,
            asynchronous=asynchronous,
            http_client=http_client,
            base_url=base_url,
            ssl_context=ssl_context,
        )


class OpenAICompatibleChatAdapter(OpenAIChatAdapter):
    """Chat Completions on OpenAI-compatible servers: `get_adapter("openai-chat", profile="compatible")`."""

    capabilities = Capabilities(
        strict_tools=False,
        native_input_examples=False,
        output_schema=False,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=False,
        streamed_arguments=True,
        image_tool_results=False,
        file_tool_results=False,
        reasoning=True,
        server_tools=False,
    )

    def __init__(self, *, profile: ChatProfile = "compatible") -> None:
        if profile != "compatible":
            raise ConfigurationError(f"{type(self).__name__} is the 'compatible' profile, not {profile!r}")
        super().__init__(profile=profile)
