"""Free-form tools: a string input schema; OpenAI custom tools; the text itself reaches `execute`.

The contract: a custom call's input is `{"input": <text>}` for tools declared with an object
schema (and when no tools are given), and the text itself for a tool whose input schema is a
string. Providers without free-form tools get such a tool as an object with one string
property `input` (reported), and its calls are unwrapped the same way.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest

from toolwire import AssistantMessage, ToolCall, create_tool, get_adapter
from toolwire.exceptions import ToolDefinitionError
from toolwire.mcp._listing import tool_listing
from toolwire.runtime import execute_tool_sync
from toolwire.testing.capture import RequestCapture

SQL_SCHEMA = {"type": "string", "description": "One SQL statement."}
SQL = create_tool(id="run_sql", description="Run SQL.", input_schema=SQL_SCHEMA, execute=lambda text: f"ran {text}")
WRAPPED = {
    "type": "object",
    "properties": {"input": SQL_SCHEMA},
    "required": ["input"],
    "additionalProperties": False,
}


def available(api: str, source: Any, **options: Any) -> list[dict[str, Any]]:
    events = [event.to_dict() for event in get_adapter(api).normalize(source, **options)]
    return [e for e in events if e["type"] in ("tool-input-available", "tool-input-error")]


class TestDefinition:
    def test_a_string_input_schema_makes_a_free_form_tool(self) -> None:
        assert SQL.free_form is True
        assert create_tool(id="t", description="d").free_form is False

    def test_input_examples_are_refused_for_a_free_form_tool(self) -> None:
        with pytest.raises(ToolDefinitionError, match="describe a free-form tool's text in its description"):
            create_tool(id="t", description="d", input_schema=SQL_SCHEMA, input_examples=[{"input": {"a": 1}}])


class TestEncoding:
    def test_chat_sends_a_custom_tool_and_forces_it_by_its_custom_name(self) -> None:
        fragment = get_adapter("openai-chat").encode_tools([SQL], {"tool": "run_sql"})
        assert dict(fragment) == {
            "tools": [
                {"type": "custom", "custom": {"name": "run_sql", "description": "Run SQL.", "format": {"type": "text"}}}
            ],
            "tool_choice": {"type": "custom", "custom": {"name": "run_sql"}},
        }
        assert fragment.warnings == []

    def test_the_openai_sdk_sends_the_chat_custom_tool_as_it_is(self) -> None:
        fragment = get_adapter("openai-chat").encode_tools([SQL])
        capture = RequestCapture([httpx2.Response(200, json={"choices": []})])
        client = openai.OpenAI(api_key="sk-test", http_client=capture.client(), max_retries=0)
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "hi"}], **fragment)
        assert capture.body()["tools"] == fragment["tools"]

    def test_responses_sends_a_custom_tool_and_forces_it_by_name(self) -> None:
        fragment = get_adapter("openai-responses").encode_tools([SQL], {"allowed": ["run_sql"], "mode": "required"})
        assert dict(fragment) == {
            "tools": [{"type": "custom", "name": "run_sql", "description": "Run SQL.", "format": {"type": "text"}}],
            "tool_choice": {
                "type": "allowed_tools",
                "mode": "required",
                "tools": [{"type": "custom", "name": "run_sql"}],
            },
        }

    @pytest.mark.parametrize(
        ("api", "schema_field"),
        [("anthropic", "input_schema"), ("gemini", "parameters_json_schema")],
    )
    def test_providers_without_free_form_tools_get_one_string_property_and_a_degradation(
        self, api: str, schema_field: str
    ) -> None:
        fragment = get_adapter(api).encode_tools([SQL])
        entry = fragment["tools"][0]
        declared = entry["functionDeclarations"][0] if api == "gemini" else entry
        assert declared[schema_field]["properties"] == {"input": SQL_SCHEMA}
        assert declared[schema_field]["required"] == ["input"]
        assert [(d.feature, d.tool_id) for d in fragment.warnings] == [("free_form", "run_sql")]

    def test_the_compatible_chat_profile_sends_an_object_tool(self) -> None:
        fragment = get_adapter("openai-chat", profile="compatible").encode_tools([SQL])
        assert fragment["tools"][0]["function"]["parameters"] == WRAPPED
        assert [d.feature for d in fragment.warnings] == ["free_form"]

    def test_strict_and_string_constraints_are_reported_not_sent(self) -> None:
        tool = create_tool(id="q", description="Query.", input_schema={"type": "string", "maxLength": 50}, strict=True)
        fragment = get_adapter("openai-responses").encode_tools([tool])
        assert fragment["tools"][0]["format"] == {"type": "text"}
        assert [d.feature for d in fragment.warnings] == ["strict", "free_form.constraints"]


class TestDecoding:
    def test_a_responses_custom_call_gives_the_text_to_a_free_form_tool(self) -> None:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "run_sql", "input": "SELECT 1"}
        response = {"object": "response", "id": "resp_1", "status": "completed", "output": [item]}
        [call] = available("openai-responses", [response], tools=[SQL])
        assert call["input"] == "SELECT 1"
        assert call["providerMetadata"] == {"openai": {"itemId": "ctc_1", "custom": True}}

    def test_without_tools_a_custom_call_input_is_an_object_holding_the_text(self) -> None:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "run_sql", "input": "SELECT 1"}
        response = {"object": "response", "id": "resp_1", "status": "completed", "output": [item]}
        assert available("openai-responses", [response])[0]["input"] == {"input": "SELECT 1"}

    def test_a_chat_custom_call_gives_the_text_to_a_free_form_tool(self) -> None:
        call = {"id": "call_1", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}
        completion = {"choices": [{"index": 0, "message": {"tool_calls": [call]}, "finish_reason": "tool_calls"}]}
        assert available("openai-chat", [completion], tools=[SQL])[0]["input"] == "SELECT 1"

    def test_an_anthropic_call_of_the_wrapped_tool_is_unwrapped_and_marked(self) -> None:
        message = {
            "type": "message",
            "id": "msg_1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "run_sql", "input": {"input": "SELECT 1"}}],
            "stop_reason": "tool_use",
        }
        [call] = available("anthropic", [message], tools=[SQL])
        assert (call["input"], call["providerMetadata"]) == ("SELECT 1", {"anthropic": {"freeForm": True}})

    def test_the_text_is_validated_against_the_string_schema(self) -> None:
        tool = create_tool(id="run_sql", description="d", input_schema={"type": "string", "maxLength": 3})
        call = {"id": "call_1", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}
        completion = {"choices": [{"index": 0, "message": {"tool_calls": [call]}, "finish_reason": "tool_calls"}]}
        [refused] = available("openai-chat", [completion], tools=[tool])
        assert refused["type"] == "tool-input-error"
        assert refused["errorText"].startswith("Invalid input for tool 'run_sql': ")


class TestExecutionAndHistory:
    @pytest.mark.parametrize("given", ["SELECT 1", {"input": "SELECT 1"}])
    def test_execute_receives_the_text(self, given: Any) -> None:
        result = execute_tool_sync(SQL, ToolCall(tool_call_id="c", tool_name="run_sql", input=given))
        assert result.output == {"type": "text", "value": "ran SELECT 1"}

    def test_anthropic_history_sends_a_wrapped_call_back_as_the_object(self) -> None:
        call = ToolCall(
            tool_call_id="toolu_1",
            tool_name="run_sql",
            input="SELECT 1",
            provider_metadata={"anthropic": {"freeForm": True}},
        )
        fields = get_adapter("anthropic").encode_messages([AssistantMessage(content=(call,))])
        block = fields["messages"][0]["content"][0]
        assert block["input"] == {"input": "SELECT 1"}

    def test_responses_history_sends_a_custom_call_back_as_raw_text(self) -> None:
        call = ToolCall(
            tool_call_id="call_1", tool_name="run_sql", input="SELECT 1", provider_metadata={"openai": {"custom": True}}
        )
        items = get_adapter("openai-responses").encode_messages([AssistantMessage(content=(call,))])["input"]
        assert items == [{"type": "custom_tool_call", "call_id": "call_1", "name": "run_sql", "input": "SELECT 1"}]

    def test_mcp_lists_a_free_form_tool_with_one_string_property(self) -> None:
        assert tool_listing(SQL)["inputSchema"] == WRAPPED
