"""Attacks on the child's confinement that Landlock and the first seccomp filter let through.

Metadata writes to host files (chmod, chown, utime, xattrs), the runner's privileges (uid and
capabilities, read by the host from `/proc/<pid>/status` while the program waits), memory
outside the address-space limit (memfd, System V and POSIX shared memory), inotify on host
directories, and runners outliving a killed host. Each test skips, with the reason, only where
the kernel lacks the layer that stops the attack.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.codemode import LocalSandbox

pytestmark = pytest.mark.security

Runner = Any
UNPRIVILEGED = 65534
SCRATCH_PREFIX = "toolwire-codemode-"
"""Scratch directories are named `toolwire-codemode-<host pid>-<random>`."""


def attempt(statement: str) -> str:
    """A program that runs `statement` and returns `[exception type, errno]` or `"succeeded"`."""
    return textwrap.dedent(
        f"""
        import ctypes, errno, os
        try:
            {statement}
        except BaseException as error:
            return [type(error).__name__, getattr(error, "errno", None)]
        return "succeeded"
        """
    ).strip("\n")


def linux_only() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("these layers are Linux features")


@pytest.mark.usefixtures("needs_process_isolation")
class TestHostFileMetadata:
    """Landlock does not cover metadata; seccomp refuses every call that changes it."""

    async def test_a_host_secret_cannot_be_made_world_readable(self, run: Runner, tmp_path: Path) -> None:
        """The issue's attack: a 0600 secret made 0666."""
        secret = tmp_path / "api-key.txt"
        secret.write_text("sk-secret")
        secret.chmod(0o600)
        assert (await run(attempt(f"os.chmod({str(secret)!r}, 0o666)"))).result == ["PermissionError", 1]
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600

    async def test_the_setuid_bit_cannot_be_set_on_a_host_binary(self, run: Runner, tmp_path: Path) -> None:
        """A copy of a root-owned binary (when the tests run as root) keeps its mode."""
        binary = tmp_path / "true"
        shutil.copy(shutil.which("true") or "/bin/true", binary)
        binary.chmod(0o755)
        assert (await run(attempt(f"os.chmod({str(binary)!r}, 0o4755)"))).result == ["PermissionError", 1]
        assert stat.S_IMODE(binary.stat().st_mode) == 0o755

    @pytest.mark.parametrize(
        "statement",
        [
            "os.chown(PATH, 65534, 65534)",
            "os.chown(PATH, -1, 65534, follow_symlinks=False)",
            "os.utime(PATH, (0, 0))",
            "os.utime(PATH, None)",
            "os.setxattr(PATH, 'user.planted', b'1')",
            "os.removexattr(PATH, 'user.kept')",
        ],
    )
    async def test_ownership_times_and_extended_attributes_cannot_change(
        self, run: Runner, tmp_path: Path, statement: str
    ) -> None:
        """chown, lchown, utime, utimensat, setxattr and removexattr all fail with EPERM."""
        victim = tmp_path / "victim.txt"
        victim.write_text("x")
        os.utime(victim, (1_000_000, 1_000_000))
        try:
            os.setxattr(victim, "user.kept", b"1")
        except OSError:
            if "xattr" in statement:
                pytest.skip(f"this filesystem ({tmp_path}) has no user extended attributes")
        before = victim.stat()
        xattrs_before = _xattrs(victim)
        result = await run(attempt(statement.replace("PATH", repr(str(victim)))))
        assert result.result == ["PermissionError", 1]
        after = victim.stat()
        assert (after.st_mode, after.st_uid, after.st_gid, after.st_mtime) == (
            before.st_mode,
            before.st_uid,
            before.st_gid,
            before.st_mtime,
        )
        assert _xattrs(victim) == xattrs_before


def _xattrs(path: Path) -> list[str]:
    try:
        return sorted(os.listxattr(path))
    except OSError:
        return []


def _status_of(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


def _inspector(seen: list[dict[str, str]]) -> Any:
    def inspect(value: dict[str, Any]) -> str:
        seen.append(_status_of(int(value["pid"])))
        return "seen"

    return create_tool(id="inspect", description="Reads the runner's /proc status.", execute=inspect)


class TestPrivileges:
    """Read from the host while the program waits on a call: the kernel's view, not the child's claim."""

    async def test_the_runner_holds_no_capability_at_all(self, run: Runner, sandbox: LocalSandbox) -> None:
        """Effective, permitted, inheritable, ambient and bounding sets are all empty."""
        linux_only()
        if os.geteuid() != 0 and "no-capabilities" not in sandbox.isolation().layers:
            pytest.skip("emptying the bounding set needs root or a user namespace, and this kernel gives neither")
        seen: list[dict[str, str]] = []
        await run("import os\nawait external_inspect({'pid': os.getpid()})", {"inspect": _inspector(seen)})
        caps = {k: v for k, v in seen[0].items() if k.startswith("Cap")}
        assert caps == dict.fromkeys(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), "0000000000000000")

    async def test_a_root_host_runs_the_runner_as_an_unprivileged_user(self, run: Runner) -> None:
        """Real, effective, saved and file-system ids are all 65534, with no supplementary groups."""
        linux_only()
        if os.geteuid() != 0:
            pytest.skip("the host is not root: the runner already runs as the host's own unprivileged user")
        seen: list[dict[str, str]] = []
        await run("import os\nawait external_inspect({'pid': os.getpid()})", {"inspect": _inspector(seen)})
        ids = f"{UNPRIVILEGED}\t{UNPRIVILEGED}\t{UNPRIVILEGED}\t{UNPRIVILEGED}"
        assert (seen[0]["Uid"], seen[0]["Gid"], seen[0]["Groups"]) == (ids, ids, "")

    async def test_the_runner_cannot_regain_root(self, run: Runner) -> None:
        """No setuid back to 0, whatever the host is."""
        linux_only()
        assert (await run(attempt("os.setuid(0)"))).result == ["PermissionError", 1]


@pytest.mark.usefixtures("needs_process_isolation")
class TestMemoryOutsideTheLimit:
    """Memory the address-space limit does not count is refused, not merely limited."""

    async def test_memfd_cannot_hold_memory_beyond_the_limit(self, run: Runner) -> None:
        """The issue's attack: 16 MiB memfd files, 56 of them on top of the limit; none can be made."""
        code = textwrap.dedent(
            """
            import os
            held = []
            try:
                for i in range(56):
                    fd = os.memfd_create(f"blob{i}")
                    os.ftruncate(fd, 16 << 20)
                    os.write(fd, b"x" * (16 << 20))
                    held.append(fd)
            except OSError as error:
                return [len(held), error.errno]
            return [len(held), None]
            """
        ).strip("\n")
        assert (await run(code, sandbox=LocalSandbox(memory_bytes=256 << 20))).result == [0, 1]

    @pytest.mark.parametrize(
        "call",
        ["shmget(0, 16 << 20, 0o1600)", "msgget(0, 0o1600)", "semget(0, 1, 0o1600)"],
        ids=["shared-memory", "message-queue", "semaphores"],
    )
    async def test_system_v_ipc_is_refused(self, run: Runner, call: str) -> None:
        """Segments and queues live in kernel memory that RLIMIT_AS does not count."""
        code = f"import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n[libc.{call}, ctypes.get_errno()]"
        assert (await run(code)).result == [-1, 1]

    @pytest.mark.usefixtures("needs_filesystem_isolation")
    async def test_dev_shm_is_out_of_reach(self, run: Runner) -> None:
        """POSIX shared memory is files in /dev/shm: Landlock refuses them."""
        name = f"/dev/shm/toolwire-{uuid.uuid4().hex}"
        assert (await run(attempt(f"open({name!r}, 'wb').write(b'x')"))).result == ["PermissionError", 13]
        assert not os.path.exists(name)


@pytest.mark.usefixtures("needs_process_isolation")
class TestInotify:
    async def test_host_directories_cannot_be_watched(self, run: Runner, tmp_path: Path) -> None:
        """A watch on a host directory would reveal file names and reads the program cannot see."""

        def touch(_value: Any) -> str:
            (tmp_path / "secret-name.txt").write_text("x")
            return "done"

        code = textwrap.dedent(
            f"""
            import ctypes, os
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK)
            if fd < 0:
                return ["inotify_init1", ctypes.get_errno()]
            if libc.inotify_add_watch(fd, {str(tmp_path).encode()!r}, 0xFFF) < 0:
                return ["inotify_add_watch", ctypes.get_errno()]
            await external_touch({{}})
            events = os.read(fd, 4096)
            return ["watched", events.decode("latin-1")]
            """
        ).strip("\n")
        tools = {"touch": create_tool(id="touch", description="Creates a file.", execute=touch)}
        assert (await run(code, tools)).result == ["inotify_init1", 1]


HOST_SCRIPT = """
import asyncio, sys
from toolwire import create_tool
from toolwire.codemode import LocalSandbox, create_code_mode

def report(value):
    print(value["pid"], flush=True)
    return "ok"

async def main():
    tools = {"report": create_tool(id="report", description="r", execute=report)}
    code_mode = create_code_mode(tools, sandbox=LocalSandbox(scratch_parent=sys.argv[1]), timeout=600)
    await code_mode.run("import os, time\\nawait external_report({'pid': os.getpid()})\\ntime.sleep(600)")

asyncio.run(main())
"""


class TestOrphans:
    async def test_a_runner_dies_with_its_host_and_its_scratch_is_cleaned_at_the_next_start(
        self, run: Runner, tmp_path: Path
    ) -> None:
        """SIGKILL the host mid-run: the parent-death signal kills the runner; the next host removes the leftovers."""
        linux_only()
        with subprocess.Popen(
            [sys.executable, "-c", HOST_SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as host:
            try:
                assert host.stdout is not None
                runner_pid = int(host.stdout.readline())
                runner = os.pidfd_open(runner_pid)
            finally:
                host.send_signal(signal.SIGKILL)
        try:
            ready, _, _ = select.select([runner], [], [], 30)
            if not ready:
                os.kill(runner_pid, signal.SIGKILL)
        finally:
            os.close(runner)
        assert ready == [runner], "the runner outlived its host by 30 s"
        leftovers = [p.name for p in tmp_path.iterdir()]
        assert len(leftovers) == 1
        assert leftovers[0].startswith(f"{SCRATCH_PREFIX}{host.pid}-")

        await run("1", sandbox=LocalSandbox(scratch_parent=str(tmp_path)))
        assert list(tmp_path.iterdir()) == []

    async def test_scratch_directories_of_live_hosts_are_kept(self, run: Runner, tmp_path: Path) -> None:
        """Only directories whose host process is gone are removed; other names are left alone."""
        live = tmp_path / f"{SCRATCH_PREFIX}1-abcdef"
        live.mkdir()
        unrelated = tmp_path / "toolwire-codemode-notes"
        unrelated.mkdir()
        await run("1", sandbox=LocalSandbox(scratch_parent=str(tmp_path)))
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, unrelated.name])
