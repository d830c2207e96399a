"""Worker processes and fresh system databases for the durable-run tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from dbos import DBOSClient

WORKER = Path(__file__).with_name("worker.py")
POSTGRES_URL = os.environ.get("TOOLWIRE_TEST_POSTGRES_URL")
NO_POSTGRES = (
    "no Postgres server: TOOLWIRE_TEST_POSTGRES_URL is unset "
    "(.ci/run starts a throwaway cluster with .ci/postgres.sh; it could not be installed or started here)"
)


def until(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Wait for `condition` (a worker reaching a point, a file appearing); fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def fresh_database(kind: str, folder: Path) -> str:
    """A system database nobody used: a new SQLite file, or a new database on the test Postgres."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'dbos.sqlite'}"
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    return POSTGRES_URL.rsplit("/", 1)[0] + f"/toolwire_{uuid.uuid4().hex[:12]}"


class Workers:
    """Worker processes this test started (killed by pid at the end if still alive)."""

    def __init__(self, database_url: str, folder: Path) -> None:
        self.database_url = database_url
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self._client: DBOSClient | None = None

    def spawn(
        self, command: str, run_id: str, *, hold: str | None = None, executor: str = "local"
    ) -> subprocess.Popen[bytes]:
        """Start `worker.py DATABASE FOLDER command run_id` and wait until its DBOS launched."""
        env = {k: v for k, v in os.environ.items() if k not in ("TOOLWIRE_HOLD", "TOOLWIRE_EXECUTOR")}
        env["TOOLWIRE_EXECUTOR"] = executor
        if hold is not None:
            env["TOOLWIRE_HOLD"] = hold
        with (self.folder / f"worker-{len(self.processes)}.log").open("wb") as log:  # the child keeps its copy
            process = subprocess.Popen(
                [sys.executable, str(WORKER), self.database_url, str(self.folder), command, run_id],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.processes.append(process)
        until(lambda: (self.folder / f"launched-{process.pid}").exists() or process.poll() is not None, "a worker")
        assert process.poll() is None, self.log(process)
        return process

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        """SIGKILL: the process gets no chance to clean up."""
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)

    def finished(self, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
        """Wait for a worker to exit on its own, successfully."""
        assert process.wait(timeout) == 0, self.log(process)

    def log(self, process: subprocess.Popen[bytes]) -> str:
        index = self.processes.index(process)
        return (self.folder / f"worker-{index}.log").read_text(errors="replace")[-4000:]

    @property
    def client(self) -> DBOSClient:
        """A DBOS client on the same database (this process runs no workflow)."""
        if self._client is None:
            self._client = DBOSClient(system_database_url=self.database_url)
        return self._client

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(30)
        if self._client is not None:
            self._client.destroy()
