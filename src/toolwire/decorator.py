"""`@tool`: a Tool from a typed Python function, its signature and its docstring."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, overload

import pydantic

from ._docstrings import parse_docstring
from .exceptions import ToolDefinitionError
from .tools import Tool, create_tool

if TYPE_CHECKING:
    from .results import ToolResult
    from .runtime.suspension import Suspension

_O = TypeVar("_O")

_CONTEXT_NAMES = frozenset({"context", "ctx"})


@overload
def tool(fn: Callable[..., Awaitable[_O]], /) -> Tool[pydantic.BaseModel, _O, ToolResult | Suspension]: ...
@overload
def tool(fn: Callable[..., _O], /) -> Tool[pydantic.BaseModel, _O, ToolResult | Suspension]: ...
@overload
def tool(*, id: str | None = None, description: str | None = None, **options: Any) -> ToolDecorator: ...
def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    description: str | None = None,
    **options: Any,
) -> Tool | ToolDecorator:
    """Turn a function into a Tool: parameters become the input schema, the docstring the descriptions.

    Typed as `Tool[BaseModel, R, ToolResult | Suspension]`: `execute` receives the model built from
    the parameters, `R` is the function's return type (awaited for an async function), and a tool
    whose function takes the context may suspend.

    A parameter named `context` (or `ctx`) receives the execution context instead of input.
    The return annotation becomes the output schema unless `output_schema` is given.
    Any other `create_tool` option can be passed as a keyword.

    Raises:
        ToolDefinitionError: `*args`/`**kwargs` parameters, or a description that is nowhere to be found.
    """

    def build(function: Callable[..., Any]) -> Tool:
        return _tool_from_function(function, id, description, options)

    return build(fn) if fn is not None else cast(ToolDecorator, build)


class ToolDecorator(Protocol):
    """What `@tool(...)` with options returns: a decorator typed like `@tool` itself.

    Its tools are `Tool[BaseModel, R]`: the input is the model built from the parameters, `R` the
    function's return type (awaited); the outcome is left open, as the options may ask for approval.
    """

    @overload
    def __call__(self, fn: Callable[..., Awaitable[_O]], /) -> Tool[pydantic.BaseModel, _O]: ...
    @overload
    def __call__(self, fn: Callable[..., _O], /) -> Tool[pydantic.BaseModel, _O]: ...


def _tool_from_function(
    fn: Callable[..., Any], tool_id: str | None, description: str | None, options: dict[str, Any]
) -> Tool:
    name = tool_id or getattr(fn, "__name__", None) or "tool"
    docs = parse_docstring(inspect.getdoc(fn))
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError) as exc:
        problem = f"cannot be resolved ({exc}); define the types at module level"
        raise ToolDefinitionError(name, "annotations", problem) from exc
    signature = inspect.signature(fn)
    fields: dict[str, Any] = {}
    attributes: dict[str, str] = {}
    positional: list[str] = []
    context_param: str | None = None
    for parameter in signature.parameters.values():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ToolDefinitionError(name, parameter.name, "cannot be *args or **kwargs in a tool function")
        annotation = hints.get(parameter.name, Any)
        if parameter.name in _CONTEXT_NAMES or getattr(annotation, "__name__", "") == "ToolContext":
            context_param = parameter.name
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional.append(parameter.name)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        described = docs.params.get(parameter.name)
        attribute = _attribute_name(parameter.name)
        field_options: dict[str, Any] = {"description": described} if described else {}
        if attribute != parameter.name:
            field_options["alias"] = parameter.name
        fields[attribute] = (annotation, pydantic.Field(default, **field_options))
        attributes[parameter.name] = attribute
    input_model = pydantic.create_model(
        f"{_camel(name)}Input", __config__=pydantic.ConfigDict(extra="forbid", populate_by_name=True), **fields
    )
    text = description if description is not None else docs.description
    if not text:
        raise ToolDefinitionError(name, "description", "is required: give a docstring or description=...")
    if "output_schema" not in options:
        returned = hints.get("return", Any)
        if returned not in (Any, None, type(None), inspect.Signature.empty):
            options = {**options, "output_schema": returned}
    execute = _make_execute(fn, attributes, positional, context_param)
    return create_tool(id=name, description=text, input_schema=input_model, execute=execute, **options)


def _attribute_name(parameter: str) -> str:
    """A model attribute for a parameter; names pydantic's BaseModel already uses get an alias."""
    if parameter.startswith(("_", "model_")) or hasattr(pydantic.BaseModel, parameter):
        return f"param_{parameter.lstrip('_')}"
    return parameter


def _make_execute(
    fn: Callable[..., Any], attributes: dict[str, str], positional: list[str], context_param: str | None
) -> Callable[..., Any]:
    def arguments(value: Any, context: Any) -> tuple[list[Any], dict[str, Any]]:
        kwargs = {parameter: getattr(value, attribute) for parameter, attribute in attributes.items()}
        args = [kwargs.pop(n) for n in positional]
        if context_param is not None:
            kwargs[context_param] = context
        return args, kwargs

    if inspect.iscoroutinefunction(fn):

        async def execute_async(value: Any, context: Any = None) -> Any:
            args, kwargs = arguments(value, context)
            return await fn(*args, **kwargs)

        return execute_async

    def execute(value: Any, context: Any = None) -> Any:
        args, kwargs = arguments(value, context)
        return fn(*args, **kwargs)

    return execute


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part) or "Tool"
