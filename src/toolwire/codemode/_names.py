"""Tool ids turned into the `external_<name>` functions and type names the model's program sees.

Names stay ASCII: Python normalizes identifiers with NFKC, so `ﬁle` and `file` would be one
name if non-ASCII letters were kept. Two ids that land on one function name are an error,
never a silent overwrite; calls always dispatch by the original id.

Reserved names: the runner's own globals (`asyncio`, `ToolError`, `describe_functions`, ...) can
never be produced by the `external_` prefix, so the one reserved id is the code-mode tool's
own; generated type names avoid every name the stubs or the runner use (`is_free_type_name`).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolwire.exceptions import ConfigurationError

PREFIX = "external_"
RUNNER_GLOBALS = frozenset(
    {"asyncio", "ToolError", "describe_functions", "search_functions", "__toolwire_return__"}
    | {"__name__", "__builtins__"}
)
"""Names the runner puts in the program's globals; no external function or type may take them."""
STUB_IMPORTS = frozenset({"Any", "Literal", "NotRequired", "TypedDict"})
"""Names the generated stubs import from `typing`."""
_UNSAFE = re.compile(r"[^0-9A-Za-z_]")


class CodeModeNameError(ConfigurationError, ValueError):
    """Two tools, or a tool and the code-mode tool itself, would share one name."""

    def __init__(self, first: str, second: str, function_name: str, *, reserved: bool = False) -> None:
        self.tool_ids = (first, second)
        self.function_name = function_name
        if reserved:
            message = (
                f"code mode: tool id {first!r} is also the id of the code-mode tool {second!r}, "
                "so the model could not tell them apart; rename one of them"
            )
        else:
            message = f"code mode: tool ids {first!r} and {second!r} both map to `{function_name}`; rename one of them"
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class External:
    """One tool as the program sees it: `function` is called, `tool_id` is dispatched on the host."""

    tool_id: str
    """The original id (the key the tool was given under), used for dispatch."""
    function: str
    """`external_<sanitized id>`."""
    type_stem: str
    """PascalCase stem for the tool's TypedDicts (`GetWeather` -> `GetWeatherInput`)."""


def sanitize(tool_id: str) -> str:
    """An ASCII identifier fragment: other characters become `_`, a leading digit gets `_`."""
    name = _UNSAFE.sub("_", tool_id)
    if not name or name[0].isdigit():
        name = "_" + name
    return name


def pascal(fragment: str) -> str:
    """`get_top-products` -> `GetTopProducts`; a stem that would start with a digit gets `Tool`."""
    stem = "".join(part[:1].upper() + part[1:] for part in fragment.split("_") if part)
    if not stem or stem[0].isdigit():
        stem = "Tool" + stem
    return stem


def is_free_type_name(name: str) -> bool:
    """Whether a generated type may use `name` without shadowing anything the stubs rely on."""
    return (
        name.isidentifier()
        and name.isascii()
        and not keyword.iskeyword(name)
        and name not in STUB_IMPORTS
        and name not in RUNNER_GLOBALS
        and not hasattr(builtins, name)
        and not name.startswith(PREFIX)
    )


def build_externals(tool_ids: Iterable[str], *, code_mode_id: str) -> tuple[External, ...]:
    """One `External` per id, in order.

    Raises:
        CodeModeNameError: two ids map to the same function, or an id is the code-mode
            tool's own id.
    """
    taken: dict[str, str] = {}
    externals: list[External] = []
    for tool_id in tool_ids:
        if tool_id == code_mode_id:
            raise CodeModeNameError(tool_id, code_mode_id, PREFIX + sanitize(tool_id), reserved=True)
        fragment = sanitize(tool_id)
        function = PREFIX + fragment
        other = taken.get(function)
        if other is not None:
            raise CodeModeNameError(other, tool_id, function)
        taken[function] = tool_id
        externals.append(External(tool_id=tool_id, function=function, type_stem=pascal(fragment)))
    return tuple(externals)
