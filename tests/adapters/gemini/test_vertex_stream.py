"""Vertex streamed function-call arguments (`partialArgs`): text deltas, how a call ends, and what is refused."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from toolwire import create_tool
from toolwire.adapter import Adapter
from toolwire.events import ToolInputDelta

from .frames import END, START_EVENT, USAGE, arg, chunk, finish_event, partial, start, text

Decode = Callable[..., list[dict[str, Any]]]

RECIPE = [
    chunk(start("cookRecipe", thoughtSignature="c2ln")),
    chunk(partial(arg("$.recipe.ingredients[0].amount", stringValue="16 oz", willContinue=True))),
    chunk(partial(arg("$.recipe.ingredients[0].amount", stringValue=""))),
    chunk({"functionCall": {"willContinue": True}}),
    chunk(partial(arg("$.recipe.ingredients[1].amount", stringValue="1 lb"))),
    chunk(partial(arg("$.recipe.name", stringValue="Lasa", willContinue=True))),
    chunk(partial(arg("$.recipe.name", stringValue="gna"))),
    chunk(partial(arg("$.recipe.serves", numberValue=4), arg("$.recipe.vegan", boolValue=False))),
    chunk(partial(arg("$.recipe.notes", nullValue=None))),
    chunk(END, finish="STOP", usage=USAGE),
]
RECIPE_INPUT = {
    "recipe": {
        "ingredients": [{"amount": "16 oz"}, {"amount": "1 lb"}],
        "name": "Lasagna",
        "serves": 4,
        "vegan": False,
        "notes": None,
    }
}
CALL_ID = "gemini-call-resp-1-1"


def deltas(events: list[dict[str, Any]]) -> list[str]:
    return [e["inputTextDelta"] for e in events if e["type"] == "tool-input-delta"]


def available(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(e["toolCallId"], e["toolName"], e["input"]) for e in events if e["type"] == "tool-input-available"]


class TestStreamedArguments:
    def test_each_chunk_becomes_the_json_text_it_adds(self, decode: Decode) -> None:
        events = decode(RECIPE)
        metadata = {"google": {"thoughtSignature": "c2ln"}}
        assert events[0] == START_EVENT
        assert events[1] == {
            "type": "tool-input-start",
            "toolCallId": CALL_ID,
            "toolName": "cookRecipe",
            "providerMetadata": metadata,
        }
        assert deltas(events) == [
            '{"recipe":{"ingredients":[{"amount":"16 oz',
            '"',
            '},{"amount":"1 lb"',
            '}],"name":"Lasa',
            'gna"',
            ',"serves":4,"vegan":false',
            ',"notes":null',
            "}}",
        ]
        assert events[-2:] == [
            {
                "type": "tool-input-available",
                "toolCallId": CALL_ID,
                "toolName": "cookRecipe",
                "input": RECIPE_INPUT,
                "providerMetadata": metadata,
            },
            finish_event(
                "tool-calls", usage={"inputTokens": 10, "outputTokens": 12, "totalTokens": 22, "reasoningTokens": 7}
            ),
        ]

    def test_calls_streamed_one_after_another_are_separate(self, decode: Decode) -> None:
        frames = [
            chunk(start("getWeather")),
            chunk(partial(arg("$.location", stringValue="Boston"))),
            chunk(END),
            chunk(start("getWeather")),
            chunk(partial(arg("$.location", stringValue="Paris"))),
            chunk(END, finish="STOP"),
        ]
        assert available(decode(frames)) == [
            (CALL_ID, "getWeather", {"location": "Boston"}),
            ("gemini-call-resp-1-2", "getWeather", {"location": "Paris"}),
        ]

    def test_partial_args_without_will_continue_end_the_call(self, decode: Decode) -> None:
        frames = [
            chunk(start("writeItems")),
            chunk(partial(arg("$.items[0].price", numberValue=0.5))),
            chunk(partial(arg("$.items[1].price", numberValue=0.3), more=False)),
            chunk(text(""), finish="STOP"),
        ]
        assert available(decode(frames)) == [(CALL_ID, "writeItems", {"items": [{"price": 0.5}, {"price": 0.3}]})]

    def test_a_call_left_open_between_values_ends_when_the_model_stops(self, decode: Decode) -> None:
        frames = [chunk(start("f")), chunk(partial(arg("$.a", numberValue=1))), chunk(text(""), finish="STOP")]
        events = decode(frames)
        assert (available(events), [e["type"] for e in events if e["type"] == "error"]) == (
            [(CALL_ID, "f", {"a": 1})],
            [],
        )

    def test_a_call_cut_by_the_token_limit_is_an_input_error(self, decode: Decode) -> None:
        frames = [
            chunk(start("f")),
            chunk(partial(arg("$.a", stringValue="par", willContinue=True)), finish="MAX_TOKENS"),
        ]
        events = decode(frames)
        error = next(e for e in events if e["type"] == "tool-input-error")
        assert (error["toolCallId"], error["input"]) == (CALL_ID, '{"a":"par')
        assert error["errorText"].startswith("The output limit cut the input of tool 'f' short")
        assert events[-1] == finish_event("length", "MAX_TOKENS")

    def test_a_stream_that_stops_mid_call_is_an_input_error_never_silence(self, decode: Decode) -> None:
        events = decode([chunk(start("f")), chunk(partial(arg("$.a", numberValue=1)))])
        assert [e["type"] for e in events] == [
            "start",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-error",
            "finish",
        ]

    def test_a_call_that_never_gets_arguments_has_an_empty_input(self, decode: Decode) -> None:
        assert available(decode([chunk(start("ping")), chunk(END, finish="STOP")])) == [(CALL_ID, "ping", {})]

    def test_a_path_out_of_document_order_still_gives_the_right_input(self, decode: Decode) -> None:
        frames = [
            chunk(start("f")),
            chunk(partial(arg("$.a.x", numberValue=1))),
            chunk(partial(arg("$.b", numberValue=2))),
            chunk(partial(arg("$.a.y", numberValue=3))),
            chunk(END, finish="STOP"),
        ]
        assert available(decode(frames)) == [(CALL_ID, "f", {"a": {"x": 1, "y": 3}, "b": 2})]

    def test_streamed_input_is_validated_against_the_tool_schema(self, decode: Decode) -> None:
        tool = create_tool(
            id="f", description="d", input_schema={"type": "object", "properties": {"a": {"type": "string"}}}
        )
        frames = [chunk(start("f")), chunk(partial(arg("$.a", numberValue=1))), chunk(END, finish="STOP")]
        errors = [e for e in decode(frames, tools=[tool]) if e["type"] == "tool-input-error"]
        assert [(e["toolCallId"], e["input"]) for e in errors] == [(CALL_ID, {"a": 1})]

    def test_partial_inputs_grow_with_each_delta_to_the_final_input(self, adapter: Adapter) -> None:
        partials = [
            copy.deepcopy(event.partial_input)
            for event in adapter.normalize(RECIPE, partial=True)
            if isinstance(event, ToolInputDelta)
        ]
        assert partials[0] == {"recipe": {"ingredients": [{"amount": "16 oz"}]}}
        assert partials[3] == {"recipe": {"ingredients": [{"amount": "16 oz"}, {"amount": "1 lb"}], "name": "Lasa"}}
        assert partials[-1] == RECIPE_INPUT

    def test_chunks_the_per_delta_path_declines_decode_the_same(self, decode: Decode) -> None:
        padded = [
            {
                **frame,
                "candidates": [
                    {**c, "content": {"parts": [*c["content"]["parts"], text("")]}} for c in frame["candidates"]
                ],
            }
            for frame in RECIPE
        ]
        assert decode(padded) == decode(RECIPE)

    def test_snake_case_recordings_decode_like_camel_case_ones(self, decode: Decode) -> None:
        snake = [
            chunk({"function_call": {"name": "f", "will_continue": True}}),
            chunk(
                {
                    "function_call": {
                        "partial_args": [{"json_path": "$.a_b", "string_value": "x"}],
                        "will_continue": True,
                    }
                }
            ),
            chunk({"function_call": {}}, finish="STOP"),
        ]
        for frame in snake:
            frame["response_id"] = frame.pop("responseId")
            frame["model_version"] = frame.pop("modelVersion")
        assert available(decode(snake)) == [(CALL_ID, "f", {"a_b": "x"})]


class TestRefused:
    def test_partial_args_without_a_call_are_an_error_event(self, decode: Decode) -> None:
        events = decode([chunk(partial(arg("$.a", numberValue=1))), chunk(text("ok"), finish="STOP")])
        assert events[1] == {
            "type": "error",
            "errorText": "Gemini sent partialArgs without a function call to add them to",
        }

    def test_a_bad_json_path_is_an_error_event_and_the_call_goes_on(self, decode: Decode) -> None:
        frames = [
            chunk(start("f")),
            chunk(partial(arg("a.b", numberValue=1), arg("$.ok", boolValue=True))),
            chunk(END, finish="STOP"),
        ]
        events = decode(frames)
        assert [e["errorText"] for e in events if e["type"] == "error"] == [
            "Gemini partialArgs: jsonPath 'a.b' does not start at `$`"
        ]
        assert available(events) == [(CALL_ID, "f", {"ok": True})]

    def test_keep_alive_chunks_outside_a_call_are_ignored(self, decode: Decode) -> None:
        frames = [chunk({"functionCall": {"willContinue": True}}), chunk(END), chunk(text("hi"), finish="STOP")]
        assert [e["type"] for e in decode(frames)] == ["start", "text-start", "text-delta", "text-end", "finish"]


class TestSdkObjects:
    def test_vertex_sdk_chunks_give_the_events_of_the_wire_frames(
        self, decode: Decode, sse: Callable[..., bytes], sdk_chunks: Callable[..., list[Any]]
    ) -> None:
        chunks = sdk_chunks(sse(RECIPE), vertex=True)
        assert type(chunks[1].candidates[0].content.parts[0].function_call.partial_args[0]).__name__ == "PartialArg"
        assert decode(chunks) == decode(RECIPE)
