"""A DBOS configuration for durable runs: SQLite in one file by default, Postgres with a URL."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from dbos import DBOSConfig

DEFAULT_DATABASE = "sqlite:///toolwire-durable.sqlite"


def dbos_config(name: str = "toolwire", database_url: str | None = None, **options: Any) -> DBOSConfig:
    """`DBOS(config=dbos_config(...))`: an app name and the system database (any `DBOSConfig` key may follow).

    `database_url` is a SQLAlchemy URL: `sqlite:///path.sqlite` (embedded, one machine; the
    default is `toolwire-durable.sqlite` in the working directory) or
    `postgresql://user:password@host/db` (several worker processes or machines). A SQLite file
    is switched to write-ahead logging, which it keeps: readers in other processes never block
    the run writing, and a commit syncs once instead of several times (a killed process loses
    nothing either way).
    """
    url = database_url or DEFAULT_DATABASE
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None:
        _write_ahead_logging(sqlite_file)
    config: dict[str, Any] = {"name": name, "system_database_url": url}
    config.update(options)
    return config  # type: ignore[return-value]  # a TypedDict built from keyword arguments


def _sqlite_file(url: str) -> Path | None:
    """The file of a `sqlite:///...` URL (None for another database or an in-memory one)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        return None
    path = url[len(prefix) :].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def _write_ahead_logging(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
    finally:
        connection.close()
