"""`create_code_mode`: one model-facing tool that runs a Python program calling many tools.

Port of Mastra's `createCodeMode()`. Everything that can be checked is checked when the tool
is created: names and collisions, tools without `execute`, approval-gated tools without an
approval policy, the limits, and the sandbox (there is no in-process fallback: without a
sandbox, or a transport that brings its own boundary, creation fails).

Approvals and suspension inside a program: a program cannot be paused and resumed, so a
tool with `require_approval` is only accepted with an `approve` callback, which decides each
call while the program waits (its time counts toward the timeout); a denial raises
`ToolError` (name `ExecutionDenied`) at the call. A tool that calls `context.suspend()` makes
its call raise `ToolError` (name `SuspensionNotSupported`); call such tools directly.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolwire.exceptions import ConfigurationError
from toolwire.results import ToolCall, ToolResult, output_text
from toolwire.runtime.abort import AbortSignal
from toolwire.runtime.context import ToolContext
from toolwire.runtime.execute import execute_tool
from toolwire.tools import Tool, create_tool

from ._bridge import Approve, Bridge
from ._catalog import DISCOVERY_THRESHOLD, Catalog
from ._names import External
from ._session import Session
from .instructions import DEFAULT_ID, build_instructions, tool_pairs
from .isolation import Isolation
from .limits import Limits
from .results import CodeModeError, CodeModeToolResult
from .transport import CodeModeSandbox, CodeModeTransport, SandboxTransport

ToolsInput = Mapping[str, Tool] | Sequence[Tool]


@dataclass(frozen=True, slots=True)
class CodeModeResult:
    """The tool to register (under its own id) and the instructions to add to the system prompt."""

    tool: Tool
    instructions: str

    async def run(
        self, code: str, *, request_context: Any = None, abort: AbortSignal | None = None
    ) -> CodeModeToolResult:
        """Run one program outside a model turn (to try tools and instructions), as the model would."""
        call = ToolCall(tool_call_id=f"run-{uuid.uuid4().hex[:12]}", tool_name=self.tool.id, input={"code": code})
        outcome = await execute_tool(self.tool, call, request_context=request_context, abort=abort)
        if isinstance(outcome, ToolResult) and isinstance(outcome.raw, CodeModeToolResult):
            return outcome.raw
        text = output_text(outcome.output) if isinstance(outcome, ToolResult) else "the run was suspended"
        return CodeModeToolResult(success=False, error=CodeModeError(name="ToolError", message=text))


def create_code_mode(
    tools: ToolsInput,
    *,
    sandbox: CodeModeSandbox | None = None,
    transport: CodeModeTransport | None = None,
    timeout: float | None = None,
    id: str = DEFAULT_ID,
    limits: Limits | None = None,
    approve: Approve | None = None,
    description: str | None = None,
    discovery: bool | None = None,
) -> CodeModeResult:
    """The code-mode tool and its matching instructions.

    Args:
        tools: `{name: Tool}` (the program calls `external_<name>`) or a list of tools (named by id).
        sandbox: where programs run, e.g. `LocalSandbox()`.
        transport: how the host reaches the runner (default: pipes to a runner the sandbox starts);
            a transport with `requires_sandbox = False` brings its own boundary.
        timeout: seconds per run (default 30), overriding `limits.timeout`.
        id: the tool's id, used in the instructions too.
        limits: call, size and time budgets.
        approve: decides calls to tools with `require_approval`, while the program waits.
        description: the tool's description (default: a short summary naming the functions).
        discovery: list one line per function and let the program ask for types
            (`describe_functions`, `search_functions`) instead of inlining every stub; None: on
            above 30 tools.

    Raises:
        ConfigurationError: no sandbox for a transport that needs one, a tool that cannot run
            here, two names for one function, or invalid limits.
        IsolationError: the sandbox cannot give a guarantee it was required to.
    """
    engine = _Engine.build(tools, sandbox, transport, timeout, id, limits, approve, discovery)
    return CodeModeResult(tool=engine.tool(description), instructions=engine.instructions())


def create_code_mode_tool(tools: ToolsInput, **options: Any) -> Tool:
    """Only the tool (`create_code_mode(...).tool`); keep its instructions in step yourself."""
    return create_code_mode(tools, **options).tool


def create_code_mode_instructions(
    tools: ToolsInput,
    *,
    sandbox: CodeModeSandbox | None = None,
    transport: CodeModeTransport | None = None,
    id: str = DEFAULT_ID,
    limits: Limits | None = None,
    isolation: Isolation | None = None,
    discovery: bool | None = None,
) -> str:
    """The prompt text for these tools, to inspect or to place yourself.

    The isolation sentence comes from `isolation`, else from the sandbox or transport; with
    none of them the text claims no isolation and tells the model to use only the functions.

    Raises:
        CodeModeNameError: two names map to one function, or a name is the code-mode tool's id.
    """
    pairs = tool_pairs(tools, tool_id=id)
    if isolation is None and (sandbox is not None or transport is not None):
        isolation = (transport or SandboxTransport()).isolation(sandbox)
    listing = Catalog(pairs).listing() if _discovers(discovery, pairs) else None
    return build_instructions(pairs, tool_id=id, isolation=isolation, limits=limits or Limits(), listing=listing)


def _discovers(discovery: bool | None, pairs: Sequence[Any]) -> bool:
    return len(pairs) > DISCOVERY_THRESHOLD if discovery is None else discovery


@dataclass(frozen=True, slots=True)
class _Engine:
    """Everything one code-mode tool needs to run programs."""

    pairs: tuple[tuple[External, Tool], ...]
    sandbox: CodeModeSandbox | None
    transport: CodeModeTransport
    isolation: Isolation
    tool_id: str
    limits: Limits
    approve: Approve | None
    discovery: bool

    @classmethod
    def build(
        cls,
        tools: ToolsInput,
        sandbox: CodeModeSandbox | None,
        transport: CodeModeTransport | None,
        timeout: float | None,
        tool_id: str,
        limits: Limits | None,
        approve: Approve | None,
        discovery: bool | None,
    ) -> _Engine:
        pairs = tuple(tool_pairs(tools, tool_id=tool_id))
        for external, tool in pairs:
            if tool.execute is None:
                raise ConfigurationError(f"code mode: tool {external.tool_id!r} has no execute function to run")
            if tool.require_approval and approve is None:
                raise ConfigurationError(
                    f"code mode: tool {external.tool_id!r} requires approval, and a program cannot pause for it; "
                    "pass `approve=` to decide each call while the program waits, or leave the tool out"
                )
        limits = limits or Limits()
        if timeout is not None:
            limits = dataclasses.replace(limits, timeout=timeout)
        transport = transport or SandboxTransport()
        if transport.requires_sandbox and sandbox is None:
            raise ConfigurationError(
                "code mode needs a sandbox: pass `sandbox=LocalSandbox()` to run programs in a confined local "
                "process, or a transport that brings its own boundary (e.g. `CommandTransport` into a container)"
            )
        isolation = transport.isolation(sandbox)
        return cls(pairs, sandbox, transport, isolation, tool_id, limits, approve, _discovers(discovery, pairs))

    def instructions(self) -> str:
        listing = Catalog(self.pairs).listing() if self.discovery else None
        return build_instructions(
            self.pairs, tool_id=self.tool_id, isolation=self.isolation, limits=self.limits, listing=listing
        )

    def tool(self, description: str | None) -> Tool:
        functions = ", ".join(f"`{e.function}`" for e, _ in self.pairs) or "none"
        if self.discovery:
            functions = f"{len(self.pairs)} of them, listed in the code mode instructions"
        summary = (
            "Run one Python program that calls tools as async functions and computes the answer "
            f"(functions: {functions}). Follow the code mode instructions for their types and rules."
        )
        schema = {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": self.limits.max_code_chars,
                    "description": "The Python program; top-level await is allowed; end with return <value>.",
                }
            },
            "required": ["code"],
            "additionalProperties": False,
        }
        return create_tool(
            id=self.tool_id,
            description=description or summary,
            input_schema=schema,
            execute=self.execute,
            to_model_output=_model_output,
            # UI streams and saved transcripts get the JSON form, not the dataclass.
            transform={"display": {"output": _json_form}, "transcript": {"output": _json_form}},
        )

    async def execute(self, input: Mapping[str, Any], context: ToolContext) -> CodeModeToolResult:
        """Run the program in `input["code"]` and return its result (never raises for program errors)."""
        code = strip_code_fence(str(input["code"]))
        signal = AbortSignal()
        remove = context.abort_signal.add_listener(signal.abort)
        try:
            try:
                channel = await self.transport.open(self.sandbox, self.limits)
            except (OSError, ConfigurationError) as exc:
                error = CodeModeError(name="SandboxError", message=f"the sandbox could not start: {exc}")
                return CodeModeToolResult(success=False, error=error)
            tools = {e.tool_id: t for e, t in self.pairs}
            session = Session(
                channel,
                externals=[(e.function, e.tool_id) for e, _ in self.pairs],
                dispatch=Bridge(tools, context, signal, self.approve),
                limits=self.limits,
                signal=signal,
                answer=Catalog(self.pairs).answer,
            )
            return await session.run(code, context.abort_signal)
        finally:
            remove()
            signal.abort("the code-mode run ended")


def _model_output(raw: Any) -> Any:
    if isinstance(raw, CodeModeToolResult):
        return raw.to_model_output()
    return {"type": "json", "value": raw}


def _json_form(output: Any) -> Any:
    return output.to_dict() if isinstance(output, CodeModeToolResult) else output


def strip_code_fence(code: str) -> str:
    """Blank out a Markdown fence around the whole program, keeping every line where it was."""
    lines = code.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 2:
        return code
    first, last = filled[0], filled[-1]
    opening, closing = lines[first].strip(), lines[last].strip()
    if opening.startswith("```") and closing and set(closing) == {"`"} and len(closing) >= 3:
        lines[first] = lines[last] = ""
    return "\n".join(lines)
