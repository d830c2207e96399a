"""Every failure reports the line of the model's own code, with no wrapper offset."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from toolwire import Tool, create_tool
from toolwire.codemode import CodeModeError
from toolwire.codemode._child_program import FILENAME, ProgramReturn, compile_program, describe_error

Runner = Any


def program(source: str) -> str:
    return textwrap.dedent(source).strip("\n")


def _failing_tool() -> Tool:
    def explode(_value: dict[str, Any]) -> None:
        raise RuntimeError("the warehouse is on fire")

    return create_tool(id="explode", description="Always fails.", execute=explode)


class TestLinesInTheSandbox:
    async def test_a_syntax_error_reports_its_line(self, run: Runner) -> None:
        """Compile errors come from the model's source as written."""
        result = await run("x = 1\ny = (\nz = 3")
        assert result.error == CodeModeError(name="SyntaxError", message="'(' was never closed", line=2)

    async def test_return_inside_a_class_body_is_a_syntax_error_at_its_line(self, run: Runner) -> None:
        """Only module-level `return` is rewritten; elsewhere it stays an error."""
        result = await run("class A:\n    return 1")
        assert result.error == CodeModeError(name="SyntaxError", message="'return' outside function", line=2)

    async def test_a_runtime_error_at_top_level(self, run: Runner) -> None:
        """A plain failing statement."""
        result = await run("a = [1, 2]\nb = a[5]")
        assert result.error == CodeModeError(name="IndexError", message="list index out of range", line=2)

    async def test_an_error_inside_nested_functions_reports_the_innermost_line(self, run: Runner) -> None:
        """The innermost frame of the model's code, not the call site at the top."""
        code = program(
            """
            def outer(x):
                return inner(x) + 1

            def inner(x):
                return x["missing"]

            outer({})
            """
        )
        result = await run(code)
        assert result.error == CodeModeError(name="KeyError", message="'missing'", line=5)

    async def test_an_error_inside_a_gathered_coroutine(self, run: Runner) -> None:
        """Concurrent work still points at the failing line."""
        code = program(
            """
            async def work(n):
                await asyncio.sleep(0)
                return 10 // n

            await asyncio.gather(work(1), work(0))
            """
        )
        result = await run(code)
        assert result.error == CodeModeError(
            name="ZeroDivisionError", message="integer division or modulo by zero", line=3
        )

    async def test_a_failed_tool_call_reports_the_await_line(self, run: Runner) -> None:
        """The error raised by the host surfaces at the `await external_*` in the program."""
        code = program(
            """
            note = "first"
            value = await external_explode({})
            """
        )
        result = await run(code, {"explode": _failing_tool()})
        assert result.error == CodeModeError(
            name="ToolError",
            message="RuntimeError from tool 'explode': Tool 'explode' failed: RuntimeError: the warehouse is on fire",
            line=2,
        )

    async def test_a_tool_failure_inside_a_helper_reports_the_helper_line(self, run: Runner) -> None:
        """Through a helper function, the innermost program line is the helper's `await`."""
        code = program(
            """
            async def fetch():
                return await external_explode({})

            await fetch()
            """
        )
        result = await run(code, {"explode": _failing_tool()})
        assert result.error is not None
        assert result.error.line == 2

    async def test_an_exception_whose_str_raises_is_still_reported(self, run: Runner) -> None:
        """The runner never trusts the exception's own code."""
        code = program(
            """
            class Nasty(Exception):
                def __str__(self):
                    raise RuntimeError("no")

            raise Nasty()
            """
        )
        result = await run(code)
        assert result.error == CodeModeError(name="Nasty", message="<unprintable Nasty>", line=5)

    async def test_sys_exit_is_a_failure_at_its_line(self, run: Runner) -> None:
        """`SystemExit` ends the program like any other exception."""
        result = await run("import sys\nsys.exit(3)")
        assert result.error == CodeModeError(name="SystemExit", message="3", line=2)

    async def test_deep_recursion_reports_the_recursive_line(self, run: Runner) -> None:
        """`RecursionError` is caught and located."""
        result = await run("def f(n):\n    return f(n + 1)\nf(0)")
        assert result.error == CodeModeError(name="RecursionError", message="maximum recursion depth exceeded", line=2)

    async def test_null_bytes_in_the_source_are_a_clear_error(self, run: Runner) -> None:
        """The parser's ValueError comes back as a failure, not a crash."""
        result = await run("x = 1\x00")
        assert result.error == CodeModeError(
            name="SyntaxError", message="source code string cannot contain null bytes", line=None
        )


class TestCompileProgram:
    """The transformation itself, run in-process (it is the runner's pure part)."""

    @staticmethod
    def _run(source: str) -> Any:
        code = compile_program(source)
        namespace: dict[str, Any] = {"__toolwire_return__": ProgramReturn}
        try:
            exec(code, namespace)
        except ProgramReturn as returned:
            return returned.value, returned.line
        return None

    def test_return_in_a_nested_function_is_left_alone(self) -> None:
        """Functions keep their own `return`."""
        assert self._run("def f():\n    return 2\nx = f()\nreturn x * 3") == (6, 4)

    def test_a_lambda_is_left_alone(self) -> None:
        """Lambdas are expressions with their own value."""
        assert self._run("f = lambda: 5\nf() + 1") == (6, 2)

    def test_a_bare_return_gives_none(self) -> None:
        """`return` without a value is `return None`."""
        assert self._run("x = 1\nif x:\n    return\nx") == (None, 3)

    def test_a_return_signal_passes_through_except_exception(self) -> None:
        """The model's `except Exception` does not swallow its own `return`."""
        assert self._run("try:\n    return 1\nexcept Exception:\n    pass\n2") == (1, 2)

    @pytest.mark.parametrize(
        ("source", "expected"),
        [
            ("try:\n    1 / 0\nexcept ZeroDivisionError:\n    return 'handled'", ("handled", 4)),
            ("try:\n    pass\nfinally:\n    return 'finally'", ("finally", 4)),
            ("match 3:\n    case 3:\n        return 'matched'", ("matched", 3)),
            ("while True:\n    break\nelse:\n    pass\nfor i in [1]:\n    pass\nelse:\n    return i", (1, 8)),
            ("import contextlib\nwith contextlib.nullcontext():\n    return 'with'", ("with", 3)),
            ("if False:\n    pass\nelif True:\n    return 'elif'", ("elif", 4)),
        ],
    )
    def test_return_is_found_in_every_compound_statement(self, source: str, expected: tuple[Any, int]) -> None:
        """try/except/finally, match, loops with else, with and elif blocks."""
        assert self._run(source) == expected

    def test_compiled_code_carries_the_program_filename(self) -> None:
        """Tracebacks name `<program>`, which is how the runner finds the model's frames."""
        assert compile_program("1").co_filename == FILENAME

    @pytest.mark.parametrize(
        ("source", "expected"),
        [
            ("x = (", ("SyntaxError", "'(' was never closed", 1)),
            ("def f(:\n  pass", ("SyntaxError", "invalid syntax", 1)),
        ],
    )
    def test_describe_error_on_syntax_errors(self, source: str, expected: tuple[str, str, int]) -> None:
        """Name, message (without the file suffix) and line."""
        with pytest.raises(SyntaxError) as caught:
            compile_program(source)
        info = describe_error(caught.value, 1000)
        assert (info.name, info.message, info.line) == expected

    def test_describe_error_caps_the_message(self) -> None:
        """The runner caps messages too, not only the host."""
        info = describe_error(ValueError("v" * 100), 10)
        assert info.message == "vvvvvvvvv…"
