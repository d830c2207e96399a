"""An agent run passes sources and files on, keeps the files in its conversation and never re-sends the sources."""

from __future__ import annotations

from toolwire import Agent
from toolwire.deltas import FileFound, SourceFound, StepFinished, TextPiece
from toolwire.events import File, SourceUrl
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter, answer

IMAGE = "data:image/png;base64,iVBORw0KGgo="
CITED = [
    TextPiece("t", "Tides follow the moon."),
    SourceFound("url", url="https://a.example/tides", title="Tides"),
    SourceFound("url", url="https://a.example/tides", title="Tides"),
    FileFound(IMAGE, "image/png"),
    StepFinished("stop"),
]


def test_the_stream_shows_each_source_once_and_the_file() -> None:
    agent = Agent(api=ScriptedAdapter([CITED]), client=SCRIPTED_CLIENT, model="m")
    events = [e for e in agent.stream("Why tides?") if isinstance(e, (SourceUrl, File))]
    assert events == [
        SourceUrl(source_id="src_1158d6cfc59d3f61", url="https://a.example/tides", title="Tides"),
        File(url=IMAGE, media_type="image/png"),
    ]


def test_the_next_request_holds_the_file_but_not_the_sources() -> None:
    adapter = ScriptedAdapter([CITED, answer("Again.")])
    agent = Agent(api=adapter, client=SCRIPTED_CLIENT, model="m")
    agent.run("Why tides?")
    agent.run("And?")
    assert adapter.requests[-1]["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Tides follow the moon."},
            {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
        ],
    }
