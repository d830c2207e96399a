"""Durable agent runs on DBOS: runs survive restarts, pauses wait in the database, background calls run on a queue.

`pip install 'toolwire[dbos]'`. Define a `DurableAgent` (by name, in every worker process),
configure and launch DBOS (`dbos_config`: SQLite by default, Postgres with a URL), then
`start()` runs and read their events (`DurableRun.events(offset)`) from any process.
"""

from __future__ import annotations

from toolwire._extras import optional_imports

with optional_imports("durable runs", "dbos"):
    import dbos  # noqa: F401  # the engine: a clear error names the extra when it is missing

from . import _workflow  # noqa: F401  # registers the workflows with DBOS before it launches
from ._config import DEFAULT_DATABASE, dbos_config
from ._definition import RUNS_QUEUE, DurableAgent
from ._run import DurableRun, StreamItem
from ._stream import RunPaused, StepRetried, StreamEvent
from ._ui import ui_chunks, ui_message_id

__all__ = [
    "DEFAULT_DATABASE",
    "RUNS_QUEUE",
    "DurableAgent",
    "DurableRun",
    "RunPaused",
    "StepRetried",
    "StreamEvent",
    "StreamItem",
    "dbos_config",
    "ui_chunks",
    "ui_message_id",
]
