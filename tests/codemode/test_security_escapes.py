"""Attacks that try to undo a confinement layer from inside the runner, run live on this kernel.

Clearing the parent-death signal (so the runner outlives a killed host), signals to the host
through a file's owner (`F_SETOWN`, `FIOSETOWN`), and syscalls through another ABI (i386
`int 0x80`, which the filter kills rather than filters). Each test skips, with the reason, only
where the kernel lacks the layer that stops the attack.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.security, pytest.mark.usefixtures("needs_process_isolation")]

Runner = Any


def program(source: str) -> str:
    return textwrap.dedent(source).strip("\n")


HOST_SCRIPT = """
import asyncio, sys
from toolwire import create_tool
from toolwire.codemode import LocalSandbox, create_code_mode

def report(value):
    print(value["pid"], value["cleared"], flush=True)
    return "ok"

PROGRAM = '''
import ctypes, os, time
cleared = ctypes.CDLL(None, use_errno=True).prctl(1, 0, 0, 0, 0)
await external_report({"pid": os.getpid(), "cleared": cleared})
time.sleep(600)
'''

async def main():
    tools = {"report": create_tool(id="report", description="r", execute=report)}
    code_mode = create_code_mode(tools, sandbox=LocalSandbox(scratch_parent=sys.argv[1]), timeout=600)
    await code_mode.run(PROGRAM)

asyncio.run(main())
"""


class TestParentDeathSignal:
    async def test_the_parent_death_signal_cannot_be_cleared(self, run: Runner) -> None:
        """`prctl(PR_SET_PDEATHSIG, 0)` would let the runner outlive a killed host: EPERM."""
        code = program(
            """
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            return [libc.prctl(1, 0, 0, 0, 0), ctypes.get_errno()]
            """
        )
        assert (await run(code)).result == [-1, 1]

    async def test_a_runner_that_tries_to_clear_it_still_dies_with_its_host(self, tmp_path: Path) -> None:
        """The program clears the signal, then sleeps; SIGKILL the host: the runner dies too."""
        if not sys.platform.startswith("linux"):
            pytest.skip("the parent-death signal is a Linux feature")
        with subprocess.Popen(
            [sys.executable, "-c", HOST_SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as host:
            try:
                assert host.stdout is not None
                pid, cleared = host.stdout.readline().split()
                runner = os.pidfd_open(int(pid))
            finally:
                host.send_signal(signal.SIGKILL)
        try:
            ready, _, _ = select.select([runner], [], [], 30)
            if not ready:
                os.kill(int(pid), signal.SIGKILL)
        finally:
            os.close(runner)
        assert (int(cleared), ready) == (-1, [runner])


class TestSignalsThroughFileOwners:
    """`F_SETOWN` + `O_ASYNC` makes the kernel signal the owner (SIGIO kills by default) on I/O."""

    @pytest.mark.parametrize(
        "statement",
        [
            "fcntl.fcntl(read_end, fcntl.F_SETOWN, os.getppid())",
            "fcntl.fcntl(read_end, fcntl.F_SETOWN, -os.getpgid(os.getppid()))",
            "fcntl.fcntl(read_end, 15, struct.pack('ii', 1, os.getppid()))",  # F_SETOWN_EX, F_OWNER_PID
            "fcntl.fcntl(read_end, 10, signal.SIGKILL)",  # F_SETSIG
            "fcntl.ioctl(read_end, 0x8901, struct.pack('i', os.getppid()))",  # FIOSETOWN
            "fcntl.ioctl(read_end, 0x8902, struct.pack('i', os.getppid()))",  # SIOCSPGRP
        ],
    )
    async def test_the_host_cannot_be_named_owner_of_a_file(self, run: Runner, statement: str) -> None:
        """Where Landlock has no signal scope (before ABI 6) and ids match, this would kill the host."""
        code = program(
            f"""
            import fcntl, os, signal, struct
            read_end, write_end = os.pipe()
            try:
                {statement}
            except OSError as error:
                return error.errno
            return "succeeded"
            """
        )
        assert (await run(code)).result == 1

    async def test_reading_a_files_owner_still_works(self, run: Runner) -> None:
        """Only setting the owner is refused; `F_GETOWN` is harmless."""
        code = program(
            """
            import fcntl, os
            read_end, write_end = os.pipe()
            return fcntl.fcntl(read_end, fcntl.F_GETOWN)
            """
        )
        assert (await run(code)).result == 0


class TestForeignAbiLive:
    async def test_an_i386_syscall_through_int_0x80_kills_the_runner(self, run: Runner) -> None:
        """Machine code calling i386 `getpid` through `int 0x80`: the filter's arch check kills (SIGSYS)."""
        if os.uname().machine != "x86_64":
            pytest.skip("int 0x80 is an x86-64 way into the i386 ABI")
        code = program(
            """
            import ctypes, mmap
            page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(bytes.fromhex("b814000000cd80c3"))  # mov eax, 20; int 0x80; ret
            address = ctypes.addressof(ctypes.c_char.from_buffer(page))
            return ctypes.CFUNCTYPE(ctypes.c_long)(address)()
            """
        )
        result = await run(code)
        assert result.error is not None
        assert (result.error.name, "killed by SIGSYS" in result.error.message) == ("NoResultError", True)

    async def test_an_x32_syscall_fails_with_eperm(self, run: Runner) -> None:
        """x32 numbers (bit 30 set) share the native arch value; `getpid | 0x40000000` is refused."""
        if os.uname().machine != "x86_64":
            pytest.skip("the x32 ABI exists only on x86-64")
        code = program(
            """
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            return [libc.syscall(0x40000000 | 39), ctypes.get_errno()]
            """
        )
        assert (await run(code)).result == [-1, 1]


@pytest.mark.usefixtures("needs_filesystem_isolation")
class TestThirdPartyPackages:
    async def test_the_base_interpreters_site_packages_cannot_be_read(self, run: Runner) -> None:
        """Landlock grants the standard library whole; the `site-packages` inside it is covered by an empty tmpfs."""
        site_packages = os.path.join(sysconfig.get_paths()["stdlib"], "site-packages")
        if not os.path.isdir(site_packages) or not os.listdir(site_packages):
            pytest.skip(f"{site_packages} holds nothing to hide on this machine")
        code = program(
            f"""
            import os
            return os.listdir({site_packages!r})
            """
        )
        assert (await run(code)).result == []


class TestMountTable:
    async def test_the_hosts_mount_table_cannot_be_listed(self, run: Runner) -> None:
        """`listmount` (Linux 6.8+) would name every host mount that Landlock hides in `/proc/self/mountinfo`."""
        code = program(
            """
            import ctypes, struct
            libc = ctypes.CDLL(None, use_errno=True)
            request = struct.pack("=IIQQQ", 32, 0, 0xFFFFFFFFFFFFFFFF, 0, 0)  # every mount under the root
            ids = (ctypes.c_uint64 * 64)()
            listed = [libc.syscall(458, ctypes.c_char_p(request), ids, 64, 0), ctypes.get_errno()]
            try:
                open("/proc/self/mountinfo").read()
                proc = "read"
            except PermissionError as error:
                proc = error.errno
            return [listed, proc]
            """
        )
        assert (await run(code)).result == [[-1, 1], 13]


class TestScheduling:
    @pytest.mark.parametrize(
        "statement",
        [
            "os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)",
            "os.setpriority(os.PRIO_USER, os.getuid(), 19)",
            "os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))",
            "os.sched_setaffinity(os.getppid(), {0})",
            "os.nice(1)",
        ],
    )
    async def test_no_process_can_be_reniced_or_rescheduled(self, run: Runner, statement: str) -> None:
        """A runner with the host's uid (a non-root host) could otherwise starve the host: EPERM for every pid."""
        code = program(
            f"""
            import os
            try:
                {statement}
            except OSError as error:
                return error.errno
            return "succeeded"
            """
        )
        assert (await run(code)).result == 1


class TestDodgingTheTimeout:
    async def test_a_program_ignoring_and_blocking_every_signal_is_still_stopped_on_time(self, run: Runner) -> None:
        """SIG_IGN on every catchable signal, all blocked, then a syscall that never returns: SIGKILL still ends it."""
        code = program(
            """
            import select, signal
            for number in signal.valid_signals():
                try:
                    signal.signal(number, signal.SIG_IGN)
                except (OSError, ValueError):
                    pass
            signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
            select.select([], [], [])
            """
        )
        result = await run(code, timeout=1.0)
        assert result.error is not None
        assert (result.error.name, result.error.message) == (
            "TimeoutError",
            "the program did not finish within 1 s and was stopped",
        )


class TestStderrFlood:
    async def test_a_runner_flooding_its_raw_stderr_is_stopped(self, run: Runner) -> None:
        """`os.write(2, ...)` bypasses the capped logs; past 1 MiB the host stops reading and kills the runner."""
        code = program(
            """
            import os, time
            for _ in range(64):
                os.write(2, b"x" * 65536)
            time.sleep(60)
            """
        )
        result = await run(code, timeout=30.0)
        assert result.error is not None
        message = result.error.message
        assert (result.error.name, message.startswith("the sandbox process ended (killed by SIGKILL)")) == (
            "NoResultError",
            True,
        )
        assert message.endswith("[more than 1048576 bytes on stderr: the runner was stopped]")
