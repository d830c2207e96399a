"""`LocalSandbox`: each program in a fresh, confined CPython child process on this machine.

The child is `python -I -S` with an empty environment, stdin from /dev/null, a fresh empty
scratch directory as its working directory, its own session (so one `killpg` stops it), and
only the two protocol pipes inherited. It then confines itself before any model code runs
(`_child_confine`: rlimits, namespaces with a private tmpfs scratch, uid 65534 when the host
is root, no capabilities, SIGKILL on the host's death, Landlock, seccomp) and reports what
took effect; a child weaker than the measured `Isolation` is refused. A timer thread kills it
at the deadline even when the host's event loop is blocked.

What it does not protect against, even with every layer on: kernel vulnerabilities (the
program shares the host kernel), CPU and memory-bandwidth side channels, reading the Python
standard library and the shared libraries the interpreter uses (read-only, not secret on a
normal system), and resource use within its limits (up to `memory_bytes` of address space,
`scratch_bytes` of tmpfs and up to 32 MiB of pipe buffers (1 MiB each), one CPU, for
`timeout` seconds). Without Landlock (Linux < 5.13) it does not isolate the filesystem;
without seccomp (other than x86-64 or AArch64 Linux) it does not stop process creation nor
metadata writes; a host that is not root cannot give the child another uid (it keeps the
host's, with no capabilities); on macOS and Windows only rlimits apply. For stronger
isolation, run the runner in a container or microVM with `CommandTransport`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import weakref
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from toolwire.exceptions import ConfigurationError

from ._scratch import drop_scratch, make_scratch
from .isolation import GUARANTEES, Guarantee, Isolation
from .limits import Limits
from .protocol import ProtocolViolation, Ready, parse_frame
from .runner import runner_command
from .transport import Channel, CodeModeSandbox

if TYPE_CHECKING:
    from ._process import ProcessChannel

_MIB = 1 << 20


class LocalSandbox(CodeModeSandbox):
    """Confined child processes of this interpreter (or of `python`)."""

    def __init__(
        self,
        *,
        python: str | None = None,
        memory_bytes: int = 512 * _MIB,
        scratch_bytes: int = 64 * _MIB,
        max_file_bytes: int = 16 * _MIB,
        max_open_files: int = 64,
        cpu_seconds: int | None = None,
        require: Collection[Guarantee] = (),
        user: int | str | None = None,
        group: int | str | None = None,
        scratch_parent: str | None = None,
        prewarm: bool = False,
    ) -> None:
        """Settings for every child.

        Args:
            python: interpreter to run (default: this one); it must be CPython 3.11 or later.
            memory_bytes: address-space limit of the child.
            scratch_bytes: size of the private tmpfs scratch directory (where mount namespaces work).
            max_file_bytes: largest file the child may write.
            max_open_files: file descriptors the child may hold.
            cpu_seconds: CPU-time limit (default: the run's timeout plus one second).
            require: guarantees to insist on (`network`, `filesystem`, `processes`,
                `environment`); a machine that cannot give one fails when the tool is created.
            user: run the child as this user (the host must be allowed to switch to it).
            group: run the child with this group.
            scratch_parent: where scratch directories are created (default: the temp directory).
            prewarm: keep one confined child started ahead of time, so a run skips the interpreter's
                start-up (call `aclose()` when done); it idles with no program and no clock running.

        Raises:
            ConfigurationError: on Windows, which has no process confinement this sandbox can use.
            ValueError: a size that is not a positive integer.
        """
        if sys.platform == "win32":
            raise ConfigurationError(
                "LocalSandbox needs a POSIX system (Linux for full isolation); on Windows run the runner in "
                "WSL or a container with `CommandTransport`"
            )
        sizes = {
            "memory_bytes": memory_bytes,
            "scratch_bytes": scratch_bytes,
            "max_file_bytes": max_file_bytes,
            "max_open_files": max_open_files,
            "cpu_seconds": 1 if cpu_seconds is None else cpu_seconds,
        }
        for name, value in sizes.items():
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"LocalSandbox `{name}` must be a positive integer, got {value!r}")
        self.python = python or sys.executable
        self.memory_bytes = memory_bytes
        self.scratch_bytes = scratch_bytes
        self.max_file_bytes = max_file_bytes
        self.max_open_files = max_open_files
        self.cpu_seconds = cpu_seconds
        self.require = frozenset(require)
        self.user = user
        self.group = group
        self.scratch_parent = scratch_parent
        self.prewarm = prewarm
        self._warm: dict[tuple[str, int], tuple[asyncio.AbstractEventLoop, asyncio.Future[ProcessChannel]]] = {}
        weakref.finalize(self, _abandon_all, self._warm)

    def isolation(self) -> Isolation:
        """What this machine lets the child enforce, measured once per interpreter and user.

        Raises:
            IsolationError: a guarantee in `require` is not available here.
        """
        layers, python = _probe(self.python, self.user, self.group)
        isolation = isolation_from_layers(layers, python, self._limits_for_instructions())
        isolation.require(self.require, who="LocalSandbox")
        return isolation

    async def open(self, limits: Limits) -> Channel:
        promised = self.isolation()
        settings = self.confine_settings(limits)
        if not self.prewarm:
            return await self._spawn(settings, limits, promised)
        loop = asyncio.get_running_loop()
        key = (json.dumps(settings, sort_keys=True), limits.max_frame_bytes)
        warm = self._warm.pop(key, None)
        self._warm[key] = (loop, asyncio.ensure_future(self._spawn(settings, limits, promised)))
        if warm is not None and warm[0] is loop:
            with contextlib.suppress(OSError):
                channel = await warm[1]
                if channel.alive():
                    return channel
                await channel.close()
        elif warm is not None:
            _discard(warm[1])
        return await self._spawn(settings, limits, promised)

    async def aclose(self) -> None:
        """Stop the pre-warmed children (`prewarm=True`), from the event loop that ran the programs."""
        waiting = list(self._warm.values())
        self._warm.clear()
        for _, task in waiting:
            with contextlib.suppress(OSError):
                await (await task).close()

    async def _spawn(self, settings: dict[str, Any], limits: Limits, promised: Isolation) -> ProcessChannel:
        from ._process import PipeWriter, ProcessChannel

        scratch = make_scratch(self.scratch_parent)
        if self.user is not None or self.group is not None:
            _give(scratch, self.user, self.group)
        elif (run_as := settings.get("run_as")) is not None:
            os.chown(scratch, run_as[0], run_as[1])
        from_child, to_host = os.pipe()
        from_host, to_child = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                *runner_command(self.python, io=(from_host, to_host), confine=settings),
                **_spawn_options(scratch, (from_host, to_host), self.user, self.group),
            )
        except BaseException:
            for fd in (from_child, to_host, from_host, to_child):
                os.close(fd)
            drop_scratch(scratch)
            raise
        os.close(to_host)
        os.close(from_host)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=limits.max_frame_bytes + 1, loop=loop)
        try:
            read_transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(from_child, "rb", 0)
            )
            write_transport, writer = await loop.connect_write_pipe(PipeWriter, os.fdopen(to_child, "wb", 0))
        except BaseException:
            # Cancelled or failed after the child exists: it must not outlive this call.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            drop_scratch(scratch)
            raise
        return ProcessChannel(
            process,
            reader,
            writer,
            scratch=scratch,
            closers=(read_transport, write_transport),
            ready_check=lambda ready: _weaker(ready, promised, self._limits_for_instructions()),
        )

    def confine_settings(self, limits: Limits) -> dict[str, Any]:
        """What the child applies to itself before running the program."""
        cpu = self.cpu_seconds if self.cpu_seconds is not None else int(limits.timeout) + 1
        settings = {
            "memory_bytes": self.memory_bytes,
            "cpu_seconds": cpu,
            "max_open_files": self.max_open_files,
            "max_file_bytes": self.max_file_bytes,
            "scratch_bytes": self.scratch_bytes,
        }
        return settings | _identity_settings(self.user, self.group)

    def _limits_for_instructions(self) -> dict[str, Any]:
        return {"memory_bytes": self.memory_bytes, "scratch_bytes": self.scratch_bytes}


def _discard(task: asyncio.Future[ProcessChannel]) -> None:
    """Kill a pre-warmed child this loop cannot await (another loop's, or at interpreter exit)."""
    if task.done() and not task.cancelled() and task.exception() is None:
        task.result().abandon()
    else:
        with contextlib.suppress(RuntimeError):  # its loop may be closed already
            task.cancel()


def _abandon_all(warm: dict[Any, tuple[Any, asyncio.Future[ProcessChannel]]]) -> None:
    for _, task in warm.values():
        _discard(task)
    warm.clear()


def isolation_from_layers(layers: Any, python: str | None, limits: dict[str, Any]) -> Isolation:
    """The guarantees a runner's reported confinement layers add up to."""
    layers = layers if isinstance(layers, dict) else {}
    namespaces = [str(n) for n in layers.get("namespaces", ()) if isinstance(n, str)]
    landlock = layers.get("landlock", 0)
    landlock = landlock if type(landlock) is int else 0
    seccomp = layers.get("seccomp") is True
    names = ["rlimits"] if layers.get("rlimits") is True else []
    names += [f"{n}-namespace" for n in namespaces]
    names += ["tmpfs-scratch"] if layers.get("tmpfs") is True else []
    names += [f"landlock-abi-{landlock}"] if landlock > 0 else []
    names += ["seccomp"] if seccomp else []
    uid = layers.get("uid")
    names += [f"uid-{uid}"] if type(uid) is int else []
    names += ["no-capabilities"] if layers.get("capabilities_dropped") is True else []
    names += ["parent-death-signal"] if layers.get("parent_death_signal") is True else []
    complete = seccomp and landlock > 0 and "network" in namespaces
    return Isolation(
        network="network" in namespaces or seccomp,
        # Landlock leaves metadata (chmod, chown, utime, xattrs) and inotify to the seccomp filter.
        filesystem=landlock > 0 and seccomp,
        processes=seccomp,
        environment=layers.get("host_environment_hidden") is True,
        boundary="a separate, locked-down Python process" if complete else "a separate Python process",
        layers=tuple(names),
        python=python,
        limits=limits,
    )


def _weaker(ready: Ready, promised: Isolation, limits: dict[str, Any]) -> str | None:
    actual = isolation_from_layers(dict(ready.layers), ready.python, limits)
    if actual.covers(promised):
        return None
    lost = [g for g in GUARANTEES if getattr(promised, g) and not getattr(actual, g)]
    return f"the sandbox could not isolate {', '.join(lost)} this time (layers: {', '.join(actual.layers) or 'none'})"


def _spawn_options(
    scratch: str, fds: tuple[int, int], user: int | str | None, group: int | str | None
) -> dict[str, Any]:
    options: dict[str, Any] = {
        "pass_fds": fds,
        "env": {},
        "cwd": scratch,
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.PIPE,
        "start_new_session": True,
    }
    if user is not None:
        options["user"] = user
        options["extra_groups"] = []
    if group is not None:
        options["group"] = group
    return options


UNPRIVILEGED_ID = 65534
"""The uid and gid (`nobody`/`nogroup` on most systems) a runner started by root switches to."""


def _identity_settings(user: int | str | None, group: int | str | None) -> dict[str, Any]:
    """Who the runner becomes, and the host pid whose death must kill it."""
    settings: dict[str, Any] = {"parent_pid": os.getpid()}
    if user is None and group is None and hasattr(os, "geteuid") and os.geteuid() == 0:
        settings["run_as"] = [UNPRIVILEGED_ID, UNPRIVILEGED_ID]
    return settings


def _give(path: str, user: int | str | None, group: int | str | None) -> None:
    import grp
    import pwd

    uid = user if isinstance(user, int) else pwd.getpwnam(user).pw_uid if user is not None else -1
    gid = group if isinstance(group, int) else grp.getgrnam(group).gr_gid if group is not None else -1
    os.chown(path, uid, gid)


class SandboxStartError(ConfigurationError):
    """The sandbox's interpreter could not start or did not confine itself and report."""


@functools.lru_cache(maxsize=16)
def _probe(python: str, user: int | str | None, group: int | str | None) -> tuple[dict[str, Any], str | None]:
    """Start a child that confines itself and reports; nothing runs in it.

    Raises:
        SandboxStartError: the child did not start or never said `ready`.
    """
    scratch = make_scratch()
    from_child, to_host = os.pipe()
    from_host, to_child = os.pipe()
    settings = {"memory_bytes": 512 * _MIB, "cpu_seconds": 10, "max_open_files": 64,
                "max_file_bytes": _MIB, "scratch_bytes": _MIB} | _identity_settings(user, group)  # fmt: skip
    line, errors = b"", b""
    try:
        if user is not None or group is not None:
            _give(scratch, user, group)
        elif (run_as := settings.get("run_as")) is not None:
            os.chown(scratch, run_as[0], run_as[1])
        command = runner_command(python, io=(from_host, to_host), confine=settings, probe=True)
        with subprocess.Popen(command, **_spawn_options(scratch, (from_host, to_host), user, group)) as process:
            for fd in (to_host, from_host):
                os.close(fd)
            to_host = from_host = -1
            with os.fdopen(from_child, "rb") as pipe:
                from_child = -1
                line = pipe.readline(1 << 16)
            _, errors = process.communicate(timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxStartError(f"LocalSandbox could not start {python!r}: {exc}") from exc
    finally:
        for fd in (from_child, to_host, from_host, to_child):
            if fd >= 0:
                os.close(fd)
        drop_scratch(scratch)
    try:
        frame = parse_frame(line)
    except ProtocolViolation:
        frame = None
    if not isinstance(frame, Ready):
        detail = errors.decode("utf-8", "replace").strip()[-500:] or "no output"
        raise SandboxStartError(f"LocalSandbox: {python!r} did not start the code-mode runner ({detail})")
    return json.loads(json.dumps(frame.layers)), frame.python
