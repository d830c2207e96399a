"""Fixtures for durable runs: a fresh system database per test (SQLite; Postgres when given) and worker processes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests import `processes` and `worker` from here

from processes import Workers, fresh_database


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_database(request.param, tmp_path)


@pytest.fixture
def workers(database_url: str, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(database_url, tmp_path)
    yield started
    started.close()
