"""Approval requests: unguessable, single-use ids for calls that wait for a user's yes or no.

An approval id is the only thing an answer quotes, and answers come from outside (a UI, an HTTP
request), so ids are random (`secrets`), bound to one call, and spent by the first answer: a
forged id, a replayed answer or a second answer raises `ApprovalError`. The registry's state is
JSON, so a pause survives a restart with the same guarantees.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.exceptions import ApprovalError
from toolwire.results import ToolCall

_MAX_SPENT = 4096
"""Spent ids remembered so a replay is named as one; older ones are refused as unknown."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequest:
    """A call that runs only once someone approves it."""

    approval_id: str
    call: ToolCall

    def to_dict(self) -> dict[str, Any]:
        """JSON form (resumable after a restart)."""
        return {"type": "tool-approval-request", "approvalId": self.approval_id, "call": self.call.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalRequest:
        """Read the JSON form.

        Raises:
            ValueError: a required field is missing.
        """
        try:
            call = data["call"]
            return cls(
                approval_id=str(data["approvalId"]),
                call=ToolCall(
                    tool_call_id=str(call["toolCallId"]),
                    tool_name=str(call["toolName"]),
                    input=call.get("input", {}),
                    provider_metadata=call.get("providerMetadata"),
                ),
            )
        except KeyError as exc:
            raise ValueError(f"approval request state is missing {exc.args[0]!r}") from None


@dataclass(frozen=True, slots=True)
class Decision:
    """An answer to an approval request."""

    approved: bool
    reason: str | None = None


def new_approval_id() -> str:
    """A fresh id no client can guess (128 random bits)."""
    return f"approval_{secrets.token_urlsafe(16)}"


def new_request(call: ToolCall) -> ApprovalRequest:
    """An approval request with a fresh id."""
    return ApprovalRequest(approval_id=new_approval_id(), call=call)


class Approvals:
    """Pending requests by id, decisions not yet acted on, and spent ids."""

    def __init__(self, new_id: Callable[[], str] = new_approval_id) -> None:
        self._new_id = new_id
        self.pending: dict[str, ApprovalRequest] = {}
        self.decisions: dict[str, Decision] = {}
        self._by_call: dict[str, str] = {}
        self._spent: dict[str, None] = {}

    def request(self, call: ToolCall) -> tuple[ApprovalRequest, bool]:
        """The pending request for this call (a new one when none waits); True when it is new."""
        known = self._by_call.get(call.tool_call_id)
        if known is not None and known in self.pending:
            return self.pending[known], False
        request = ApprovalRequest(approval_id=self._new_id(), call=call)
        self.pending[request.approval_id] = request
        self._by_call[call.tool_call_id] = request.approval_id
        return request, True

    def decide(self, approval_id: Any, decision: Decision) -> ApprovalRequest:
        """Record an answer; returns the request it answers.

        Raises:
            ApprovalError: the id was never issued here, was already answered, or is not a string.
        """
        if not isinstance(approval_id, str):
            raise ApprovalError(approval_id, f"an approval id is a string, got {type(approval_id).__name__}")
        if approval_id in self._spent or approval_id in self.decisions:
            raise ApprovalError(approval_id, f"approval {approval_id!r} was already answered; an answer counts once")
        request = self.pending.get(approval_id)
        if request is None:
            raise ApprovalError(approval_id, f"no tool call waits for approval {approval_id!r}")
        self.decisions[approval_id] = decision
        return request

    def take(self, call: ToolCall) -> Decision | None:
        """The decision for this call's pending request, spending it (None while undecided)."""
        approval_id = self._by_call.get(call.tool_call_id)
        if approval_id is None or approval_id not in self.decisions:
            return None
        return self.spend(approval_id)

    def spend(self, approval_id: str) -> Decision | None:
        """Close a request: its id can never be answered again."""
        request = self.pending.pop(approval_id, None)
        if request is not None:
            self._by_call.pop(request.call.tool_call_id, None)
        self._spent[approval_id] = None
        while len(self._spent) > _MAX_SPENT:
            del self._spent[next(iter(self._spent))]
        return self.decisions.pop(approval_id, None)

    def decided(self) -> list[ApprovalRequest]:
        """Requests with an answer not yet acted on."""
        return [self.pending[a] for a in self.decisions if a in self.pending]

    def forget_calls(self, tool_call_ids: set[str]) -> None:
        """Close the requests of these calls (an aborted turn)."""
        for approval_id, request in list(self.pending.items()):
            if request.call.tool_call_id in tool_call_ids:
                self.spend(approval_id)

    def export_state(self, exclude: set[str]) -> dict[str, Any]:
        """JSON state (requests in `exclude` are awaited in process and cannot be restored)."""
        return {
            "pendingApprovals": [r.to_dict() for a, r in self.pending.items() if a not in exclude],
            "approvalDecisions": {
                a: {"approved": d.approved, "reason": d.reason} for a, d in self.decisions.items() if a not in exclude
            },
            "spentApprovals": list(self._spent),
        }

    def import_state(self, state: Mapping[str, Any]) -> None:
        """Restore `export_state` output."""
        for item in state.get("pendingApprovals", []):
            request = ApprovalRequest.from_dict(item)
            self.pending[request.approval_id] = request
            self._by_call[request.call.tool_call_id] = request.approval_id
        for approval_id, decision in dict(state.get("approvalDecisions", {})).items():
            if approval_id in self.pending:
                self.decisions[approval_id] = Decision(bool(decision["approved"]), decision.get("reason"))
        for approval_id in state.get("spentApprovals", []):
            self._spent[str(approval_id)] = None
