"""Specification of `normalize`/`anormalize` and stream hooks, driven through a registered pass-through adapter."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import pydantic
import pytest

import toolwire
from toolwire import Adapter, Capabilities, EncodeOptions, create_tool, registry
from toolwire.compat import Degradation
from toolwire.deltas import (
    Delta,
    StepFinished,
    TextPiece,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
)
from toolwire.events import Event
from toolwire.names import OPENAI_NAMES, NameMap
from toolwire.tool_choice import ToolChoice
from toolwire.tools import Tool

_DELTA_TYPES = tuple(getattr(Delta, "__args__", ()))


class _Decoder:
    """Deltas pass through, `{"text": ...}` is text, `{"fail": ...}` raises like a decoder meeting a bad frame."""

    def feed(self, frame: Any) -> Iterable[Delta]:
        if isinstance(frame, _DELTA_TYPES):
            return [frame]
        if "text" in frame:
            return [TextPiece(0, frame["text"])]
        raise ValueError(frame["fail"])

    def close(self) -> Iterable[Delta]:
        return []


class PassthroughAdapter(Adapter):
    """An adapter whose provider speaks toolwire deltas."""

    api = "test-passthrough"
    provider = "test"
    name_rules = OPENAI_NAMES
    capabilities = Capabilities(
        strict_tools=False,
        native_input_examples=False,
        output_schema=False,
        parallel_tool_calls=True,
        disable_parallel=False,
        allowed_tools_subset=False,
        streamed_arguments=True,
        image_tool_results=False,
        file_tool_results=False,
        reasoning=False,
        server_tools=True,
    )

    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        return {"name": wire_name}

    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        return {"tools": entries}

    def new_decoder(self) -> _Decoder:
        return _Decoder()


@pytest.fixture
def adapter(monkeypatch: pytest.MonkeyPatch) -> Adapter:
    """The pass-through adapter, registered in a registry restored after the test."""
    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
    monkeypatch.setattr(registry, "_instances", dict(registry._instances))
    toolwire.register_adapter("test-passthrough", PassthroughAdapter)
    return toolwire.get_adapter("test-passthrough")


class Trip(pydantic.BaseModel):
    city: str


STREAMED_CALL: list[Delta] = [
    ToolCallStarted(0, "c1", "trip"),
    ToolArgsPiece(0, '{"city": '),
    ToolArgsPiece(0, '"Oslo"}'),
    ToolCallFinished(0),
    StepFinished("tool-calls"),
]


def _recording_tool(log: list[Any], *, asynchronous: bool = False) -> Tool:
    def record(kind: str) -> Any:
        if asynchronous:

            async def hook(**kwargs: Any) -> None:
                log.append((kind, kwargs))

            return hook

        def sync_hook(**kwargs: Any) -> None:
            log.append((kind, kwargs))

        return sync_hook

    return create_tool(
        id="trip",
        description="Plan a trip.",
        input_schema=Trip,
        on_input_start=record("start"),
        on_input_delta=record("delta"),
        on_input_available=record("available"),
    )


def _expected_log(messages: Any = None, abort_signal: Any = None) -> list[Any]:
    extra = {"messages": messages, "abort_signal": abort_signal}
    return [
        ("start", {"tool_call_id": "c1", "tool_name": "trip", **extra}),
        "event:tool-input-start",
        ("delta", {"input_text_delta": '{"city": ', "tool_call_id": "c1", "tool_name": "trip", **extra}),
        "event:tool-input-delta",
        ("delta", {"input_text_delta": '"Oslo"}', "tool_call_id": "c1", "tool_name": "trip", **extra}),
        "event:tool-input-delta",
        ("available", {"input": Trip(city="Oslo"), "tool_call_id": "c1", "tool_name": "trip", **extra}),
        "event:tool-input-available",
    ]


def _consume(events: Iterator[Event], log: list[Any]) -> None:
    for event in events:
        if event.type.startswith("tool-input"):
            log.append(f"event:{event.type}")


class TestHookOrder:
    @pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-hooks", "async-hooks"])
    def test_normalize_fires_start_deltas_then_available_each_before_its_event(
        self, adapter: Adapter, asynchronous: bool
    ) -> None:
        """Hooks run in the seed's order with the validated input, before the consumer sees each event."""
        log: list[Any] = []
        tool = _recording_tool(log, asynchronous=asynchronous)
        _consume(adapter.normalize(STREAMED_CALL, tools=[tool]), log)
        assert log == _expected_log()

    @pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-hooks", "async-hooks"])
    async def test_anormalize_fires_the_same_hooks_in_the_same_order(
        self, adapter: Adapter, asynchronous: bool
    ) -> None:
        """The async driver behaves exactly like the sync one."""
        log: list[Any] = []
        tool = _recording_tool(log, asynchronous=asynchronous)
        signal = object()
        async for event in adapter.anormalize(STREAMED_CALL, tools=[tool], messages=["hi"], abort_signal=signal):
            if event.type.startswith("tool-input"):
                log.append(f"event:{event.type}")
        assert log == _expected_log(messages=["hi"], abort_signal=signal)

    def test_messages_and_abort_signal_reach_every_hook(self, adapter: Adapter) -> None:
        """What the caller passes to normalize is offered to the hooks."""
        log: list[Any] = []
        signal = object()
        _consume(adapter.normalize(STREAMED_CALL, tools=[_recording_tool(log)], messages=[1], abort_signal=signal), log)
        assert log == _expected_log(messages=[1], abort_signal=signal)

    def test_no_hooks_fire_for_provider_executed_calls(self, adapter: Adapter) -> None:
        """A provider's own call with the same name is not ours."""
        log: list[Any] = []
        tool = _recording_tool(log)
        list(adapter.normalize([ToolCallComplete(0, "s1", "trip", "{}", provider_executed=True)], tools=[tool]))
        assert log == []

    def test_no_available_hook_fires_for_an_invalid_input(self, adapter: Adapter) -> None:
        """Start and delta hooks fire as the input streams; an input failing the schema fires nothing more."""
        log: list[Any] = []
        tool = _recording_tool(log)
        list(adapter.normalize([ToolCallComplete(0, "c1", "trip", '{"town": 1}')], tools=[tool]))
        assert [entry[0] for entry in log] == ["start", "delta"]


class TestHookFailures:
    def _failing_tool(self) -> Tool:
        def broken(tool_call_id: str) -> None:
            raise RuntimeError(f"hook broke on {tool_call_id}")

        return create_tool(id="trip", description="Plan.", input_schema=Trip, on_input_start=broken)

    def test_a_raising_hook_is_logged_and_the_stream_goes_on(
        self, adapter: Adapter, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A hook failure never breaks the stream (the seed's error rule)."""
        with caplog.at_level(logging.ERROR, logger="toolwire"):
            events = [e.type for e in adapter.normalize(STREAMED_CALL, tools=[self._failing_tool()])]
        assert events == [
            "start",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-delta",
            "tool-input-available",
            "finish",
        ]
        (record,) = caplog.records
        assert (record.name, record.getMessage()) == (
            "toolwire",
            "hook on_input_start of tool 'trip' failed; the call goes on",
        )
        assert record.exc_info is not None
        assert str(record.exc_info[1]) == "hook broke on c1"

    async def test_a_raising_hook_in_anormalize_is_logged_and_the_stream_goes_on(
        self, adapter: Adapter, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The async driver isolates hook failures the same way."""
        with caplog.at_level(logging.ERROR, logger="toolwire"):
            events = [e.type async for e in adapter.anormalize(STREAMED_CALL, tools=[self._failing_tool()])]
        assert events[-2:] == ["tool-input-available", "finish"]
        assert [r.getMessage() for r in caplog.records] == [
            "hook on_input_start of tool 'trip' failed; the call goes on"
        ]


class TestSourceAndDecoderFailures:
    def test_a_source_that_raises_mid_way_gives_an_error_then_finish(self, adapter: Adapter) -> None:
        """A broken connection is reported and the response still finishes, with open parts closed."""

        def source() -> Iterator[Any]:
            yield TextPiece(0, "Hel")
            raise ConnectionResetError("peer closed")

        assert [e.to_dict() for e in adapter.normalize(source())] == [
            {"type": "start"},
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "Hel"},
            {"type": "error", "errorText": "the test-passthrough source raised ConnectionResetError: peer closed"},
            {"type": "text-end", "id": "0"},
            {"type": "finish", "finishReason": "error"},
        ]

    async def test_an_async_source_that_raises_mid_way_gives_an_error_then_finish(self, adapter: Adapter) -> None:
        """The async driver reports a failing async source the same way."""

        async def source() -> AsyncIterator[Any]:
            yield TextPiece(0, "Hel")
            raise TimeoutError("read timed out")

        assert [e.to_dict() async for e in adapter.anormalize(source())][-3:] == [
            {"type": "error", "errorText": "the test-passthrough source raised TimeoutError: read timed out"},
            {"type": "text-end", "id": "0"},
            {"type": "finish", "finishReason": "error"},
        ]

    def test_a_decoder_that_raises_on_a_frame_gives_an_error_and_the_stream_goes_on(self, adapter: Adapter) -> None:
        """One bad frame costs one error event; later frames still decode."""
        frames: list[Any] = [TextPiece(0, "a"), {"fail": "no field `index`"}, TextPiece(0, "b"), StepFinished("stop")]
        assert [e.to_dict() for e in adapter.normalize(frames)] == [
            {"type": "start"},
            {"type": "text-start", "id": "0"},
            {"type": "text-delta", "id": "0", "delta": "a"},
            {
                "type": "error",
                "errorText": "unexpected test-passthrough frame (ValueError: no field `index`): "
                "{'fail': 'no field `index`'}",
            },
            {"type": "text-delta", "id": "0", "delta": "b"},
            {"type": "text-end", "id": "0"},
            {"type": "finish", "finishReason": "stop"},
        ]

    def test_undecodable_bytes_become_an_error_event_with_the_byte_offset(self, adapter: Adapter) -> None:
        """Malformed JSON in an SSE body never reaches the decoder; it is an error event."""
        events = [e.to_dict() for e in adapter.normalize(b'data: {"text": "a"}\n\ndata: {oops\n\n')]
        assert [e["type"] for e in events] == ["start", "text-start", "text-delta", "error", "text-end", "finish"]
        assert events[3]["errorText"].startswith(
            "test-passthrough: malformed JSON in SSE event (Expecting property name enclosed"
        )
        assert events[3]["errorText"].endswith(": '{oops' at byte 21")

    def test_two_different_tools_with_one_id_are_refused(self, adapter: Adapter) -> None:
        """Calls could not be routed to the right tool."""
        first = create_tool(id="trip", description="A.")
        second = create_tool(id="trip", description="B.")
        with pytest.raises(toolwire.ConfigurationError, match=r"^two different tools have the id 'trip'$"):
            list(adapter.normalize([], tools=[first, second]))

    async def test_anormalize_accepts_a_sync_source(self, adapter: Adapter) -> None:
        """Lists and bodies work with the async driver too."""
        assert [e.type async for e in adapter.anormalize([TextPiece(0, "x")])] == [
            "start",
            "text-start",
            "text-delta",
            "text-end",
            "finish",
        ]
