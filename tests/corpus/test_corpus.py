"""Real recordings made by other projects against the live APIs (`TOOLWIRE_EXTERNAL_CORPUS`).

For every interaction, the client tool calls toolwire decodes (id, name, input; or the raw
text when the arguments are not JSON) must equal what was extracted independently into
`EXPECTED.jsonl`, and decoding must never raise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolwire import get_adapter
from toolwire.events import Error, Event, ToolInputAvailable, ToolInputError
from toolwire.recordings import read_recording

CORPUS = os.environ.get("TOOLWIRE_EXTERNAL_CORPUS")

pytestmark = pytest.mark.corpus


def _cases() -> list[Any]:
    if not CORPUS:
        return [pytest.param(None, id="no-corpus")]
    lines = (Path(CORPUS) / "EXPECTED.jsonl").read_text().splitlines()
    return [pytest.param(json.loads(line), id=json.loads(line)["path"]) for line in lines if line.strip()]


def _decode(api: str, body: bytes) -> list[Event]:
    return list(get_adapter(api).normalize(body))


def _client_calls(events: list[Event]) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    for event in events:
        if isinstance(event, (ToolInputAvailable, ToolInputError)) and not event.provider_executed:
            kind = "available" if isinstance(event, ToolInputAvailable) else "error"
            calls.append((event.tool_call_id, event.tool_name, event.input, kind))
    return calls


def _expected_calls(interaction: dict[str, Any], observed: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    expected: list[tuple[Any, ...]] = []
    for position, call in enumerate(interaction["tool_calls"]):
        call_id = call.get("id")
        if call_id is None and position < len(observed):
            call_id = observed[position][0]  # calls without provider ids: toolwire generates them
        kind = "error" if call.get("arguments_error") else "available"
        expected.append((call_id, call["name"], call["arguments"], kind))
    return expected


@pytest.mark.parametrize("case", _cases())
def test_client_tool_calls_equal_the_independent_extraction(case: dict[str, Any] | None) -> None:
    """Decoded calls equal EXPECTED.jsonl for every interaction of the recording."""
    if case is None:
        pytest.skip("set TOOLWIRE_EXTERNAL_CORPUS to the shared corpus folder to run the real recordings")
    assert CORPUS is not None
    exchanges = read_recording(Path(CORPUS) / case["path"])
    is_chunk_log = case["path"].endswith(".chunks.txt")
    for interaction in case["interactions"]:
        api = interaction["provider_api"]
        bodies = exchanges if is_chunk_log else [exchanges[interaction["index"]]]
        events = [event for exchange in bodies for event in _decode(api, exchange.response_body)]
        errors = [e.error_text for e in events if isinstance(e, Error)]
        observed = _client_calls(events)
        assert observed == _expected_calls(interaction, observed), f"interaction {interaction['index']} ({api})"
        assert errors == [], f"interaction {interaction['index']} ({api}) produced error events"
