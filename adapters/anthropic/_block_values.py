"""What Anthropic content blocks carry into deltas: call metadata, provider-run tools' outputs, plain JSON."""

from __future__ import annotations

from typing import Any

from toolwire.deltas import StreamFailed, ToolOutput
from toolwire.events import ProviderMetadata

from .._frames import field


def call_metadata(kind: str, block: Any) -> ProviderMetadata | None:
    """What a call needs to be replayed exactly: the block type of provider-run calls, the caller, the toolset."""
    caller = field(block, "caller")
    if caller is not None and field(caller, "type") == "direct":
        caller = None
    return anthropic_metadata(
        blockType=None if kind == "tool_use" else kind,
        serverName=field(block, "server_name") if kind == "mcp_tool_use" else None,
        caller=plain_json(caller),
        toolsetName=field(block, "toolset_name"),
    )


def provider_output(kind: str, block: Any) -> ToolOutput | StreamFailed:
    """A result block of a provider-run tool (web search, code execution, MCP, tool search, ...)."""
    call_id = field(block, "tool_use_id")
    if not isinstance(call_id, str):
        return StreamFailed(f"skipped an unreadable `{kind}` block: it has no `tool_use_id`")
    content = plain_json(field(block, "content"))
    if kind == "mcp_tool_result":
        failed = field(block, "is_error") is True
        if failed and isinstance(content, list):
            content = "\n".join(str(item.get("text", "")) for item in content if isinstance(item, dict))
    else:
        inner = content.get("type") if isinstance(content, dict) else None
        failed = isinstance(inner, str) and inner.endswith("_error")
    return ToolOutput(call_id, content, is_error=failed, provider_metadata=anthropic_metadata(blockType=kind))


def anthropic_metadata(**values: Any) -> ProviderMetadata | None:
    present = {k: v for k, v in values.items() if v is not None and v != ""}
    return {"anthropic": present} if present else None


def plain_json(value: Any) -> Any:
    """Plain JSON for a value read from a frame (SDK objects dumped as they were on the wire)."""
    if value is None or isinstance(value, (str, int, float, bool, dict)):
        return value
    if isinstance(value, list):
        return [plain_json(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value
