"""Specification of the 2026-07-28 `requestState` protection: answers ride a sealed, bound state nobody can forge."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest
from mcp import Client
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError

from toolwire import create_tool
from toolwire.mcp import build_server

ACCEPT = mcp_types.ElicitResult(action="accept", content={})


async def _accept(context: Any, params: Any) -> mcp_types.ElicitResult:
    return ACCEPT


class TestRequestStateSecurity:
    """On 2026-07-28 the answers ride `requestState`, which the client must not be able to forge."""

    async def _first_round(self, client: Client, arguments: dict[str, Any]) -> mcp_types.InputRequiredResult:
        first = await client.session.call_tool("delete_file", arguments, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        return first

    def _server(self, runs: list[Any]) -> Any:
        tool = create_tool(
            id="delete_file",
            description="d",
            input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
            require_approval=True,
            execute=lambda value: runs.append(value) or "deleted",
        )
        return build_server([tool], name="demo", version="1.0.0")

    async def test_approval_round_asks_one_question_under_a_sealed_state(self) -> None:
        """The first round is an `InputRequiredResult`; its state is opaque (not the JSON the server minted)."""
        async with Client(self._server([]), mode="2026-07-28", elicitation_callback=_accept) as client:
            first = await self._first_round(client, {"path": "/x"})
        assert list(first.input_requests or {}) == ["approval"]
        assert first.request_state is not None
        assert "answers" not in first.request_state

    async def test_tampered_state_is_rejected(self) -> None:
        """Changing one character of the sealed state fails the call (AES-GCM)."""
        runs: list[Any] = []
        async with Client(self._server(runs), mode="2026-07-28", elicitation_callback=_accept) as client:
            first = await self._first_round(client, {"path": "/x"})
            assert first.request_state is not None
            forged = (
                first.request_state[:-2] + ("A" if first.request_state[-2] != "A" else "B") + first.request_state[-1]
            )
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await client.session.call_tool(
                    "delete_file",
                    {"path": "/x"},
                    allow_input_required=True,
                    input_responses={"approval": ACCEPT},
                    request_state=forged,
                )
        assert runs == []

    async def test_state_cannot_approve_other_arguments(self) -> None:
        """An approval for `/x` does not delete `/etc`: the state is bound to the arguments."""
        runs: list[Any] = []
        async with Client(self._server(runs), mode="2026-07-28", elicitation_callback=_accept) as client:
            first = await self._first_round(client, {"path": "/x"})
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await client.session.call_tool(
                    "delete_file",
                    {"path": "/etc"},
                    allow_input_required=True,
                    input_responses={"approval": ACCEPT},
                    request_state=first.request_state,
                )
        assert runs == []

    async def test_answer_without_the_state_is_not_taken_as_approval(self) -> None:
        """An unasked "accept" is ignored: the server asks again and the tool does not run."""
        runs: list[Any] = []
        async with Client(self._server(runs), mode="2026-07-28", elicitation_callback=_accept) as client:
            again = await client.session.call_tool(
                "delete_file", {"path": "/x"}, allow_input_required=True, input_responses={"approval": ACCEPT}
            )
        assert isinstance(again, mcp_types.InputRequiredResult)
        assert runs == []

    async def test_workers_sharing_a_key_accept_each_others_state(self) -> None:
        """With `request_state_security` keys, a round started on one worker finishes on another."""
        runs: list[Any] = []
        key = RequestStateSecurity(keys=[b"0123456789abcdef0123456789abcdef"])
        tool = create_tool(
            id="rm", description="d", require_approval=True, execute=lambda value: runs.append(1) or "ok"
        )
        first_worker = build_server([tool], name="files", version="1", request_state_security=key)
        second_worker = build_server([tool], name="files", version="1", request_state_security=key)
        async with Client(first_worker, mode="2026-07-28", elicitation_callback=_accept) as client:
            first = await client.session.call_tool("rm", {}, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        async with Client(second_worker, mode="2026-07-28", elicitation_callback=_accept) as client:
            done = await client.session.call_tool(
                "rm", {}, input_responses={"approval": ACCEPT}, request_state=first.request_state
            )
        assert (done.content, runs) == ([mcp_types.TextContent(text="ok")], [1])

    async def test_workers_with_their_own_keys_refuse_each_others_state(self) -> None:
        """The default key is per process: another worker cannot read, or be fooled by, the state."""
        tool = create_tool(id="rm", description="d", require_approval=True, execute=lambda value: "ok")
        async with Client(
            build_server([tool], name="files", version="1"), mode="2026-07-28", elicitation_callback=_accept
        ) as client:
            first = await client.session.call_tool("rm", {}, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        async with Client(
            build_server([tool], name="files", version="1"), mode="2026-07-28", elicitation_callback=_accept
        ) as client:
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await client.session.call_tool(
                    "rm", {}, input_responses={"approval": ACCEPT}, request_state=first.request_state
                )
