"""MCP servers' tools as toolwire Tools: listed once, executed over MCP, results mapped to model-output parts.

A loaded tool's `execute` calls the server (`tools/call`); its `raw` output is the
`structuredContent` when the tool has an output schema (a `StructuredDict`/`StructuredList`
that keeps the whole result on `.mcp`), otherwise an `McpCallOutput`. An `isError` result
raises `McpToolError`, which the runtime turns into an error result for the model.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import mcp_types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from toolwire.compat import report
from toolwire.exceptions import ConfigurationError, ProtocolError, SchemaError, ToolDefinitionError, ToolwireError
from toolwire.results import ModelOutput, default_output
from toolwire.schema import CompiledSchema, compile_schema
from toolwire.tools import Tool, create_tool

from ._from_mcp import McpCallOutput, StructuredDict, StructuredList, call_output
from ._listing import META_INPUT_EXAMPLES, META_PROVIDER_OPTIONS, META_STRICT

logger = logging.getLogger("toolwire.mcp")

_MAX_PAGES = 1000
_T = TypeVar("_T")


class McpToolError(ToolwireError):
    """The MCP server answered a call with `isError: true`; the message is what it said."""

    def __init__(self, tool_id: str, output: McpCallOutput) -> None:
        self.tool_id = tool_id
        self.output = output
        super().__init__(output.error_text())


class _Caller(Protocol):
    async def call(self, name: str, arguments: dict[str, Any], context: Any) -> types.CallToolResult: ...


@dataclass(frozen=True, slots=True)
class _SessionCaller:
    """Calls through a connection the application owns (an entered `mcp.Client` or `ClientSession`)."""

    session: Client | ClientSession
    read_timeout_seconds: float | None

    async def call(self, name: str, arguments: dict[str, Any], context: Any) -> types.CallToolResult:
        return await self.session.call_tool(
            name, arguments, read_timeout_seconds=self.read_timeout_seconds, progress_callback=_progress(context)
        )


@dataclass(frozen=True, slots=True)
class _ConnectingCaller:
    """Opens a connection per call (stdio command, URL or in-process server): nothing to close afterwards."""

    source: Any
    read_timeout_seconds: float | None
    client_options: Mapping[str, Any] = field(default_factory=dict)

    async def call(self, name: str, arguments: dict[str, Any], context: Any) -> types.CallToolResult:
        async def call_tool(client: Client) -> types.CallToolResult:
            return await client.call_tool(
                name, arguments, read_timeout_seconds=self.read_timeout_seconds, progress_callback=_progress(context)
            )

        return await _connected(self.source, self.client_options, call_tool)


async def _connected(source: Any, options: Mapping[str, Any], use: Callable[[Client], Awaitable[_T]]) -> _T:
    """`use(client)` on a fresh connection; its error is raised as itself, not inside the SDK's exception group."""
    async with Client(source, **options) as client:
        try:
            return await use(client)
        except Exception as exc:
            failure = exc
    raise failure


def _progress(context: Any) -> Any:
    observe = getattr(context, "observe", None)
    if observe is None:
        return None

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        observe.log("mcp progress", progress=progress, total=total, status=message)

    return on_progress


async def load_tools(
    source: Any,
    *,
    trust_provider_options: bool = False,
    skip_invalid: bool = False,
    read_timeout_seconds: float | None = None,
    **client_options: Any,
) -> list[Tool]:
    """The tools an MCP server lists, as toolwire Tools every adapter can send and the runtime can run.

    `source` is an entered `mcp.Client` or `mcp.ClientSession` (calls share that connection,
    which the caller keeps open), or something to connect to: a `StdioServerParameters`, a
    streamable-HTTP URL, an in-process `mcp` server (each call then opens its own connection;
    `client_options`, such as `elicitation_callback`, configure it).

    Strict mode and input examples listed by a toolwire server (`_meta`) are restored;
    its provider options only with `trust_provider_options=True`, since they are merged
    into provider requests as given.

    Raises:
        ConfigurationError: a source of another kind (e.g. a single-use transport), a listed
            tool toolwire cannot build (unless `skip_invalid`), or two tools with one name.
        ProtocolError: the server paginates without end.
    """
    caller: _Caller
    if isinstance(source, (Client, ClientSession)):
        caller = _SessionCaller(source, read_timeout_seconds)
        entries = await _list(source)
    else:
        if not isinstance(source, (StdioServerParameters, str, Server, MCPServer)):
            raise ConfigurationError(
                f"load_tools() connects once per call, and a {type(source).__name__} serves one connection: "
                "open `mcp.Client(...)` on it yourself and pass the client"
            )
        caller = _ConnectingCaller(source, read_timeout_seconds, dict(client_options))
        entries = await _connected(source, client_options, _list)
    tools: list[Tool] = []
    seen: set[str] = set()
    for entry in entries:
        name = entry["name"]
        if name in seen:
            raise ConfigurationError(f"the MCP server lists two tools named {name!r}")
        seen.add(name)
        try:
            tools.append(_tool_from_listing(entry, caller, trust_provider_options=trust_provider_options))
        except ToolDefinitionError as exc:
            if not skip_invalid:
                raise ConfigurationError(f"the MCP tool {name!r} cannot be loaded: {exc}") from exc
            logger.warning("skipping the MCP tool %r: %s", name, exc)
    return tools


def load_tools_sync(source: Any, **options: Any) -> list[Tool]:
    """`load_tools` for synchronous code; `source` must be something to connect to, not an open session.

    Raises:
        ConfigurationError: `source` is an open session (bound to its own event loop).
    """
    if isinstance(source, (Client, ClientSession)):
        raise ConfigurationError("load_tools_sync() needs server parameters or a URL; await load_tools() for a session")
    return asyncio.run(load_tools(source, **options))


async def _list(session: Client | ClientSession) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        if isinstance(session, Client):
            page = await session.list_tools(cursor=cursor)
        else:
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        entries.extend(t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return entries
    raise ProtocolError(f"the MCP server paginated tools/list past {_MAX_PAGES} pages")


def _tool_from_listing(entry: Mapping[str, Any], caller: _Caller, *, trust_provider_options: bool) -> Tool:
    """A Tool from one `tools/list` entry (wire JSON) whose `execute` goes through `caller`.

    Raises:
        ToolDefinitionError: a schema toolwire cannot compile, or another invalid field.
    """
    name = str(entry["name"])
    meta = dict(entry.get("_meta") or {})
    strict = meta.pop(META_STRICT, None)
    examples = meta.pop(META_INPUT_EXAMPLES, None)
    provider_options = meta.pop(META_PROVIDER_OPTIONS, None)
    annotations = dict(entry.get("annotations") or {})
    title = entry.get("title")
    if title and "title" not in annotations:
        annotations["title"] = title
    description = entry.get("description") or annotations.get("title") or f"The MCP tool {name!r}."
    output_schema = entry.get("outputSchema")
    has_output_schema = output_schema is not None
    options: dict[str, Any] = {
        "id": name,
        "description": description,
        "input_schema": _schema(name, "input_schema", entry.get("inputSchema") or {"type": "object", "properties": {}}),
        "output_schema": _schema(name, "output_schema", output_schema) if has_output_schema else None,
        "strict": strict if isinstance(strict, bool) else None,
        "provider_options": provider_options if trust_provider_options and isinstance(provider_options, dict) else None,
        "mcp": {"annotations": annotations, "_meta": meta or None},
        "execute": _executor(name, caller, has_output_schema),
        "to_model_output": model_output,
    }
    try:
        return create_tool(**options, input_examples=examples if isinstance(examples, list) else None)
    except ToolDefinitionError as exc:
        if not exc.field.startswith("input_examples"):
            raise
        logger.warning("dropping the input examples of the MCP tool %r: %s", name, exc)
        return create_tool(**options)


def _schema(tool_id: str, field: str, schema: Any) -> CompiledSchema:
    """Compile a listed schema once per distinct schema, however often the server is loaded."""
    try:
        return _compiled(json.dumps(schema))
    except (SchemaError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(tool_id, field, str(exc)) from None


@functools.lru_cache(maxsize=1024)
def _compiled(schema_text: str) -> CompiledSchema:
    # jsonschema's meta-schema check costs ~1 ms a schema: reloading a server's tools must not pay it again.
    return compile_schema(json.loads(schema_text))


def _executor(name: str, caller: _Caller, has_output_schema: bool) -> Any:
    async def execute(arguments: Any, context: Any) -> Any:
        result = await caller.call(name, dict(arguments), context)
        output = call_output(result.model_dump(by_alias=True, mode="json", exclude_none=True), name)
        report(output.degradations)
        if output.is_error:
            raise McpToolError(name, output)
        if not has_output_schema:
            return output
        structured = output.structured_content
        if isinstance(structured, dict):
            return StructuredDict(structured, output)
        if isinstance(structured, list):
            return StructuredList(structured, output)
        return structured

    return execute


def model_output(raw: Any) -> ModelOutput:
    """What the model sees of a loaded tool's output (scalar structured content alone: its JSON)."""
    if isinstance(raw, McpCallOutput):
        return raw.model_output()
    if isinstance(raw, (StructuredDict, StructuredList)):
        return raw.mcp.model_output()
    return default_output(raw)
