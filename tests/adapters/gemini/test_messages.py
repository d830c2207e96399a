"""Conversation history as Gemini `contents` (+ `systemInstruction`), round-tripped from decoded responses."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import ConfigurationError, ToolCall, ToolResult, assistant_message, get_adapter
from toolwire import results as out
from toolwire.adapter import Adapter
from toolwire.compat import CompatibilityWarning
from toolwire.messages import AssistantMessage, ReasoningPart, SystemMessage, TextPart, ToolMessage, user

from .frames import USAGE, call, chunk, text, thought
from .sdk_bodies import SdkBodies

SIGNATURE = "Eqo+Cqc/Ab4+9vtg"
SIGNATURE_WIRE = "Eqo-Cqc_Ab4-9vtg"
"""The signature as google-genai sends bytes on the request body (URL-safe base64)."""
SIGNED = {"google": {"thoughtSignature": SIGNATURE}}


def encode(
    adapter: Adapter, messages: list[Any], **options: Any
) -> tuple[dict[str, Any], list[tuple[str | None, str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        encoded = adapter.encode_messages(messages, **options)
    found = [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]
    return encoded, [(d.tool_id, d.feature) for d in found]


def tool_call(call_id: str, name: str = "get_weather", metadata: Any = None, **input: Any) -> ToolCall:
    return ToolCall(tool_call_id=call_id, tool_name=name, input=input, provider_metadata=metadata)


def tool_result(call_id: str, value: str, name: str = "get_weather") -> ToolResult:
    return ToolResult(tool_call_id=call_id, tool_name=name, output=out.text(value))


class TestRoundTrip:
    def test_a_decoded_turn_goes_back_with_each_signature_on_the_part_it_came_on(
        self, adapter: Adapter, sdk: SdkBodies
    ) -> None:
        stream = [
            chunk(thought("Two cities.")),
            chunk(text("Checking both.")),
            chunk(call("get_weather", {"city": "Paris"}, "fc_1", thoughtSignature=SIGNATURE)),
            chunk(call("get_weather", {"city": "Oslo"}, "fc_2")),
            chunk(text("", thoughtSignature=SIGNATURE), finish="STOP", usage=USAGE),
        ]
        turn = assistant_message(adapter.normalize(stream))
        history = [
            user("Weather in Paris and Oslo?"),
            turn,
            ToolMessage(content=(tool_result("fc_2", "Oslo: snow"), tool_result("fc_1", "Paris: sun"))),
        ]
        encoded, notes = encode(adapter, history)
        assert encoded == {
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris and Oslo?"}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "Two cities.", "thought": True},
                        {"text": "Checking both."},
                        {
                            "functionCall": {"id": "fc_1", "name": "get_weather", "args": {"city": "Paris"}},
                            "thoughtSignature": SIGNATURE_WIRE,
                        },
                        {"functionCall": {"id": "fc_2", "name": "get_weather", "args": {"city": "Oslo"}}},
                        {"text": "", "thoughtSignature": SIGNATURE_WIRE},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "fc_1",
                                "name": "get_weather",
                                "response": {"output": "Paris: sun"},
                            }
                        },
                        {
                            "functionResponse": {
                                "id": "fc_2",
                                "name": "get_weather",
                                "response": {"output": "Oslo: snow"},
                            }
                        },
                    ],
                },
            ]
        }
        assert notes == []
        assert sdk.send(contents=encoded["contents"])["contents"] == encoded["contents"]

    def test_calls_gemini_sent_without_ids_go_back_without_ids(self, adapter: Adapter) -> None:
        turn = assistant_message(adapter.normalize([chunk(call("get_time", {}), finish="STOP")]))
        result = ToolResult(tool_call_id=turn.tool_calls[0].tool_call_id, tool_name="get_time", output=out.text("noon"))
        encoded, notes = encode(adapter, [user("time?"), turn, ToolMessage(content=(result,))])
        assert encoded["contents"][1:] == [
            {"role": "model", "parts": [{"functionCall": {"name": "get_time", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_time", "response": {"output": "noon"}}}]},
        ]
        assert notes == []

    def test_code_execution_goes_back_as_executable_code_and_its_result(self, adapter: Adapter, sdk: SdkBodies) -> None:
        stream = [
            chunk(
                {
                    "executableCode": {"language": "PYTHON", "code": "print(6*7)", "id": "ex1"},
                    "thoughtSignature": SIGNATURE,
                }
            ),
            chunk({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n", "id": "ex1"}}),
            chunk(text("42."), finish="STOP"),
        ]
        encoded, notes = encode(adapter, [user("6*7?"), assistant_message(adapter.normalize(stream))])
        assert encoded["contents"][1] == {
            "role": "model",
            "parts": [
                {
                    "executableCode": {"code": "print(6*7)", "language": "PYTHON", "id": "ex1"},
                    "thoughtSignature": SIGNATURE_WIRE,
                },
                {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n", "id": "ex1"}},
                {"text": "42."},
            ],
        }
        assert notes == []
        assert sdk.send(contents=encoded["contents"])["contents"] == encoded["contents"]

    def test_failed_code_goes_back_with_its_outcome(self, adapter: Adapter) -> None:
        stream = [
            chunk({"executableCode": {"language": "PYTHON", "code": "1/0", "id": "ex1"}}),
            chunk(
                {"codeExecutionResult": {"outcome": "OUTCOME_DEADLINE_EXCEEDED", "output": "", "id": "ex1"}},
                finish="STOP",
            ),
        ]
        encoded, _ = encode(adapter, [assistant_message(adapter.normalize(stream))])
        assert encoded["contents"][0]["parts"][1] == {
            "codeExecutionResult": {
                "outcome": "OUTCOME_DEADLINE_EXCEEDED",
                "output": "OUTCOME_DEADLINE_EXCEEDED",
                "id": "ex1",
            }
        }

    def test_server_side_tool_calls_go_back_as_tool_call_and_tool_response(
        self, adapter: Adapter, sdk: SdkBodies
    ) -> None:
        stream = [
            chunk({"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["news"]}}}),
            chunk({"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"n": 2}}}, finish="STOP"),
        ]
        encoded, _ = encode(adapter, [assistant_message(adapter.normalize(stream))])
        assert encoded["contents"][0]["parts"] == [
            {"toolCall": {"tool_type": "GOOGLE_SEARCH_WEB", "args": {"queries": ["news"]}, "id": "s1"}},
            {"toolResponse": {"tool_type": "GOOGLE_SEARCH_WEB", "response": {"n": 2}, "id": "s1"}},
        ]
        assert sdk.send(contents=encoded["contents"])["contents"] == encoded["contents"]


class TestSystemAndUser:
    def test_system_messages_are_the_system_instruction_the_sdk_takes_as_config(
        self, adapter: Adapter, sdk: SdkBodies
    ) -> None:
        encoded, notes = encode(
            adapter, [SystemMessage(content="Be brief."), SystemMessage(content="Use tools."), user("Hi")]
        )
        assert encoded == {
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use tools."}]},
        }
        assert notes == []
        request = dict(encoded)
        body = sdk.send(contents=request.pop("contents"), config=request)
        assert (body["contents"], body["systemInstruction"]) == (encoded["contents"], encoded["systemInstruction"])

    def test_a_system_message_after_the_first_turn_is_moved_and_reported(self, adapter: Adapter) -> None:
        encoded, notes = encode(adapter, [user("Hi"), SystemMessage(content="Now formal.")])
        assert encoded["systemInstruction"] == {"parts": [{"text": "Now formal."}]}
        assert notes == [(None, "system_message.position")]

    def test_user_media_parts_are_inline_and_file_data(self, adapter: Adapter, sdk: SdkBodies) -> None:
        message = user(
            "What is this?",
            out.image_data(b"\x89PNG\r\n\x1a\n\xfb\xff", "image/png"),
            out.file_url("gs://bucket/report.pdf"),
            out.image_file_id("files/img1", "image/jpeg"),
        )
        encoded, notes = encode(adapter, [message])
        assert encoded["contents"] == [
            {
                "role": "user",
                "parts": [
                    {"text": "What is this?"},
                    {"inlineData": {"mime_type": "image/png", "data": "iVBORw0KGgr7_w=="}},
                    {"fileData": {"file_uri": "gs://bucket/report.pdf", "mime_type": "application/pdf"}},
                    {
                        "fileData": {
                            "file_uri": "https://generativelanguage.googleapis.com/v1beta/files/img1",
                            "mime_type": "image/jpeg",
                        }
                    },
                ],
            }
        ]
        assert notes == []
        assert sdk.send(contents=encoded["contents"])["contents"] == encoded["contents"]

    def test_dict_messages_are_read_like_message_objects(self, adapter: Adapter) -> None:
        as_dicts = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]},
        ]
        as_objects = [
            SystemMessage(content="Be brief."),
            user("Hi"),
            AssistantMessage(content=(TextPart(text="Hello"),)),
        ]
        assert adapter.encode_messages(as_dicts) == adapter.encode_messages(as_objects)

    def test_an_unknown_option_is_refused(self, adapter: Adapter) -> None:
        with pytest.raises(ConfigurationError, match=r"no option\(s\) \['thinking'\]"):
            adapter.encode_messages([user("Hi")], thinking=True)


class TestTurns:
    def test_results_are_put_in_the_order_of_the_calls(self, adapter: Adapter) -> None:
        history = [
            AssistantMessage(content=(tool_call("a", city="Paris"), tool_call("b", city="Oslo"))),
            ToolMessage(content=(tool_result("b", "snow"), tool_result("a", "sun"))),
        ]
        encoded, _ = encode(adapter, history)
        assert [p["functionResponse"]["id"] for p in encoded["contents"][1]["parts"]] == ["a", "b"]

    def test_a_call_without_a_result_gets_an_error_response_and_is_reported(self, adapter: Adapter) -> None:
        history = [
            AssistantMessage(content=(tool_call("a", city="Paris", metadata=SIGNED), tool_call("b", city="Oslo"))),
            ToolMessage(content=(tool_result("a", "sun"),)),
        ]
        encoded, notes = encode(adapter, history)
        assert encoded["contents"][1]["parts"][1] == {
            "functionResponse": {
                "id": "b",
                "name": "get_weather",
                "response": {"error": "No result was recorded for this call."},
            }
        }
        assert notes == [("get_weather", "tool_result.missing")]

    def test_a_result_for_a_call_that_was_not_made_is_dropped_and_reported(self, adapter: Adapter) -> None:
        history = [
            AssistantMessage(content=(tool_call("a", city="Paris", metadata=SIGNED),)),
            ToolMessage(content=(tool_result("a", "sun"), tool_result("zzz", "?"))),
        ]
        encoded, notes = encode(adapter, history)
        assert [p["functionResponse"]["id"] for p in encoded["contents"][1]["parts"]] == ["a"]
        assert notes == [(None, "tool_result.unmatched")]

    def test_consecutive_contents_of_one_role_are_merged(self, adapter: Adapter) -> None:
        history = [
            AssistantMessage(content=(tool_call("a", city="Paris"),)),
            ToolMessage(content=(tool_result("a", "sun"),)),
            user("Thanks, and Oslo?"),
        ]
        encoded, _ = encode(adapter, history)
        assert [(c["role"], len(c["parts"])) for c in encoded["contents"]] == [("model", 1), ("user", 2)]

    def test_a_model_instance_input_is_sent_as_json(self, adapter: Adapter) -> None:
        class City(BaseModel):
            city: str

        turn = AssistantMessage(content=(ToolCall(tool_call_id="a", tool_name="get_weather", input=City(city="Rome")),))
        assert adapter.encode_messages([turn])["contents"][0]["parts"][0]["functionCall"]["args"] == {"city": "Rome"}

    def test_invalid_arguments_are_wrapped_in_an_object_and_reported(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(ToolCall(tool_call_id="gemini-call-1", tool_name="get_weather", input='{"city": '),)
        )
        encoded, notes = encode(adapter, [turn])
        assert encoded["contents"][0]["parts"][0]["functionCall"]["args"] == {"invalid_arguments": '{"city": '}
        assert notes == [("get_weather", "tool_call.input")]

    def test_a_thought_summary_without_a_signature_goes_back_as_a_thought(self, adapter: Adapter) -> None:
        turn = AssistantMessage(content=(ReasoningPart(text="Hmm."), TextPart(text="Hi")))
        assert adapter.encode_messages([turn])["contents"][0]["parts"] == [
            {"text": "Hmm.", "thought": True},
            {"text": "Hi"},
        ]


class TestOtherProviders:
    def test_a_transcript_from_another_provider_drops_its_metadata_and_signs_the_calls(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                ReasoningPart(text="thinking", provider_metadata={"anthropic": {"signature": "sig"}}),
                TextPart(text="On it.", provider_metadata={"openai": {"itemId": "msg_1"}}),
                tool_call("call_abc", city="Paris", metadata={"openai": {"itemId": "fc_1"}}),
                tool_call("call_def", city="Oslo"),
            )
        )
        encoded, notes = encode(adapter, [user("Weather?"), turn])
        assert encoded["contents"][1]["parts"] == [
            {"text": "On it."},
            {
                "functionCall": {"id": "call_abc", "name": "get_weather", "args": {"city": "Paris"}},
                "thoughtSignature": "skip_thought_signature_validator",
            },
            {"functionCall": {"id": "call_def", "name": "get_weather", "args": {"city": "Oslo"}}},
        ]
        assert notes == [(None, "reasoning"), (None, "provider_metadata.openai"), (None, "thought_signature")]

    def test_the_placeholder_signature_can_be_turned_off(self, adapter: Adapter) -> None:
        turn = AssistantMessage(content=(tool_call("call_abc", city="Paris"),))
        encoded, notes = encode(adapter, [turn], thought_signature_placeholder=False)
        assert "thoughtSignature" not in encoded["contents"][0]["parts"][0]
        assert notes == []

    def test_gemini_calls_signed_on_the_first_part_only_get_no_placeholder(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                tool_call("x1", city="Paris", metadata={"google": {"thoughtSignature": SIGNATURE}}),
                tool_call("x2", city="Oslo"),
            )
        )
        encoded, notes = encode(adapter, [turn])
        assert [p.get("thoughtSignature") for p in encoded["contents"][0]["parts"]] == [SIGNATURE_WIRE, None]
        assert notes == []

    def test_a_call_another_provider_ran_itself_is_dropped_with_its_result(self, adapter: Adapter) -> None:
        turn = AssistantMessage(
            content=(
                ToolCall(tool_call_id="srv_1", tool_name="web_search", input={"query": "x"}, provider_executed=True),
                ToolResult(tool_call_id="srv_1", tool_name="web_search", output=out.json_output([{"url": "u"}])),
                TextPart(text="Found it."),
            )
        )
        encoded, notes = encode(adapter, [turn])
        assert encoded["contents"] == [{"role": "model", "parts": [{"text": "Found it."}]}]
        assert notes == [("web_search", "provider_executed_call")]

    def test_a_turn_with_nothing_gemini_can_take_leaves_no_empty_content(self) -> None:
        adapter = get_adapter("gemini")
        turn = AssistantMessage(content=(ReasoningPart(text="x", provider_metadata={"openai": {"itemId": "rs_1"}}),))
        encoded, _ = encode(adapter, [user("Hi"), turn, user("Again")])
        assert encoded["contents"] == [{"role": "user", "parts": [{"text": "Hi"}, {"text": "Again"}]}]


def _chart_history() -> list[Any]:
    chart = out.content(out.text_part("Chart."), out.image_data("iVBORw0KGgo=", "image/png"))
    return [
        user("Chart?"),
        AssistantMessage(content=(tool_call("fc_1", "make_chart"),)),
        ToolMessage(content=(ToolResult(tool_call_id="fc_1", tool_name="make_chart", output=chart),)),
    ]


@pytest.mark.parametrize(("model", "nested"), [("gemini-2.5-flash", False), ("gemini-3-flash-preview", True)])
def test_tool_result_media_is_nested_only_for_models_that_take_it(model: str, nested: bool) -> None:
    """Gemini 1.x/2.x refuse media inside functionResponse.parts (400): it goes after the responses."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompatibilityWarning)
        request = get_adapter("gemini").build_request(
            model=model, messages=_chart_history(), tools=None, options={}, stream=False
        )
    parts = request["contents"][-1]["parts"]
    response = parts[0]["functionResponse"]
    if nested:
        assert response["parts"] == [{"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}]
        assert len(parts) == 1
    else:
        assert "parts" not in response
        assert parts[1] == {"inlineData": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}
