"""The neutral tool IR: `Tool` and `create_tool`, with everything Mastra's `createTool()` has.

A `Tool` is frozen and provider-neutral. Adapters translate it for one API surface; the
runtime gives its `execute`, hooks, schemas and transforms their behaviour.

`Tool[InputT, OutputT, OutcomeT]` is generic for type checkers: `create_tool` and `@tool` infer
what `execute` receives and returns, and what `execute_tool` gives back for the tool (see `Tool`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Required, TypeAlias, TypedDict, overload

from typing_extensions import TypeVar, Unpack

from ._background_config import BackgroundConfig as BackgroundConfig
from ._background_config import build_background as _build_background
from ._callbacks import Callback
from ._free_form import STRING_INPUT_KEY as STRING_INPUT_KEY
from ._free_form import free_form_input as free_form_input
from ._free_form import object_input as object_input
from ._free_form import object_view as object_view
from ._tool_checks import check_callable as _check_callable
from ._tool_checks import check_examples as _check_examples
from ._tool_checks import check_execute as _check_execute
from ._tool_checks import check_id as _check_id
from ._tool_checks import check_optional_bool as _check_optional_bool
from ._tool_checks import check_provider_options as _check_provider_options
from ._tool_checks import compile_field as _compile
from ._tool_checks import compile_optional as _compile_optional
from ._tool_checks import hook as _hook
from ._tool_parts import HOOK_ARGUMENTS as HOOK_ARGUMENTS
from ._tool_parts import TRANSFORM_ARGUMENTS as TRANSFORM_ARGUMENTS
from ._tool_parts import TRANSFORM_PHASES as TRANSFORM_PHASES
from ._tool_parts import InputExample as InputExample
from ._tool_parts import McpProperties as McpProperties
from ._tool_parts import PhaseTransforms as PhaseTransforms
from ._tool_parts import ToolAnnotations as ToolAnnotations
from ._tool_parts import ToolTransform as ToolTransform
from ._tool_parts import TransformPhase as TransformPhase
from ._tool_parts import build_mcp as _build_mcp
from ._tool_parts import build_transform as _build_transform
from ._tool_parts import merge_transforms as _merge_transforms
from .exceptions import ToolDefinitionError
from .schema import CompiledSchema

if TYPE_CHECKING:
    from .results import ToolResult
    from .runtime.approvals import ApprovalRequest
    from .runtime.context import ToolContext
    from .runtime.suspension import Suspension

InputT = TypeVar("InputT", covariant=True, default=Any)
"""What `execute` receives: the model (or type) of `input_schema`; `Any` for a JSON Schema dict."""
OutputT = TypeVar("OutputT", covariant=True, default=Any)
"""What `execute` returns (awaited, for an async `execute`)."""
OutcomeT = TypeVar(
    "OutcomeT",
    covariant=True,
    bound="ToolResult | Suspension | ApprovalRequest",
    default="ToolResult | Suspension | ApprovalRequest",
)
"""What `execute_tool(tool, call)` can give back: `ToolResult` alone for a tool that neither suspends
nor waits for approval; `| Suspension` when `execute` takes the context (it may call `suspend()`);
`| ApprovalRequest` with `require_approval`. Unknown (a bare `Tool`): all three."""


@dataclass(frozen=True, eq=False, kw_only=True)
class Tool(Generic[InputT, OutputT, OutcomeT]):
    """A provider-neutral tool. Build it with `create_tool` or `@tool`; it is immutable.

    For type checkers it is `Tool[InputT, OutputT, OutcomeT]`: the input `execute` receives, what
    it returns, and what `execute_tool` gives back for it. `create_tool` and `@tool` infer all
    three; an annotation may name the first two only (`Tool[Weather, str]`), and a bare `Tool`
    accepts any tool.
    """

    id: str
    """Unique id; adapters map it to each provider's name alphabet and back."""
    description: str
    """What the tool does; the model reads it to decide when to call it."""
    input_schema: CompiledSchema[InputT]
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
    execute: Callable[..., OutputT | Awaitable[OutputT]] | None = None
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


class ToolOptions(TypedDict, total=False):
    """The keyword options of `create_tool` that do not shape its type (each is described there)."""

    id: Required[str]
    description: Required[str]
    output_schema: Any
    strict: bool | None
    input_examples: Sequence[Mapping[str, Any]] | None
    provider_options: Mapping[str, Mapping[str, Any]] | None
    to_model_output: Callable[[Any], Any] | None
    transform: Mapping[str, Any] | ToolTransform | None
    suspend_schema: Any
    resume_schema: Any
    mcp: Mapping[str, Any] | McpProperties | None
    request_context_schema: Any
    background: bool | Mapping[str, Any] | BackgroundConfig | None
    on_input_start: Callable[..., Any] | None
    on_input_delta: Callable[..., Any] | None
    on_input_available: Callable[..., Any] | None
    on_output: Callable[..., Any] | None
    metadata: Mapping[str, Any] | None


_I = TypeVar("_I")
_O = TypeVar("_O")
_Dict = Mapping[str, Any] | None
_CtxAsync: TypeAlias = Callable[[_I, "ToolContext"], Awaitable[_O]]
_CtxSync: TypeAlias = Callable[[_I, "ToolContext"], _O]
_Async: TypeAlias = Callable[[_I], Awaitable[_O]]
_Sync: TypeAlias = Callable[[_I], _O]
_No = Literal[False]


class _OtherOptions(ToolOptions, total=False):
    require_approval: bool
    target: Any
    target_host: Any


# These overloads only type `create_tool`: the input from `input_schema` (a class: that class;
# a dict: Any), the output from `execute` (awaited), the outcome from whether `execute` takes the
# context (it may suspend) and from `require_approval` (any value but a literal False may ask).
# An `execute` that could take the context is matched as one that does: a tool typed as never
# suspending never suspends. No catch-all takes an `execute`: mypy would type lambdas as Any.


@overload
def create_tool(
    *, input_schema: type[_I], execute: _CtxAsync[_I, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | Suspension]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _CtxSync[_I, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | Suspension]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _Async[_I, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _Sync[_I, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult]: ...
@overload
def create_tool(
    *,
    input_schema: _Dict = None,
    execute: _CtxAsync[Any, _O],
    require_approval: _No = False,
    **rest: Unpack[ToolOptions],
) -> Tool[Any, _O, ToolResult | Suspension]: ...
@overload
def create_tool(
    *,
    input_schema: _Dict = None,
    execute: _CtxSync[Any, _O],
    require_approval: _No = False,
    **rest: Unpack[ToolOptions],
) -> Tool[Any, _O, ToolResult | Suspension]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _Async[Any, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _Sync[Any, _O], require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _CtxAsync[_I, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | Suspension | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _CtxSync[_I, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | Suspension | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _Async[_I, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: _Sync[_I, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[_I, _O, ToolResult | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _CtxAsync[Any, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult | Suspension | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _CtxSync[Any, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult | Suspension | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _Async[Any, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: _Sync[Any, _O], require_approval: bool, **rest: Unpack[ToolOptions]
) -> Tool[Any, _O, ToolResult | ApprovalRequest]: ...
@overload
def create_tool(
    *, input_schema: type[_I], execute: None = None, require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[_I, Any, ToolResult]: ...
@overload
def create_tool(
    *, input_schema: _Dict = None, execute: None = None, require_approval: _No = False, **rest: Unpack[ToolOptions]
) -> Tool[Any, Any, ToolResult]: ...
@overload  # a target, or approval without execute
def create_tool(*, input_schema: type[_I], execute: None = None, **rest: Unpack[_OtherOptions]) -> Tool[_I]: ...
@overload
def create_tool(*, input_schema: Any = None, execute: None = None, **rest: Unpack[_OtherOptions]) -> Tool: ...
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
