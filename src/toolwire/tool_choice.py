"""The neutral tool choice, parsed from its user-facing forms and checked against the tools."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from .exceptions import ConfigurationError

ChoiceMode = Literal["auto", "none", "required", "tool", "allowed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChoice:
    """Whether and which tools the model may or must call.

    Forms accepted by `parse_tool_choice`: `"auto" | "none" | "required"`, `{"tool": id}`,
    `{"allowed": [ids], "mode": "auto" | "required"}`, `{"mode": "auto" | "none" | "required"}`;
    any dict may add `"parallel": bool` and, for Gemini, `"validated": true`.
    """

    mode: ChoiceMode = "auto"
    tool_ids: tuple[str, ...] = ()
    """The forced tool (`mode="tool"`) or the allowed subset (`mode="allowed"`)."""
    allowed_mode: Literal["auto", "required"] = "auto"
    """With `mode="allowed"`: may the model answer in text (`auto`) or must it call (`required`)."""
    parallel: bool | None = None
    """False: at most one call per turn; None: provider default."""
    validated: bool = False
    """Gemini only: constrain calls to the schema (`VALIDATED` function-calling mode)."""

    @property
    def must_call(self) -> bool:
        """Whether the model is obliged to call some tool."""
        return self.mode in ("required", "tool") or (self.mode == "allowed" and self.allowed_mode == "required")


_SIMPLE = ("auto", "none", "required")


def parse_tool_choice(value: Any, tool_ids: Collection[str], *, parallel: bool | None = None) -> ToolChoice | None:
    """Read a neutral tool choice; None when neither a choice nor `parallel` is given.

    Raises:
        ConfigurationError: an unknown form, or a tool id that is not among the tools.
    """
    if value is None:
        return None if parallel is None else ToolChoice(parallel=parallel)
    if isinstance(value, ToolChoice):
        choice = value
    elif isinstance(value, str):
        if value not in _SIMPLE:
            raise ConfigurationError(f"tool_choice {value!r} is not one of {list(_SIMPLE)} (or a dict form)")
        choice = ToolChoice(mode=value)  # type: ignore[arg-type]  # narrowed by the membership test
    elif isinstance(value, Mapping):
        choice = _from_mapping(value)
    else:
        raise ConfigurationError(f"tool_choice must be a string or a dict, got {type(value).__name__}")
    unknown = [tool_id for tool_id in choice.tool_ids if tool_id not in tool_ids]
    if unknown:
        raise ConfigurationError(f"tool_choice names {unknown} but the tools are {sorted(tool_ids)}")
    if parallel is not None:
        choice = ToolChoice(
            mode=choice.mode,
            tool_ids=choice.tool_ids,
            allowed_mode=choice.allowed_mode,
            parallel=parallel,
            validated=choice.validated,
        )
    return choice


def _from_mapping(value: Mapping[str, Any]) -> ToolChoice:
    keys = set(value)
    extra = keys - {"tool", "allowed", "mode", "parallel", "validated"}
    if extra:
        raise ConfigurationError(
            f"tool_choice has unknown keys {sorted(extra)}: {json.dumps(dict(value), default=str)}"
        )
    parallel = value.get("parallel")
    validated = value.get("validated", False)
    if parallel is not None and not isinstance(parallel, bool):
        raise ConfigurationError("tool_choice `parallel` must be true or false")
    if not isinstance(validated, bool):
        raise ConfigurationError("tool_choice `validated` must be true or false")
    mode = value.get("mode")
    if "tool" in value:
        tool_id = value["tool"]
        if not isinstance(tool_id, str) or "allowed" in value or mode is not None:
            raise ConfigurationError('tool_choice {"tool": id} takes one tool id and no mode')
        return ToolChoice(mode="tool", tool_ids=(tool_id,), parallel=parallel, validated=validated)
    if "allowed" in value:
        allowed = value["allowed"]
        if (
            not isinstance(allowed, list) or not allowed or not all(isinstance(a, str) for a in allowed)  # pyright: ignore[reportUnknownVariableType]
        ):
            raise ConfigurationError('tool_choice {"allowed": [...]} takes a non-empty list of tool ids')
        allowed_mode = mode if mode is not None else "auto"
        if allowed_mode not in ("auto", "required"):
            raise ConfigurationError('tool_choice {"allowed": ...} takes mode "auto" or "required"')
        return ToolChoice(
            mode="allowed",
            tool_ids=tuple(allowed),  # pyright: ignore[reportUnknownArgumentType]
            allowed_mode=cast(Literal["auto", "required"], allowed_mode),
            parallel=parallel,
            validated=validated,
        )
    if mode is None:
        mode = "auto"
    if mode not in _SIMPLE:
        raise ConfigurationError(f"tool_choice mode {mode!r} is not one of {list(_SIMPLE)}")
    return ToolChoice(mode=cast(ChoiceMode, mode), parallel=parallel, validated=validated)
