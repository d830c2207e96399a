"""What serving a run to `useChat` adds to a stream, as a ratio to the events' own JSON; run by hand.

    python benchmarks/ui_stream.py [--repeat N]

A synthetic agent run of 20 steps, each with 2,000 text deltas and a tool call whose input
streams in 500 fragments, then its output (about 44,000 events). The baseline is what a
hand-written endpoint does at least: `event.to_dict()` and one `data: {json}` frame per event.
The bridge does the protocol's work on top (one message, steps, metadata, strict fields) and
frames the chunks with `encode_sse`. Each case runs on a clean heap; best of N.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import pydantic_core

from toolwire.events import (
    Event,
    Finish,
    FinishStep,
    Start,
    StartStep,
    TextDelta,
    TextEnd,
    TextStart,
    ToolInputAvailable,
    ToolInputDelta,
    ToolInputStart,
    ToolOutputAvailable,
    Usage,
)
from toolwire.ui import encode_sse, ui_message_chunks


def run_events(steps: int = 20, deltas: int = 2000, fragments: int = 500) -> list[Event]:
    """The events of a long synthetic run."""
    events: list[Event] = []
    for step in range(steps):
        call = f"call_{step}"
        events += [StartStep(), Start(message_id=f"resp_{step}"), TextStart(id="0")]
        events += [TextDelta(id="0", delta=f"word{i} ") for i in range(deltas)]
        events += [TextEnd(id="0"), ToolInputStart(tool_call_id=call, tool_name="search")]
        events += [ToolInputDelta(tool_call_id=call, input_text_delta='"abc",') for _ in range(fragments)]
        events += [ToolInputAvailable(tool_call_id=call, tool_name="search", input={"q": "abc"})]
        usage = Usage(input_tokens=1000, output_tokens=2500, total_tokens=3500)
        events += [FinishStep(finish_reason="tool-calls", usage=usage)]
        events += [ToolOutputAvailable(tool_call_id=call, output={"hits": [1, 2, 3]})]
    events.append(Finish(finish_reason="stop"))
    return events


def baseline(events: list[Event]) -> int:
    """A hand-written endpoint: each event's JSON as one frame (the same JSON encoder as the bridge)."""
    return sum(len(b"data: " + pydantic_core.to_json(e.to_dict()) + b"\n\n") for e in events)


def bridge(events: list[Event]) -> int:
    """toolwire.ui: the protocol's chunks, framed."""
    return sum(len(frame) for frame in encode_sse(ui_message_chunks(events, message_id="msg_1", model="m")))


def best(case: Callable[[list[Event]], Any], events: list[Event], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        case(events)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    events = run_events()
    plain, served = best(baseline, events, args.repeat), best(bridge, events, args.repeat)
    print(f"{len(events)} events: baseline {plain * 1e3:.1f} ms, toolwire.ui {served * 1e3:.1f} ms")
    print(f"per event: baseline {plain / len(events) * 1e6:.2f} µs, toolwire.ui {served / len(events) * 1e6:.2f} µs")
    print(f"ratio toolwire.ui / baseline: {served / plain:.2f}")


if __name__ == "__main__":
    main()
