"""Tool definitions (`functionDeclarations`) and tool choice (`toolConfig`) as google-genai sends them.

Wire shape (google/genai/models.py `_Tool_to_mldev`, `_ToolConfig_to_mldev`): top-level keys
are camelCase (`functionDeclarations`, `toolConfig`, `functionCallingConfig`,
`allowedFunctionNames`), keys inside a declaration are the SDK's field names
(`parameters_json_schema`, `response_json_schema`). In Vertex mode the SDK passes
`functionCallingConfig` through as its field names (`allowed_function_names`,
`stream_function_call_arguments`; models.py `_ToolConfig_to_vertex`).

Tool choice (google/genai/types.py `FunctionCallingConfigMode`):
`auto` → AUTO, `none` → NONE, `required` → ANY, `{"tool": id}` → ANY with that name,
`{"allowed": ids, "mode": "required"}` → ANY with the names, `{"allowed": ids, "mode": "auto"}`
→ VALIDATED with the names (VALIDATED is the mode that takes a subset and still lets the model
answer in text; AUTO takes no names), `{"validated": true}` turns AUTO into VALIDATED.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal

from toolwire.compat import Degradation
from toolwire.names import NameMap
from toolwire.tool_choice import ToolChoice

from ._rules import RULES

MAX_DECLARATIONS: Final = RULES["max_function_declarations"].limit or 512
"""`Tool.function_declarations` docstring: "The maximum number of declared functions is 512"."""

Mode = Literal["AUTO", "ANY", "NONE", "VALIDATED"]
Degrade = Callable[[list[Degradation], str, str], None]


def function_calling_config(
    choice: ToolChoice | None,
    names: NameMap,
    *,
    vertex_stream_arguments: bool,
    degradations: list[Degradation],
    degrade: Degrade,
) -> dict[str, Any] | None:
    """`functionCallingConfig` for a tool choice, or None when the request needs none."""
    config: dict[str, Any] = {}
    allowed_key = "allowed_function_names" if vertex_stream_arguments else "allowedFunctionNames"
    if choice is not None:
        mode, allowed = _mode(choice)
        if mode is not None:
            config["mode"] = mode
        if allowed:
            config[allowed_key] = [names.wire(tool_id) for tool_id in allowed]
        if choice.parallel is False:
            degrade(
                degradations,
                "tool_choice.parallel",
                "Gemini has no switch to forbid parallel calls: the request is sent as is and the model may still "
                "return several calls in one turn",
            )
    if vertex_stream_arguments:
        config["stream_function_call_arguments"] = True
    return config or None


def _mode(choice: ToolChoice) -> tuple[Mode | None, tuple[str, ...]]:
    if choice.mode == "none":
        return "NONE", ()
    if choice.mode == "required":
        return "ANY", ()
    if choice.mode == "tool":
        return "ANY", choice.tool_ids
    if choice.mode == "allowed":
        return ("ANY" if choice.allowed_mode == "required" else "VALIDATED"), choice.tool_ids
    if choice.validated:
        return "VALIDATED", ()
    return "AUTO", ()


def schema_constrained(config: dict[str, Any] | None) -> bool:
    """Whether the request's mode makes Gemini hold calls to the declared schemas (ANY, VALIDATED)."""
    return config is not None and config.get("mode") in ("ANY", "VALIDATED")
