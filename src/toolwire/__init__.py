"""toolwire: one tool definition for every LLM provider API.

Define tools once (`create_tool`, `@tool`), encode them for any API surface
(`get_adapter(api).encode_tools`), normalize whatever comes back into unified events
(`get_adapter(api).normalize`), run the calls (`execute_tool`) and send the results back.
No provider SDK is imported here: each adapter imports its own, when it is asked for.

The names below are imported on first use (PEP 562 `__getattr__`), so `import toolwire` costs
almost nothing and a path pays only for the modules it touches (pydantic, jsonschema,
asyncio...). Type checkers read the `TYPE_CHECKING` imports; `_EXPORTS` must list the same names.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapter import Adapter, EncodedMessages, EncodedTools, EncodeOptions, StreamDecoder
    from .agent import Agent, AgentResult
    from .capabilities import Capabilities
    from .compat import CompatibilityWarning, Degradation
    from .decorator import tool
    from .events import Event, FinishReason, Usage
    from .exceptions import (
        AdapterNotFound,
        ApprovalError,
        ArgumentError,
        ConfigurationError,
        MalformedFrameError,
        MissingExtraError,
        ProtocolError,
        ResumeError,
        SchemaError,
        StreamProtocolError,
        ToolDefinitionError,
        ToolError,
        ToolInputError,
        ToolNameCollisionError,
        ToolwireError,
    )
    from .messages import (
        AssistantMessage,
        Message,
        ReasoningPart,
        SystemMessage,
        TextPart,
        ToolMessage,
        UserMessage,
        assistant_message,
    )
    from .registry import get_adapter, list_adapters, register_adapter, unregister_adapter
    from .results import (
        ToolCall,
        ToolResult,
        content,
        custom,
        error_json,
        error_text,
        execution_denied,
        file_data,
        file_id,
        file_url,
        image_data,
        image_file_id,
        image_url,
        json_output,
        text,
        text_part,
    )
    from .runtime import (
        AbortSignal,
        ApprovalRequest,
        ExecutionSettings,
        RunState,
        Suspension,
        Toolbox,
        ToolContext,
        execute_tool,
        execute_tool_sync,
        resume_tool,
    )
    from .schema import CompiledSchema, compile_schema
    from .tool_choice import ToolChoice
    from .tools import McpProperties, Tool, ToolAnnotations, ToolTransform, create_tool

__all__ = [
    "AbortSignal",
    "Adapter",
    "AdapterNotFound",
    "Agent",
    "AgentResult",
    "ApprovalError",
    "ApprovalRequest",
    "ArgumentError",
    "AssistantMessage",
    "Capabilities",
    "CompatibilityWarning",
    "CompiledSchema",
    "ConfigurationError",
    "Degradation",
    "EncodeOptions",
    "EncodedMessages",
    "EncodedTools",
    "Event",
    "ExecutionSettings",
    "FinishReason",
    "MalformedFrameError",
    "McpProperties",
    "Message",
    "MissingExtraError",
    "ProtocolError",
    "ReasoningPart",
    "ResumeError",
    "RunState",
    "SchemaError",
    "StreamDecoder",
    "StreamProtocolError",
    "Suspension",
    "SystemMessage",
    "TextPart",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolChoice",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolInputError",
    "ToolMessage",
    "ToolNameCollisionError",
    "ToolResult",
    "ToolTransform",
    "Toolbox",
    "ToolwireError",
    "Usage",
    "UserMessage",
    "assistant_message",
    "compile_schema",
    "content",
    "create_tool",
    "custom",
    "error_json",
    "error_text",
    "execute_tool",
    "execute_tool_sync",
    "execution_denied",
    "file_data",
    "file_id",
    "file_url",
    "get_adapter",
    "image_data",
    "image_file_id",
    "image_url",
    "json_output",
    "list_adapters",
    "register_adapter",
    "resume_tool",
    "text",
    "text_part",
    "tool",
    "unregister_adapter",
]

_EXPORTS: dict[str, tuple[str, ...]] = {  # module -> the names it exports here
    "adapter": ("Adapter", "EncodedMessages", "EncodedTools", "EncodeOptions", "StreamDecoder"),
    "agent": ("Agent", "AgentResult"),
    "capabilities": ("Capabilities",),
    "compat": ("CompatibilityWarning", "Degradation"),
    "decorator": ("tool",),
    "events": ("Event", "FinishReason", "Usage"),
    "exceptions": (
        "AdapterNotFound",
        "ApprovalError",
        "ArgumentError",
        "ConfigurationError",
        "MalformedFrameError",
        "MissingExtraError",
        "ProtocolError",
        "ResumeError",
        "SchemaError",
        "StreamProtocolError",
        "ToolDefinitionError",
        "ToolError",
        "ToolInputError",
        "ToolNameCollisionError",
        "ToolwireError",
    ),
    "messages": (
        "AssistantMessage",
        "Message",
        "ReasoningPart",
        "SystemMessage",
        "TextPart",
        "ToolMessage",
        "UserMessage",
        "assistant_message",
    ),
    "registry": ("get_adapter", "list_adapters", "register_adapter", "unregister_adapter"),
    "results": (
        "ToolCall",
        "ToolResult",
        "content",
        "custom",
        "error_json",
        "error_text",
        "execution_denied",
        "file_data",
        "file_id",
        "file_url",
        "image_data",
        "image_file_id",
        "image_url",
        "json_output",
        "text",
        "text_part",
    ),
    "runtime": (
        "AbortSignal",
        "ApprovalRequest",
        "ExecutionSettings",
        "RunState",
        "Suspension",
        "Toolbox",
        "ToolContext",
        "execute_tool",
        "execute_tool_sync",
        "resume_tool",
    ),
    "schema": ("CompiledSchema", "compile_schema"),
    "tool_choice": ("ToolChoice",),
    "tools": ("McpProperties", "Tool", "ToolAnnotations", "ToolTransform", "create_tool"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name stays an error for them

    def __getattr__(name: str) -> Any:
        """Import an exported name on first access and keep it (later lookups are plain globals)."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module 'toolwire' has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    """Exported names show in `dir(toolwire)` and completion before they are imported."""
    return sorted({*globals(), *__all__})
