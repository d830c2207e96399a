"""`CommandTransport`: the same protocol over a command's stdin/stdout, for containers and microVMs."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from toolwire import Tool
from toolwire.codemode import CodeModeError, CommandTransport, Isolation, Limits, create_code_mode
from toolwire.runtime import execute_tool

DECLARED = Isolation(network=True, filesystem=True, processes=True, environment=True, boundary="a test container")


async def _run(transport: CommandTransport, code: str, tools: dict[str, Tool] | None = None) -> Any:
    code_mode = create_code_mode(tools or {}, transport=transport, limits=Limits(timeout=10))
    result = await execute_tool(
        code_mode.tool, {"toolCallId": "c", "toolName": "execute_python", "input": {"code": code}}
    )
    return result.raw


class TestCommandTransport:
    async def test_the_shop_program_runs_over_stdio(self, shop: dict[str, Tool]) -> None:
        """`env python -I -S -c <runner>` stands in for `docker run -i image python ...`."""
        transport = CommandTransport(["/usr/bin/env"], python=sys.executable, isolation=DECLARED)
        code = "top = await external_getTopProducts({'limit': 2})\nprint('ok')\n[p['name'] for p in top['products']]"
        result = await _run(transport, code, shop)
        assert (result.success, result.result, result.logs) == (True, ["Kettle", "Toaster"], ("ok",))

    async def test_prints_cannot_corrupt_the_protocol_on_stdout(self) -> None:
        """The runner moves the protocol off fd 1 and points fd 1 at stderr before any program runs."""
        transport = CommandTransport(["/usr/bin/env"], python=sys.executable, isolation=DECLARED)
        code = "import os\nos.write(1, b'not a frame\\n')\nprint('captured')\n'fine'"
        result = await _run(transport, code)
        assert (result.result, result.logs) == ("fine", ("captured",))

    def test_needs_no_sandbox(self, shop: dict[str, Tool]) -> None:
        """Its boundary is its own, so creation succeeds without `sandbox=`, stating the declared isolation."""
        transport = CommandTransport(["docker", "run", "-i", "--rm", "python:3.12-slim"], isolation=DECLARED)
        code_mode = create_code_mode(shop, transport=transport)
        assert "The program runs in a test container (standard library only)." in code_mode.instructions

    async def test_a_command_that_cannot_start_is_a_sandbox_error(self) -> None:
        """A missing binary is reported to the model, not raised through the agent loop."""
        transport = CommandTransport(["/nonexistent/docker"], isolation=DECLARED)
        result = await _run(transport, "1")
        assert result.error == CodeModeError(
            name="SandboxError",
            message="the sandbox could not start: [Errno 2] No such file or directory: '/nonexistent/docker'",
        )

    async def test_a_command_that_exits_at_once_is_a_missing_result(self) -> None:
        """No `ready`, no result: the exit status is reported."""
        transport = CommandTransport(["/bin/false"], isolation=DECLARED)
        result = await _run(transport, "1")
        assert result.error == CodeModeError(
            name="NoResultError", message="the sandbox process ended (exit code 1) before the program finished"
        )

    def test_the_command_must_be_a_list(self) -> None:
        """A shell string would be split by nobody; refuse it."""
        with pytest.raises(ValueError, match="needs the command as a non-empty list"):
            CommandTransport("docker run -i python", isolation=DECLARED)  # type: ignore[arg-type]

    def test_the_commands_environment_is_not_the_hosts(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """By default only `PATH` is passed to the command."""
        monkeypatch.setenv("TOOLWIRE_TEST_SECRET", "hunter2")
        transport = CommandTransport(["docker"], isolation=DECLARED)
        assert set(transport.env) == {"PATH"}
