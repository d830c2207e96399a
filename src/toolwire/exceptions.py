"""Errors raised by toolwire, layered by who is at fault.

```
ToolwireError
├── ConfigurationError            caller misuse
│   ├── ToolDefinitionError       a tool that cannot be built (names the tool and the field)
│   ├── ToolNameCollisionError    two tool ids that map to one provider name
│   ├── AdapterNotFound           unknown api name (lists the known ones)
│   ├── SchemaError               a schema toolwire cannot compile or transform
│   ├── MissingExtraError         an optional dependency is not installed (names the extra)
│   ├── ArgumentError             a value of the wrong kind for an argument (names it and what it takes)
│   ├── ApprovalError             an approval answer for no waiting call (forged, replayed or stale)
│   └── ResumeError               a resume or supplied output for a call that does not wait for one
├── ToolInputError                model-supplied input that is not JSON or fails the schema
├── ToolError                     raised by a tool: its message (or model output) is sent as it is
└── ProtocolError                 provider bytes that break the wire contract
    ├── StreamProtocolError       a stream that cannot be decoded
    └── MalformedFrameError       a frame field of the wrong JSON type (raised by decoders)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ToolwireError(Exception):
    """Base class of every error toolwire raises on purpose."""


class ConfigurationError(ToolwireError):
    """The caller asked for something toolwire cannot do as asked."""


class ToolDefinitionError(ConfigurationError, ValueError):
    """A tool definition is invalid; the message names the tool and the field."""

    def __init__(self, tool_id: str | None, field: str, problem: str) -> None:
        self.tool_id = tool_id
        self.field = field
        self.problem = problem
        who = f"tool {tool_id!r}" if tool_id else "tool without an id"
        super().__init__(f"{who}: `{field}` {problem}")


class ToolNameCollisionError(ConfigurationError, ValueError):
    """Two tool ids map to the same provider name, so calls could not be told apart."""

    def __init__(self, api: str, wire_name: str, first_id: str, second_id: str) -> None:
        self.api = api
        self.wire_name = wire_name
        self.tool_ids = (first_id, second_id)
        super().__init__(
            f"tools {first_id!r} and {second_id!r} both map to the {api} name {wire_name!r}; rename one of them"
        )


class AdapterNotFound(ConfigurationError, LookupError):
    """No adapter is registered under the requested api name."""

    def __init__(self, api: str, known: Sequence[str], suggestion: str | None = None) -> None:
        self.api = api
        self.known = tuple(known)
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        super().__init__(f"no adapter for api {api!r}{hint}; known apis: {', '.join(self.known) or 'none'}")


class SchemaError(ConfigurationError, ValueError):
    """A schema cannot be compiled or transformed for a provider."""


class MissingExtraError(ConfigurationError, ModuleNotFoundError):
    """A feature needs an optional dependency that is not installed; the message says which extra brings it."""

    def __init__(self, feature: str, package: str, extra: str, module: str) -> None:
        self.feature = feature
        self.package = package
        self.extra = extra
        super().__init__(f"{feature} needs {package}: pip install 'toolwire[{extra}]'", name=module)


class ArgumentError(ConfigurationError, TypeError, ValueError):
    """An argument got a value of the wrong kind; the message names the argument and what it takes."""

    def __init__(self, argument: str, expected: str, got: Any = None, *, detail: str | None = None) -> None:
        self.argument = argument
        self.expected = expected
        shown = detail if detail is not None else f"got {_describe(got)}"
        super().__init__(f"`{argument}` must be {expected}; {shown}")


class ApprovalError(ConfigurationError, KeyError):
    """An approval answer that matches no waiting call: forged, replayed, or for a call already settled."""

    def __init__(self, approval_id: Any, message: str) -> None:
        self.approval_id = approval_id
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


class ResumeError(ConfigurationError, KeyError):
    """A resume (or a supplied output) for a call that does not wait for one."""

    def __init__(self, tool_call_id: Any, message: str) -> None:
        self.tool_call_id = tool_call_id
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


def _describe(value: Any) -> str:
    """`None`, or the type and a short repr of a value, for error messages."""
    if value is None:
        return "None"
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{type(value).__module__}.{type(value).__qualname__} {text}"


class ToolInputError(ToolwireError, ValueError):
    """Input produced by the model is not valid JSON or does not match the tool's schema."""

    def __init__(self, tool_id: str, message: str, raw: str | None = None) -> None:
        self.tool_id = tool_id
        self.raw = raw
        super().__init__(message)


class ToolError(ToolwireError):
    """Raise from `execute` to fail with your own words: the model sees exactly this output.

    `ToolError("city not found")` sends error text; `ToolError({"type": "error-json", "value": {...}})`
    sends any model-output form.
    """

    def __init__(self, output: str | dict[str, Any]) -> None:
        self.output: dict[str, Any] = {"type": "error-text", "value": output} if isinstance(output, str) else output
        super().__init__(output if isinstance(output, str) else str(output.get("value", output)))


class ProtocolError(ToolwireError):
    """Bytes from a provider do not follow its documented wire format."""


class StreamProtocolError(ProtocolError):
    """A stream could not be decoded; `offset` is the byte offset where decoding failed."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        self.offset = offset
        where = f" at byte {offset}" if offset is not None else ""
        super().__init__(f"{message}{where}")


class MalformedFrameError(ProtocolError, ValueError):
    """A decoder met a frame field of the wrong JSON type; `normalize` reports it as one `error` event.

    The message names the field and what it must be; the adapter adds its api.
    """
