"""The `toolwire` command: encode, normalize, replay, adapters."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolwire import cli
from toolwire.cli import main

TOOLS_JSON = [
    {
        "id": "get_weather",
        "description": "Get the weather.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "inputExamples": [{"input": {"city": "Paris"}}],
    }
]

ANTHROPIC_SSE = (
    "event: message_start\n"
    'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    '"model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n'
    "event: content_block_start\n"
    'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1",'
    '"name":"get_weather","input":{}}}\n\n'
    "event: content_block_delta\n"
    'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":'
    ' \\"Paris\\"}"}}\n\n'
    "event: content_block_stop\n"
    'data: {"type":"content_block_stop","index":0}\n\n'
    "event: message_delta\n"
    'data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}\n\n'
    "event: message_stop\n"
    'data: {"type":"message_stop"}\n\n'
)


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS_JSON))
    return path


def test_encode_prints_the_fragment_and_degradations_on_stderr(
    tools_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini folds the example into the description and says so on stderr."""
    assert main(["encode", "--api", "gemini", str(tools_file), "--tool-choice", '{"tool": "get_weather"}']) == 0
    out, err = capsys.readouterr()
    fragment = json.loads(out)
    declaration = fragment["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather"
    assert "Examples:" in declaration["description"]
    assert fragment["toolConfig"]["functionCallingConfig"] == {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
    assert "warning: [gemini] tool 'get_weather': input_examples:" in err


def test_encode_takes_a_module_attribute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`module:attribute` names a list of Tools importable from the working directory."""
    (tmp_path / "my_tools.py").write_text(
        "from toolwire import create_tool\nTOOLS = [create_tool(id='ping', description='Ping.', strict=True)]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["encode", "--api", "anthropic", "my_tools:TOOLS"]) == 0
    assert json.loads(capsys.readouterr().out)["tools"][0]["name"] == "ping"


def test_encode_refuses_an_attribute_that_is_not_tools(capsys: pytest.CaptureFixture[str]) -> None:
    """A string attribute is not a Tool: a clear error, exit status 2."""
    assert main(["encode", "--api", "anthropic", "toolwire.conformance.demo:DEMO"]) == 2
    assert "not a Tool, a list of Tools or a dict of Tools" in capsys.readouterr().err


def test_encode_an_unknown_api_lists_the_known_ones(tools_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo gets a suggestion and the list."""
    assert main(["encode", "--api", "antropic", str(tools_file)]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'anthropic'" in err
    assert "openai-chat" in err


def test_normalize_prints_one_event_per_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A clean stream exits 0 with the events as JSON lines."""
    body = tmp_path / "body.sse"
    body.write_text(ANTHROPIC_SSE)
    assert main(["normalize", "--api", "anthropic", str(body)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[2] == {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": '{"city": "Paris"}'}
    assert events[3]["input"] == {"city": "Paris"}
    assert events[-1]["finishReason"] == "tool-calls"


def test_normalize_malformed_input_ends_with_an_error_naming_the_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The events decoded so far, then an error with the byte offset; exit status 1."""
    body = tmp_path / "body.sse"
    broken = ANTHROPIC_SSE.replace('"index":0}\n\n', '"index":0\n\n', 1)
    body.write_text(broken)
    assert main(["normalize", "--api", "anthropic", str(body)]) == 1
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    errors = [e for e in events if e["type"] == "error"]
    offset = broken.encode().index(b"event: content_block_stop")
    assert errors[0]["errorText"].endswith(f"at byte {offset}")
    assert events[0]["type"] == "start"


def test_normalize_validates_against_tools(
    tools_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --tools, input that fails the schema becomes tool-input-error."""
    body = tmp_path / "body.sse"
    body.write_text(ANTHROPIC_SSE.replace('\\"city\\"', '\\"town\\"'))
    main(["normalize", "--api", "anthropic", str(body), "--tools", str(tools_file)])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["type"] for e in events if e["type"].startswith("tool-input-e")] == ["tool-input-error"]


def test_replay_prints_every_interaction_of_a_cassette(capsys: pytest.CaptureFixture[str]) -> None:
    """Each line names its interaction and api."""
    cassette = Path(__file__).parents[2] / "cassettes" / "anthropic" / "single_call.yaml"
    assert main(["replay", str(cassette)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {line["interaction"] for line in lines} == {0, 1}
    assert {line["api"] for line in lines} == {"anthropic"}


def test_adapters_lists_the_four_apis(capsys: pytest.CaptureFixture[str]) -> None:
    """The in-tree adapters are registered through entry points."""
    assert main(["adapters"]) == 0
    listed = capsys.readouterr().out.split()
    assert {"openai-chat", "openai-responses", "anthropic", "gemini"} <= set(listed)


class TestScript:
    def test_the_script_exits_with_the_status_of_main_its_objects_frozen(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """`toolwire` (the script) freezes what is left, so the interpreter's teardown collections pass it by."""
        monkeypatch.setattr(cli, "main", lambda: 3)
        frozen_before = gc.get_freeze_count()
        try:
            with pytest.raises(SystemExit) as raised:
                cli.run()
            assert raised.value.code == 3
            assert gc.get_freeze_count() > frozen_before
        finally:
            gc.unfreeze()

    def test_python_dash_m_toolwire_runs_the_script(self) -> None:
        """`python -m toolwire` is the same command, exit status included."""
        result = subprocess.run(
            [sys.executable, "-m", "toolwire", "conformance", "--workers", "0"], capture_output=True, text=True
        )
        assert result.returncode == 2
        assert "argument --workers: takes a whole number of at least 1, got '0'" in result.stderr
