"""Specification of approvals, `context.mcp.elicit` and suspended calls over MCP elicitation, on both protocol eras."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types
from mcp import Client
from pydantic import BaseModel

from toolwire import create_tool
from toolwire.mcp import Elicitation, build_server
from toolwire.runtime import ToolContext

Answer = Callable[[mcp_types.ElicitRequestParams], mcp_types.ElicitResult]


def answering(*answers: mcp_types.ElicitResult, asked: list[Any] | None = None) -> Any:
    """An elicitation callback giving these answers in turn and recording each question."""
    queue = list(answers)

    async def callback(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        if asked is not None:
            asked.append(params)
        return queue.pop(0)

    return callback


ACCEPT = mcp_types.ElicitResult(action="accept", content={})
DECLINE = mcp_types.ElicitResult(action="decline")
CANCEL = mcp_types.ElicitResult(action="cancel")


def text_of(result: mcp_types.CallToolResult) -> tuple[bool, str]:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return result.is_error, block.text


class TestApproval:
    def _tool(self, runs: list[Any]) -> Any:
        return create_tool(
            id="delete_file",
            description="Delete a file",
            input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
            require_approval=True,
            execute=lambda value: runs.append(value) or f"deleted {value['path']}",
        )

    async def test_accepted_approval_runs_the_tool(self, connect: Callable[..., Client]) -> None:
        """The user is asked with the tool's name and input; accepting runs it."""
        runs: list[Any] = []
        asked: list[Any] = []
        server = build_server([self._tool(runs)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT, asked=asked)) as client:
            result = await client.call_tool("delete_file", {"path": "/tmp/x"})
        assert text_of(result) == (False, "deleted /tmp/x")
        assert runs == [{"path": "/tmp/x"}]
        assert [(p.message, p.requested_schema) for p in asked] == [
            (
                'Allow the tool \'delete_file\' to run?\n\nInput:\n{\n  "path": "/tmp/x"\n}',
                {"type": "object", "properties": {}},
            )
        ]

    async def test_declined_approval_is_a_denied_result_and_the_tool_does_not_run(
        self, connect: Callable[..., Client]
    ) -> None:
        """The model reads that the user said no."""
        runs: list[Any] = []
        server = build_server([self._tool(runs)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(DECLINE)) as client:
            result = await client.call_tool("delete_file", {"path": "/tmp/x"})
        assert text_of(result) == (True, "The user denied this tool call: declined in the MCP client")
        assert runs == []

    async def test_dismissed_approval_is_denied_too(self, connect: Callable[..., Client]) -> None:
        """Closing the dialog is not consent."""
        runs: list[Any] = []
        server = build_server([self._tool(runs)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(CANCEL)) as client:
            result = await client.call_tool("delete_file", {"path": "/tmp/x"})
        assert text_of(result) == (True, "The user denied this tool call: dismissed without an answer")
        assert runs == []

    async def test_client_without_elicitation_gets_a_clear_error_and_the_tool_does_not_run(
        self, connect: Callable[..., Client]
    ) -> None:
        """No way to ask means no approval, and the model is told why."""
        runs: list[Any] = []
        server = build_server([self._tool(runs)], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("delete_file", {"path": "/tmp/x"})
        assert text_of(result) == (
            True,
            "Tool 'delete_file' needs the user's approval, but the MCP client does not support elicitation; "
            "the tool did not run.",
        )
        assert runs == []

    async def test_invalid_input_fails_without_asking_for_approval(self, connect: Callable[..., Client]) -> None:
        """Nobody is asked to approve a call that cannot run; the model gets the validation error."""
        runs: list[Any] = []
        asked: list[Any] = []
        server = build_server([self._tool(runs)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT, asked=asked)) as client:
            result = await client.call_tool("delete_file", {"path": 3})
        assert text_of(result) == (
            True,
            "Invalid input for tool 'delete_file': at `path`: 3 is not of type 'string'. "
            'Call it again with input matching {"type":"object","properties":{"path":{"type":"string"}}}',
        )
        assert (asked, runs) == ([], [])

    async def test_approval_prompt_shows_the_display_approval_transform(self, connect: Callable[..., Client]) -> None:
        """Secrets redacted for display never reach the approval dialog."""
        asked: list[Any] = []
        tool = create_tool(
            id="send",
            description="Send a message",
            input_schema={"type": "object", "properties": {"to": {"type": "string"}, "token": {"type": "string"}}},
            require_approval=True,
            transform={"display": {"approval": lambda approval: {"to": approval["to"], "token": "***"}}},
            execute=lambda value: "sent",
            mcp={"annotations": {"title": "Send message"}},
        )
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT, asked=asked)) as client:
            await client.call_tool("send", {"to": "bob", "token": "s3cr3t"})
        assert asked[0].message == "Allow the tool 'Send message' to run?\n\nInput:\n" + json.dumps(
            {"to": "bob", "token": "***"}, indent=2
        )


class City(BaseModel):
    name: str
    days: int = 1


class TestElicit:
    async def test_execute_asks_through_context_mcp_and_gets_a_validated_model(
        self, connect: Callable[..., Client]
    ) -> None:
        """The answer comes back as the pydantic model the tool asked for."""
        asked: list[Any] = []

        async def plan(value: Any, context: ToolContext) -> str:
            answer: Elicitation = await context.mcp.elicit("Which city?", City)
            return f"{answer.action}: {answer.content!r}"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        reply = mcp_types.ElicitResult(action="accept", content={"name": "Oslo", "days": 3})
        async with connect(server, elicitation_callback=answering(reply, asked=asked)) as client:
            result = await client.call_tool("plan", {})
        assert text_of(result) == (False, "accept: City(name='Oslo', days=3)")
        assert [(p.message, p.requested_schema) for p in asked] == [
            (
                "Which city?",
                {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "title": "Name"},
                        "days": {"type": "integer", "title": "Days", "default": 1},
                    },
                    "required": ["name"],
                },
            )
        ]

    async def test_sync_tool_asks_with_elicit_sync(self, connect: Callable[..., Client]) -> None:
        """Sync tools run in a worker thread and block on the answer."""

        def confirm(value: Any, context: ToolContext) -> str:
            answer = context.mcp.elicit_sync("Go ahead?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
            return json.dumps([answer.action, answer.content])

        server = build_server(
            [create_tool(id="confirm", description="d", execute=confirm)], name="demo", version="1.0.0"
        )
        reply = mcp_types.ElicitResult(action="accept", content={"ok": True})
        async with connect(server, elicitation_callback=answering(reply)) as client:
            result = await client.call_tool("confirm", {})
        assert text_of(result) == (False, '["accept", {"ok": true}]')

    async def test_elicit_sync_on_the_event_loop_is_refused(self, connect: Callable[..., Client]) -> None:
        """Blocking the loop that must carry the answer would hang the server."""

        async def plan(value: Any, context: ToolContext) -> str:
            context.mcp.elicit_sync("Which city?", City)
            return "unreachable"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT)) as client:
            result = await client.call_tool("plan", {})
        assert text_of(result) == (
            True,
            "Tool 'plan' failed: RuntimeError: elicit_sync() would block the event loop; "
            "use `await context.mcp.elicit(...)`",
        )

    async def test_declined_question_reaches_the_tool(self, connect: Callable[..., Client]) -> None:
        """A decline is an answer the tool handles itself."""

        async def plan(value: Any, context: ToolContext) -> str:
            answer = await context.mcp.elicit("Which city?", City)
            return "no city" if not answer.accepted else "city"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(DECLINE)) as client:
            result = await client.call_tool("plan", {})
        assert text_of(result) == (False, "no city")

    async def test_answer_not_matching_the_schema_fails_the_call(self, connect: Callable[..., Client]) -> None:
        """A malformed answer never reaches the tool as if it were valid."""

        async def plan(value: Any, context: ToolContext) -> str:
            await context.mcp.elicit("Which city?", City)
            return "unreachable"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        reply = mcp_types.ElicitResult(action="accept", content={"days": 2})
        async with connect(server, elicitation_callback=answering(reply)) as client:
            result = await client.call_tool("plan", {})
        is_error, text = text_of(result)
        assert is_error is True
        assert text.startswith(
            "Tool 'plan' failed: ElicitationError: the client's answer does not match the requested schema: "
            "1 validation error for City\nname\n  Field required"
        )

    async def test_client_without_elicitation_fails_the_call_clearly(self, connect: Callable[..., Client]) -> None:
        """Tools can check `can_elicit` first; otherwise asking fails with a clear error."""

        async def plan(value: Any, context: ToolContext) -> str:
            assert context.mcp.can_elicit is False
            await context.mcp.elicit("Which city?", City)
            return "unreachable"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("plan", {})
        assert text_of(result) == (
            True,
            "Tool 'plan' failed: ElicitationUnavailable: "
            "the MCP client does not support elicitation, so it cannot be asked",
        )

    async def test_nested_schema_is_refused_before_asking(self, connect: Callable[..., Client]) -> None:
        """MCP forms hold flat primitives only; the error names the property."""

        async def plan(value: Any, context: ToolContext) -> str:
            await context.mcp.elicit("Where?", {"type": "object", "properties": {"place": {"type": "object"}}})
            return "unreachable"

        server = build_server([create_tool(id="plan", description="d", execute=plan)], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT)) as client:
            result = await client.call_tool("plan", {})
        assert text_of(result) == (
            True,
            "Tool 'plan' failed: ElicitationError: elicitation property 'place' must be a string, number, "
            "integer, boolean or multi-select enum",
        )

    async def test_two_questions_are_answered_in_order(self, connect: Callable[..., Client], protocol: str) -> None:
        """Each question gets its own answer; on 2026-07-28 the tool re-runs once per question asked."""
        runs: list[int] = []

        async def trip(value: Any, context: ToolContext) -> str:
            runs.append(1)
            first = await context.mcp.elicit("From?", City)
            second = await context.mcp.elicit("To?", City)
            return f"{first.content.name} -> {second.content.name}"

        server = build_server([create_tool(id="trip", description="d", execute=trip)], name="demo", version="1.0.0")
        replies = [mcp_types.ElicitResult(action="accept", content={"name": n}) for n in ("Oslo", "Rome")]
        async with connect(server, elicitation_callback=answering(*replies)) as client:
            result = await client.call_tool("trip", {})
        assert text_of(result) == (False, "Oslo -> Rome")
        assert len(runs) == {"2025-11-25": 1, "2026-07-28": 3}[protocol]


class TestSuspension:
    def _booking(self) -> Any:
        async def book(value: Any, context: ToolContext) -> str:
            if not context.resumed:
                context.suspend({"question": f"Confirm seat {value['seat']}?"})
            return f"seat {value['seat']} for {context.resume_data['name']}"

        return create_tool(
            id="book",
            description="Book a seat",
            input_schema={"type": "object", "properties": {"seat": {"type": "string"}}},
            suspend_schema={"type": "object", "properties": {"question": {"type": "string"}}},
            resume_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            execute=book,
        )

    async def test_suspended_call_is_resumed_with_the_users_answer(self, connect: Callable[..., Client]) -> None:
        """`context.suspend(payload)` asks with the payload; the form is the resume schema."""
        asked: list[Any] = []
        reply = mcp_types.ElicitResult(action="accept", content={"name": "Ada"})
        server = build_server([self._booking()], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(reply, asked=asked)) as client:
            result = await client.call_tool("book", {"seat": "12A"})
        assert text_of(result) == (False, "seat 12A for Ada")
        assert [(p.message, p.requested_schema) for p in asked] == [
            (
                '{\n  "question": "Confirm seat 12A?"\n}',
                {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            )
        ]

    async def test_declined_resume_is_a_denied_result(self, connect: Callable[..., Client]) -> None:
        """The call ends when the user will not answer."""
        server = build_server([self._booking()], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(DECLINE)) as client:
            result = await client.call_tool("book", {"seat": "12A"})
        assert text_of(result) == (True, "The user denied this tool call: the user did not provide the input")

    async def test_suspension_without_a_resume_schema_is_an_error_result(self, connect: Callable[..., Client]) -> None:
        """Without a schema there is no form to ask with."""
        tool = create_tool(id="wait", description="d", execute=lambda value, context: context.suspend("later"))
        server = build_server([tool], name="demo", version="1.0.0")
        async with connect(server, elicitation_callback=answering(ACCEPT)) as client:
            result = await client.call_tool("wait", {})
        assert text_of(result) == (
            True,
            "Tool 'wait' suspended, and without a `resume_schema` MCP cannot ask how to go on.",
        )

    async def test_suspension_on_a_client_without_elicitation_is_an_error_result(
        self, connect: Callable[..., Client]
    ) -> None:
        """The model learns the call cannot continue here."""
        server = build_server([self._booking()], name="demo", version="1.0.0")
        async with connect(server) as client:
            result = await client.call_tool("book", {"seat": "12A"})
        assert text_of(result) == (
            True,
            "Tool 'book' suspended waiting for input, and the MCP client does not support elicitation, "
            "so it cannot be asked.",
        )
