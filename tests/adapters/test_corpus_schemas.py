"""Real tool schemas from the corpus request bodies (`TOOLWIRE_EXTERNAL_CORPUS`): every adapter encodes them,
and every strict schema sent follows the provider's documented rules (checked independently, `strict_checks.py`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolwire import create_tool, get_adapter
from toolwire.exceptions import ToolDefinitionError
from toolwire.recordings import read_recording

from .strict_checks import anthropic_strict_problems, openai_strict_problems

CORPUS = os.environ.get("TOOLWIRE_EXTERNAL_CORPUS")

pytestmark = pytest.mark.corpus

_ADAPTERS = [
    ("openai-chat", {}),
    ("openai-responses", {}),
    ("anthropic", {}),
    ("gemini", {}),
    ("gemini", {"schema_format": "openapi"}),
    ("gemini", {"schema_format": "openapi", "vertex": True}),
]


def _schemas_in(body: Any) -> list[Any]:
    """The input schemas of every tool definition in a request body, whatever the provider."""
    found: list[Any] = []
    for tool in body.get("tools") or [] if isinstance(body, dict) else []:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        found.extend(function[key] for key in ("parameters", "input_schema") if key in function)
        for declaration in tool.get("functionDeclarations") or []:
            found.extend(declaration[k] for k in ("parameters_json_schema", "parametersJsonSchema") if k in declaration)
    return [schema for schema in found if isinstance(schema, dict)]


def _corpus_schemas() -> list[dict[str, Any]]:
    assert CORPUS is not None
    unique: dict[str, dict[str, Any]] = {}
    for line in (Path(CORPUS) / "INDEX.tsv").read_text().splitlines()[1:]:
        for exchange in read_recording(Path(CORPUS) / line.split("\t")[0]):
            try:
                body = json.loads(exchange.request_body or b"null")
            except ValueError:
                continue
            for schema in _schemas_in(body):
                unique.setdefault(json.dumps(schema, sort_keys=True), schema)
    return list(unique.values())


def test_every_real_schema_encodes_and_every_strict_schema_follows_the_documented_rules() -> None:
    """Strict asked for every tool: each adapter sends it strict within the rules, or without strict."""
    if not CORPUS:
        pytest.skip("set TOOLWIRE_EXTERNAL_CORPUS to the shared corpus folder to run the real schemas")
    tools = []
    for position, schema in enumerate(_corpus_schemas()):
        try:
            tools.append(create_tool(id=f"t{position}", description="d", input_schema=schema))
        except ToolDefinitionError:
            continue  # Gemini's OpenAPI spelling (`"type": "STRING"`) is not JSON Schema: refused at definition
    assert len(tools) > 30
    problems: list[tuple[str, str, list[str]]] = []
    for api, settings in _ADAPTERS:
        adapter = get_adapter(api, **settings)
        for tool in tools:
            entry = adapter.encode_tools([tool], strict=True)["tools"][0]
            function = entry.get("function", entry)
            if api.startswith("openai") and function.get("strict"):
                problems.append((api, tool.id, openai_strict_problems(function["parameters"])))
            elif api == "anthropic" and entry.get("strict"):
                problems.append((api, tool.id, anthropic_strict_problems(entry["input_schema"])))
    assert [p for p in problems if p[2]] == []
    assert {api for api, _, _ in problems} == {"openai-chat", "openai-responses", "anthropic"}
