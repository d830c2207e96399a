"""The per-delta paths of Vertex streamed arguments give exactly the events of the general decoder."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire import get_adapter
from toolwire.adapters.gemini import _decode, _streamed_args
from toolwire.adapters.gemini._streamed_args import member_segment

from .frames import arg, chunk, partial, start


class TestMemberSegment:
    @pytest.mark.parametrize(
        ("raw", "segment"),
        [
            ("$.a.name", "name"),
            ("$.a[3]", 3),
            ("$.a['name']", None),  # quoted: read by the general reader
            ("$.a[٣]", None),  # digits of another script: read by the general reader
            ("$.a.b.c", None),  # two segments
            ("$.a", None),  # the parent itself
            ("$.a.", None),  # an empty name: the reader's error
            ("$.ab", None),  # a longer name, not a child
            ("$.b.c", None),  # another parent
        ],
    )
    def test_only_one_plain_segment_after_the_parent_text_is_a_member(
        self, raw: str, segment: str | int | None
    ) -> None:
        assert member_segment("$.a", raw) == segment

    def test_a_path_that_is_not_text_is_not_a_member(self) -> None:
        assert member_segment("$.a", None) is None


_KEYS = st.sampled_from(["a", "b", "name", "a.b", "it's", "0", "é"])
_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False), st.text(max_size=12)
)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=12,
)


def _spelled(path: tuple[str | int, ...], quoted: bool) -> str:
    text = "$"
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        elif quoted or "." in segment or "'" in segment:
            text += "['" + segment.replace("\\", "\\\\").replace("'", "\\'") + "']"
        else:
            text += "." + segment
    return text


def _args(value: Any, path: tuple[str | int, ...], data: st.DataObject) -> list[dict[str, Any]]:
    """Vertex `partialArgs` for a value in document order, strings in pieces, paths in either spelling."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _args(item, (*path, key), data)]
    if isinstance(value, list):
        return [pair for index, item in enumerate(value) for pair in _args(item, (*path, index), data)]
    raw = _spelled(path, data.draw(st.booleans()))
    if isinstance(value, str):
        cuts = sorted(data.draw(st.sets(st.integers(0, len(value)), max_size=3)))
        pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
        more = [arg(raw, stringValue=piece, willContinue=True) for piece in pieces[:-1]]
        last = arg(raw, stringValue=pieces[-1])
        if data.draw(st.booleans()):  # left open: the next path closes it
            last["willContinue"] = True
        return [*more, last]
    if value is None:
        return [arg(raw, nullValue="NULL_VALUE")]
    if isinstance(value, bool):
        return [arg(raw, boolValue=value)]
    return [arg(raw, numberValue=value)]


def _frames(value: dict[str, Any], data: st.DataObject, broken: list[dict[str, Any]]) -> list[dict[str, Any]]:
    args = _args(value, (), data)
    if data.draw(st.booleans()):
        args = data.draw(st.permutations(args))
    if args and data.draw(st.booleans()):  # a broken pair somewhere
        position = data.draw(st.integers(0, len(args) - 1))
        args[position] = {**args[position], **data.draw(st.sampled_from(broken))}
    frames = [chunk(start("write"))]
    position = 0
    while position < len(args):
        size = data.draw(st.sampled_from([1, 1, 1, 2]))
        frames.append(chunk(partial(*args[position : position + size])))
        position += size
    frames.append(chunk(partial(more=False), finish="STOP"))
    return frames


def _events(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event.to_dict() for event in get_adapter("gemini").normalize(json.loads(json.dumps(frames)))]


_BAD_PATHS = [{"jsonPath": "$..x"}, {"jsonPath": "$[x]"}, {"jsonPath": ""}]
"""Refused paths: an error event, and the stream goes on."""
_BAD_TYPES = [{"numberValue": "x"}, {"jsonPath": 7}, {"stringValue": 5}, {"boolValue": 1}]
"""Fields of the wrong type: the frame is skipped (worded per path: the per-delta one names the frame)."""


class TestProperties:
    @given(st.dictionaries(_KEYS, _VALUES, max_size=4), st.data())
    def test_the_per_delta_paths_give_the_events_of_the_general_decoder(
        self, value: dict[str, Any], data: st.DataObject
    ) -> None:
        frames = _frames(value, data, _BAD_PATHS)
        fast = _events(frames)
        with (
            mock.patch.object(_decode, "continue_dict_call", return_value=None),
            mock.patch.object(_streamed_args, "member_segment", return_value=None),
        ):
            general = _events(frames)
        assert fast == general

    @given(st.dictionaries(_KEYS, _VALUES, max_size=4), st.data())
    def test_members_written_without_their_path_give_the_events_of_paths_read_in_full(
        self, value: dict[str, Any], data: st.DataObject
    ) -> None:
        frames = _frames(value, data, _BAD_PATHS + _BAD_TYPES)
        fast = _events(frames)
        with mock.patch.object(_streamed_args, "member_segment", return_value=None):
            general = _events(frames)
        assert fast == general
