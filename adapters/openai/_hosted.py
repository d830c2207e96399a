"""Responses output items for tools built into the API (web search, code interpreter, MCP, ...).

toolwire never executes these: they are reported as calls with `providerExecuted: true`, with
their results where the item carries them. Items the API expects the *application* to act on
(`computer_call`, `local_shell_call`, a local `shell_call`, `apply_patch_call`, a client
`tool_search_call`, `mcp_approval_request`) are not toolwire tools either; they carry
`providerMetadata.openai.execution = "client"` and make the finish reason `tool-calls`, so a
loop knows the turn waits on the application. Item shapes: `openai/types/responses/response_output_item.py`
and the files it imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from toolwire._long_strings import JsonString
from toolwire.deltas import Delta, ToolCallComplete, ToolCallFinished, ToolCallStarted, ToolOutput

from .._frames import field, text_of

Execution = Literal["server", "client"]
"""Who runs a hosted call: the API itself, or the application (`providerMetadata.openai.execution`)."""


def to_json(value: Any) -> Any:
    """A wire value as JSON data (SDK models dumped as they came over the wire)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, JsonString):  # a long string left undecoded (`Adapter.restated_strings`)
        return value.text()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _pick(item: Any, *names: str) -> dict[str, Any]:
    picked: dict[str, Any] = {}
    for name in names:
        value = field(item, name)
        if value is not None:
            picked[name] = to_json(value)
    return picked


def _web_search_input(item: Any) -> Any:
    action = to_json(field(item, "action")) or {}
    return {k: v for k, v in action.items() if k != "sources"} if isinstance(action, dict) else action


def _web_search_output(item: Any) -> Any:
    action = to_json(field(item, "action")) or {}
    sources = action.get("sources") if isinstance(action, dict) else None
    return {"status": field(item, "status"), **({"sources": sources} if sources else {})}


def _mcp_name(item: Any) -> str:
    return str(field(item, "name", "mcp"))


def _shell_execution(item: Any) -> Execution:
    environment = field(item, "environment")
    kind = field(environment, "type") if environment is not None else None
    return "server" if kind in ("container_reference", "container_auto") else "client"


@dataclass(frozen=True, slots=True)
class Hosted:
    """How one hosted item type reads as a call."""

    name: str | Callable[[Any], str]
    call_input: Callable[[Any], Any]
    output: Callable[[Any], Any] | None = None
    """The result the item carries (None: the item carries none)."""
    execution: Execution | Callable[[Any], Execution] = "server"
    arguments_text: bool = False
    """The input is JSON text (`arguments`) rather than an object."""

    def tool_name(self, item: Any) -> str:
        """The name the call is reported under."""
        return self.name if isinstance(self.name, str) else self.name(item)

    def runs_on(self, item: Any) -> Execution:
        """`server` or `client`."""
        return self.execution if isinstance(self.execution, str) else self.execution(item)


HOSTED: Final[dict[str, Hosted]] = {
    "web_search_call": Hosted("web_search", _web_search_input, _web_search_output),
    "file_search_call": Hosted("file_search", lambda i: _pick(i, "queries"), lambda i: _pick(i, "status", "results")),
    "code_interpreter_call": Hosted(
        "code_interpreter", lambda i: _pick(i, "code", "container_id"), lambda i: _pick(i, "status", "outputs")
    ),
    "image_generation_call": Hosted(
        "image_generation", lambda i: {}, lambda i: _pick(i, "status", "result", "revised_prompt", "output_format")
    ),
    "mcp_call": Hosted(_mcp_name, lambda i: text_of(i, "arguments", "item.arguments"), arguments_text=True),
    "mcp_list_tools": Hosted("mcp_list_tools", lambda i: _pick(i, "server_label"), lambda i: _pick(i, "tools")),
    "mcp_approval_request": Hosted(
        _mcp_name, lambda i: text_of(i, "arguments", "item.arguments"), execution="client", arguments_text=True
    ),
    "tool_search_call": Hosted(
        "tool_search",
        lambda i: to_json(field(i, "arguments")) or {},
        execution=lambda i: field(i, "execution", "server"),
    ),
    "program": Hosted("program", lambda i: _pick(i, "code")),
    "computer_call": Hosted("computer", lambda i: _pick(i, "action", "actions"), execution="client"),
    "local_shell_call": Hosted("local_shell", lambda i: to_json(field(i, "action")) or {}, execution="client"),
    "shell_call": Hosted("shell", lambda i: to_json(field(i, "action")) or {}, execution=_shell_execution),
    "apply_patch_call": Hosted("apply_patch", lambda i: to_json(field(i, "operation")) or {}, execution="client"),
}
"""Hosted call items by `type`."""

OUTPUT_ITEMS: Final[frozenset[str]] = frozenset(
    {"program_output", "tool_search_output", "shell_call_output", "local_shell_call_output", "apply_patch_call_output"}
)
"""Items that carry the result of an earlier hosted call (matched by `call_id`)."""


def call_id_of(item: Any) -> str:
    """The id results refer to: `call_id` when the item has one, else its item `id`."""
    return str(field(item, "call_id") or field(item, "id") or "")


def metadata(item: Any, spec: Hosted) -> dict[str, Any]:
    """`providerMetadata` of a hosted call: the item id and type, where it runs, the MCP server."""
    openai: dict[str, Any] = {"itemId": field(item, "id"), "itemType": field(item, "type")}
    if spec.runs_on(item) == "client":
        openai["execution"] = "client"
    label = field(item, "server_label")
    if label is not None:
        openai["serverLabel"] = label
    return {"openai": openai}


def started(item: Any, spec: Hosted) -> ToolCallStarted:
    """The call opened when its item is added."""
    return ToolCallStarted(
        field(item, "id"),
        call_id_of(item),
        spec.tool_name(item),
        provider_executed=True,
        provider_metadata=metadata(item, spec),
    )


def completed(item: Any, spec: Hosted, *, opened: bool) -> list[Delta]:
    """The call's input (and its result, when the item carries one) once the item is done."""
    key = field(item, "id")
    value = spec.call_input(item)
    text = value if spec.arguments_text else None
    deltas: list[Delta] = []
    if opened:
        deltas.append(ToolCallFinished(key, arguments=text, input=value, has_input=text is None))
    else:
        deltas.append(
            ToolCallComplete(
                key,
                call_id_of(item),
                spec.tool_name(item),
                arguments=text,
                input=value,
                has_input=text is None,
                provider_executed=True,
                provider_metadata=metadata(item, spec),
            )
        )
    result = _result(item, spec)
    if result is not None:
        deltas.append(result)
    return deltas


def _result(item: Any, spec: Hosted) -> ToolOutput | None:
    error = field(item, "error")
    if error is not None:
        return ToolOutput(call_id_of(item), _error_text(error), is_error=True)
    if field(item, "status") == "failed":
        return ToolOutput(call_id_of(item), f"the {spec.tool_name(item)} call failed", is_error=True)
    if field(item, "type") == "mcp_call":
        output = field(item, "output")
        return None if output is None else ToolOutput(call_id_of(item), output)
    if spec.output is None:
        return None
    return ToolOutput(call_id_of(item), spec.output(item))


def output_item(item: Any, call_id: str) -> ToolOutput:
    """The result an output item (`program_output`, `shell_call_output`, ...) carries for `call_id`."""
    kind = field(item, "type")
    if kind == "tool_search_output":
        tools = to_json(field(item, "tools")) or []
        return ToolOutput(call_id, {"tools": tools})
    fields = {k: v for k, v in (to_json(item) or {}).items() if k not in ("id", "type", "call_id")}
    return ToolOutput(call_id, fields)


def _error_text(error: Any) -> str:
    if isinstance(error, str):
        return error
    message = field(error, "message")
    return str(message) if message is not None else str(to_json(error))
