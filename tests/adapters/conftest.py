"""Fixtures for every API's tests: one check that each form of a response gives exactly the same events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest

from toolwire.adapter import Adapter


async def _each(items: Sequence[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


async def _collect(adapter: Adapter, frames: Sequence[Any]) -> list[dict[str, Any]]:
    return [event.to_dict() async for event in adapter.anormalize(_each(frames))]


def _same_events(adapter: Adapter, *sources: Any) -> list[dict[str, Any]]:
    """The events of the first source, after checking every source gives them, sync and async.

    A source is bytes (an SSE or JSON body), a frame list, or one whole response object; lists
    are also fed to `anormalize` as an async iterable, one frame at a time.
    """
    results = [[event.to_dict() for event in adapter.normalize(source)] for source in sources]
    results += [asyncio.run(_collect(adapter, source)) for source in sources if isinstance(source, list)]
    for position, result in enumerate(results[1:], start=1):
        assert result == results[0], f"source form {position} differs"
    return results[0]


def _of_types(events: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    """The events of the given types, in order."""
    return [event for event in events if event["type"] in kinds]


@pytest.fixture
def same_events() -> Callable[..., list[dict[str, Any]]]:
    """`same_events(adapter, *sources)`: the events every source gives (checked equal), sync and async."""
    return _same_events


@pytest.fixture
def of_types() -> Callable[..., list[dict[str, Any]]]:
    """`of_types(events, *kinds)`: the events of those types, in order."""
    return _of_types
