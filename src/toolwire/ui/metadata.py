"""The message metadata of one streamed assistant message: model facts, steps, summed usage."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.events import FINISH_REASONS, Usage

from .protocol import UIFinishReason


def add_usage(total: Usage | None, more: Usage | None) -> Usage | None:
    """Two usages added count by count (a count stays unset only when both are)."""
    if more is None:
        return total
    if total is None:
        return more

    def add(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        input_tokens=add(total.input_tokens, more.input_tokens),
        output_tokens=add(total.output_tokens, more.output_tokens),
        total_tokens=add(total.total_tokens, more.total_tokens),
        reasoning_tokens=add(total.reasoning_tokens, more.reasoning_tokens),
        cached_input_tokens=add(total.cached_input_tokens, more.cached_input_tokens),
    )


def _reason(value: Any) -> UIFinishReason | None:
    return value if value in FINISH_REASONS else None


@dataclass(slots=True)
class _Step:
    finish_reason: UIFinishReason | None = None
    usage: Usage | None = None
    response_id: str | None = None
    provider_metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> _Step:
        usage = data.get("usage")
        return cls(
            finish_reason=_reason(data.get("finishReason")),
            usage=Usage.from_dict(usage) if isinstance(usage, Mapping) else None,
            response_id=data.get("responseId"),
            provider_metadata=dict(data.get("providerMetadata") or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.finish_reason is not None:
            data["finishReason"] = self.finish_reason
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        if self.response_id is not None:
            data["responseId"] = self.response_id
        if self.provider_metadata:
            data["providerMetadata"] = self.provider_metadata
        return data


@dataclass(slots=True)
class RunMetadata:
    """What the client keeps in `message.metadata` (see `toolwire.ui.protocol`)."""

    model: str | None = None
    api: str | None = None
    provider: str | None = None
    steps: list[_Step] = field(default_factory=list)
    _run_reason: UIFinishReason | None = None
    _run_usage: Usage | None = None
    _failed: bool = False

    def at_start(self) -> dict[str, Any]:
        """`{model, api, provider}` (the known ones)."""
        facts = {"model": self.model, "api": self.api, "provider": self.provider}
        return {k: v for k, v in facts.items() if v is not None}

    def carry(self, steps: list[Mapping[str, Any]]) -> None:
        """Steps the message already had (a continued run keeps one account per message)."""
        self.steps[:0] = [_Step.from_dict(step) for step in steps]

    def begin_step(self) -> None:
        """A model call starts."""
        self.steps.append(_Step())

    def response(self, response_id: str | None, provider_metadata: Mapping[str, Any] | None) -> None:
        """The provider's id and metadata of the current step's response."""
        if not self.steps:
            self.begin_step()
        step = self.steps[-1]
        step.response_id = response_id if response_id is not None else step.response_id
        _merge(step.provider_metadata, provider_metadata)

    def finish_step(self, reason: Any, usage: Usage | None, provider_metadata: Mapping[str, Any] | None) -> None:
        """The current model call is over."""
        if not self.steps:
            self.begin_step()
        step = self.steps[-1]
        step.finish_reason = _reason(reason)
        step.usage = usage
        _merge(step.provider_metadata, provider_metadata)

    def run_finish(self, reason: Any, usage: Usage | None) -> None:
        """The run's own finish (its usage counts only when no step reported any)."""
        self._run_reason = _reason(reason) or self._run_reason
        self._run_usage = usage

    def failed(self) -> None:
        """An exception ended the run."""
        self._failed = True

    def usage(self) -> Usage | None:
        """Usage summed over the steps."""
        total: Usage | None = None
        for step in self.steps:
            total = add_usage(total, step.usage)
        return total if total is not None else self._run_usage

    def finish_reason(self) -> UIFinishReason:
        """Why the message ended: an error, the run's reason, or its last step's."""
        if self._failed:
            return "error"
        if self._run_reason is not None:
            return self._run_reason
        reasons = [s.finish_reason for s in self.steps if s.finish_reason is not None]
        return reasons[-1] if reasons else "other"

    def progress(self) -> dict[str, Any]:
        """`{steps, usage}` after a step."""
        data: dict[str, Any] = {"steps": [s.to_dict() for s in self.steps]}
        usage = self.usage()
        if usage is not None:
            data["usage"] = usage.to_dict()
        return data

    def at_finish(self, *, paused: bool) -> dict[str, Any]:
        """Everything, once the message is complete."""
        # `paused` is always sent: the client merges metadata, so a continuation must clear it.
        return {**self.at_start(), "finishReason": self.finish_reason(), **self.progress(), "paused": paused}


def _merge(into: dict[str, Any], metadata: Mapping[str, Any] | None) -> None:
    for provider, values in (metadata or {}).items():
        slot = into.setdefault(str(provider), {})
        if isinstance(values, Mapping) and isinstance(slot, dict):
            slot.update(values)
        else:
            into[str(provider)] = values
