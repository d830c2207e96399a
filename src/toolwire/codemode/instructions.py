"""The text the model reads: the usage contract, the sandbox's real isolation, and typed stubs.

Deterministic and pure: the same tools, id, isolation and limits give the same text, so it
can be snapshot-tested and cached in a prompt. The stubs are Python that parses and runs; the
code fence around them is longer than any backtick run inside, so no description can close it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire.exceptions import ConfigurationError
from toolwire.tools import Tool

from ._names import External, build_externals
from ._pytext import docstring, shorten
from ._stubs import StubWriter
from .isolation import Isolation
from .limits import Limits

DEFAULT_ID = "execute_python"

_HEADER = [
    "from __future__ import annotations",
    "",
    "import asyncio",
    "from typing import Any, Literal, NotRequired, TypedDict",
    "",
    "",
    "class ToolError(Exception):",
    '    """Raised by an `external_*` call that failed; `name` is the kind of failure."""',
    "",
    "    name: str",
    "    message: str",
    "    tool: str",
]


def render_stubs(pairs: Sequence[tuple[External, Tool]]) -> str:
    """Python source declaring one `async def external_<x>(input, /)` per tool, with its TypedDicts."""
    writer = StubWriter()
    functions: list[str] = []
    for external, tool in pairs:
        schema = tool.input_schema.json_schema
        input_type = writer.type_of(schema, root=schema, owner=external.type_stem, name=external.type_stem + "Input")
        output_type = "Any"
        # The program gets the model's view; `to_model_output` may reshape it away from the schema.
        if tool.output_schema is not None and tool.to_model_output is None:
            out = tool.output_schema.json_schema
            output_type = writer.type_of(out, root=out, owner=external.type_stem, name=external.type_stem + "Output")
        functions.extend(["", "", *_function(external, tool, input_type, output_type)])
    definitions = writer.definitions()
    body = _collapse_blank_lines([*_HEADER, "", *definitions, *functions])
    return "\n".join(body).strip("\n") + "\n"


def _function(external: External, tool: Tool, input_type: str, output_type: str) -> list[str]:
    text = tool.description.strip()
    notes = [f"Tool id: {external.tool_id!r}."]
    if tool.input_examples:
        example = repr(dict(tool.input_examples[0].input))
        notes.append(f"Example: await {external.function}({shorten(example, 300)})")
    doc = docstring(f"{shorten(text)}\n\n" + "\n".join(notes) if text else "\n".join(notes), "    ")
    return [f"async def {external.function}(input: {input_type}, /) -> {output_type}:", *doc]


def _collapse_blank_lines(lines: list[str]) -> list[str]:
    collapsed: list[str] = []
    for line in lines:
        if line == "" and len(collapsed) >= 2 and collapsed[-1] == "" and collapsed[-2] == "":
            continue
        collapsed.append(line)
    return collapsed


def contract(
    tool_id: str, isolation: Isolation | None, limits: Limits, example: str, *, discovery: bool = False
) -> str:
    """The rules of the game, naming the configured tool and the isolation actually in force."""
    if isolation is not None:
        reach = "Only these functions reach the outside world. " + isolation.describe()
    else:
        reach = "Use only these functions to reach data; do not rely on network, files or environment variables."
    rules = [
        f"- The functions are async and take one dict: `result = await {example}({{...}})`.",
        "- Run independent calls concurrently: `a, b = await asyncio.gather(external_x({...}), external_y({...}))` "
        "(`asyncio` is already imported).",
        "- Do arithmetic, filtering, sorting and formatting in Python, not in your head.",
        "- Top-level `await` works. End with `return <value>` or a bare expression: that value is the result, "
        "and it must be JSON (dict, list, str, int, float, bool or None).",
        "- `print()`, stderr and `logging` output come back to you as logs, in order; use them to debug.",
        "- A failed call raises `ToolError` (`.name`, `.message`, `.tool`); catch it to recover, or let it "
        "propagate and you get the error with its line number.",
        f"- {reach}",
        *(_DISCOVERY_RULES if discovery else []),
        f"- Limits: {limits.timeout:g} s per run, {limits.max_calls} calls, "
        f"{limits.max_log_chars} characters of logs, {limits.max_result_bytes} bytes of result.",
    ]
    return "\n".join(
        [
            "# Code mode",
            "",
            f"You have a tool named `{tool_id}`. Instead of calling tools one at a time, write one Python program "
            f"that calls the functions below and computes the answer, and pass it as the `code` argument of "
            f"`{tool_id}`.",
            "",
            "Rules:",
            *rules,
        ]
    )


_DISCOVERY_RULES = [
    "- Only names and summaries are listed below. Before using a function, get its exact input and output "
    'types with a short program: `print(await describe_functions(["external_x", "external_y"]))`; '
    '`await search_functions("words")` finds functions by name or description.',
]


def build_instructions(
    pairs: Sequence[tuple[External, Tool]],
    *,
    tool_id: str,
    isolation: Isolation | None,
    limits: Limits,
    listing: str | None = None,
) -> str:
    """Contract plus stubs (or, for discovery, the one-line `listing`), in a fence no text can close."""
    block = render_stubs(pairs) if listing is None else listing
    longest = max((len(run) for run in re.findall(r"`+", block)), default=0)
    fence = "`" * max(3, longest + 1)
    example = pairs[0][0].function if pairs else "external_x"
    rules = contract(tool_id, isolation, limits, example, discovery=listing is not None)
    return f"{rules}\n\nAvailable functions:\n\n{fence}python\n{block}{fence}\n"


def tool_pairs(tools: Mapping[str, Tool] | Sequence[Tool], *, tool_id: str) -> list[tuple[External, Tool]]:
    """Each tool with its external function, keyed by the name it was given (its id for lists).

    Raises:
        CodeModeNameError: two names map to one function, or a name is the code-mode tool's id.
        ConfigurationError: an item is not a Tool, or one id is given twice.
    """
    if isinstance(tools, Mapping):
        named: list[tuple[str, Any]] = [(str(k), v) for k, v in tools.items()]
    else:
        named = [(getattr(t, "id", ""), t) for t in tools]
    seen: set[str] = set()
    for name, tool in named:
        if not isinstance(tool, Tool):
            raise ConfigurationError(f"code mode: {name!r} is a {type(tool).__name__}, not a toolwire Tool")
        if name in seen:
            raise ConfigurationError(f"code mode: two tools are named {name!r}")
        seen.add(name)
    externals = build_externals([name for name, _ in named], code_mode_id=tool_id)
    return [(external, tool) for external, (_, tool) in zip(externals, named, strict=True)]
