"""The bundled cassettes' hand-written responses use only wire shapes real recordings have.

Every field path (list items collapsed to `[]`) and event type of every frame in a bundled
response must occur in a real recording of the same API in the external corpus
(`TOOLWIRE_EXTERNAL_CORPUS`). Values the caller chose are not compared: tool schemas echoed
back by Responses and the arguments of calls are the scenario's own.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolwire._sources import FrameError, iter_frames
from toolwire.recordings import read_recording

CORPUS = os.environ.get("TOOLWIRE_EXTERNAL_CORPUS")
CASSETTES = Path(__file__).parents[2] / "cassettes"
CALLER_CHOSEN = frozenset({"parameters", "args", "input", "output_schema", "input_schema"})
"""Fields whose content the scenario chose (schemas, call arguments): their keys are not wire shapes."""
LIFECYCLE = re.compile(r"^response\.(created|in_progress|completed|incomplete|failed|queued)$")
"""Responses lifecycle events carry the same `response` object."""

pytestmark = pytest.mark.corpus


def field_paths(value: Any, prefix: str = "") -> set[str]:
    """Dotted paths of every key in a JSON value, list positions collapsed to `[]`."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            if key not in CALLER_CHOSEN:
                found |= field_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            found |= field_paths(item, f"{prefix}[]")
    return found


def shapes(body: bytes) -> set[str]:
    """`event-type:path` for every frame of a response body."""
    found: set[str] = set()
    for frame in iter_frames(body, None):
        if isinstance(frame, FrameError) or not isinstance(frame, dict):
            continue
        kind = LIFECYCLE.sub("response.<lifecycle>", frame["type"]) if isinstance(frame.get("type"), str) else ""
        found |= {f"{kind}:{path}" for path in field_paths(frame)}
    return found


@cache
def real_shapes() -> dict[str, frozenset[str]]:
    """The shapes of every real response in the corpus, by API."""
    assert CORPUS is not None
    by_api: defaultdict[str, set[str]] = defaultdict(set)
    for line in (Path(CORPUS) / "EXPECTED.jsonl").read_text().splitlines():
        case = json.loads(line)
        exchanges = read_recording(Path(CORPUS) / case["path"])
        for interaction in case["interactions"]:
            bodies = exchanges if case["path"].endswith(".chunks.txt") else [exchanges[interaction["index"]]]
            for exchange in bodies:
                by_api[interaction["provider_api"]] |= shapes(exchange.response_body)
    return {api: frozenset(found) for api, found in by_api.items()}


def _cassettes() -> list[Any]:
    return [pytest.param(path, id=f"{path.parent.name}/{path.stem}") for path in sorted(CASSETTES.glob("*/*.yaml"))]


@pytest.mark.parametrize("cassette", _cassettes())
def test_every_field_of_a_hand_written_response_occurs_in_a_real_recording(cassette: Path) -> None:
    """No invented fields or event types: the authored responses follow real traffic."""
    if not CORPUS:
        pytest.skip("set TOOLWIRE_EXTERNAL_CORPUS to the shared corpus folder to compare with real recordings")
    authored = set().union(*(shapes(exchange.response_body) for exchange in read_recording(cassette)))
    assert authored, "no frames read"
    assert sorted(authored - real_shapes()[cassette.parent.name]) == []


def test_a_field_no_real_recording_has_is_found() -> None:
    """The comparison is not vacuous: an invented field shows up as a new path."""
    real = shapes(b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
    invented = shapes(b'event: message_stop\ndata: {"type": "message_stop", "confidence": 0.9}\n\n')
    assert sorted(invented - real) == ["message_stop:confidence"]


def test_caller_chosen_values_are_not_compared() -> None:
    """Call arguments and schemas are the scenario's own, whatever their keys."""
    assert field_paths({"functionCall": {"name": "f", "args": {"city": "Paris"}}}) == {
        "functionCall",
        "functionCall.name",
        "functionCall.args",
    }
