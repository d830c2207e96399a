"""The child's confinement layers: the seccomp filter, run in a BPF interpreter, and what layers add up to."""

from __future__ import annotations

import os
import stat
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolwire.codemode._child_privileges import _allows, _blocker
from toolwire.codemode._child_seccomp import (
    AUDIT_ARCH,
    BLOCKED,
    BLOCKED_FCNTLS,
    BLOCKED_IOCTLS,
    FCNTL,
    IOCTL,
    seccomp_program,
)
from toolwire.codemode.local import isolation_from_layers
from toolwire.codemode.runner import runner_source

ALLOW, EPERM, KILL = 0x7FFF0000, 0x00050001, 0x80000000
I386 = 0x40000003


def run_filter(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Execute classic BPF over a `seccomp_data` {nr, arch, ip, args}; only the opcodes the filter uses."""
    padded = (*args, *(0,) * (6 - len(args)))
    data = struct.pack("<iIQ6Q", nr, arch, 0, *padded)
    instructions = [struct.unpack("HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = instructions[pc]
        if code == 0x20:
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif code == 0x15:
            pc += jt if accumulator == k else jf
        elif code == 0x35:
            pc += jt if accumulator >= k else jf
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("machine", sorted(BLOCKED))
class TestSeccompFilter:
    def test_every_listed_syscall_fails_with_eperm(self, machine: str) -> None:
        """Sockets, process creation, exec, ptrace, kill, namespaces, mounts, io_uring, BPF..."""
        program = seccomp_program(machine)
        assert program is not None
        for name, number in BLOCKED[machine].items():
            assert run_filter(program, number, AUDIT_ARCH[machine]) == EPERM, name

    def test_ordinary_syscalls_are_allowed(self, machine: str) -> None:
        """read, write, mmap, openat, getrandom and friends keep working."""
        program = seccomp_program(machine)
        assert program is not None
        blocked = set(BLOCKED[machine].values())
        allowed = [n for n in range(300) if n not in blocked]
        assert {run_filter(program, n, AUDIT_ARCH[machine]) for n in allowed} == {ALLOW}

    def test_a_foreign_syscall_abi_kills_the_process(self, machine: str) -> None:
        """i386 numbers differ (socketcall!), so any other ABI is fatal rather than filtered."""
        program = seccomp_program(machine)
        assert program is not None
        assert run_filter(program, 102, I386) == KILL

    def test_the_key_escapes_are_on_the_list(self, machine: str) -> None:
        """The syscalls every escape in the reference needs."""
        essentials = {
            "socket",
            "clone",
            "clone3",
            "execve",
            "execveat",
            "ptrace",
            "kill",
            "unshare",
            "mount",
            "io_uring_setup",
            "bpf",
        }
        assert essentials <= set(BLOCKED[machine])

    def test_metadata_memory_and_watch_syscalls_are_on_the_list(self, machine: str) -> None:
        """What Landlock leaves open: chmod/chown/utime/xattrs, memfd and System V IPC, inotify/fanotify."""
        essentials = {
            "fchmod",
            "fchmodat",
            "fchmodat2",
            "fchown",
            "fchownat",
            "utimensat",
            "setxattr",
            "lsetxattr",
            "fsetxattr",
            "removexattr",
            "setxattrat",
            "removexattrat",
            "file_setattr",
            "memfd_create",
            "memfd_secret",
            "shmget",
            "msgget",
            "semget",
            "mq_open",
            "inotify_init1",
            "inotify_add_watch",
            "fanotify_init",
            "listmount",
            "statmount",
        }
        assert essentials <= set(BLOCKED[machine])

    def test_file_flag_ioctls_fail_with_eperm(self, machine: str) -> None:
        """chattr-style ioctls (immutable, append-only, project ids) change metadata too."""
        program = seccomp_program(machine)
        assert program is not None
        for name, command in BLOCKED_IOCTLS.items():
            assert run_filter(program, IOCTL[machine], AUDIT_ARCH[machine], (3, command)) == EPERM, name
            high_bits = (1 << 32) | command  # the kernel reads the command as 32 bits
            assert run_filter(program, IOCTL[machine], AUDIT_ARCH[machine], (3, high_bits)) == EPERM, name

    def test_setting_a_files_owner_or_signal_fails_with_eperm(self, machine: str) -> None:
        """F_SETOWN, F_SETOWN_EX, F_SETSIG, FIOSETOWN and SIOCSPGRP would signal the host on I/O."""
        program = seccomp_program(machine)
        assert program is not None
        for command in BLOCKED_FCNTLS.values():
            assert run_filter(program, FCNTL[machine], AUDIT_ARCH[machine], (3, command)) == EPERM, command
        for name in ("FIOSETOWN", "SIOCSPGRP"):
            assert run_filter(program, IOCTL[machine], AUDIT_ARCH[machine], (3, BLOCKED_IOCTLS[name])) == EPERM

    def test_other_fcntls_are_allowed(self, machine: str) -> None:
        """F_GETFL, F_SETFL, F_GETOWN and F_SETFD, which Python itself uses, pass."""
        program = seccomp_program(machine)
        assert program is not None
        for command in (3, 4, 9, 2):
            assert run_filter(program, FCNTL[machine], AUDIT_ARCH[machine], (3, command)) == ALLOW

    def test_prctl_is_refused_so_the_parent_death_signal_stays(self, machine: str) -> None:
        """The runner arms PR_SET_PDEATHSIG before the filter; the program cannot clear it."""
        assert "prctl" in BLOCKED[machine]

    def test_other_ioctls_are_allowed(self, machine: str) -> None:
        """TCGETS and FIONREAD, which Python itself uses, pass."""
        program = seccomp_program(machine)
        assert program is not None
        for command in (0x5401, 0x541B):
            assert run_filter(program, IOCTL[machine], AUDIT_ARCH[machine], (3, command)) == ALLOW


class TestX32:
    def test_x32_syscalls_are_refused(self) -> None:
        """On x86-64 the x32 ABI shares the arch value; its numbers (bit 30 set) are refused."""
        program = seccomp_program("x86_64")
        assert program is not None
        assert run_filter(program, 0x40000000 + 41, AUDIT_ARCH["x86_64"]) == EPERM


def test_unknown_architectures_get_no_filter() -> None:
    """Where the syscall table is unknown, no filter is claimed (and `processes` is not promised)."""
    assert seccomp_program("riscv64") is None


class TestIsolationFromLayers:
    def test_all_layers_give_every_guarantee(self) -> None:
        """What this machine reports."""
        layers = {
            "rlimits": True,
            "namespaces": ["user", "mount", "network"],
            "tmpfs": True,
            "landlock": 7,
            "seccomp": True,
            "host_environment_hidden": True,
        }
        isolation = isolation_from_layers(layers, "3.11", {})
        assert (isolation.network, isolation.filesystem, isolation.processes, isolation.environment) == (
            True,
            True,
            True,
            True,
        )
        assert isolation.layers == (
            "rlimits",
            "user-namespace",
            "mount-namespace",
            "network-namespace",
            "tmpfs-scratch",
            "landlock-abi-7",
            "seccomp",
        )
        assert isolation.boundary == "a separate, locked-down Python process"

    def test_landlock_without_seccomp_does_not_isolate_files(self) -> None:
        """Landlock leaves chmod, chown, utime, xattrs and inotify on host files to the seccomp filter."""
        isolation = isolation_from_layers({"landlock": 7, "namespaces": ["user", "network"]}, None, {})
        assert (isolation.network, isolation.filesystem) == (True, False)

    def test_identity_layers_are_named(self) -> None:
        """The runner's uid, its empty capability sets and its parent-death signal appear in the layers."""
        layers = {"uid": 65534, "capabilities_dropped": True, "parent_death_signal": True}
        assert isolation_from_layers(layers, None, {}).layers == ("uid-65534", "no-capabilities", "parent-death-signal")

    def test_seccomp_alone_still_blocks_the_network(self) -> None:
        """No socket can be created, with or without a network namespace."""
        isolation = isolation_from_layers({"seccomp": True}, None, {})
        assert (isolation.network, isolation.filesystem, isolation.processes) == (True, False, True)

    def test_nothing_reported_means_nothing_promised(self) -> None:
        """macOS or an old kernel: rlimits alone guarantee none of the four."""
        isolation = isolation_from_layers({"rlimits": True}, None, {})
        assert (isolation.network, isolation.filesystem, isolation.processes, isolation.environment) == (
            False,
            False,
            False,
            False,
        )
        assert isolation.boundary == "a separate Python process"

    def test_the_environment_guarantee_needs_the_hosts_proc_entry_to_be_unreadable(self) -> None:
        """An empty environment is not enough while `/proc/<host>/environ` can be read."""
        readable = isolation_from_layers({"seccomp": True, "host_environment_hidden": False}, None, {})
        hidden = isolation_from_layers({"seccomp": True, "host_environment_hidden": True}, None, {})
        assert (readable.environment, hidden.environment) == (False, True)

    @pytest.mark.parametrize("layers", [None, [], {"landlock": "7", "seccomp": "yes", "namespaces": "network"}])
    def test_malformed_reports_promise_nothing(self, layers: object) -> None:
        """The report comes from the child: wrong types count as absent layers."""
        isolation = isolation_from_layers(layers, None, {})
        assert (isolation.network, isolation.filesystem, isolation.processes) == (False, False, False)


@pytest.mark.parametrize("bytecode", [False, True])
def test_the_runner_fits_in_one_command_line_argument(bytecode: bool) -> None:
    """Linux caps a single argument at 128 KiB; the runner travels in `-c`, as source or bytecode."""
    assert len(runner_source(bytecode=bytecode).encode()) < 120_000


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A fresh directory every user may enter, as is every directory above it."""
    with tempfile.TemporaryDirectory() as name:
        path = Path(name)
        path.chmod(0o755)
        if _blocker(str(path / "x"), os.getuid() + 1, os.getgid() + 1) is not None:
            pytest.skip(f"the temp directory {name} is not open to other users")
        yield path


class TestImportPathBlockers:
    """Which directory a root runner must cover so that its unprivileged self can import the stdlib."""

    def test_the_outermost_directory_the_user_cannot_enter_is_the_blocker(self, open_dir: Path) -> None:
        """`/root`-style 0700 directory above a world-readable install."""
        home = open_dir / "home"
        lib = home / "python" / "lib"
        lib.mkdir(parents=True)
        home.chmod(0o700)
        uid, gid = os.getuid() + 1, os.getgid() + 1  # anyone but the owner
        assert _blocker(str(lib), uid, gid) == str(home)

    def test_an_open_path_has_no_blocker(self, open_dir: Path) -> None:
        """Every directory searchable by others: nothing to cover."""
        lib = open_dir / "python" / "lib"
        lib.mkdir(parents=True)
        for directory in (open_dir / "python", lib):
            directory.chmod(0o755)
        assert _blocker(str(lib), os.getuid() + 1, os.getgid() + 1) is None

    def test_permission_bits_are_read_as_owner_group_or_other(self, tmp_path: Path) -> None:
        """The owner's bits for the owner, the group's for the group, the others' for everyone else."""
        tmp_path.chmod(0o750)
        uid, gid = os.stat(tmp_path).st_uid, os.stat(tmp_path).st_gid
        assert _allows(str(tmp_path), uid, gid + 1, stat.S_IRUSR | stat.S_IXUSR)
        assert _allows(str(tmp_path), uid + 1, gid, stat.S_IRUSR | stat.S_IXUSR)
        assert not _allows(str(tmp_path), uid + 1, gid + 1, stat.S_IXUSR)
