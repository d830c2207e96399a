"""`GeminiAdapter`: Gemini `generateContent` / `streamGenerateContent` (Gemini API and Vertex).

Settings (`get_adapter("gemini", **settings)`):

- `schema_format="json"` (default): schemas go out as JSON Schema in `parameters_json_schema`
  and `response_json_schema`; `"openapi"`: as the OpenAPI-subset `parameters` / `response`,
  for endpoints that need it (Live API, older models).
- `vertex=True`: requests go to Vertex AI (`genai.Client(vertexai=True)`), whose OpenAPI-subset
  schemas also take `additionalProperties` (on the Gemini API it is dropped and reported); implied
  by `stream_function_call_arguments`.
- `stream_function_call_arguments=True` (Vertex only): ask for streamed arguments; the
  `functionCallingConfig` is then written as the SDK writes it in Vertex mode.
- `function_response_parts=False` (Gemini 2.x): images and files in tool results go as parts
  after the function responses instead of inside them.

Using the output with google-genai: everything but `contents` is `config`:

    request = {**adapter.encode_messages(history), **adapter.encode_tools(tools, tool_choice)}
    client.models.generate_content(model=model, contents=request.pop("contents"), config=request)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from toolwire._clients import ClientSpec
from toolwire._encoding import description_with_examples
from toolwire._extras import optional_imports
from toolwire.adapter import Adapter, EncodedTools, EncodeOptions
from toolwire.capabilities import Capabilities
from toolwire.compat import Degradation, report
from toolwire.exceptions import ConfigurationError
from toolwire.messages import Message
from toolwire.names import GEMINI_NAMES, NameMap
from toolwire.results import ToolResult
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

from ._decode import GeminiDecoder
from ._history import HistoryEncoder
from ._openapi_schema import openapi_schema_for_gemini
from ._results import function_responses
from ._schema import SchemaNotes, json_schema_for_gemini
from ._tools import MAX_DECLARATIONS, function_calling_config, schema_constrained
from ._wire import Note

if TYPE_CHECKING:
    import ssl

SchemaFormat = Literal["json", "openapi"]
_FILLED = {
    "systemInstruction": "systemInstruction",
    "system_instruction": "systemInstruction",
    "toolConfig": "toolConfig",
    "tool_config": "toolConfig",
}
"""`GenerateContentConfig` fields toolwire fills in, by either spelling the SDK accepts."""


class GeminiAdapter(Adapter):
    """Tools, streams, results and history for google-genai's `models.generate_content`."""

    api: ClassVar[str] = "gemini"
    provider: ClassVar[str] = "google"
    name_rules = GEMINI_NAMES
    capabilities = Capabilities(
        strict_tools=False,
        native_input_examples=False,
        output_schema=True,
        parallel_tool_calls=True,
        disable_parallel=False,
        allowed_tools_subset=True,
        streamed_arguments=False,
        image_tool_results=True,
        file_tool_results=True,
        reasoning=True,
        server_tools=True,
    )
    reserved_tool_fields = frozenset(
        {"name", "description", "parameters", "parameters_json_schema", "response", "response_json_schema"}
    )
    client_spec = ClientSpec(
        package="google.genai",
        expected="a google.genai.Client (it serves sync runs, and async ones through `.aio`) or its `.aio`",
        both_classes=("Client",),
        async_classes=("AsyncClient",),
        method="models.generate_content",
    )

    def __init__(
        self,
        *,
        schema_format: SchemaFormat = "json",
        stream_function_call_arguments: bool = False,
        function_response_parts: bool = True,
        vertex: bool | None = None,
    ) -> None:
        if schema_format not in ("json", "openapi"):
            raise ConfigurationError(f"gemini: schema_format must be 'json' or 'openapi', got {schema_format!r}")
        for name, value in (
            ("stream_function_call_arguments", stream_function_call_arguments),
            ("function_response_parts", function_response_parts),
            ("vertex", stream_function_call_arguments if vertex is None else vertex),
        ):
            if not isinstance(value, bool):
                raise ConfigurationError(f"gemini: {name} must be true or false, got {value!r}")
        if vertex is False and stream_function_call_arguments:
            raise ConfigurationError("gemini: stream_function_call_arguments is Vertex AI only, but vertex=False")
        self.schema_format: SchemaFormat = schema_format
        self.stream_function_call_arguments = stream_function_call_arguments
        self.function_response_parts = function_response_parts
        self.vertex: bool = stream_function_call_arguments if vertex is None else vertex

    def settings_key(self) -> tuple[Any, ...]:
        """The settings that change tool entries."""
        return (self.schema_format, self.vertex)

    # -- tool definitions ----------------------------------------------------------------

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """One `functionDeclarations` entry."""
        entry: dict[str, Any] = {"name": wire_name, "description": self._description(tool, options, degradations)}
        notes = SchemaNotes()
        schema = tool.input_schema.json_schema
        if self.schema_format == "json":
            entry["parameters_json_schema"] = json_schema_for_gemini(schema, notes, "input_schema")
        elif schema.get("properties"):
            entry["parameters"] = openapi_schema_for_gemini(
                schema, notes, tool_id=tool.id, field="input_schema", vertex=self.vertex
            )
        if tool.output_schema is not None:
            output = tool.output_schema.json_schema
            if self.schema_format == "json":
                entry["response_json_schema"] = json_schema_for_gemini(output, notes, "output_schema")
            else:
                entry["response"] = openapi_schema_for_gemini(
                    output, notes, tool_id=tool.id, field="output_schema", vertex=self.vertex
                )
        for feature, action in notes.actions():
            self.degrade(degradations, feature, action, tool.id)
        if (tool.strict if tool.strict is not None else options.strict) is True:
            self.degrade(
                degradations,
                "strict",
                "Gemini has no per-tool strict flag: sent without one (use tool_choice {'validated': true} for "
                "VALIDATED mode, which holds every call to its schema)",
                tool.id,
            )
        return entry

    def _description(self, tool: Tool, options: EncodeOptions, degradations: list[Degradation]) -> str:
        if not tool.input_examples:
            return tool.description
        if not options.examples_in_description:
            self.degrade(
                degradations,
                "input_examples",
                "Gemini has no field for input examples: dropped (examples_in_description=False)",
                tool.id,
            )
            return tool.description
        self.degrade(
            degradations,
            "input_examples",
            "Gemini has no field for input examples: folded into the description as an 'Examples:' section",
            tool.id,
        )
        return description_with_examples(tool)

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        """`{"tools": [{"functionDeclarations": [...]}], "toolConfig": {"functionCallingConfig": {...}}}`."""
        if len(entries) > MAX_DECLARATIONS:
            raise ConfigurationError(
                f"gemini takes at most {MAX_DECLARATIONS} function declarations per request, got {len(entries)}"
            )
        if not entries:
            if choice is not None and choice.mode != "none":
                self.degrade(
                    degradations,
                    "tool_choice",
                    "no tools were given: toolConfig was left out (Gemini rejects it without function declarations)",
                )
            return {}
        config = function_calling_config(
            choice,
            names,
            vertex_stream_arguments=self.stream_function_call_arguments,
            degradations=degradations,
            degrade=self.degrade,
        )
        if schema_constrained(config):
            degradations[:] = [d for d in degradations if d.feature != "strict"]
        fragment: dict[str, Any] = {"tools": [{"functionDeclarations": entries}]}
        if config is not None:
            fragment["toolConfig"] = {"functionCallingConfig": config}
        return fragment

    # -- responses -----------------------------------------------------------------------

    def new_decoder(self) -> GeminiDecoder:
        """Fresh state for one response."""
        return GeminiDecoder()

    # -- calling the SDK (used by the agent loop) -------------------------------------------

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
        """`models.generate_content(_stream)` keyword arguments: `model`, `contents`, `config`.

        `options` may hold `config` (more `GenerateContentConfig` fields, e.g. `thinkingConfig`)
        and `tools` (Gemini's own tools, e.g. `{"googleSearch": {}}`, `{"codeExecution": {}}`),
        which go after toolwire's function declarations; `config.tools` is taken the same way.

        Raises:
            ConfigurationError: another option, or a `config` that sets what toolwire fills in
                (the system instruction from system messages, the tool config of a tool choice).
        """
        unknown = sorted(set(options) - {"config", "tools"})
        if unknown:
            raise ConfigurationError(f"gemini: request options are `config` and `tools`, got {unknown}")
        encoded = self._history_fields(messages, degradations, model=model)
        fragment: dict[str, Any] = dict(tools or {})
        extra = dict(options.get("config") or {})
        provider_tools = [*options.get("tools", ()), *extra.pop("tools", ())]
        filled = {*encoded, *fragment}
        clash = sorted(key for key in extra if _FILLED.get(key) in filled)
        if clash:
            raise ConfigurationError(f"gemini: options.config sets {clash}, which toolwire fills in")
        config: dict[str, Any] = {k: v for k, v in encoded.items() if k != "contents"} | fragment | extra
        if provider_tools:
            config["tools"] = [*config.get("tools", ()), *provider_tools]
        request: dict[str, Any] = {"model": model, "contents": encoded["contents"]}
        if config:
            request["config"] = config
        return request

    def invoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """The response (or stream of chunks) of `client.models.generate_content(_stream)`."""
        if stream:
            return client.models.generate_content_stream(**request)
        return client.models.generate_content(**request)

    async def ainvoke(self, client: Any, request: Mapping[str, Any], *, stream: bool) -> Any:
        """`invoke` through `client.aio` (or through `client` itself when it is that async side)."""
        models = getattr(client, "aio", client).models
        if stream:
            return await models.generate_content_stream(**request)
        return await models.generate_content(**request)

    def sdk_client(
        self,
        *,
        api_key: str,
        asynchronous: bool = False,
        http_client: Any = None,
        base_url: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> Any:
        """A `google.genai.Client` for the Gemini API `v1beta`, without retries.

        The same client serves both modes (`client.aio` is its async side); keep a reference
        while streaming: the client closes its HTTP client when collected. Beside the given
        `http_client`, google-genai builds the other mode's client and a websocket context:
        with `ssl_context`, all of them share it instead of loading the CA store each.
        """
        with optional_imports("the gemini adapter's SDK client"):
            from google import genai
            from google.genai import types

        options: dict[str, Any] = {"api_version": "v1beta", "retry_options": types.HttpRetryOptions(attempts=1)}
        if base_url is not None:
            options["base_url"] = base_url
        if http_client is not None:
            options["httpx_async_client" if asynchronous else "httpx_client"] = http_client
        if ssl_context is not None:  # httpx clients take `verify`; aiohttp and websockets `ssl`
            options["client_args"] = {"verify": ssl_context}
            options["async_client_args"] = {"verify": ssl_context, "ssl": ssl_context}
        return genai.Client(api_key=api_key, http_options=types.HttpOptions(**options))

    # -- results and history ---------------------------------------------------------------

    def encode_tool_results(self, results: Sequence[ToolResult], /) -> list[dict[str, Any]]:
        """One `user` content with a `functionResponse` per result (`[]` for no results)."""
        if not results:
            return []
        degradations: list[Degradation] = []
        parts = function_responses(results, self._noter(degradations), nested_media=self.function_response_parts)
        report(degradations)
        return [{"role": "user", "parts": parts}]

    def encode_history(
        self,
        messages: Sequence[Message],
        degradations: list[Degradation],
        /,
        *,
        thought_signature_placeholder: bool = True,
        model: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """`{"contents": [...], "systemInstruction"?: {"parts": [...]}}` as google-genai sends them.

        `thought_signature_placeholder=False` leaves calls Gemini did not produce unsigned.
        `model`: for Gemini 1.x/2.x, which refuse media inside `functionResponse.parts` (400
        INVALID_ARGUMENT), tool-result media goes after the responses even when the adapter
        nests it by default.

        Raises:
            ConfigurationError: an unknown option, or a result or media part that cannot be encoded.
        """
        if options:
            raise ConfigurationError(f"gemini: encode_messages has no option(s) {sorted(options)}")
        nested = self.function_response_parts and not _before_gemini_3(model)
        encoder = HistoryEncoder(
            self._noter(degradations),
            nested_media=nested,
            signature_placeholder=thought_signature_placeholder,
        )
        return encoder.encode(messages)

    def _noter(self, degradations: list[Degradation]) -> Note:
        def note(feature: str, action: str, tool_id: str | None = None) -> None:
            self.degrade(degradations, feature, action, tool_id)

        return note


def _before_gemini_3(model: str | None) -> bool:
    """Gemini 1.x and 2.x models (media inside function responses arrived with Gemini 3)."""
    name = (model or "").rsplit("/", 1)[-1]
    return name.startswith(("gemini-1", "gemini-2"))
