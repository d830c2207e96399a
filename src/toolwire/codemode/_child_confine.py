"""Runs inside the sandbox child, before any model code: the operating-system confinement layers.

Standard library only: this module is shipped into a `python -I -S` child as source. Layers,
each best effort and each reported back so the host can refuse a child weaker than promised:

1. rlimits: address space, CPU seconds, open files, file size, no core dumps, no processes.
2. namespaces (Linux): new user, mount, network, IPC, UTS and cgroup namespaces, so no
   interface but a downed loopback exists; the scratch directory becomes a private,
   size-limited tmpfs (gone with the process); then every capability is dropped.
3. Landlock (Linux 5.13+): reads only beneath the interpreter's own files, reads and writes
   only beneath the scratch directory; TCP bind/connect denied (ABI 4+); no signals or
   abstract Unix sockets outside the sandbox (ABI 6+).
4. seccomp (x86-64, AArch64): `socket`, process and thread creation, `execve`, `ptrace`,
   `kill`, namespace, mount, io_uring, BPF and module syscalls fail with EPERM; any other
   syscall ABI (x32, i386) kills the process.
"""

from __future__ import annotations

import ctypes
import os
import resource
import struct
import sys

# `typing` costs start-up time in the child; annotations are never evaluated there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MIB = 1 << 20

# Syscall numbers: x86-64 from asm/unistd_64.h, AArch64 from asm-generic/unistd.h.
_BLOCKED: dict[str, dict[str, int]] = {
    "x86_64": {
        "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "clone": 56, "fork": 57, "vfork": 58,
        "execve": 59, "execveat": 322, "clone3": 435, "ptrace": 101, "kill": 62, "tkill": 200, "tgkill": 234,
        "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424,
        "pidfd_getfd": 438, "process_vm_readv": 310, "process_vm_writev": 311, "unshare": 272, "setns": 308,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "setrlimit": 160, "prlimit64": 302, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "kexec_load": 246, "kexec_file_load": 320, "open_by_handle_at": 304, "name_to_handle_at": 303,
        "personality": 135, "iopl": 172, "ioperm": 173, "swapon": 167, "swapoff": 168, "reboot": 169,
        "acct": 163, "quotactl": 179, "syslog": 103, "uselib": 134, "kcmp": 312, "process_madvise": 440,
        "process_mrelease": 448,
    },
    "aarch64": {
        "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "clone": 220, "execve": 221,
        "execveat": 281, "clone3": 435, "ptrace": 117, "kill": 129, "tkill": 130, "tgkill": 131,
        "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240, "pidfd_open": 434, "pidfd_send_signal": 424,
        "pidfd_getfd": 438, "process_vm_readv": 270, "process_vm_writev": 271, "unshare": 97, "setns": 268,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280, "perf_event_open": 241,
        "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "setrlimit": 164, "prlimit64": 261, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "kexec_load": 104, "kexec_file_load": 294, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "personality": 92, "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "quotactl": 60,
        "syslog": 116, "kcmp": 272, "process_madvise": 440, "process_mrelease": 448,
    },
}  # fmt: skip
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_CAPSET = {"x86_64": 126, "aarch64": 91}
_X32_BIT = 0x40000000

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO_EPERM = 0x00050000 | 1
_RET_ALLOW = 0x7FFF0000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWIPC = 0x10000000, 0x40000000, 0x08000000
_CLONE_NEWUTS, _CLONE_NEWCGROUP, _CLONE_NEWNS = 0x04000000, 0x02000000, 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18

_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446
_READ_FS = (1 << 2) | (1 << 3)  # READ_FILE, READ_DIR
_READ_FILE_ONLY = 1 << 2
_WRITE_FS = (1 << 1) | (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8) | (1 << 12)  # write, remove, mkdir, mkreg, symlink


def confine(settings: dict[str, Any], scratch: str) -> dict[str, Any]:
    """Apply every layer this machine allows; returns what took effect, for the `ready` frame."""
    layers: dict[str, Any] = {"rlimits": set_rlimits(settings), "namespaces": [], "tmpfs": False}
    libc = _libc()
    if libc is None:
        # Elsewhere (macOS) a same-user process can read another's environment through sysctl.
        return {**layers, "landlock": 0, "seccomp": False, "host_environment_hidden": False}
    namespaces = _unshare(libc)
    layers["namespaces"] = namespaces
    if "mount" in namespaces:
        layers["tmpfs"] = _mount_scratch(libc, scratch, int(settings["scratch_bytes"]))
    if namespaces:
        _drop_capabilities(libc)
    layers["landlock"] = _landlock(libc, scratch)
    layers["seccomp"] = _seccomp(libc)
    layers["host_environment_hidden"] = _host_environment_hidden()
    return layers


def _host_environment_hidden() -> bool:
    """Checked, not assumed: can this process read the host's environment through /proc?"""
    try:
        with open(f"/proc/{os.getppid()}/environ", "rb"):
            return False
    except OSError:
        return True


def set_rlimits(settings: dict[str, Any]) -> bool:
    """Lower soft and hard limits together so the program cannot raise them again."""
    limits = [
        (resource.RLIMIT_AS, int(settings["memory_bytes"])),
        (resource.RLIMIT_NOFILE, int(settings["max_open_files"])),
        (resource.RLIMIT_FSIZE, int(settings["max_file_bytes"])),
        (resource.RLIMIT_CORE, 0),
    ]
    cpu = int(settings["cpu_seconds"])
    applied = True
    for which, value in limits:
        applied = _limit(which, value, value) and applied
    applied = _limit(resource.RLIMIT_CPU, cpu, cpu + 1) and applied
    if hasattr(resource, "RLIMIT_NPROC"):
        # Enforced for every user but real root, where seccomp does the job instead.
        _limit(resource.RLIMIT_NPROC, 0, 0)
    return applied


def _limit(which: int, soft: int, hard: int) -> bool:
    try:
        _, current_hard = resource.getrlimit(which)
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        resource.setrlimit(which, (soft, hard))
    except (OSError, ValueError):
        return False
    return True


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_NAMESPACE_ATTEMPTS = (
    (
        _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS | _CLONE_NEWCGROUP,
        ["user", "mount", "network", "ipc", "uts", "cgroup"],
    ),
    (_CLONE_NEWUSER | _CLONE_NEWNET, ["user", "network"]),
    (_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC, ["mount", "network", "ipc"]),
    (_CLONE_NEWNET, ["network"]),
)


def _unshare(libc: Any) -> list[str]:
    uid, gid = os.getuid(), os.getgid()
    for flags, names in _NAMESPACE_ATTEMPTS:
        if libc.unshare(flags) == 0:
            if "user" in names and not _map_ids(uid, gid):
                return [n for n in names if n != "mount"]
            return names
    return []


def _map_ids(uid: int, gid: int) -> bool:
    """Map our own ids into the new user namespace (needed to create files on its tmpfs)."""
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
                handle.write(text)
    except OSError:
        return False
    return True


def _mount_scratch(libc: Any, scratch: str, size: int) -> bool:
    """A private tmpfs over the scratch directory: size-limited, invisible to the host, gone at exit."""
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False
    options = f"size={size},mode=0700".encode()
    if libc.mount(b"tmpfs", scratch.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, options) != 0:
        return False
    os.chdir(scratch)
    return True


def _drop_capabilities(libc: Any) -> None:
    number = _CAPSET.get(os.uname().machine)
    if number is None:
        return
    header = struct.pack("Ii", 0x20080522, 0)
    data = bytes(24)
    libc.syscall(number, ctypes.c_char_p(header), ctypes.c_char_p(data))


def _readable_paths() -> list[str]:
    """The interpreter's own files: its import path, shared libraries, the loader cache, tz data."""
    paths = {p for p in sys.path if p}
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                parts = line.split(maxsplit=5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    paths.add(os.path.dirname(parts[5].strip()))
    except OSError:
        pass
    paths.update({"/etc/ld.so.cache", "/usr/share/zoneinfo"})
    return sorted(p for p in paths if p not in _NEVER_READABLE and os.path.exists(p))


_NEVER_READABLE = frozenset(
    {"/", "/root", "/home", "/etc", "/tmp", "/var", "/proc", "/sys", "/dev", "/run", "/srv", "/mnt", "/opt", "/usr"}
)


def _landlock(libc: Any, scratch: str) -> int:
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = int(syscall(_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))
    if abi < 1:
        return 0
    handled = (1 << 13) - 1
    handled |= (1 << 13) if abi >= 2 else 0
    handled |= (1 << 14) if abi >= 3 else 0
    handled |= (1 << 15) if abi >= 5 else 0
    attr = struct.pack("Q", handled)
    if abi >= 4:
        attr += struct.pack("Q", 0b11)  # BIND_TCP | CONNECT_TCP, with no rule allowing any port
    if abi >= 6:
        attr += struct.pack("Q", 0b11)  # scope abstract Unix sockets and signals
    ruleset = int(syscall(_LANDLOCK_CREATE, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)))
    if ruleset < 0:
        return 0
    try:
        writable = _READ_FS | _WRITE_FS | ((1 << 13) if abi >= 2 else 0) | ((1 << 14) if abi >= 3 else 0)
        rules = [(p, _READ_FS) for p in _readable_paths()] + [(scratch, writable)]
        for path, access in rules:
            if not _add_rule(syscall, ruleset, path, access):
                return 0
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if syscall(_LANDLOCK_RESTRICT, ruleset, ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(ruleset)
    return abi


def _add_rule(syscall: Any, ruleset: int, path: str, access: int) -> bool:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        if not os.path.isdir(path):
            access &= _READ_FILE_ONLY | (1 << 1) | (1 << 14)
        rule = struct.pack("=Qi", access, fd)
        return int(syscall(_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.c_char_p(rule), ctypes.c_uint32(0))) == 0
    finally:
        os.close(fd)


def seccomp_program(machine: str) -> bytes | None:
    """The classic-BPF filter for `machine`, or None where the syscall table is unknown."""
    blocked = _BLOCKED.get(machine)
    if blocked is None:
        return None
    numbers = sorted(set(blocked.values()))
    program = [
        (0x20, 0, 0, 4),  # A = seccomp_data.arch
        (0x15, 1, 0, _AUDIT_ARCH[machine]),  # native ABI: skip the kill
        (0x06, 0, 0, _RET_KILL_PROCESS),
        (0x20, 0, 0, 0),  # A = seccomp_data.nr
    ]
    deny_at = len(program) + len(numbers) + (1 if machine == "x86_64" else 0) + 1
    if machine == "x86_64":
        program.append((0x35, deny_at - len(program) - 1, 0, _X32_BIT))  # x32 ABI: deny
    for number in numbers:
        program.append((0x15, deny_at - len(program) - 1, 0, number))
    program += [(0x06, 0, 0, _RET_ALLOW), (0x06, 0, 0, _RET_ERRNO_EPERM)]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in program)


def _seccomp(libc: Any) -> bool:
    program = seccomp_program(os.uname().machine)
    if program is None:
        return False

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    prog = _Prog(len(program) // 8, program)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return bool(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0)
