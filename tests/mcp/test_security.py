"""Attacks on the MCP server: replayed approvals (2026-07-28) and what error results tell the client."""

from __future__ import annotations

import asyncio
import logging
import string
from collections.abc import Callable
from typing import Any

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError

from toolwire import ToolError, create_tool
from toolwire.mcp import build_server
from toolwire.mcp._scrub import MAX_ERROR_TEXT, PATH, client_error_text
from toolwire.runtime import ToolContext

pytestmark = pytest.mark.security

ACCEPT = mcp_types.ElicitResult(action="accept", content={})
MODERN = "2026-07-28"
REPLAY_REFUSED = "Invalid or expired requestState"


def _delete_tool(runs: list[Any]) -> Any:
    return create_tool(
        id="delete_file",
        description="Delete a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
        require_approval=True,
        execute=lambda value: runs.append(value) or "deleted",
    )


def _book_tool(runs: list[Any]) -> Any:
    """Approval first, then a suspension asking for the seat: two answered rounds before it runs."""

    def book(value: dict[str, Any], context: ToolContext) -> str:
        if context.resume_data is None:
            context.suspend({"question": "Which seat?"})
        runs.append(context.resume_data)
        return f"booked {context.resume_data['seat']}"

    return create_tool(
        id="book",
        description="Book a seat.",
        require_approval=True,
        execute=book,
        resume_schema={"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]},
    )


async def _approved_state(client: Client) -> dict[str, Any]:
    first = await client.session.call_tool("delete_file", {"path": "/x"}, allow_input_required=True)
    assert isinstance(first, mcp_types.InputRequiredResult)
    return {"input_responses": {"approval": ACCEPT}, "request_state": first.request_state}


async def _accept(context: Any, params: Any) -> mcp_types.ElicitResult:
    return ACCEPT


def _connect(server: Any) -> Client:
    """A 2026-07-28 client that can answer questions (the test answers them by hand)."""
    return Client(server, mode=MODERN, elicitation_callback=_accept)


class TestApprovalReplay:
    async def test_an_approved_state_runs_the_tool_once(self) -> None:
        """Re-sending the approved `requestState` is refused like an expired one; the tool ran once."""
        runs: list[Any] = []
        async with Client(
            build_server([_delete_tool(runs)], name="files", version="1"), mode=MODERN, elicitation_callback=_accept
        ) as client:
            approved = await _approved_state(client)
            done = await client.session.call_tool("delete_file", {"path": "/x"}, **approved)
            refusals = []
            for _ in range(2):
                with pytest.raises(MCPError) as caught:
                    await client.session.call_tool("delete_file", {"path": "/x"}, **approved)
                refusals.append(caught.value.error.message)
        assert (done.content, refusals, runs) == (
            [mcp_types.TextContent(text="deleted")],
            [REPLAY_REFUSED, REPLAY_REFUSED],
            [{"path": "/x"}],
        )

    async def test_a_second_connection_cannot_replay_the_approval(self) -> None:
        """The approval is spent on the server, not on the connection that used it."""
        runs: list[Any] = []
        server = build_server([_delete_tool(runs)], name="files", version="1")
        async with _connect(server) as client:
            approved = await _approved_state(client)
            await client.session.call_tool("delete_file", {"path": "/x"}, **approved)
        async with _connect(server) as other:
            with pytest.raises(MCPError, match=REPLAY_REFUSED):
                await other.session.call_tool("delete_file", {"path": "/x"}, **approved)
        assert runs == [{"path": "/x"}]

    async def test_concurrent_sends_of_one_approval_run_the_tool_once(self) -> None:
        """Five copies of the approved state sent at once: one runs, four are refused."""
        runs: list[Any] = []
        async with Client(
            build_server([_delete_tool(runs)], name="files", version="1"), mode=MODERN, elicitation_callback=_accept
        ) as client:
            approved = await _approved_state(client)
            outcomes = await asyncio.gather(
                *(client.session.call_tool("delete_file", {"path": "/x"}, **approved) for _ in range(5)),
                return_exceptions=True,
            )
        refused = [o for o in outcomes if isinstance(o, MCPError)]
        assert (len(runs), len(refused)) == (1, 4)

    @pytest.mark.parametrize("replayed_round", [1, 2])
    async def test_no_round_of_a_multi_round_call_can_be_replayed(self, replayed_round: int) -> None:
        """The approval round and the suspension round are each single-use, with any answer."""
        runs: list[Any] = []
        seat = {"seat": mcp_types.ElicitResult(action="accept", content={"seat": "12A"})}
        async with Client(
            build_server([_book_tool(runs)], name="air", version="1"), mode=MODERN, elicitation_callback=_accept
        ) as client:
            first = await client.session.call_tool("book", {}, allow_input_required=True)
            assert isinstance(first, mcp_types.InputRequiredResult)
            second = await client.session.call_tool(
                "book",
                {},
                allow_input_required=True,
                input_responses={"approval": ACCEPT},
                request_state=first.request_state,
            )
            assert isinstance(second, mcp_types.InputRequiredResult)
            (question,) = second.input_requests or {}
            await client.session.call_tool(
                "book", {}, input_responses={question: seat["seat"]}, request_state=second.request_state
            )
            replay = (
                {"input_responses": {"approval": ACCEPT}, "request_state": first.request_state}
                if replayed_round == 1
                else {"input_responses": {question: seat["seat"]}, "request_state": second.request_state}
            )
            with pytest.raises(MCPError, match=REPLAY_REFUSED):
                await client.session.call_tool("book", {}, allow_input_required=True, **replay)
        assert runs == [{"seat": "12A"}]

    async def test_workers_sharing_a_ledger_refuse_a_replay_on_the_other_worker(self) -> None:
        """With `request_state_security` keys and one shared `round_ledger`, single use spans workers."""
        from toolwire.mcp import MemoryRoundLedger

        runs: list[Any] = []
        key = RequestStateSecurity(keys=[b"0123456789abcdef0123456789abcdef"])
        ledger = MemoryRoundLedger()
        tool = _delete_tool(runs)
        first_worker = build_server([tool], name="files", version="1", request_state_security=key, round_ledger=ledger)
        second_worker = build_server([tool], name="files", version="1", request_state_security=key, round_ledger=ledger)
        async with _connect(first_worker) as client:
            approved = await _approved_state(client)
            await client.session.call_tool("delete_file", {"path": "/x"}, **approved)
        async with _connect(second_worker) as client:
            with pytest.raises(MCPError, match=REPLAY_REFUSED):
                await client.session.call_tool("delete_file", {"path": "/x"}, **approved)
        assert runs == [{"path": "/x"}]


NUMBER = create_tool(
    id="count",
    description="Count.",
    input_schema={
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "integer"}}},
        "required": ["n"],
        "additionalProperties": False,
    },
    execute=lambda value: "ok",
)


class TestInvalidInputIsBounded:
    @pytest.mark.parametrize(
        ("arguments", "names"),
        [
            ({"n": "x" * 5_000_000}, "at `n`: 'xxxxxxxxxx"),
            ({"n": {"k": ["y" * 100_000] * 10}}, "at `n`: {'k': ["),
            ({"n": 1, "tags": ["z"] * 50_000}, "at `tags.0`: 'z' is not of type 'integer'"),
            ({"n": 1, "k" * 1_000_000: 1}, "Additional properties are not allowed"),
        ],
        ids=["5 MB string", "wide object", "50,000 invalid items", "1 MB unexpected key"],
    )
    async def test_an_invalid_value_is_not_echoed_whole(
        self, arguments: dict[str, Any], names: str, connect: Callable[..., Client]
    ) -> None:
        """The error names the field and the problem, quoting at most a short prefix of the value."""
        async with connect(build_server([NUMBER], name="demo", version="1")) as client:
            result = await client.call_tool("count", arguments)
        text = result.content[0].text
        assert (result.is_error, names in text, len(text) <= MAX_ERROR_TEXT) == (True, True, True)

    async def test_an_unknown_tool_name_is_not_echoed_whole(self, connect: Callable[..., Client]) -> None:
        """The protocol error names at most the first 100 characters of a 1 MB tool name."""
        async with connect(build_server([NUMBER], name="demo", version="1")) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("n" * 1_000_000, {})
        assert caught.value.error.message == f"Unknown tool: {'n' * 100!r}"


def _raiser(exception: BaseException) -> Any:
    def execute(value: dict[str, Any]) -> None:
        raise exception

    return create_tool(id="boom", description="Fails.", execute=execute)


class TestToolErrorsLeakNoHostPaths:
    @pytest.mark.parametrize(
        ("exception", "shown"),
        [
            (
                FileNotFoundError(2, "No such file or directory", "/srv/secret/app/config.db"),
                "FileNotFoundError: [Errno 2] No such file or directory: '[path]'",
            ),
            (
                PermissionError(13, "Permission denied", "/etc/shadow"),
                "PermissionError: [Errno 13] Permission denied: '[path]'",
            ),
            (RuntimeError(r"cannot load C:\Users\alice\AppData\secret.json"), "RuntimeError: cannot load [path]"),
            (RuntimeError(r"share \\fileserver\hr\salaries.xlsx is gone"), "RuntimeError: share [path] is gone"),
            (ValueError("see file:///home/alice/.ssh/id_rsa"), "ValueError: see [path]"),
            (OSError("~/.aws/credentials is missing"), "OSError: [path] is missing"),
            (
                RuntimeError('File "/opt/app/src/tools/x.py", line 3, in run'),
                'RuntimeError: File "[path]", line 3, in run',
            ),
            (RuntimeError("cannot open path:/srv/app/secret.db"), "RuntimeError: cannot open path:[path]"),
            (RuntimeError("engine sqlite:///srv/app/db.sqlite is locked"), "RuntimeError: engine [path] is locked"),
            (ValueError("see file:/etc/passwd"), "ValueError: see [path]"),
        ],
        ids=[
            "posix",
            "errno",
            "windows",
            "unc",
            "file url",
            "home",
            "traceback line",
            "after a colon",
            "url without authority",
            "file url with one slash",
        ],
    )
    async def test_a_host_path_in_an_exception_is_scrubbed_for_the_client_and_logged_whole(
        self,
        exception: BaseException,
        shown: str,
        connect: Callable[..., Client],
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        """The client reads `[path]`; the server log keeps the real message."""
        caplog.set_level(logging.INFO)
        async with connect(build_server([_raiser(exception)], name="demo", version="1")) as client:
            result = await client.call_tool("boom", {})
        assert (result.is_error, result.content[0].text, str(exception) in caplog.text) == (
            True,
            f"Tool 'boom' failed: {shown}",
            True,
        )

    async def test_urls_and_ratios_are_not_paths(self, connect: Callable[..., Client]) -> None:
        """Only file system paths are scrubbed: a URL the tool called, `1/2` or `and/or` stay."""
        message = "GET https://api.example.com/v1/items?page=1/2 failed and/or timed out"
        async with connect(build_server([_raiser(RuntimeError(message))], name="demo", version="1")) as client:
            result = await client.call_tool("boom", {})
        assert result.content[0].text == f"Tool 'boom' failed: RuntimeError: {message}"

    @pytest.mark.parametrize(
        ("message", "shown"),
        [
            (
                "could not connect to postgresql://admin:hunter2@db.internal:5432/prod",
                "could not connect to postgresql://[credentials]@db.internal:5432/prod",
            ),
            ("redis://:s3cret@10.0.0.5:6379/0 refused", "redis://[credentials]@10.0.0.5:6379/0 refused"),
            (
                "clone https://ghp_token@github.com/org/repo.git failed",
                "clone https://[credentials]@github.com/org/repo.git failed",
            ),
        ],
        ids=["user and password", "password only", "token as user"],
    )
    async def test_credentials_in_a_url_are_scrubbed(
        self, message: str, shown: str, connect: Callable[..., Client]
    ) -> None:
        """A database DSN or a clone URL in an exception keeps its host but not its `user:password@`."""
        async with connect(build_server([_raiser(ConnectionError(message))], name="demo", version="1")) as client:
            result = await client.call_tool("boom", {})
        assert result.content[0].text == f"Tool 'boom' failed: ConnectionError: {shown}"

    async def test_a_tool_error_is_the_authors_own_words_and_passes_unchanged(
        self, connect: Callable[..., Client]
    ) -> None:
        """`ToolError` is written for the model on purpose; the server does not rewrite it."""
        async with connect(build_server([_raiser(ToolError("saved to /tmp/report.pdf"))], name="d", version="1")) as c:
            result = await c.call_tool("boom", {})
        assert result.content[0].text == "saved to /tmp/report.pdf"

    async def test_a_huge_exception_message_is_bounded(self, connect: Callable[..., Client]) -> None:
        """A 1 MB message is cut, saying how much was cut and where the rest is."""
        async with connect(build_server([_raiser(ValueError("v" * 1_000_000))], name="demo", version="1")) as client:
            result = await client.call_tool("boom", {})
        text = result.content[0].text
        assert (len(text) <= MAX_ERROR_TEXT, text.endswith("characters cut; the full error is in the server log)")) == (
            True,
            True,
        )


_SEGMENT = st.text(alphabet=string.ascii_letters + string.digits + "._-", min_size=1, max_size=12)


def _spelled(style: str, segments: list[str]) -> str:
    joined = "/".join(segments)
    return {
        "posix": "/" + joined,
        "windows": "C:\\" + "\\".join(segments),
        "windows repr": "D:\\\\" + "\\\\".join(segments),
        "unc": "\\\\fileserver\\" + "\\".join(segments),
        "home": "~/" + joined,
        "file url": "file:///" + joined,
    }[style]


class TestScrubbingProperties:
    @settings(max_examples=300, deadline=None)
    @given(
        segments=st.lists(_SEGMENT, min_size=1, max_size=6),
        style=st.sampled_from(["posix", "windows", "windows repr", "unc", "home", "file url"]),
        before=st.sampled_from([" ", " '", ' "', " (", " [", "=", " <", " path:"]),
        after=st.sampled_from(["", " ", "'", '"', ")", "]", ",", ";", ">"]),
    )
    def test_any_host_path_is_replaced_whole(self, segments: list[str], style: str, before: str, after: str) -> None:
        """Every spelling of an absolute path, between the delimiters messages use, becomes `[path]`."""
        path = _spelled(style, segments)
        shown = client_error_text(f"failed:{before}{path}{after} done", RuntimeError())
        assert shown == f"failed:{before}{PATH}{after} done"

    @pytest.mark.parametrize("unit", ["a.", "a-", "a+", "a:", "C:", "file:", "~a", "a/"])
    def test_a_huge_message_of_path_like_pieces_is_scrubbed_in_one_pass(self, unit: str) -> None:
        """Half a megabyte of `a.a.a...` (scheme characters) is scrubbed; no pattern rescans the rest per start."""
        text = unit * 250_000
        assert len(client_error_text(text, RuntimeError())) <= MAX_ERROR_TEXT

    @settings(max_examples=100, deadline=None)
    @given(text=st.text(max_size=50), size=st.integers(min_value=0, max_value=20_000))
    def test_every_error_text_is_bounded(self, text: str, size: int) -> None:
        """Whatever the error says and however long it is, the client gets at most `MAX_ERROR_TEXT` characters."""
        shown = client_error_text(text * size, ToolError("x"))
        assert len(shown) <= MAX_ERROR_TEXT
