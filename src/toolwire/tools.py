"""The neutral tool IR: `Tool` and `create_tool`, with everything Mastra's `createTool()` has.

A `Tool` is frozen and provider-neutral. Adapters translate it for one API surface; the
runtime gives its `execute`, hooks, schemas and transforms their behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from ._callbacks import Callback, count_positional, make_callback, required_keyword_only
from .exceptions import SchemaError, ToolDefinitionError
from .names import has_carriable_name
from .schema import CompiledSchema, SchemaValidationError, compile_schema

TransformPhase = Literal["input", "input_delta", "output", "error", "approval", "suspend", "resume"]
TRANSFORM_PHASES: tuple[TransformPhase, ...] = (
    "input",
    "input_delta",
    "output",
    "error",
    "approval",
    "suspend",
    "resume",
)
_PHASE_ALIASES = {"inputDelta": "input_delta"}

HOOK_ARGUMENTS: dict[str, frozenset[str]] = {
    "on_input_start": frozenset({"tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_input_delta": frozenset({"input_text_delta", "tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_input_available": frozenset({"input", "tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_output": frozenset({"output", "tool_call_id", "tool_name", "abort_signal"}),
}
"""Keyword names each hook may declare (the seed's `ToolCallOptions`, snake_cased)."""

TRANSFORM_ARGUMENTS = frozenset(
    {
        "input",
        "input_text_delta",
        "output",
        "error",
        "approval",
        "suspend_payload",
        "resume_data",
        "tool_call_id",
        "tool_name",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolAnnotations:
    """MCP behaviour hints (spec defaults apply where a hint is None)."""

    title: str | None = None
    """Human-readable name for display."""
    read_only_hint: bool | None = None
    """True: the tool does not modify its environment (default false)."""
    destructive_hint: bool | None = None
    """True: the tool may perform destructive updates (default true)."""
    idempotent_hint: bool | None = None
    """True: repeating a call with the same arguments has no further effect (default false)."""
    open_world_hint: bool | None = None
    """True: the tool talks to an open world of external entities (default true)."""

    def to_mcp(self) -> dict[str, Any]:
        """The annotations as MCP puts them on the wire (camelCase, unset hints omitted)."""
        wire = {
            "title": self.title,
            "readOnlyHint": self.read_only_hint,
            "destructiveHint": self.destructive_hint,
            "idempotentHint": self.idempotent_hint,
            "openWorldHint": self.open_world_hint,
        }
        return {k: v for k, v in wire.items() if v is not None}


@dataclass(frozen=True, slots=True, kw_only=True)
class McpProperties:
    """MCP-specific properties of a tool: annotations and free-form `_meta`."""

    annotations: ToolAnnotations | None = None
    meta: Mapping[str, Any] | None = None
    """Arbitrary metadata passed to MCP clients as `_meta`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseTransforms:
    """One function per phase, each taking keyword arguments and returning the payload to show."""

    input: Callback | None = None
    input_delta: Callback | None = None
    output: Callback | None = None
    error: Callback | None = None
    approval: Callback | None = None
    suspend: Callback | None = None
    resume: Callback | None = None

    def get(self, phase: TransformPhase) -> Callback | None:
        """The transform for a phase, if any."""
        return cast(Callback | None, getattr(self, phase))


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolTransform:
    """Target-aware payload transforms: `display` for UI streams, `transcript` for saved messages."""

    display: PhaseTransforms = field(default_factory=PhaseTransforms)
    transcript: PhaseTransforms = field(default_factory=PhaseTransforms)


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgroundConfig:
    """Background execution settings: the tool may keep running while the conversation goes on."""

    enabled: bool = True
    timeout: float | None = None
    """Seconds after which a background run is abandoned (None: no limit)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Further settings kept for the host runtime."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InputExample:
    """A valid input shown to the model as an example."""

    input: Mapping[str, Any]


@dataclass(frozen=True, eq=False, kw_only=True)
class Tool:
    """A provider-neutral tool. Build it with `create_tool` or `@tool`; it is immutable."""

    id: str
    """Unique id; adapters map it to each provider's name alphabet and back."""
    description: str
    """What the tool does; the model reads it to decide when to call it."""
    input_schema: CompiledSchema
    """Schema of the input `execute` receives: an object schema, or a string schema (`free_form`)."""
    output_schema: CompiledSchema | None = None
    """Schema of what `execute` returns, validated by the runtime when set."""
    strict: bool | None = None
    """True: ask providers for exact schema adherence (OpenAI, Anthropic); None: provider default."""
    input_examples: tuple[InputExample, ...] = ()
    """Valid inputs: native on Anthropic, folded into the description elsewhere (reported)."""
    provider_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per-provider fields merged into that provider's tool entry: keys `openai`, `anthropic`, `google`."""
    to_model_output: Callable[[Any], Any] | None = None
    """Turns the raw output into what the model sees: `{"type": "text"|"json"|"content", "value": ...}`."""
    transform: ToolTransform | None = None
    """Display and transcript transforms per phase; raw values stay with the runtime."""
    suspend_schema: CompiledSchema | None = None
    """Schema of the payload `execute` passes to `suspend()`."""
    resume_schema: CompiledSchema | None = None
    """Schema of the data `resume()` continues a suspended call with."""
    require_approval: bool = False
    """True: the runtime asks for approval before `execute` runs."""
    mcp: McpProperties | None = None
    """MCP annotations and `_meta`, used when the tool is served over MCP."""
    request_context_schema: CompiledSchema | None = None
    """Schema the request context must match before `execute` runs."""
    background: BackgroundConfig | None = None
    """Background execution settings."""
    execute: Callable[..., Any] | None = None
    """`execute(input, context)`, sync or async; None for tools executed elsewhere."""
    on_input_start: Callback | None = None
    on_input_delta: Callback | None = None
    on_input_available: Callback | None = None
    on_output: Callback | None = None
    target: Any = None
    """The declarative HTTP target behind `execute`, when the tool was declared with one."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Free-form data for the application; toolwire never reads it."""
    _wire_cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def free_form(self) -> bool:
        """Whether the input is free text (a string schema), not a JSON object.

        OpenAI sends such a tool as a custom tool and its calls carry raw text; providers
        without free-form tools get an object with one string property `input`
        (`STRING_INPUT_KEY`, reported as a degradation). Either way `execute` and
        `tool-input-available` receive the text itself.
        """
        return self.input_schema.json_schema.get("type") == "string"

    @property
    def title(self) -> str | None:
        """The MCP title annotation, if any."""
        return self.mcp.annotations.title if self.mcp and self.mcp.annotations else None


def create_tool(
    *,
    id: str,
    description: str,
    input_schema: Any = None,
    output_schema: Any = None,
    strict: bool | None = None,
    input_examples: Sequence[Mapping[str, Any]] | None = None,
    provider_options: Mapping[str, Mapping[str, Any]] | None = None,
    to_model_output: Callable[[Any], Any] | None = None,
    transform: Mapping[str, Any] | ToolTransform | None = None,
    suspend_schema: Any = None,
    resume_schema: Any = None,
    require_approval: bool = False,
    mcp: Mapping[str, Any] | McpProperties | None = None,
    request_context_schema: Any = None,
    background: bool | Mapping[str, Any] | BackgroundConfig | None = None,
    execute: Callable[..., Any] | None = None,
    on_input_start: Callable[..., Any] | None = None,
    on_input_delta: Callable[..., Any] | None = None,
    on_input_available: Callable[..., Any] | None = None,
    on_output: Callable[..., Any] | None = None,
    target: Any = None,
    target_host: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> Tool:
    """Define a tool, checking everything that can be checked before a provider sees it.

    Raises:
        ToolDefinitionError: a missing id or description, an id no provider can carry, a
            input schema that is neither an object nor a string (free-form) schema, an input
            example that fails the schema, a malformed
            option, or a hook that asks for arguments it will never get.
    """
    tool_id = _check_id(id)
    if not isinstance(description, str) or not description.strip():
        raise ToolDefinitionError(tool_id, "description", "is required: say what the tool does")
    compiled_input = _compile(tool_id, "input_schema", input_schema if input_schema is not None else _EMPTY_OBJECT)
    if not compiled_input.is_object and compiled_input.json_schema.get("type") != "string":
        raise ToolDefinitionError(
            tool_id,
            "input_schema",
            "must be an object schema, or a string schema for a free-form tool "
            f"(got {json.dumps(compiled_input.json_schema)[:120]})",
        )
    if target is not None:
        if execute is not None:
            raise ToolDefinitionError(tool_id, "target", "replaces `execute`: give one or the other")
        for name, value in (("suspend_schema", suspend_schema), ("resume_schema", resume_schema)):
            if value is not None:
                raise ToolDefinitionError(tool_id, name, "cannot be given with `target`: the target defines it")
        from .targets import bind_target

        bound = bind_target(tool_id, target, target_host)
        execute = bound.execute
        to_model_output = to_model_output or bound.to_model_output
        transform = _merge_transforms(_build_transform(tool_id, transform), bound.transform)
    if execute is not None:
        _check_execute(tool_id, execute)
    return Tool(
        id=tool_id,
        description=description,
        input_schema=compiled_input,
        output_schema=_compile_optional(tool_id, "output_schema", output_schema, mode="serialization"),
        strict=_check_optional_bool(tool_id, "strict", strict),
        input_examples=_check_examples(tool_id, compiled_input, input_examples),
        provider_options=_check_provider_options(tool_id, provider_options),
        to_model_output=_check_callable(tool_id, "to_model_output", to_model_output),
        transform=_build_transform(tool_id, transform),
        suspend_schema=_compile_optional(tool_id, "suspend_schema", suspend_schema),
        resume_schema=_compile_optional(tool_id, "resume_schema", resume_schema),
        require_approval=bool(_check_optional_bool(tool_id, "require_approval", require_approval)),
        mcp=_build_mcp(tool_id, mcp),
        request_context_schema=_compile_optional(tool_id, "request_context_schema", request_context_schema),
        background=_build_background(tool_id, background),
        execute=execute,
        on_input_start=_hook(tool_id, "on_input_start", on_input_start),
        on_input_delta=_hook(tool_id, "on_input_delta", on_input_delta),
        on_input_available=_hook(tool_id, "on_input_available", on_input_available),
        on_output=_hook(tool_id, "on_output", on_output),
        target=target,
        metadata=dict(metadata or {}),
    )


_EMPTY_OBJECT: Mapping[str, Any] = {"type": "object", "properties": {}}

STRING_INPUT_KEY = "input"
"""The one property wrapping a free-form (string) input where a provider needs an object:
custom tool calls decoded as `{"input": text}`, and string-input tools sent to providers
without free-form tools. Tools whose input schema is a string get the text itself."""


def object_view(tool: Tool) -> Tool:
    """A free-form tool as an object tool with one required string property `input` (cached).

    For providers without free-form tools; `free_form_input` turns the call's object back into the text.
    """
    view = tool._wire_cache.get("object_view")
    if view is None:
        wrapper = {
            "type": "object",
            "properties": {STRING_INPUT_KEY: tool.input_schema.json_schema},
            "required": [STRING_INPUT_KEY],
            "additionalProperties": False,
        }
        view = tool._wire_cache["object_view"] = replace(
            tool, input_schema=_compile(tool.id, "input_schema", wrapper), _wire_cache={}
        )
    return cast(Tool, view)


def free_form_input(value: Any) -> Any:
    """The text of a free-form call: `{"input": text}` (a custom call, a wrapped tool) unwrapped."""
    if isinstance(value, Mapping) and len(value) == 1:  # pyright: ignore[reportUnknownArgumentType]
        text = value.get(STRING_INPUT_KEY)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(text, str):
            return text
    return value


def object_input(value: Any) -> Any:
    """A call's input for a provider that needs an object: free text wrapped as `{"input": text}`."""
    return {STRING_INPUT_KEY: value} if isinstance(value, str) else value


def _check_id(tool_id: Any) -> str:
    if not isinstance(tool_id, str) or not tool_id.strip():
        raise ToolDefinitionError(None, "id", "is required and must be a non-empty string")
    if not has_carriable_name(tool_id):
        raise ToolDefinitionError(
            tool_id, "id", "has no ASCII letter or digit, so no provider can carry it even after mapping"
        )
    return tool_id


def _compile(
    tool_id: str, field_name: str, source: Any, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema:
    try:
        return compile_schema(source, mode=mode)
    except SchemaError as exc:
        raise ToolDefinitionError(tool_id, field_name, str(exc)) from exc


def _compile_optional(
    tool_id: str, field_name: str, source: Any, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema | None:
    return None if source is None else _compile(tool_id, field_name, source, mode)


def _check_optional_bool(tool_id: str, field_name: str, value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ToolDefinitionError(tool_id, field_name, f"must be true, false or None, got {value!r}")
    return value


def _check_callable(tool_id: str, field_name: str, fn: Any) -> Any:
    if fn is not None and not callable(fn):
        raise ToolDefinitionError(tool_id, field_name, f"must be a function, got {type(fn).__name__}")
    return fn


def _check_execute(tool_id: str, execute: Any) -> None:
    _check_callable(tool_id, "execute", execute)
    required, maximum = count_positional(execute)
    if required > 2 or maximum < 1:
        raise ToolDefinitionError(tool_id, "execute", "must accept `(input)` or `(input, context)`")
    keyword_only = required_keyword_only(execute)
    if keyword_only:
        raise ToolDefinitionError(
            tool_id,
            "execute",
            f"has required keyword-only parameters {keyword_only}, which are never passed; "
            "take `(input, context)` positionally",
        )


def _check_examples(
    tool_id: str, schema: CompiledSchema, examples: Sequence[Mapping[str, Any]] | None
) -> tuple[InputExample, ...]:
    if examples is None:
        return ()
    if isinstance(examples, (str, bytes, Mapping)):
        raise ToolDefinitionError(tool_id, "input_examples", 'must be a list of {"input": {...}} objects')
    checked: list[InputExample] = []
    for position, example in enumerate(examples):
        where = f"input_examples[{position}]"
        if schema.json_schema.get("type") == "string":
            raise ToolDefinitionError(
                tool_id, "input_examples", "are for object inputs: describe a free-form tool's text in its description"
            )
        if not isinstance(example, Mapping) or set(example) != {"input"} or not isinstance(example["input"], Mapping):
            raise ToolDefinitionError(tool_id, where, 'must be {"input": {...}}')
        try:
            value = json.loads(json.dumps(example["input"]))
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(tool_id, where, f"is not JSON, so no provider can be sent it: {exc}") from None
        try:
            schema.validate(value)
        except SchemaValidationError as exc:
            raise ToolDefinitionError(tool_id, where, f"does not match the input schema: {exc}") from None
        checked.append(InputExample(input=value))
    return tuple(checked)


def _check_provider_options(
    tool_id: str, options: Mapping[str, Mapping[str, Any]] | None
) -> Mapping[str, Mapping[str, Any]]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ToolDefinitionError(tool_id, "provider_options", "must map provider names to option dicts")
    for provider, values in options.items():
        if not isinstance(provider, str) or not isinstance(values, Mapping):
            raise ToolDefinitionError(tool_id, f"provider_options[{provider!r}]", "must be a dict of options")
    return {provider: dict(values) for provider, values in options.items()}


def _hook(tool_id: str, name: str, fn: Callable[..., Any] | None) -> Callback | None:
    return make_callback(fn, tool_id=tool_id, field=name, offered=HOOK_ARGUMENTS[name])


def _build_transform(tool_id: str, spec: Mapping[str, Any] | ToolTransform | None) -> ToolTransform | None:
    if spec is None or isinstance(spec, ToolTransform):
        return spec
    if not isinstance(spec, Mapping) or set(spec) - {"display", "transcript"}:
        raise ToolDefinitionError(tool_id, "transform", 'must be {"display": {...}, "transcript": {...}}')
    targets: dict[str, PhaseTransforms] = {}
    for target_name, phases in spec.items():
        if not isinstance(phases, Mapping):
            raise ToolDefinitionError(tool_id, f"transform.{target_name}", "must map phases to functions")
        built: dict[str, Callback | None] = {}
        for phase, fn in phases.items():
            key = _PHASE_ALIASES.get(phase, phase)
            if key not in TRANSFORM_PHASES:
                raise ToolDefinitionError(
                    tool_id, f"transform.{target_name}.{phase}", f"is not a phase; phases: {list(TRANSFORM_PHASES)}"
                )
            built[key] = make_callback(
                fn, tool_id=tool_id, field=f"transform.{target_name}.{phase}", offered=TRANSFORM_ARGUMENTS
            )
        targets[target_name] = PhaseTransforms(**built)
    return ToolTransform(**targets)


_ANNOTATION_KEYS = {
    "title": "title",
    "readOnlyHint": "read_only_hint",
    "destructiveHint": "destructive_hint",
    "idempotentHint": "idempotent_hint",
    "openWorldHint": "open_world_hint",
}


def _merge_transforms(mine: ToolTransform | None, bound: ToolTransform | None) -> ToolTransform | None:
    """The user's transforms phase by phase, the target's where the user gave none."""
    if mine is None or bound is None:
        return mine or bound

    def merge(first: PhaseTransforms, second: PhaseTransforms) -> PhaseTransforms:
        return PhaseTransforms(**{phase: first.get(phase) or second.get(phase) for phase in TRANSFORM_PHASES})

    return ToolTransform(
        display=merge(mine.display, bound.display), transcript=merge(mine.transcript, bound.transcript)
    )


def _build_mcp(tool_id: str, spec: Mapping[str, Any] | McpProperties | None) -> McpProperties | None:
    if spec is None or isinstance(spec, McpProperties):
        return spec
    if not isinstance(spec, Mapping) or set(spec) - {"annotations", "_meta", "meta"}:
        raise ToolDefinitionError(tool_id, "mcp", 'must be {"annotations": {...}, "_meta": {...}}')
    annotations = spec.get("annotations")
    built: ToolAnnotations | None = None
    if isinstance(annotations, ToolAnnotations):
        built = annotations
    elif annotations is not None:
        if not isinstance(annotations, Mapping):
            raise ToolDefinitionError(tool_id, "mcp.annotations", "must be a dict")
        values: dict[str, Any] = {}
        for key, value in annotations.items():
            name = _ANNOTATION_KEYS.get(str(key), str(key))
            if name not in _ANNOTATION_KEYS.values():
                raise ToolDefinitionError(
                    tool_id, f"mcp.annotations.{key}", f"is not an MCP annotation; known: {list(_ANNOTATION_KEYS)}"
                )
            expected = str if name == "title" else bool
            if value is not None and not isinstance(value, expected):
                raise ToolDefinitionError(tool_id, f"mcp.annotations.{key}", f"must be a {expected.__name__}")
            values[name] = value
        built = ToolAnnotations(**values)
    meta = spec.get("_meta", spec.get("meta"))
    if meta is not None and not isinstance(meta, Mapping):
        raise ToolDefinitionError(tool_id, "mcp._meta", "must be a dict")
    return McpProperties(annotations=built, meta=dict(meta) if meta is not None else None)


def _build_background(
    tool_id: str, spec: bool | Mapping[str, Any] | BackgroundConfig | None
) -> BackgroundConfig | None:
    if spec is None or spec is False:
        return None
    if spec is True:
        return BackgroundConfig()
    if isinstance(spec, BackgroundConfig):
        return spec
    if not isinstance(spec, Mapping):
        raise ToolDefinitionError(tool_id, "background", "must be true, false or a dict of settings")
    options = dict(spec)
    enabled = options.pop("enabled", True)
    timeout = options.pop("timeout", None)
    if not isinstance(enabled, bool) or not (timeout is None or isinstance(timeout, (int, float))):
        raise ToolDefinitionError(tool_id, "background", "`enabled` must be a bool and `timeout` a number of seconds")
    return BackgroundConfig(enabled=enabled, timeout=timeout, options=options)
