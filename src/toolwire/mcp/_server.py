"""An MCP server whose `tools/call` runs toolwire tools through the runtime.

Each call goes through `toolwire.runtime.execute_tool` (input validation, hooks, request
context, output validation, `to_model_output`, errors as `isError` results), with
`context.mcp` set to a `McpContext`. `require_approval` and `context.suspend()` become
elicitation questions; a client that cannot answer gets a clear error result instead. A
client cancelling the call aborts the tool's `abort_signal` (sync tools see it on `.aborted`).
Error texts reach the client without host paths and bounded in size (`_scrub`); the server
log keeps them whole.
The 2026-07-28 `requestState` is sealed with the SDK's `RequestStateBoundary`; on that
revision a call that asks questions runs again (hooks included) once per answered round, so
side effects belong after the questions; each round's state is answered once (a replay, from
any connection, is refused as an invalid state).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp_types as types
import pydantic
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp.shared.tool_name_validation import validate_tool_name

from toolwire.adapter import tool_mapping
from toolwire.compat import report
from toolwire.exceptions import ConfigurationError
from toolwire.results import ToolCall, ToolResult, error_text, execution_denied
from toolwire.runtime import AbortSignal, ExecutionSettings, Suspension, execute_tool, resume_tool
from toolwire.runtime.transforms import shown_approval
from toolwire.schema import SchemaValidationError
from toolwire.tools import Tool, free_form_input, object_view

from ._context import (
    ElicitationError,
    ElicitationUnavailable,
    InputRequired,
    McpContext,
    Rounds,
    form_schema,
    is_modern,
)
from ._ledger import MemoryRoundLedger, RoundLedger
from ._listing import tool_listing
from ._scrub import client_error_text
from ._to_mcp import call_tool_result, error_result

logger = logging.getLogger("toolwire.mcp")

RequestContextFactory = Callable[[McpContext], Any]
"""Builds a call's request context from its MCP request (headers, client info, `_meta`); may be async."""

_MAX_RESUMES = 16
_STATE_SKEW = 120.0
"""Seconds a spent round is kept past the state's lifetime (clock skew between the SDK's clock and ours)."""
_CONFIRM: dict[str, Any] = {"type": "object", "properties": {}}


def build_server(
    tools: Sequence[Tool] | Mapping[str, Tool],
    *,
    name: str,
    version: str,
    instructions: str | None = None,
    request_context: Any = None,
    request_context_factory: RequestContextFactory | None = None,
    settings: ExecutionSettings | None = None,
    max_concurrency: int | None = None,
    request_state_security: RequestStateSecurity | None = None,
    round_ledger: RoundLedger | None = None,
) -> Server[Any]:
    """The SDK's low-level `Server` serving these tools (run it on any transport, or pass it to `mcp.Client`).

    On 2026-07-28 each `requestState` the server issues can be answered once: `round_ledger`
    records the answered rounds (default: a `MemoryRoundLedger` of this server; workers sharing
    `request_state_security` keys must share one, see `toolwire.mcp._ledger`).

    Raises:
        ConfigurationError: no tools, a tool without `execute`, two tools with one id, or both
            `request_context` and `request_context_factory`.
    """
    return _ToolServer(
        tools,
        request_context=request_context,
        request_context_factory=request_context_factory,
        settings=settings,
        max_concurrency=max_concurrency,
        round_ledger=round_ledger if round_ledger is not None else MemoryRoundLedger(),
    ).server(name, version, instructions, request_state_security)


class _ToolServer:
    """The handlers behind one served tool set."""

    def __init__(
        self,
        tools: Sequence[Tool] | Mapping[str, Tool],
        *,
        request_context: Any,
        request_context_factory: RequestContextFactory | None,
        settings: ExecutionSettings | None,
        max_concurrency: int | None,
        round_ledger: RoundLedger,
    ) -> None:
        by_id = tool_mapping(tools) or {}
        if not by_id:
            raise ConfigurationError("an MCP server needs at least one tool")
        for tool in by_id.values():
            if tool.execute is None:
                raise ConfigurationError(f"tool {tool.id!r} has no `execute`, so an MCP server cannot run it")
            checked = validate_tool_name(tool.id)
            if checked.warnings:
                logger.warning(
                    "tool id %r is served as is, though MCP clients may refuse it: %s",
                    tool.id,
                    "; ".join(checked.warnings),
                )
        if request_context is not None and request_context_factory is not None:
            raise ConfigurationError("give `request_context` or `request_context_factory`, not both")
        self.tools = by_id
        self.request_context = request_context
        self.request_context_factory = request_context_factory
        self.settings = settings or ExecutionSettings()
        self.max_concurrency = max_concurrency
        self.round_ledger = round_ledger
        self._round_lifetime = _STATE_SKEW
        self._limits: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        self._listings: dict[str, types.ListToolsResult] = {}

    def server(
        self, name: str, version: str, instructions: str | None, security: RequestStateSecurity | None
    ) -> Server[Any]:
        server: Server[Any] = Server(
            name,
            version=version,
            instructions=instructions,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            get_tool_input_schema=self.input_schema,
        )
        security = security or RequestStateSecurity.ephemeral()
        self._round_lifetime = security.ttl + _STATE_SKEW
        boundary = RequestStateBoundary(security, default_audience=name)
        server.middleware.append(boundary)
        return server

    def input_schema(self, tool_name: str) -> Mapping[str, Any] | None:
        tool = self.tools.get(tool_name)
        if tool is None:
            return None
        return (object_view(tool) if tool.free_form else tool).input_schema.json_schema

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        version = ctx.protocol_version
        listing = self._listings.get(version)
        if listing is None:
            entries = [tool_listing(tool, protocol_version=version) for tool in self.tools.values()]
            listing = self._listings[version] = types.ListToolsResult.model_validate({"tools": entries})
        return listing

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        tool = self.tools.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name[:100]!r}")
        modern = is_modern(ctx.protocol_version)
        rounds = Rounds.from_request(params.request_state, params.input_responses) if modern else None
        if rounds is not None:
            self._redeem(rounds, tool)
        mcp = McpContext(ctx, rounds)
        call = ToolCall(tool_call_id=f"mcp_{uuid.uuid4().hex}", tool_name=tool.id, input=params.arguments or {})
        signal = AbortSignal()
        run = asyncio.ensure_future(self._limited_run(tool, call, mcp, signal))
        try:
            result = await asyncio.shield(run)
        except InputRequired:
            assert rounds is not None
            return rounds.input_required()
        except asyncio.CancelledError:
            await _abort(run, signal)
            raise
        return _call_result(tool, _for_client(tool, result), ctx.protocol_version)

    def _redeem(self, rounds: Rounds, tool: Tool) -> None:
        """Spend the round this request answers; a second answer to it is refused like an expired state.

        Raises:
            MCPError: the round was already answered (a replay, from this connection or another).
        """
        if rounds.round_id is None or self.round_ledger.redeem(rounds.round_id, self._round_lifetime):
            return
        logger.warning("refused a requestState for tool %r that was already answered (a replay)", tool.id)
        raise MCPError(
            code=types.INVALID_PARAMS,
            message="Invalid or expired requestState",
            data={"reason": "invalid_request_state"},
        )

    async def _limited_run(self, tool: Tool, call: ToolCall, mcp: McpContext, signal: AbortSignal) -> ToolResult:
        async with self._limit():
            return await self._run(tool, call, mcp, signal)

    def _limit(self) -> asyncio.Semaphore | _Unlimited:
        if self.max_concurrency is None:
            return _UNLIMITED
        loop = asyncio.get_running_loop()
        limit = self._limits.get(loop)
        if limit is None:
            limit = self._limits[loop] = asyncio.Semaphore(max(self.max_concurrency, 1))
        return limit

    async def _run(self, tool: Tool, call: ToolCall, mcp: McpContext, signal: AbortSignal) -> ToolResult:
        try:
            request_context = await self._request_context(mcp)
        except Exception as exc:
            logger.exception("building the request context for tool %r failed", tool.id)
            return _refusal(call, f"Tool {tool.id!r} cannot run: the server failed to build its request context.", exc)
        if tool.require_approval and _valid_input(tool, call.input):
            refused = await _approve(tool, call, mcp)
            if refused is not None:
                return refused
        outcome = await execute_tool(
            tool, call, request_context=request_context, abort=signal, settings=self.settings, mcp=mcp, approved=True
        )  # approved: asked through elicitation above
        for round_number in range(1, _MAX_RESUMES + 1):
            if not isinstance(outcome, Suspension):
                return outcome
            answer = await _resume_answer(tool, call, outcome, mcp, round_number)
            if isinstance(answer, ToolResult):
                return answer
            outcome = await resume_tool(
                tool, outcome, answer, request_context=request_context, abort=signal, settings=self.settings, mcp=mcp
            )
        return _refusal(call, f"Tool {tool.id!r} suspended more than {_MAX_RESUMES} times in one call; it was stopped.")

    async def _request_context(self, mcp: McpContext) -> Any:
        if self.request_context_factory is None:
            return self.request_context
        value = self.request_context_factory(mcp)
        return await value if inspect.isawaitable(value) else value


async def _abort(run: asyncio.Future[ToolResult], signal: AbortSignal) -> None:
    """The client cancelled: abort the tool's signal first (so the tool sees why), then wait for it to stop."""
    signal.abort("cancelled by the MCP client")
    run.cancel()
    with anyio.CancelScope(shield=True), contextlib.suppress(BaseException):
        await run


class _Unlimited:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


_UNLIMITED = _Unlimited()


async def _approve(tool: Tool, call: ToolCall, mcp: McpContext) -> ToolResult | None:
    """None when the user approved through elicitation; otherwise the result the model sees instead."""
    reason = mcp.why_no_elicitation
    if reason is not None:
        return _refusal(call, f"Tool {tool.id!r} needs the user's approval, but {reason}; the tool did not run.")
    shown = shown_approval(tool, "display", call.input, call.tool_call_id)
    message = f"Allow the tool {tool.title or tool.id!r} to run?"
    if shown not in (None, {}):
        message += "\n\nInput:\n" + json.dumps(shown, indent=2, ensure_ascii=False, default=str)
    try:
        answer = await mcp.ask("approval", message, _CONFIRM)
    except MCPError as exc:
        return _refusal(call, f"Tool {tool.id!r} needs the user's approval, and asking the MCP client failed: {exc}.")
    action = answer.get("action")
    if action == "accept":
        return None
    reason = "declined in the MCP client" if action == "decline" else "dismissed without an answer"
    return ToolResult(tool_call_id=call.tool_call_id, tool_name=tool.id, output=execution_denied(reason))


async def _resume_answer(tool: Tool, call: ToolCall, suspension: Suspension, mcp: McpContext, round_number: int) -> Any:
    """The data to resume a suspended call with, asked through elicitation; a `ToolResult` when it cannot be."""
    schema = tool.resume_schema
    if schema is None:
        return _refusal(call, f"Tool {tool.id!r} suspended, and without a `resume_schema` MCP cannot ask how to go on.")
    try:
        requested = form_schema(schema.json_schema)
        payload = suspension.display_payload if suspension.display_payload is not None else suspension.payload
        message = payload if isinstance(payload, str) else json.dumps(payload, indent=2, ensure_ascii=False)
        answer = await mcp.ask(f"resume-{round_number}", message, requested)
    except (ElicitationError, ElicitationUnavailable) as exc:
        return _refusal(call, f"Tool {tool.id!r} suspended waiting for input, and {exc}.")
    except MCPError as exc:
        return _refusal(call, f"Tool {tool.id!r} suspended waiting for input, and asking the MCP client failed: {exc}.")
    if answer.get("action") != "accept":
        denied = execution_denied("the user did not provide the input")
        return ToolResult(tool_call_id=call.tool_call_id, tool_name=tool.id, output=denied)
    return answer.get("content") or {}


def _refusal(call: ToolCall, message: str, error: BaseException | None = None) -> ToolResult:
    return ToolResult(tool_call_id=call.tool_call_id, tool_name=call.tool_name, output=error_text(message), error=error)


def _valid_input(tool: Tool, value: Any) -> bool:
    """Whether the runtime will accept the input: nobody should be asked to approve a call that cannot run."""
    try:
        if tool.free_form:
            tool.input_schema.validate(free_form_input(value))
        else:
            tool.input_schema.validate(tool.input_schema.drop_disallowed_nulls(dict(value)))
    except (SchemaValidationError, TypeError, ValueError):
        return False
    return True


def _for_client(tool: Tool, result: ToolResult) -> ToolResult:
    """The result with its error text scrubbed of host paths and bounded; the full text goes to the log."""
    output = result.output
    if output.get("type") != "error-text":
        return result
    text = str(output.get("value", ""))
    shown = client_error_text(text, result.error)
    if shown == text:
        return result
    logger.warning(
        "tool %r failed; the MCP client got the error without host paths and cut. Full error: %s", tool.id, text
    )
    return dataclasses.replace(result, output=error_text(shown))


def _call_result(tool: Tool, result: ToolResult, protocol_version: str) -> types.CallToolResult:
    wire, degradations = call_tool_result(tool, result, protocol_version)
    report(degradations)
    try:
        return types.CallToolResult.model_validate(wire)
    except pydantic.ValidationError as exc:
        logger.warning("tool %r produced content MCP cannot carry: %s", tool.id, exc)
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        return types.CallToolResult.model_validate(
            error_result(f"Tool {tool.id!r} produced content that is not a valid MCP content block ({problem}).")
        )
