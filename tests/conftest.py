"""Settings for every test directory."""

from __future__ import annotations

import logging
import sys
from contextlib import nullcontext

import pytest


@pytest.fixture(autouse=True)
def dbos_logs_to_the_process_stderr() -> None:
    """DBOS's console handler binds the `sys.stderr` of its first import (a capture pytest closes later).

    Tests launching DBOS (the durable tests, the durable guide's examples) point it at the
    process's own stderr, which pytest captures at the descriptor level.
    """
    for handler in logging.getLogger("dbos").handlers:
        if isinstance(handler, logging.StreamHandler) and handler.name == "__dbos_console_log_handler__":
            with handler.lock or nullcontext():  # not setStream: it flushes the old, closed stream
                handler.stream = sys.__stderr__
