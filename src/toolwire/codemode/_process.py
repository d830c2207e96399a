"""A runner process seen from the host: frames in and out, a bounded stderr tail, and a sure kill.

A runner writing more than `STDERR_BUDGET` bytes straight to its stderr is killed (its
`print` goes through the protocol's capped logs instead).

The runner is started in its own session, so one `killpg` reaches everything it could have
started. Its deadline is kept by a timer thread as well as by the event loop, so the runner
dies on time even while the host's loop is blocked. The scratch directory is removed
afterwards without following any symlink the program left in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from typing import Any, Protocol

from ._scratch import drop_scratch
from .protocol import Ready
from .transport import Channel, ReadyCheck

_STDERR_TAIL = 4096
STDERR_BUDGET = 1 << 20
"""Raw stderr bytes a runner may write (its logs go elsewhere) before it is killed: reading costs the host CPU."""


class PipeWriter(asyncio.Protocol):
    """The write end of a pipe with back-pressure: `write` waits while the pipe is full."""

    def __init__(self) -> None:
        self._transport: asyncio.WriteTransport | None = None
        self._resumed: asyncio.Future[None] | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self._transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.resume_writing()

    def pause_writing(self) -> None:
        if self._resumed is None:
            self._resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    async def write(self, data: bytes) -> None:
        if self.closed or self._transport is None or self._transport.is_closing():
            return
        self._transport.write(data)
        if self._resumed is not None:
            await asyncio.shield(self._resumed)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class StdinWriter:
    """A subprocess's stdin with back-pressure, for runners that speak over stdio."""

    def __init__(self, stream: asyncio.StreamWriter) -> None:
        self._stream = stream

    async def write(self, data: bytes) -> None:
        if self._stream.is_closing():
            return
        self._stream.write(data)
        with contextlib.suppress(ConnectionError):
            await self._stream.drain()

    def close(self) -> None:
        self._stream.close()


class _Writer(Protocol):
    async def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class ProcessChannel(Channel):
    """A runner in a child process; `close` kills its whole process group and cleans up."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        reader: asyncio.StreamReader,
        writer: _Writer,
        *,
        scratch: str | None = None,
        closers: tuple[Any, ...] = (),
        ready_check: ReadyCheck | None = None,
    ) -> None:
        self.process = process
        self.reader = reader
        self._writer = writer
        self._scratch = scratch
        self._closers = closers
        self._ready_check = ready_check
        self._stderr = bytearray()
        self._stderr_task = asyncio.ensure_future(self._drain_stderr()) if process.stderr is not None else None
        self._exit: str | None = None
        self._watchdog: threading.Timer | None = None
        self._reaping = threading.Lock()
        self._reaped = False

    async def send(self, data: bytes) -> None:
        await self._writer.write(data)

    def diagnostics(self) -> str:
        return self._stderr.decode("utf-8", "replace").strip()

    def check_ready(self, ready: Ready) -> str | None:
        return self._ready_check(ready) if self._ready_check is not None else None

    def arm_deadline(self, seconds: float) -> None:
        """SIGKILL the runner after `seconds` from a timer thread, whatever the event loop is doing."""
        self._watchdog = threading.Timer(seconds, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _expire(self) -> None:
        with self._reaping:  # never signal a pid that may have been reaped and reused
            if not self._reaped and self.process.returncode is None:
                self._signal_group()

    def _disarm(self) -> None:
        with self._reaping:
            self._reaped = True
        if self._watchdog is not None:
            self._watchdog.cancel()

    async def close(self) -> str:
        if self._exit is not None:
            return self._exit
        self.kill()
        self._disarm()
        returncode = await self.process.wait()
        if self._stderr_task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.2)
            self._stderr_task.cancel()
        self._writer.close()
        for closer in self._closers:
            closer.close()
        if self._scratch is not None:
            drop_scratch(self._scratch)
        self._exit = describe_exit(returncode)
        return self._exit

    def alive(self) -> bool:
        """Whether the runner is still running (a pre-warmed one may have died waiting)."""
        return self.process.returncode is None and not self.reader.at_eof()

    def abandon(self) -> None:
        """Kill the runner and delete its scratch directory without awaiting (for interpreter exit)."""
        self.kill()
        self._disarm()
        if self._scratch is not None:
            drop_scratch(self._scratch)

    def kill(self) -> None:
        """SIGKILL the runner's process group now (synchronous, so it also runs from a cancelled task)."""
        if self.process.returncode is not None:
            return
        with self._reaping:
            if not self._reaped:
                self._signal_group()

    def _signal_group(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.process.pid, signal.SIGKILL)

    async def _drain_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        total = 0
        while chunk := await stream.read(1 << 16):
            total += len(chunk)
            self._stderr += chunk
            if len(self._stderr) > _STDERR_TAIL:
                del self._stderr[: len(self._stderr) - _STDERR_TAIL]
            if total > STDERR_BUDGET:
                self._stderr += f"\n[more than {STDERR_BUDGET} bytes on stderr: the runner was stopped]".encode()
                self.kill()
                return


def describe_exit(returncode: int) -> str:
    """`exit code 1` or `killed by SIGKILL`."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"
