"""Fixtures for the MCP tests: both protocol eras, an in-process client, and result JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types
import pytest
from mcp import Client

ERAS = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}
"""Protocol revision -> the `mcp.Client` mode that speaks it (handshake era, stateless era)."""


@pytest.fixture(params=list(ERAS))
def protocol(request: pytest.FixtureRequest) -> str:
    """Each test taking it runs once per protocol era."""
    return str(request.param)


@pytest.fixture
def mode(protocol: str) -> str:
    """The `mcp.Client` mode for the test's protocol."""
    return ERAS[protocol]


@pytest.fixture
def connect(protocol: str) -> Callable[..., Client]:
    """`connect(server, **client_options)`: an in-process `mcp.Client` speaking the test's protocol."""

    def make(server: Any, **options: Any) -> Client:
        return Client(server, mode=ERAS[protocol], **options)

    return make


@pytest.fixture
def dump() -> Callable[[Any], dict[str, Any]]:
    """A result as wire JSON, without the envelope fields the SDK stamps (`_meta.serverInfo`, `resultType`)."""

    def to_json(result: Any) -> dict[str, Any]:
        data: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        data.pop("resultType", None)
        meta = data.pop("_meta", None) or {}
        meta.pop(mcp_types.SERVER_INFO_META_KEY, None)
        if meta:
            data["_meta"] = meta
        return data

    return to_json
