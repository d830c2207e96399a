"""Real recorded provider streams (`TOOLWIRE_EXTERNAL_CORPUS`) through the UI bridge, judged by the `ai` package.

Each recording's responses, decoded and turned into one assistant message's chunks (all the
responses of a recording are the steps of one message), must pass the SDK's chunk schema with
no unknown field, read into exactly one UI message without an SDK error, and validate.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolwire import get_adapter
from toolwire.events import Event, StartStep
from toolwire.recordings import read_recording
from toolwire.ui import encode_sse, ui_message_chunks

from .conftest import Node

CORPUS = os.environ.get("TOOLWIRE_EXTERNAL_CORPUS")

pytestmark = pytest.mark.corpus


def _recordings() -> list[dict[str, Any]]:
    if not CORPUS:
        return []
    lines = (Path(CORPUS) / "EXPECTED.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _events(case: dict[str, Any]) -> list[Event]:
    """Every response of the recording as one message's steps (a chunk log is one response)."""
    assert CORPUS is not None
    exchanges = read_recording(Path(CORPUS) / case["path"])
    is_chunk_log = case["path"].endswith(".chunks.txt")
    events: list[Event] = []
    for interaction in case["interactions"]:
        bodies = exchanges if is_chunk_log else [exchanges[interaction["index"]]]
        events.append(StartStep())
        for exchange in bodies:
            events.extend(get_adapter(interaction["provider_api"]).normalize(exchange.response_body))
    return events


@pytest.fixture(scope="module")
def judged(node: Node) -> dict[str, Any]:
    items = []
    for case in _recordings():
        body = b"".join(encode_sse(ui_message_chunks(_events(case), message_id="msg_1")))
        items.append({"id": case["path"], "text": body.decode()})
    found: dict[str, Any] = node.run("frames.mjs", {"items": items})
    return found


@pytest.mark.skipif(not CORPUS, reason="set TOOLWIRE_EXTERNAL_CORPUS to the shared corpus folder")
@pytest.mark.parametrize("path", [case["path"] for case in _recordings()] or ["none"])
def test_the_sdk_reads_each_recording_as_one_valid_message(judged: dict[str, Any], path: str) -> None:
    found = judged[path]
    assert found["problems"] == []
    assert found["errors"] == []
    assert found["messageIds"] == ["msg_1"]
    assert found["validation"] is None
    assert found["parts"] != []
