"""The public surface of `toolwire.codemode`: a locked `__all__`, and no provider SDK imported."""

from __future__ import annotations

import subprocess
import sys

import toolwire.codemode as codemode


def test_all_lists_exactly_the_public_names() -> None:
    """Adding or removing a public name is a deliberate change to this list."""
    assert sorted(codemode.__all__) == [
        "Approve",
        "CallRecord",
        "Channel",
        "CodeModeError",
        "CodeModeNameError",
        "CodeModeResult",
        "CodeModeSandbox",
        "CodeModeToolResult",
        "CodeModeTransport",
        "CommandTransport",
        "GUARANTEES",
        "Guarantee",
        "Isolation",
        "IsolationError",
        "Limits",
        "LocalSandbox",
        "SandboxStartError",
        "SandboxTransport",
        "create_code_mode",
        "create_code_mode_instructions",
        "create_code_mode_tool",
        "runner_command",
    ]
    assert all(hasattr(codemode, name) for name in codemode.__all__)


def test_importing_code_mode_imports_no_provider_sdk() -> None:
    """Code mode is core: `openai`, `anthropic` and `google.genai` stay unloaded."""
    probe = (
        "import sys, toolwire.codemode\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'openai', 'anthropic', 'google'}))"
    )
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"
