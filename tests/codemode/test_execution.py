"""Programs run in the local sandbox: results, concurrency, tool errors, logs and limits."""

from __future__ import annotations

import asyncio
import textwrap
from typing import Any

from toolwire import Tool, create_tool
from toolwire.codemode import CallRecord, CodeModeError, CodeModeToolResult, Limits, create_code_mode
from toolwire.runtime import AbortSignal, execute_tool

Runner = Any
NOT_JSON = "the result must be JSON (dict, list, str, int, float, bool or None)"


def program(source: str) -> str:
    return textwrap.dedent(source).strip("\n")


def _echo_tool(tool_id: str = "echo", delay: float = 0.0) -> Tool:
    async def echo(value: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(delay)
        return value

    return create_tool(id=tool_id, description="Echo the input.", execute=echo)


class TestShopExample:
    async def test_one_program_combines_two_tools(self, run: Runner, shop: dict[str, Tool]) -> None:
        """The seed's headline case: the top products with their average ratings, in one call."""
        code = program(
            """
            top = await external_getTopProducts({"limit": 3})
            ratings = await asyncio.gather(
                *(external_getProductRatings({"productId": p["id"]}) for p in top["products"])
            )
            rows = []
            for product, rating in zip(top["products"], ratings):
                scores = [r["score"] for r in rating["ratings"]]
                rows.append({"name": product["name"], "average": sum(scores) / len(scores)})
            print(f"rated {len(rows)} products")
            sorted(rows, key=lambda row: -row["average"])
            """
        )
        result = await run(code, shop)
        assert result == CodeModeToolResult(
            success=True,
            result=[
                {"name": "Blender", "average": 5.0},
                {"name": "Kettle", "average": 4.5},
                {"name": "Toaster", "average": 2.5},
            ],
            logs=("rated 3 products",),
            calls=(
                CallRecord(tool="getTopProducts", status="ok"),
                CallRecord(tool="getProductRatings", status="ok"),
                CallRecord(tool="getProductRatings", status="ok"),
                CallRecord(tool="getProductRatings", status="ok"),
            ),
        )

    async def test_the_model_sees_compact_json(self, shop: dict[str, Tool], sandbox: Any) -> None:
        """Through `execute_tool`, the model-facing output is the compact JSON form."""
        code_mode = create_code_mode(shop, sandbox=sandbox)
        code = 'top = await external_getTopProducts({"limit": 1})\nreturn top["products"][0]["name"]'
        result = await execute_tool(
            code_mode.tool, {"toolCallId": "c", "toolName": "execute_python", "input": {"code": code}}
        )
        assert result.output == {"type": "json", "value": {"success": True, "result": "Kettle"}}

    async def test_a_failed_program_is_an_error_output_for_the_model(self, shop: dict[str, Tool], sandbox: Any) -> None:
        """Providers flag the failure (`is_error`), and the model reads name, message and line."""
        code_mode = create_code_mode(shop, sandbox=sandbox)
        result = await execute_tool(
            code_mode.tool, {"toolCallId": "c", "toolName": "execute_python", "input": {"code": "print('a')\n1 / 0"}}
        )
        assert result.is_error
        assert result.output == {
            "type": "error-json",
            "value": {
                "success": False,
                "logs": ["a"],
                "error": {"message": "division by zero", "name": "ZeroDivisionError", "line": 2},
            },
        }


class TestResults:
    async def test_a_top_level_return_gives_the_result(self, run: Runner) -> None:
        """`return` works outside any function, even inside a loop."""
        code = program(
            """
            for n in range(10):
                if n * n > 20:
                    return n
            """
        )
        assert (await run(code)).result == 5

    async def test_a_trailing_expression_gives_the_result(self, run: Runner) -> None:
        """The last bare expression is the value, as in a notebook."""
        assert (await run("x = 6\nx * 7")).result == 42

    async def test_no_return_gives_none(self, run: Runner) -> None:
        """A program ending in a statement returns nothing."""
        assert (await run("x = 1")) == CodeModeToolResult(success=True, result=None)

    async def test_module_globals_behave_as_in_a_script(self, run: Runner) -> None:
        """Top-level names are real globals, so `global` inside a helper works."""
        code = program(
            """
            count = 0
            def bump():
                global count
                count += 1
            bump(); bump()
            count
            """
        )
        assert (await run(code)).result == 2

    async def test_a_result_that_is_not_json_is_a_type_error_at_its_line(self, run: Runner) -> None:
        """Sets, objects and NaN are refused with the line of the `return`."""
        result = await run("values = {1, 2}\nreturn values")
        assert result.error == CodeModeError(
            name="TypeError",
            message=f"{NOT_JSON}: Object of type set is not JSON serializable",
            line=2,
        )

    async def test_a_forgotten_await_is_pointed_out(self, shop: dict[str, Tool], run: Runner) -> None:
        """Returning a coroutine gets a hint instead of a bare serialization error."""
        result = await run('external_getTopProducts({"limit": 1})', shop)
        assert result.error is not None
        assert result.error.message.startswith(f"{NOT_JSON} (did you forget `await`?)")
        assert result.error.line == 1

    async def test_nan_is_not_json(self, run: Runner) -> None:
        """JSON has no NaN; the program must return something else."""
        result = await run("float('nan')")
        assert result.error == CodeModeError(
            name="TypeError",
            message=f"{NOT_JSON}: Out of range float values are not JSON compliant",
            line=1,
        )

    async def test_a_result_over_the_size_cap_is_refused(self, run: Runner) -> None:
        """`max_result_bytes` bounds what the model is sent."""
        result = await run("'x' * 2000", limits=Limits(max_result_bytes=1000))
        assert result.error == CodeModeError(
            name="ResultTooLarge",
            message="the result is 2002 bytes of JSON; the limit is 1000: return less data",
            line=1,
        )

    async def test_a_result_nested_past_the_cap_is_refused_at_its_line(self, run: Runner) -> None:
        """The host refuses values deeper than 100 levels; the runner says so first, clearly."""
        code = "deep = 'leaf'\nfor _ in range(101):\n    deep = [deep]\nreturn deep"
        result = await run(code)
        assert result.error == CodeModeError(
            name="ValueError", message="the result is nested deeper than 100 levels: return flatter data", line=4
        )

    async def test_a_markdown_fence_around_the_program_is_ignored(self, run: Runner) -> None:
        """Models often fence their code; the fence lines become blank, so lines keep their numbers."""
        result = await run("```python\nx = 1\nraise ValueError(x)\n```")
        assert result.error == CodeModeError(name="ValueError", message="1", line=3)


class TestText:
    async def test_lone_surrogates_cross_as_replacement_characters(self, run: Runner) -> None:
        """Text that is not valid Unicode cannot break a frame; it arrives as U+FFFD."""
        result = await run("print('a\\ud800b')\nawait external_echo({'s': 'x\\udfffy'})", {"echo": _echo_tool()})
        assert result.logs == ("a\ufffdb",)
        assert result.result == {"s": "x\ufffdy"}

    async def test_non_ascii_text_round_trips(self, run: Runner) -> None:
        """Accents, CJK and emoji pass unchanged in both directions."""
        result = await run("print('héllo 世界 🎉')\nawait external_echo({'s': 'ça va 😀'})", {"echo": _echo_tool()})
        assert result.logs == ("héllo 世界 🎉",)
        assert result.result == {"s": "ça va 😀"}


class TestConcurrency:
    async def test_gather_runs_calls_concurrently_and_keeps_their_order(self, run: Runner) -> None:
        """Replies arrive out of order (the slow call is first) and land in the right place."""
        slow, fast = _echo_tool("slow", delay=0.3), _echo_tool("fast")
        code = "await asyncio.gather(external_slow({'n': 1}), external_fast({'n': 2}), external_fast({'n': 3}))"
        result = await run(code, {"slow": slow, "fast": fast})
        assert result.result == [{"n": 1}, {"n": 2}, {"n": 3}]

    async def test_parallel_runs_of_one_tool_are_independent(self, sandbox: Any) -> None:
        """Two programs at once (parallel tool calls) each get their own child, scratch and result."""
        code_mode = create_code_mode({"echo": _echo_tool(delay=0.1)}, sandbox=sandbox)
        programs = [
            f"open('mine', 'w').write('{n}')\nawait external_echo({{'n': {n}}})\n[open('mine').read(), {n}]"
            for n in range(4)
        ]
        results = await asyncio.gather(*(code_mode.run(p) for p in programs))
        assert [r.result for r in results] == [["0", 0], ["1", 1], ["2", 2], ["3", 3]]

    async def test_keyword_arguments_are_accepted_as_the_input(self, run: Runner) -> None:
        """`external_x(city="Paris")` is the same as `external_x({"city": "Paris"})`."""
        result = await run("await external_echo(city='Paris')", {"echo": _echo_tool()})
        assert result.result == {"city": "Paris"}

    async def test_arguments_that_are_not_json_fail_before_dispatch(self, run: Runner) -> None:
        """The call never leaves the sandbox, and the error points at the call."""
        result = await run("x = 1\nawait external_echo({'when': object()})", {"echo": _echo_tool()})
        assert result.error is not None
        assert result.error.name == "TypeError"
        assert result.error.message.startswith("the input of external_echo() must be JSON: Object of type object")
        assert result.error.line == 2
        assert result.calls == ()

    async def test_an_input_nested_past_the_cap_fails_before_dispatch(self, run: Runner) -> None:
        """The same cap applies to call inputs; the call never leaves the sandbox."""
        code = "deep = {}\nfor _ in range(100):\n    deep = {'a': deep}\nawait external_echo(deep)"
        result = await run(code, {"echo": _echo_tool()})
        assert result.error == CodeModeError(
            name="ValueError", message="the input of external_echo() is nested deeper than 100 levels", line=4
        )
        assert result.calls == ()


class TestToolErrors:
    async def test_a_validation_error_is_raised_at_the_calling_line(self, run: Runner, shop: dict[str, Tool]) -> None:
        """The tool's own validation runs on the host; the program sees `ToolError` at its `await`."""
        code = program(
            """
            top = await external_getTopProducts({"limit": 1})
            rating = await external_getProductRatings({"product": "p1"})
            """
        )
        result = await run(code, shop)
        assert result.error is not None
        assert (result.error.name, result.error.line) == ("ToolError", 2)
        assert result.error.message.startswith(
            "ValidationError from tool 'getProductRatings': "
            "Invalid input for tool 'getProductRatings': at `productId`: Field required"
        )

    async def test_a_tool_error_is_catchable_with_its_name_and_message(
        self, run: Runner, shop: dict[str, Tool]
    ) -> None:
        """The program can recover: `.name`, `.message` and `.tool` are set."""
        code = program(
            """
            try:
                await external_getProductRatings({"productId": 42})
            except ToolError as error:
                return [error.name, error.tool, error.message.split(":")[0]]
            """
        )
        result = await run(code, shop)
        assert result.result == ["ValidationError", "getProductRatings", "Invalid input for tool 'getProductRatings'"]

    async def test_an_exception_in_the_tool_keeps_its_type_name(self, run: Runner) -> None:
        """A tool raising `KeyError` surfaces as a `ToolError` named `KeyError`."""

        def lookup(value: dict[str, Any]) -> Any:
            return {"a": 1}[value["key"]]

        tool = create_tool(
            id="lookup",
            description="Look up.",
            input_schema={"type": "object", "properties": {"key": {"type": "string"}}},
            execute=lookup,
        )
        code = "try:\n    await external_lookup({'key': 'zz'})\nexcept ToolError as e:\n    return [e.name, e.message]"
        assert (await run(code, {"lookup": tool})).result == ["KeyError", "Tool 'lookup' failed: KeyError: 'zz'"]

    async def test_only_configured_functions_exist(self, run: Runner, shop: dict[str, Tool]) -> None:
        """Mastra's allow-list test: an unknown `external_*` is a `NameError`."""
        result = await run("await external_deleteEverything({})", shop)
        assert result.error == CodeModeError(
            name="NameError", message="name 'external_deleteEverything' is not defined", line=1
        )


class TestLogs:
    async def test_print_stderr_and_logging_come_back_in_order(self, run: Runner) -> None:
        """One ordered list across the three channels; lines are whole, not fragments."""
        code = program(
            """
            import logging, sys
            print("a", 1, sep="-", end="")
            print("!")
            print("to stderr", file=sys.stderr)
            logging.getLogger("app").warning("careful: %s", "x")
            logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
            logging.getLogger("app").info("configured")
            print("last")
            """
        )
        result = await run(code)
        assert result.logs == ("a-1!", "[stderr] to stderr", "[stderr] careful: x", "[stderr] INFO configured", "last")

    async def test_logs_before_a_failure_are_kept(self, run: Runner) -> None:
        """Mastra's test: what was printed before the error is still returned."""
        result = await run("print('step 1')\nprint('step 2')\nundefined_name")
        assert result.logs == ("step 1", "step 2")
        assert result.error == CodeModeError(name="NameError", message="name 'undefined_name' is not defined", line=3)

    async def test_a_partial_last_line_is_flushed(self, run: Runner) -> None:
        """Output without a final newline is not lost."""
        assert (await run("print('no newline', end='')")).logs == ("no newline",)

    async def test_a_log_flood_is_capped_with_a_marker(self, run: Runner) -> None:
        """A program printing forever costs at most the budget."""
        result = await run("for i in range(100000):\n    print(i)", limits=Limits(max_log_chars=100))
        assert result.success
        assert result.logs[-1].startswith("… [logs truncated: ")
        assert sum(len(line) for line in result.logs[:-1]) <= 100

    async def test_an_overlong_line_is_cut_with_a_marker(self, run: Runner) -> None:
        """One huge print becomes one capped entry."""
        result = await run("print('z' * 50000)", limits=Limits(max_log_line_chars=20))
        assert result.logs == ("z" * 20 + "… [49980 more characters]",)


class TestLimits:
    async def test_an_infinite_loop_is_killed_at_the_timeout(self, run: Runner) -> None:
        """The host's clock kills the whole process group; logs so far are kept."""
        result = await run("print('started')\nwhile True:\n    pass", timeout=3.0)
        assert result.logs == ("started",)
        assert result.error == CodeModeError(
            name="TimeoutError", message="the program did not finish within 3 s and was stopped"
        )

    async def test_a_timeout_cancels_in_flight_tool_calls(self, run: Runner) -> None:
        """The host call is cancelled and reported, so nothing keeps running for a dead program."""
        cancelled = asyncio.Event()

        async def slow(_value: dict[str, Any]) -> str:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "never"

        tool = create_tool(id="slow", description="Slow.", execute=slow)
        result = await run("await external_slow({})", {"slow": tool}, timeout=3.0)
        assert cancelled.is_set()
        assert result.calls == (CallRecord(tool="slow", status="cancelled"),)
        assert result.error is not None
        assert result.error.name == "TimeoutError"

    async def test_aborting_the_call_stops_the_program(self, sandbox: Any) -> None:
        """The outer abort signal kills the runner; `execute_tool` reports the abort."""
        code_mode = create_code_mode({}, sandbox=sandbox)
        abort = AbortSignal()
        asyncio.get_running_loop().call_later(0.5, abort.abort, "user stopped it")
        result = await execute_tool(
            code_mode.tool,
            {"toolCallId": "c", "toolName": "execute_python", "input": {"code": "while True: pass"}},
            abort=abort,
        )
        assert result.output == {"type": "error-text", "value": "Tool 'execute_python' was aborted (user stopped it)."}

    async def test_aborting_mid_call_cancels_the_host_tool(self, sandbox: Any) -> None:
        """The in-flight tool task is cancelled and its abort signal fires, so it stops too."""
        started, cancelled = asyncio.Event(), asyncio.Event()
        signals: list[AbortSignal] = []

        async def slow(_value: dict[str, Any], context: Any) -> str:
            signals.append(context.abort_signal)
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "never"

        code_mode = create_code_mode(
            {"slow": create_tool(id="slow", description="Slow.", execute=slow)}, sandbox=sandbox
        )
        abort = AbortSignal()
        call = {"toolCallId": "c", "toolName": "execute_python", "input": {"code": "await external_slow({})"}}
        running = asyncio.ensure_future(execute_tool(code_mode.tool, call, abort=abort))
        await asyncio.wait_for(started.wait(), 10)
        abort.abort("user stopped it")
        result = await running
        assert result.output == {"type": "error-text", "value": "Tool 'execute_python' was aborted (user stopped it)."}
        assert cancelled.is_set()
        assert signals[0].aborted

    async def test_too_many_calls_raise_in_the_program(self, run: Runner) -> None:
        """`max_calls` refusals are ordinary `ToolError`s the program can see."""
        code = program(
            """
            done = 0
            try:
                for i in range(10):
                    await external_echo({"i": i})
                    done += 1
            except ToolError as error:
                return [done, error.name]
            """
        )
        result = await run(code, {"echo": _echo_tool()}, limits=Limits(max_calls=3))
        assert result.result == [3, "CallLimitError"]

    async def test_code_longer_than_the_cap_is_refused_before_running(self, sandbox: Any) -> None:
        """The input schema bounds the program; the model gets a validation error."""
        code_mode = create_code_mode({}, sandbox=sandbox, limits=Limits(max_code_chars=10))
        result = await execute_tool(
            code_mode.tool, {"toolCallId": "c", "toolName": "execute_python", "input": {"code": "x = 1234567890"}}
        )
        assert result.output["type"] == "error-text"
        assert "at `code`: 'x = 1234567890' is too long" in result.output["value"]
