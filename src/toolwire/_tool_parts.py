"""The parts of a tool definition besides its schemas and functions: transforms, MCP properties, examples.

`toolwire.tools` re-exports every public name; the builders read the forms `create_tool` accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ._callbacks import Callback, make_callback
from .exceptions import ToolDefinitionError

TransformPhase = Literal["input", "input_delta", "output", "error", "approval", "suspend", "resume"]
TRANSFORM_PHASES: tuple[TransformPhase, ...] = (
    "input",
    "input_delta",
    "output",
    "error",
    "approval",
    "suspend",
    "resume",
)
PHASE_ALIASES = {"inputDelta": "input_delta"}

HOOK_ARGUMENTS: dict[str, frozenset[str]] = {
    "on_input_start": frozenset({"tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_input_delta": frozenset({"input_text_delta", "tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_input_available": frozenset({"input", "tool_call_id", "tool_name", "messages", "abort_signal"}),
    "on_output": frozenset({"output", "tool_call_id", "tool_name", "abort_signal"}),
}
"""Keyword names each hook may declare (the seed's `ToolCallOptions`, snake_cased)."""

TRANSFORM_ARGUMENTS = frozenset(
    {
        "input",
        "input_text_delta",
        "output",
        "error",
        "approval",
        "suspend_payload",
        "resume_data",
        "tool_call_id",
        "tool_name",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolAnnotations:
    """MCP behaviour hints (spec defaults apply where a hint is None)."""

    title: str | None = None
    """Human-readable name for display."""
    read_only_hint: bool | None = None
    """True: the tool does not modify its environment (default false)."""
    destructive_hint: bool | None = None
    """True: the tool may perform destructive updates (default true)."""
    idempotent_hint: bool | None = None
    """True: repeating a call with the same arguments has no further effect (default false)."""
    open_world_hint: bool | None = None
    """True: the tool talks to an open world of external entities (default true)."""

    def to_mcp(self) -> dict[str, Any]:
        """The annotations as MCP puts them on the wire (camelCase, unset hints omitted)."""
        wire = {
            "title": self.title,
            "readOnlyHint": self.read_only_hint,
            "destructiveHint": self.destructive_hint,
            "idempotentHint": self.idempotent_hint,
            "openWorldHint": self.open_world_hint,
        }
        return {k: v for k, v in wire.items() if v is not None}


@dataclass(frozen=True, slots=True, kw_only=True)
class McpProperties:
    """MCP-specific properties of a tool: annotations and free-form `_meta`."""

    annotations: ToolAnnotations | None = None
    meta: Mapping[str, Any] | None = None
    """Arbitrary metadata passed to MCP clients as `_meta`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseTransforms:
    """One function per phase, each taking keyword arguments and returning the payload to show."""

    input: Callback | None = None
    input_delta: Callback | None = None
    output: Callback | None = None
    error: Callback | None = None
    approval: Callback | None = None
    suspend: Callback | None = None
    resume: Callback | None = None

    def get(self, phase: TransformPhase) -> Callback | None:
        """The transform for a phase, if any."""
        return cast(Callback | None, getattr(self, phase))


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolTransform:
    """Target-aware payload transforms: `display` for UI streams, `transcript` for saved messages."""

    display: PhaseTransforms = field(default_factory=PhaseTransforms)
    transcript: PhaseTransforms = field(default_factory=PhaseTransforms)


@dataclass(frozen=True, slots=True, kw_only=True)
class InputExample:
    """A valid input shown to the model as an example."""

    input: Mapping[str, Any]


def build_transform(tool_id: str, spec: Mapping[str, Any] | ToolTransform | None) -> ToolTransform | None:
    if spec is None or isinstance(spec, ToolTransform):
        return spec
    if not isinstance(spec, Mapping) or set(spec) - {"display", "transcript"}:
        raise ToolDefinitionError(tool_id, "transform", 'must be {"display": {...}, "transcript": {...}}')
    targets: dict[str, PhaseTransforms] = {}
    for target_name, phases in spec.items():
        if not isinstance(phases, Mapping):
            raise ToolDefinitionError(tool_id, f"transform.{target_name}", "must map phases to functions")
        built: dict[str, Callback | None] = {}
        for phase, fn in phases.items():
            key = PHASE_ALIASES.get(phase, phase)
            if key not in TRANSFORM_PHASES:
                raise ToolDefinitionError(
                    tool_id, f"transform.{target_name}.{phase}", f"is not a phase; phases: {list(TRANSFORM_PHASES)}"
                )
            built[key] = make_callback(
                fn, tool_id=tool_id, field=f"transform.{target_name}.{phase}", offered=TRANSFORM_ARGUMENTS
            )
        targets[target_name] = PhaseTransforms(**built)
    return ToolTransform(**targets)


ANNOTATION_KEYS = {
    "title": "title",
    "readOnlyHint": "read_only_hint",
    "destructiveHint": "destructive_hint",
    "idempotentHint": "idempotent_hint",
    "openWorldHint": "open_world_hint",
}


def merge_transforms(mine: ToolTransform | None, bound: ToolTransform | None) -> ToolTransform | None:
    """The user's transforms phase by phase, the target's where the user gave none."""
    if mine is None or bound is None:
        return mine or bound

    def merge(first: PhaseTransforms, second: PhaseTransforms) -> PhaseTransforms:
        return PhaseTransforms(**{phase: first.get(phase) or second.get(phase) for phase in TRANSFORM_PHASES})

    return ToolTransform(
        display=merge(mine.display, bound.display), transcript=merge(mine.transcript, bound.transcript)
    )


def build_mcp(tool_id: str, spec: Mapping[str, Any] | McpProperties | None) -> McpProperties | None:
    if spec is None or isinstance(spec, McpProperties):
        return spec
    if not isinstance(spec, Mapping) or set(spec) - {"annotations", "_meta", "meta"}:
        raise ToolDefinitionError(tool_id, "mcp", 'must be {"annotations": {...}, "_meta": {...}}')
    annotations = spec.get("annotations")
    built: ToolAnnotations | None = None
    if isinstance(annotations, ToolAnnotations):
        built = annotations
    elif annotations is not None:
        if not isinstance(annotations, Mapping):
            raise ToolDefinitionError(tool_id, "mcp.annotations", "must be a dict")
        values: dict[str, Any] = {}
        for key, value in annotations.items():
            name = ANNOTATION_KEYS.get(str(key), str(key))
            if name not in ANNOTATION_KEYS.values():
                raise ToolDefinitionError(
                    tool_id, f"mcp.annotations.{key}", f"is not an MCP annotation; known: {list(ANNOTATION_KEYS)}"
                )
            expected = str if name == "title" else bool
            if value is not None and not isinstance(value, expected):
                raise ToolDefinitionError(tool_id, f"mcp.annotations.{key}", f"must be a {expected.__name__}")
            values[name] = value
        built = ToolAnnotations(**values)
    meta = spec.get("_meta", spec.get("meta"))
    if meta is not None and not isinstance(meta, Mapping):
        raise ToolDefinitionError(tool_id, "mcp._meta", "must be a dict")
    return McpProperties(annotations=built, meta=dict(meta) if meta is not None else None)
