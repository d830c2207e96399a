"""Specification of loading tool declarations from JSON and YAML files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolwire import ToolDefinitionError
from toolwire.targets import (
    TOOLS_JSON_MESSAGE,
    TargetConfigError,
    TargetHost,
    binding_of,
    load_tools,
    set_default_host,
    tools_from_data,
    tools_from_text,
)

HOST = TargetHost(components={"api": "https://api.example.com"})
SAVE = {
    "name": "save_bookmark",
    "displayName": "Save bookmark",
    "description": "Save a bookmark URL and return a confirmation.",
    "input": {
        "type": "object",
        "properties": {"url": {"type": "string"}, "title": {"type": "string"}},
        "required": ["url"],
        "additionalProperties": False,
    },
    "target": {"type": "app", "component": "api", "path": "/tools/save-bookmark", "method": "POST", "body": "${input}"},
}
YAML = """
tools:
  - name: save_bookmark
    displayName: Save bookmark
    description: Save a bookmark URL and return a confirmation.
    input:
      type: object
      properties:
        url: {type: string}
        title: {type: string}
      required: [url]
    target: &save
      type: app
      component: api
      path: /tools/save-bookmark
      method: POST
      body: ${input}
  - name: save_again
    description: The same target, reused through a YAML anchor.
    target: *save
"""


def test_a_json_file_declares_tools(tmp_path: Path) -> None:
    """Each entry becomes a tool with its schema, title and bound target."""
    path = tmp_path / "bookmarks.json"
    path.write_text(json.dumps([SAVE]))
    (tool,) = load_tools(path, host=HOST)
    assert (tool.id, tool.title, tool.input_schema.json_schema["required"], binding_of(tool) is not None) == (
        "save_bookmark",
        "Save bookmark",
        ["url"],
        True,
    )


def test_a_yaml_file_declares_tools_and_may_share_targets(tmp_path: Path) -> None:
    """YAML anchors let one target back two tools, like the seed's shared `const`."""
    path = tmp_path / "tools.yaml"
    path.write_text(YAML)
    tools = load_tools(path, host=HOST)
    assert ([t.id for t in tools], tools[0].target == tools[1].target) == (["save_bookmark", "save_again"], True)


async def test_a_loaded_tool_runs_its_target(make_host: Any, call: Any, handler: Any) -> None:
    """A declaration file is as good as code: the tool sends its request."""
    (tool,) = tools_from_data([SAVE], host=make_host())
    result = await call(tool, {"url": "https://example.com", "title": "Example"})
    assert (result.output, handler.seen[0].path) == ({"type": "text", "value": "Saved Example"}, "/tools/save-bookmark")


def test_the_default_host_is_used(tmp_path: Path) -> None:
    """Without `host=`, the default host binds the targets."""
    set_default_host(HOST)
    (tool,) = tools_from_text(json.dumps({"tools": [SAVE]}), format="json")
    assert getattr(binding_of(tool), "host", None) is HOST


def test_tools_json_is_refused_when_the_host_opts_in(tmp_path: Path) -> None:
    """The seed's rule: a `tools.json` file fails, with its message."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([SAVE]))
    strict = TargetHost(components={"api": "https://api.example.com"}, reject_tools_json=True)
    with pytest.raises(TargetConfigError) as caught:
        load_tools(path, host=strict)
    assert (str(caught.value), len(load_tools(path, host=HOST))) == (TOOLS_JSON_MESSAGE, 1)


@pytest.mark.parametrize(
    ("entry", "field", "problem"),
    [
        ({**SAVE, "handler": "x"}, "handler", "is not a field of a tool declaration"),
        (
            {k: v for k, v in SAVE.items() if k != "target"},
            "target",
            "is required in a declaration file (there is no code to run)",
        ),
        ({**SAVE, "id": "other"}, "name", "and `id` are both given; use one"),
        ({**SAVE, "description": 3}, "description", "is required: say what the tool does"),
        ({**SAVE, "displayName": ["x"]}, "displayName", "must be text"),
        ({**SAVE, "target": {**SAVE["target"], "method": "SEND"}}, "target.method", "is required and must be one of"),
    ],
)
def test_bad_declarations_name_the_tool_and_field(entry: dict[str, Any], field: str, problem: str) -> None:
    """Errors say which tool and which field is wrong."""
    with pytest.raises(ToolDefinitionError) as caught:
        tools_from_data([entry], host=HOST)
    assert (caught.value.tool_id, caught.value.field, caught.value.problem.startswith(problem)) == (
        "save_bookmark",
        field,
        True,
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.json", "[", "a.json: not valid JSON (Expecting value: line 1 column 2 (char 1))"),
        ("a.yaml", "tools: [", "a.yaml: not valid YAML"),
        ("a.json", '{"tool": []}', 'a.json: expected a list of tools or {"tools": [...]}'),
        ("a.json", "[3]", "a.json: tool 0 must be an object"),
        ("a.toml", "x", "cannot tell the format of 'a.toml': use .json, .yaml or .yml, or pass format="),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path: Path, name: str, text: str, message: str) -> None:
    """Malformed files fail with the file and the reason."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(TargetConfigError) as caught:
        load_tools(path, host=HOST)
    assert str(caught.value).removeprefix(str(tmp_path) + "/").startswith(message)


def test_a_missing_file_is_a_configuration_error(tmp_path: Path) -> None:
    """An unreadable file names itself."""
    with pytest.raises(TargetConfigError, match="cannot read"):
        load_tools(tmp_path / "absent.json", host=HOST)
