"""The `openai-responses` adapter: the OpenAI Responses API (`client.responses.create`).

Tool entries are flat: `{"type": "function", "name", "description", "parameters", "strict",
"output_schema"?}` (`openai/types/responses/function_tool_param.py`). `parameters` and
`strict` are required keys there. A tool whose strictness is unset is sent with
`"strict": null`: the API's documented default then applies (strict validation when the
schema is already compatible, non-strict otherwise; see `namespace_tool_param.py`), which is
what leaving the choice to the provider means. `strict=True` sends the strict rewrite,
`strict=False` sends `false`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolwire.adapter import Adapter, EncodedTools, EncodeOptions
from toolwire.capabilities import Capabilities
from toolwire.compat import Degradation, report
from toolwire.exceptions import ConfigurationError
from toolwire.messages import Message, to_messages
from toolwire.names import OPENAI_NAMES, NameMap
from toolwire.results import ToolResult
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

from ._responses_decode import RESTATED, ResponsesDecoder
from ._responses_history import ResponsesHistory, tool_outputs
from ._sdk import openai_client, openai_client_spec
from ._tools import (
    choice_fields,
    custom_tool,
    no_tools_fragment,
    responses_tool_choice,
    strict_parameters,
    tool_description,
)

if TYPE_CHECKING:
    import ssl

_MESSAGE_OPTIONS = frozenset({"instructions", "store"})


class OpenAIResponsesAdapter(Adapter):
    """OpenAI Responses."""

    api = "openai-responses"
    provider = "openai"
    name_rules = OPENAI_NAMES
    restated_strings = RESTATED
    capabilities = Capabilities(
        strict_tools=True,
        native_input_examples=False,
        output_schema=True,
        parallel_tool_calls=True,
        disable_parallel=True,
        allowed_tools_subset=True,
        streamed_arguments=True,
        image_tool_results=True,
        file_tool_results=True,
        reasoning=True,
        server_tools=True,
    )
    reserved_tool_fields = frozenset({"type", "name", "description", "parameters", "strict", "output_schema"})
    client_spec = openai_client_spec("responses.create")

    # -- tool definitions --------------------------------------------------------------------

    def takes_free_form_tools(self) -> bool:
        """Free-form tools are custom tools (`custom_tool_param.py`)."""
        return True

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """`{"type": "function", "name", "description", "parameters", "strict", "output_schema"?}`; a free-form
        tool is `{"type": "custom", "name", "description", "format"}`."""
        if tool.free_form:
            return {"type": "custom", **custom_tool(self, tool, wire_name, options, degradations)}
        strict, parameters = strict_parameters(self, tool, options, degradations)
        entry: dict[str, Any] = {
            "type": "function",
            "name": wire_name,
            "description": tool_description(self, tool, options, degradations),
            "parameters": parameters,
            "strict": strict,
        }
        if tool.output_schema is not None:
            entry["output_schema"] = tool.output_schema.json_schema
        return entry

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
        free_form = frozenset(t.id for t in tools if t.free_form)
        wire_choice = responses_tool_choice(choice, names, free_form) if choice is not None else None
        return {"tools": entries, **choice_fields(self, choice, wire_choice, degradations)}

    # -- responses ----------------------------------------------------------------------------

    def new_decoder(self) -> ResponsesDecoder:
        """Responses stream events and whole `response` objects."""
        return ResponsesDecoder()

    # -- results and history --------------------------------------------------------------------

    def encode_tool_results(self, results: Sequence[ToolResult], /) -> list[dict[str, Any]]:
        """One `function_call_output` (`custom_tool_call_output` for custom tools) item per result."""
        degradations: list[Degradation] = []
        items = tool_outputs(self, results, degradations)
        report(degradations)
        return items

    def encode_history(
        self, messages: Sequence[Message], degradations: list[Degradation], /, **options: Any
    ) -> dict[str, Any]:
        """`{"input": [...]}` (and `instructions` with `instructions=True`) for a neutral conversation.

        Options: `instructions` (default False: system messages become `system` message items),
        `store` (default True: whether OpenAI stores the conversation's items, so they can be
        referenced by id).

        Raises:
            ConfigurationError: an unknown option, or an option that is not a bool.
        """
        unknown = set(options) - _MESSAGE_OPTIONS
        if unknown:
            raise ConfigurationError(f"openai-responses encode_messages has no options {sorted(unknown)}")
        for name, value in options.items():
            if not isinstance(value, bool):
                raise ConfigurationError(f"openai-responses encode_messages option {name!r} must be true or false")
        history = ResponsesHistory(
            self, degradations, instructions=options.get("instructions", False), store=options.get("store", True)
        )
        return history.encode(to_messages(messages))

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
        """`client.responses.create` keyword arguments; `store=False` in `options` shapes the history."""
        store = options.get("store")
        history = self._history_fields(messages, degradations, store=store is not False)
        request: dict[str, Any] = {"model": model, **history, **(tools or {})}
        request.update({key: value for key, value in options.items() if key != "tools"})
        if options.get("tools"):  # the provider's own tools (web search, ...) go after toolwire's
            request["tools"] = [*request.get("tools", ()), *options["tools"]]
        request["stream"] = stream
        return request

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The SDK's event stream or `Response` object."""
        return client.responses.create(**request)

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The async SDK's event stream or `Response` object."""
        return await client.responses.create(**request)

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
