"""Attacks on the host side of code mode: floods, forged frames, what the bridge shows, approvals.

Each test plays a hostile program in a real `LocalSandbox` (the program can write any bytes
to its protocol pipe) and checks on the host that the attack got nowhere. Bounds on time are
deliberately generous: they separate "answered at once" from "stalled for many seconds".
"""

from __future__ import annotations

import asyncio
import textwrap
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import create_tool
from toolwire.codemode import CodeModeError, CodeModeToolResult, Limits
from toolwire.results import ToolCall
from toolwire.targets import TargetHost

pytestmark = pytest.mark.security

Runner = Any
FORGE = "import json, os, sys\nfd = json.loads(sys.argv[1])['io'][1]\n"
"""Program prelude: `fd` is the runner's own protocol pipe to the host."""


def program(source: str) -> str:
    return FORGE + textwrap.dedent(source).strip("\n")


def echo_tools() -> dict[str, Any]:
    return {"echo": create_tool(id="echo", description="Echo.", execute=lambda value: value)}


async def longest_stall(work: Awaitable[CodeModeToolResult]) -> tuple[CodeModeToolResult, float]:
    """Run `work` beside a heartbeat; the longest the host loop went without answering it."""
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.05)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    beating = asyncio.ensure_future(heartbeat())
    try:
        result = await work
    finally:
        beating.cancel()
    return result, max(gaps, default=0.0)


def gone(pid: int) -> bool:
    """The runner with this pid no longer exists (reaped, or the pid now belongs to something else)."""
    try:
        return b"toolwire" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


FLOOD = 30_000


class TestForgedFloods:
    """Tens of thousands of forged requests, written without ever reading a reply."""

    @pytest.mark.parametrize(
        "request_line",
        [
            '{"jsonrpc":"2.0","id":%d,"method":"call","params":{"tool":"admin","input":{}}}\n',
            '{"jsonrpc":"2.0","id":%d,"method":"search","params":{"query":"x"}}\n',
        ],
        ids=["calls-to-a-tool-not-allowed", "lookups-past-the-cap"],
    )
    async def test_a_flood_of_refused_requests_never_stalls_the_host(self, run: Runner, request_line: str) -> None:
        """Refusals are capped and answered without a task each: the run ends, the loop keeps beating."""
        code = program(
            f"""
            print(os.getpid())
            line = {request_line!r}
            for i in range({FLOOD}):
                os.write(fd, (line % (i + 1000)).encode())
            import time
            time.sleep(60)
            """
        )
        result, stall = await longest_stall(run(code, echo_tools(), timeout=3.0))
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (more than 1000 refused requests in one run) and was stopped",
        )
        assert len(result.calls) <= 1000
        assert stall < 5.0, f"the host event loop stalled for {stall:.1f} s"
        assert gone(int(result.logs[0]))

    async def test_a_flood_of_allowed_calls_never_reading_replies_is_bounded(self, run: Runner) -> None:
        """At most `max_calls` run; the rest are refused, up to the refusal cap, then the run stops."""
        code = program(
            f"""
            line = '{{"jsonrpc":"2.0","id":%d,"method":"call","params":{{"tool":"echo","input":{{"i":1}}}}}}\\n'
            for i in range({FLOOD}):
                os.write(fd, (line % (i + 1000)).encode())
            import time
            time.sleep(60)
            """
        )
        result, stall = await longest_stall(run(code, echo_tools(), timeout=3.0, limits=Limits(max_calls=200)))
        assert result.error is not None
        assert result.error.message.startswith(
            "the sandbox broke the protocol (more than 1000 refused requests in one run) and was stopped"
        )
        assert [c.status for c in result.calls].count("refused") == 1000
        assert len(result.calls) == 1200
        assert stall < 5.0, f"the host event loop stalled for {stall:.1f} s"

    async def test_lookups_under_the_cap_are_answered_off_the_event_loop(self, run: Runner) -> None:
        """100 `describe` requests for every stub of a large catalog cost the host seconds of CPU, not loop time."""

        class Address(BaseModel):
            street: str
            city: str

        class Order(BaseModel):
            name: str
            tags: list[str]
            address: Address
            notes: str | None = None

        tools = {
            f"tool_{i}": create_tool(
                id=f"tool_{i}", description=f"Tool {i}.", input_schema=Order, output_schema=Order, execute=dict
            )
            for i in range(100)
        }
        names = [f"external_tool_{i}" for i in range(100)]
        code = program(
            f"""
            import fcntl, json as j
            fcntl.fcntl(fd, 1031, 1 << 20)  # F_SETPIPE_SZ: the host then reads the whole flood at once
            line = '{{"jsonrpc":"2.0","id":%d,"method":"describe","params":{{"names":' + j.dumps({names!r}) + '}}}}\\n'
            for i in range(100):
                os.write(fd, (line % (i + 1000)).encode())
            import time
            time.sleep(60)
            """
        )
        result, stall = await longest_stall(run(code, tools, timeout=3.0))
        assert result.error is not None
        assert result.error.name == "TimeoutError"
        assert stall < 1.0, f"the host event loop stalled for {stall:.1f} s"

    async def test_the_timeout_kills_the_child_even_while_the_host_loop_is_blocked(self, run: Runner) -> None:
        """A watchdog outside the event loop kills the runner at the deadline, whatever the loop is doing."""
        observed: list[str] = []

        async def hog(value: dict[str, Any]) -> str:
            # Blocks the whole event loop (a badly written tool), watching the runner from inside the block.
            pid, started = value["pid"], time.monotonic()
            while time.monotonic() - started < 30:
                if _dead(pid):
                    observed.append("killed while the loop was blocked")
                    return "late"
                time.sleep(0.05)
            observed.append("still alive after 30 s")
            return "late"

        tools = {"hog": create_tool(id="hog", description="Blocks.", execute=hog)}
        code = "import os\nawait external_hog({'pid': os.getpid()})\nimport time\ntime.sleep(60)"
        result = await run(code, tools, timeout=1.0)
        assert observed == ["killed while the loop was blocked"]
        assert result.error is not None
        assert result.error.name == "TimeoutError"


def _dead(pid: int) -> bool:
    """Exited (a zombie waiting to be reaped counts) or gone."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


class TestForgedResults:
    async def test_a_forged_done_over_the_result_limit_is_refused(self, run: Runner) -> None:
        """`max_result_bytes` is enforced on the host, not only by the runner's own check."""
        code = program(
            """
            frame = '{"jsonrpc":"2.0","method":"done","params":{"ok":true,"result":"' + 'x' * 5000 + '"}}\\n'
            os.write(fd, frame.encode())
            import time
            time.sleep(60)
            """
        )
        result = await run(code, limits=Limits(max_result_bytes=1000))
        assert result.success is False
        assert result.error == CodeModeError(
            name="ResultTooLarge", message="the result is 5002 bytes of JSON; the limit is 1000: return less data"
        )

    async def test_a_forged_done_with_an_overflowing_number_is_a_protocol_error(self, run: Runner) -> None:
        """`1e400` parses as infinity, which JSON cannot carry: refused like `Infinity`, never a host ValueError."""
        code = program(
            """
            os.write(fd, b'{"jsonrpc":"2.0","method":"done","params":{"ok":true,"result":[1e400]}}\\n')
            import time
            time.sleep(60)
            """
        )
        result = await run(code)
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (a frame that is not JSON (ValueError)) and was stopped",
        )

    @pytest.mark.parametrize(
        ("method", "inner"),
        [("done", '"\\\\ud800"'), ("done", "1"), ("call", "1"), ("log", '"\\\\udfff"')],
        ids=["done-lone-surrogate", "done", "call-input", "log"],
    )
    async def test_a_deeply_nested_frame_is_a_protocol_error(self, run: Runner, method: str, inner: str) -> None:
        """Nesting that would exhaust the host's recursion is refused as a protocol error, not a RecursionError."""
        value = "'[' * 900 + '" + inner + "' + ']' * 900"
        params = {
            "done": "'{\"ok\":true,\"result\":' + nested + '}'",
            "call": '\'{"tool":"echo","input":{"a":\' + nested + \'}}\'',
            "log": '\'{"stream":"stdout","text":"x","extra":\' + nested + \'}\'',
        }[method]
        code = program(
            f"""
            nested = {value}
            frame = '{{"jsonrpc":"2.0","id":7,"method":"{method}","params":' + {params} + '}}\\n'
            os.write(fd, frame.encode())
            import time
            time.sleep(60)
            """
        )
        result = await run(code, echo_tools())
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (a value nested deeper than 100 levels) and was stopped",
        )


class TestWhatTheBridgeReturns:
    """An `external_*` call gives the program what a direct call gives the model, nothing more."""

    async def test_to_model_output_decides_what_the_program_sees(self, run: Runner) -> None:
        """A value `to_model_output` hides from the model is hidden from the program too."""
        tool = create_tool(
            id="account",
            description="Account.",
            execute=lambda _value: {"balance": 12, "internal_token": "tok-secret"},
            to_model_output=lambda raw: {"type": "json", "value": {"balance": raw["balance"]}},
        )
        result = await run("await external_account({})", {"account": tool})
        assert result.result == {"balance": 12}

    async def test_a_targets_markdown_and_embed_url_never_reach_the_program(self, run: Runner) -> None:
        """The handler's display-only fields (and the identity token in the embed URL) stay on the host."""

        def handler(_value: Any) -> dict[str, Any]:
            return {
                "content": {"saved": True},
                "markdown": "**saved** for user 42",
                "embedUrl": "https://embed.example/card?identity=tok-secret",
            }

        host = TargetHost(builtins={"handler": handler}, allowed_origins=["https://embed.example"])
        tool = create_tool(
            id="save", description="Save.", target={"type": "builtin", "name": "handler"}, target_host=host
        )
        result = await run("r = await external_save({})\nprint(r)\nr", {"save": tool})
        assert result.result == {"saved": True}
        assert result.logs == ("{'saved': True}",)

    async def test_text_output_is_a_string_and_content_output_a_list_of_parts(self, run: Runner) -> None:
        """The other model-output forms: text as `str`, content as its parts."""
        tools = {
            "note": create_tool(
                id="note",
                description="Note.",
                execute=lambda _value: {"text": "hello", "secret": "s"},
                to_model_output=lambda raw: {"type": "text", "value": raw["text"]},
            ),
            "chart": create_tool(
                id="chart",
                description="Chart.",
                execute=lambda _value: {"png": "aGk=", "debug": "s"},
                to_model_output=lambda raw: {
                    "type": "content",
                    "value": [{"type": "image-data", "data": raw["png"], "mediaType": "image/png"}],
                },
            ),
        }
        result = await run("[await external_note({}), await external_chart({})]", tools)
        assert result.result == ["hello", [{"type": "image-data", "data": "aGk=", "mediaType": "image/png"}]]


class Refund(BaseModel):
    amount: int


class TestApprovalSeesValidatedInput:
    async def test_the_approval_callback_receives_the_validated_input(self, run: Runner) -> None:
        """`"9"` is coerced to `9` before anyone decides on it, and the tool runs with what was approved."""
        asked: list[Any] = []
        ran: list[Any] = []

        def approve(call: ToolCall) -> bool:
            asked.append(call.input)
            return isinstance(call.input["amount"], int) and call.input["amount"] < 10

        tool = create_tool(
            id="refund",
            description="Refund.",
            input_schema=Refund,
            require_approval=True,
            execute=lambda value: ran.append(value.amount) or "done",
        )
        result = await run("await external_refund({'amount': '9'})", {"refund": tool}, approve=approve)
        assert (asked, ran, result.result) == ([{"amount": 9}], [9], "done")

    async def test_invalid_input_is_refused_before_the_approval_callback(self, run: Runner) -> None:
        """Nobody is asked to approve a call that cannot run."""
        asked: list[Any] = []

        def approve(call: ToolCall) -> bool:
            asked.append(call.input)
            return True

        tool = create_tool(
            id="refund", description="Refund.", input_schema=Refund, require_approval=True, execute=lambda _v: "done"
        )
        code = "try:\n    await external_refund({'amount': 'nine'})\nexcept ToolError as e:\n    return e.name"
        result = await run(code, {"refund": tool}, approve=approve)
        assert (asked, result.result) == ([], "ValidationError")
