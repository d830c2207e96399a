"""How a program reaches its runner: sandboxes start runners, transports connect to them.

A `CodeModeSandbox` (such as `LocalSandbox`) starts a confined runner on this machine and
measures its `Isolation`. A `CodeModeTransport` turns a sandbox, or its own boundary, into a
`Channel` that carries the protocol of `toolwire.codemode.protocol`. The default transport,
`SandboxTransport`, needs a sandbox; `CommandTransport` starts the runner through any command
(`docker run -i ...`, `ssh vm ...`) whose isolation the caller declares, and needs none.
"""

from __future__ import annotations

import asyncio
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from .isolation import Isolation
from .limits import Limits
from .protocol import Ready

ReadyCheck = Callable[[Ready], str | None]
"""Given the runner's `ready` frame, a reason to refuse it (None: accept)."""


class Channel(ABC):
    """One running runner: frames come in on `reader`, go out with `send`; `close` ends it for good."""

    reader: asyncio.StreamReader

    @abstractmethod
    async def send(self, data: bytes) -> None:
        """Write one frame (a line of JSON); does nothing once the runner is gone."""

    @abstractmethod
    async def close(self) -> str:
        """Kill the runner and everything it started, release resources; idempotent. Says how it exited."""

    def kill(self) -> None:  # noqa: B027 - optional: channels without a process have nothing to kill at once
        """Stop the runner immediately, without awaiting (safe from a cancelled task)."""

    def arm_deadline(self, seconds: float) -> None:  # noqa: B027 - optional, like `kill`
        """Kill the runner after `seconds` even if the event loop is blocked by then (a hard timeout)."""

    def diagnostics(self) -> str:
        """The runner's last stderr output, for an error message when it dies without a result."""
        return ""

    def check_ready(self, ready: Ready) -> str | None:
        """A reason to refuse this runner's `ready` (weaker confinement than promised), or None."""
        return None


class CodeModeSandbox(ABC):
    """Starts confined runners on this machine."""

    @abstractmethod
    def isolation(self) -> Isolation:
        """What the runners it starts are guaranteed not to reach."""

    @abstractmethod
    async def open(self, limits: Limits) -> Channel:
        """Start a runner and connect to it.

        Raises:
            IsolationError: the sandbox cannot give a guarantee it was asked for.
            OSError: the runner could not be started.
        """


class CodeModeTransport(ABC):
    """Connects the host to a runner, through a sandbox or through a boundary of its own."""

    requires_sandbox: ClassVar[bool] = True
    """False for transports that provide their own boundary (a container, a microVM)."""

    @abstractmethod
    def isolation(self, sandbox: CodeModeSandbox | None) -> Isolation:
        """What the program will be unable to reach (the instructions say exactly this)."""

    @abstractmethod
    async def open(self, sandbox: CodeModeSandbox | None, limits: Limits) -> Channel:
        """A channel to a fresh runner, ready to receive `start` once it says `ready`."""


class SandboxTransport(CodeModeTransport):
    """The default: JSON-RPC over dedicated pipes to a runner the sandbox starts."""

    requires_sandbox = True

    def isolation(self, sandbox: CodeModeSandbox | None) -> Isolation:
        if sandbox is None:
            raise ValueError("SandboxTransport needs a sandbox")
        return sandbox.isolation()

    async def open(self, sandbox: CodeModeSandbox | None, limits: Limits) -> Channel:
        if sandbox is None:
            raise ValueError("SandboxTransport needs a sandbox")
        return await sandbox.open(limits)


class CommandTransport(CodeModeTransport):
    """Starts the runner with a command and speaks the protocol over its stdin and stdout.

    `command` is the prefix that runs a Python 3.11+ interpreter inside your boundary, e.g.
    `["docker", "run", "-i", "--rm", "--network=none", "--read-only", "python:3.12-slim"]`;
    the runner's own arguments (`python -I -S -c <runner>`) are appended. `isolation` is what
    that boundary guarantees, stated by you: it is what the model is told. The runner still
    applies its own confinement inside where the boundary allows it (`confine`: its settings,
    default `runner.default_confinement`; False to skip). `env` is the command's environment
    (default: only `PATH`), never the host's.
    """

    requires_sandbox = False

    def __init__(
        self,
        command: Sequence[str],
        *,
        isolation: Isolation,
        python: str = "python3",
        env: Mapping[str, str] | None = None,
        confine: Mapping[str, Any] | bool = True,
    ) -> None:
        if isinstance(command, str) or not command:
            raise ValueError("CommandTransport needs the command as a non-empty list of arguments")
        self.command = tuple(command)
        self._isolation = isolation
        self.python = python
        self.env = dict(env) if env is not None else {"PATH": os.environ.get("PATH", os.defpath)}
        self.confine = dict(confine) if isinstance(confine, Mapping) else confine

    def isolation(self, sandbox: CodeModeSandbox | None) -> Isolation:
        return self._isolation

    async def open(self, sandbox: CodeModeSandbox | None, limits: Limits) -> Channel:
        from ._process import ProcessChannel, StdinWriter
        from ._scratch import drop_scratch, make_scratch
        from .runner import default_confinement, runner_command

        confine = self.confine if isinstance(self.confine, dict) else default_confinement(limits.timeout)
        argv = [*self.command, *runner_command(self.python, io="stdio", confine=confine if self.confine else None)]
        scratch = make_scratch()
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.env,
                cwd=scratch,
                start_new_session=True,
                limit=limits.max_frame_bytes + 1,
            )
        except BaseException:
            drop_scratch(scratch)
            raise
        assert process.stdout is not None
        assert process.stdin is not None
        return ProcessChannel(process, process.stdout, StdinWriter(process.stdin), scratch=scratch)
