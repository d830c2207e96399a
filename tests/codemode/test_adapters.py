"""The code-mode tool is an ordinary tool for every adapter: encodes without degradation, results map."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import get_adapter, list_adapters
from toolwire.codemode import create_code_mode
from toolwire.runtime import execute_tool

APIS = list_adapters()


@pytest.mark.parametrize("api", APIS)
def test_the_tool_encodes_without_degradation(api: str, sandbox: Any) -> None:
    """Its input schema (one string with length bounds) fits every provider as it is."""
    encoded = get_adapter(api).encode_tools([create_code_mode({}, sandbox=sandbox).tool])
    assert encoded.warnings == []
    assert encoded.names.wire("execute_python") == "execute_python"


async def test_a_failed_program_is_flagged_as_an_error_to_anthropic(sandbox: Any) -> None:
    """The `error-json` form becomes `is_error: true`, so the model knows its program failed."""
    code_mode = create_code_mode({}, sandbox=sandbox)
    result = await execute_tool(
        code_mode.tool, {"toolCallId": "c1", "toolName": "execute_python", "input": {"code": "1/0"}}
    )
    assert get_adapter("anthropic").encode_tool_results([result]) == [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c1",
                    "content": (
                        '{"success": false, "error": {"message": "division by zero", "name": "ZeroDivisionError", '
                        '"line": 1}}'
                    ),
                    "is_error": True,
                }
            ],
        }
    ]


async def test_a_successful_program_reaches_openai_chat_as_compact_json(sandbox: Any) -> None:
    """Result and logs, nothing else."""
    code_mode = create_code_mode({}, sandbox=sandbox)
    call = {"toolCallId": "c1", "toolName": "execute_python", "input": {"code": "print('hi')\n2"}}
    result = await execute_tool(code_mode.tool, call)
    assert get_adapter("openai-chat").encode_tool_results([result]) == [
        {"role": "tool", "tool_call_id": "c1", "content": '{"success":true,"result":2,"logs":["hi"]}'}
    ]
