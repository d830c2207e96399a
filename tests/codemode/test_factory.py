"""Creating the code-mode tool: checks up front, and nested calls that behave like direct calls."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import ConfigurationError, Tool, create_tool
from toolwire.codemode import (
    CallRecord,
    CodeModeError,
    CodeModeToolResult,
    Limits,
    create_code_mode,
    create_code_mode_tool,
)
from toolwire.results import ToolCall
from toolwire.runtime import Toolbox, ToolContext, execute_tool

Runner = Any


def _tool(tool_id: str, **options: Any) -> Tool:
    options.setdefault("execute", lambda value: value)
    return create_tool(id=tool_id, description=f"The {tool_id} tool.", **options)


class TestCreation:
    def test_no_sandbox_is_an_error_not_a_host_fallback(self, shop: dict[str, Tool]) -> None:
        """Mastra: "throws when no sandbox is configured"; nothing ever runs in the host process."""
        with pytest.raises(ConfigurationError) as caught:
            create_code_mode(shop)
        assert str(caught.value) == (
            "code mode needs a sandbox: pass `sandbox=LocalSandbox()` to run programs in a confined local process, "
            "or a transport that brings its own boundary (e.g. `CommandTransport` into a container)"
        )

    def test_a_list_of_tools_is_named_by_id(self, sandbox: Any) -> None:
        """`[tool]` works like `{tool.id: tool}`."""
        code_mode = create_code_mode([_tool("get-weather")], sandbox=sandbox)
        assert "async def external_get_weather(input: dict[str, Any], /) -> Any:" in code_mode.instructions

    def test_dict_keys_name_the_functions(self, sandbox: Any) -> None:
        """As in the seed, the key is the name the program uses, whatever the tool's id."""
        code_mode = create_code_mode({"weather": _tool("get-weather-v2")}, sandbox=sandbox)
        assert "async def external_weather(" in code_mode.instructions

    def test_two_entries_for_one_name_raise(self, sandbox: Any) -> None:
        """A list with a repeated id cannot be dispatched unambiguously."""
        with pytest.raises(ConfigurationError, match="two tools are named 'a'"):
            create_code_mode([_tool("a"), _tool("a")], sandbox=sandbox)

    def test_something_other_than_a_tool_raises(self, sandbox: Any) -> None:
        """Plain functions must be wrapped with `create_tool` or `@tool` first."""
        with pytest.raises(ConfigurationError, match="'f' is a function, not a toolwire Tool"):
            create_code_mode({"f": lambda: None}, sandbox=sandbox)  # type: ignore[dict-item]

    def test_a_tool_without_execute_raises(self, sandbox: Any) -> None:
        """Tools run elsewhere (client-side, provider-side) cannot be called from a program."""
        client_side = create_tool(id="confirm", description="Ask the user.")
        with pytest.raises(ConfigurationError, match="tool 'confirm' has no execute function to run"):
            create_code_mode([client_side], sandbox=sandbox)

    def test_an_approval_gated_tool_needs_an_approval_policy(self, sandbox: Any) -> None:
        """A program cannot pause for a human, so the policy must be given up front."""
        with pytest.raises(ConfigurationError) as caught:
            create_code_mode([_tool("refund", require_approval=True)], sandbox=sandbox)
        assert str(caught.value) == (
            "code mode: tool 'refund' requires approval, and a program cannot pause for it; pass `approve=` to "
            "decide each call while the program waits, or leave the tool out"
        )

    @pytest.mark.parametrize(
        ("field", "value"), [("timeout", 0), ("max_calls", -1), ("max_log_chars", 1.5), ("timeout", float("nan"))]
    )
    def test_invalid_limits_raise_naming_the_field(self, field: str, value: Any) -> None:
        """Limits are checked when they are made."""
        with pytest.raises(ConfigurationError, match=f"code mode limit `{field}` must be"):
            Limits(**{field: value})

    def test_timeout_overrides_the_limits(self, sandbox: Any) -> None:
        """`timeout=` is a shortcut for `limits.timeout`."""
        code_mode = create_code_mode([], sandbox=sandbox, timeout=7, limits=Limits(max_calls=3))
        assert "- Limits: 7 s per run, 3 calls," in code_mode.instructions

    def test_create_code_mode_tool_returns_only_the_tool(self, shop: dict[str, Tool], sandbox: Any) -> None:
        """The seed's `createCodeModeTool()`."""
        tool = create_code_mode_tool(shop, sandbox=sandbox, id="shop_code")
        assert tool.id == "shop_code"


class TestNestedCallsAreDirectCalls:
    async def test_request_context_reaches_the_tool_and_is_validated(self, sandbox: Any) -> None:
        """The code-mode call's request context is the nested call's, checked against its schema."""
        seen: list[Any] = []

        def whoami(_value: dict[str, Any], context: ToolContext) -> str:
            seen.append(context.request_context)
            return str(context.request_context["user"])

        tool = _tool(
            "whoami",
            execute=whoami,
            request_context_schema={"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]},
        )
        code_mode = create_code_mode([tool], sandbox=sandbox)
        call = {"toolCallId": "c", "toolName": "execute_python", "input": {"code": "await external_whoami({})"}}
        result = await execute_tool(code_mode.tool, call, request_context={"user": "ada"})
        assert result.raw.result == "ada"
        assert seen == [{"user": "ada"}]
        refused = await execute_tool(code_mode.tool, call, request_context={"nobody": True})
        assert refused.raw.error.message.startswith(
            "ValidationError from tool 'whoami': Tool 'whoami' cannot run: the request context is invalid"
        )

    async def test_hooks_fire_for_nested_calls(self, run: Runner) -> None:
        """`on_input_available` and `on_output` run as for a direct call, with derived call ids."""
        events: list[tuple[str, Any, str]] = []
        tool = _tool(
            "double",
            input_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            execute=lambda value: value["n"] * 2,
            on_input_available=lambda input, tool_call_id: events.append(("input", input, tool_call_id)),
            on_output=lambda output, tool_call_id: events.append(("output", output, tool_call_id)),
        )
        result = await run("await external_double({'n': 21})", {"double": tool})
        assert result.result == 42
        assert events == [("input", {"n": 21}, "call-1:1"), ("output", 42, "call-1:1")]

    async def test_output_validation_applies(self, run: Runner) -> None:
        """A tool breaking its own output schema is an error in the program."""
        tool = _tool("broken", output_schema={"type": "integer"}, execute=lambda _v: "not a number")
        code = "try:\n    await external_broken({})\nexcept ToolError as e:\n    return e.name"
        assert (await run(code, {"broken": tool})).result == "ValidationError"

    async def test_pydantic_outputs_reach_the_program_as_json(self, run: Runner, shop: dict[str, Tool]) -> None:
        """Typed inputs and outputs are converted at the boundary; only JSON crosses."""
        result = await run("(await external_getTopProducts({'limit': 1}))['products'][0]", shop)
        assert result.result == {"id": "p1", "name": "Kettle", "totalSales": 120.0}

    async def test_nested_calls_are_traced_as_child_spans(self, sandbox: Any) -> None:
        """Each call is a `code_mode.call` span under the code-mode call's observer."""
        code_mode = create_code_mode([_tool("echo")], sandbox=sandbox)
        context = ToolContext(tool_call_id="c", tool_name="execute_python")
        raw = await code_mode.tool.execute({"code": "await external_echo({'a': 1})"}, context)  # type: ignore[misc]
        assert raw.success
        assert context.observe is not None
        assert context.observe.records == [
            {"kind": "span", "name": "code_mode.call", "attributes": {"tool": "echo", "sequence": 1}}
        ]


class TestApprovalAndSuspension:
    async def test_approved_calls_run(self, run: Runner) -> None:
        """The `approve` callback decides inline, while the program waits."""
        asked: list[ToolCall] = []

        async def approve(call: ToolCall) -> bool:
            asked.append(call)
            return True

        tool = _tool("refund", require_approval=True, execute=lambda value: f"refunded {value['amount']}")
        result = await run("await external_refund({'amount': 5})", {"refund": tool}, approve=approve)
        assert result.result == "refunded 5"
        assert [(c.tool_name, c.input, c.tool_call_id) for c in asked] == [("refund", {"amount": 5}, "call-1:1")]

    async def test_denied_calls_raise_execution_denied_and_never_run(self, run: Runner) -> None:
        """A denial is a catchable `ToolError`; the tool's side effect never happens."""
        ran: list[Any] = []
        tool = _tool("refund", require_approval=True, execute=ran.append)
        code = "try:\n    await external_refund({'amount': 5})\nexcept ToolError as e:\n    return [e.name, e.message]"
        result = await run(code, {"refund": tool}, approve=lambda _call: False)
        assert result.result == ["ExecutionDenied", "the call to 'refund' was denied"]
        assert ran == []
        assert result.calls == (CallRecord(tool="refund", status="error"),)

    async def test_a_failing_approval_check_denies(self, run: Runner) -> None:
        """An exception in `approve` is a denial, never an approval."""

        def approve(_call: ToolCall) -> bool:
            raise RuntimeError("policy service down")

        tool = _tool("refund", require_approval=True)
        code = "try:\n    await external_refund({})\nexcept ToolError as e:\n    return e.name"
        assert (await run(code, {"refund": tool}, approve=approve)).result == "ExecutionDenied"

    async def test_a_suspending_tool_raises_in_the_program(self, run: Runner) -> None:
        """`suspend()` cannot pause a program: the call fails with `SuspensionNotSupported`."""

        def ask_user(_value: dict[str, Any], context: ToolContext) -> None:
            context.suspend({"question": "which size?"})

        tool = _tool("ask", execute=ask_user)
        code = "try:\n    await external_ask({})\nexcept ToolError as e:\n    return [e.name, e.message]"
        assert (await run(code, {"ask": tool})).result == [
            "SuspensionNotSupported",
            "tool 'ask' paused to wait for outside input (suspend), which a code-mode program cannot do; "
            "call it directly instead",
        ]


class TestResultForms:
    def test_success_to_model_output_omits_empty_fields(self) -> None:
        """Compact: no empty logs, no error, no calls."""
        result = CodeModeToolResult(success=True, result={"a": 1}, calls=(CallRecord(tool="t", status="ok"),))
        assert result.to_model_output() == {"type": "json", "value": {"success": True, "result": {"a": 1}}}

    def test_failure_to_model_output_is_an_error_form(self) -> None:
        """`error-json`, with the logs and the error (line only when known)."""
        result = CodeModeToolResult(success=False, logs=("x",), error=CodeModeError(message="m", name="E"))
        assert result.to_model_output() == {
            "type": "error-json",
            "value": {"success": False, "logs": ["x"], "error": {"message": "m", "name": "E"}},
        }


class TestStreams:
    async def test_ui_events_carry_the_json_form(self, sandbox: Any) -> None:
        """Through a `Toolbox`, `tool-output-available` holds a JSON dict a front end can render."""
        events: list[Any] = []
        code_mode = create_code_mode({}, sandbox=sandbox)
        toolbox = Toolbox([code_mode.tool], on_event=events.append)
        await toolbox.run([{"toolCallId": "c", "toolName": "execute_python", "input": {"code": "print('hi')\n6 * 7"}}])
        assert [e.to_dict() for e in events] == [
            {
                "type": "tool-output-available",
                "toolCallId": "c",
                "output": {"success": True, "result": 42, "logs": ["hi"]},
            }
        ]


class TestRunDirectly:
    async def test_run_executes_a_program_like_the_model_would(self, shop: dict[str, Tool], sandbox: Any) -> None:
        """`CodeModeResult.run` goes through the same tool, for trying tools and instructions by hand."""
        code_mode = create_code_mode(shop, sandbox=sandbox)
        result = await code_mode.run("len((await external_getTopProducts({'limit': 2}))['products'])")
        assert (result.success, result.result) == (True, 2)

    async def test_run_reports_input_the_tool_refuses(self, sandbox: Any) -> None:
        """An empty program fails the tool's own input schema; the reason comes back as an error."""
        code_mode = create_code_mode({}, sandbox=sandbox)
        result = await code_mode.run("")
        assert result.success is False
        assert result.error is not None
        assert result.error.message.startswith(
            "Invalid input for tool 'execute_python': at `code`: '' should be non-empty"
        )
