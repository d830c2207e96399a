"""Runs inside the sandbox child, before any model code: the operating-system confinement layers.

Standard library only: this module is shipped into a `python -I -S` child as source. Layers,
each best effort and each reported back so the host can refuse a child weaker than promised:

1. rlimits: address space, CPU seconds, open files, file size, no core dumps, no processes.
2. namespaces (Linux): new mount, network, IPC, UTS and cgroup namespaces, so no interface
   but a downed loopback exists; the scratch directory becomes a private, size-limited tmpfs
   (gone with the process), and the base interpreter's `site-packages` is covered by an empty
   one. A root runner creates them as root and then becomes the unprivileged `run_as` user;
   any other runner needs a user namespace (mapping its own ids).
3. privileges (`_child_privileges`): no capability in any set, SIGKILL when the host dies.
4. Landlock (Linux 5.13+): reads only beneath the interpreter's own files, reads and writes
   only beneath the scratch directory; TCP bind/connect denied (ABI 4+); no signals or
   abstract Unix sockets outside the sandbox (ABI 6+).
5. seccomp (x86-64, AArch64; `_child_seccomp`): sockets, processes, exec, ptrace, signals,
   namespaces, mounts, metadata writes, memfd and System V IPC, inotify... fail with EPERM.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import struct
import sys

from toolwire.codemode._child_privileges import (
    become,
    can_become,
    clear_capabilities,
    die_with_parent,
    empty_bounding_set,
    holds_no_capability,
    open_import_path,
)
from toolwire.codemode._child_seccomp import seccomp_program

# `typing` costs start-up time in the child; annotations are never evaluated there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MIB = 1 << 20

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWIPC = 0x10000000, 0x40000000, 0x08000000
_CLONE_NEWUTS, _CLONE_NEWCGROUP, _CLONE_NEWNS = 0x04000000, 0x02000000, 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 1, 2, 4, 8, 1 << 14, 1 << 18

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
        return {**layers, "landlock": 0, "seccomp": False, "host_environment_hidden": False, "uid": os.getuid()}
    run_as = _run_as(settings)
    namespaces = _unshare(libc, user=run_as is None)
    layers["namespaces"] = namespaces
    private = "mount" in namespaces and _make_private(libc)
    if private and run_as is not None:
        open_import_path(libc, *run_as, keep=[scratch])
    if private:
        layers["site_packages_hidden"] = _hide_site_packages(libc)
    switch = run_as is not None and _can_become(*run_as)
    if private:
        layers["tmpfs"] = _mount_scratch(libc, scratch, int(settings["scratch_bytes"]), run_as if switch else None)
    elif run_as is not None and not switch:
        _reclaim(scratch)
    readable = _readable_paths()
    empty_bounding_set(libc)
    if switch and run_as is not None:
        become(*run_as)
    clear_capabilities(libc)
    layers["uid"] = os.getuid()
    layers["capabilities_dropped"] = holds_no_capability(libc)
    parent = settings.get("parent_pid")
    layers["parent_death_signal"] = die_with_parent(libc, parent if type(parent) is int else None)
    layers["landlock"] = _landlock(libc, scratch, readable)
    layers["seccomp"] = _seccomp(libc)
    layers["host_environment_hidden"] = _host_environment_hidden()
    return layers


def _run_as(settings: dict[str, Any]) -> tuple[int, int] | None:
    """The unprivileged ids a root runner is asked to become."""
    ids = settings.get("run_as")
    if os.geteuid() != 0 or not isinstance(ids, list) or len(ids) != 2:
        return None
    return int(ids[0]), int(ids[1])


def _reclaim(scratch: str) -> None:
    """The host gave the scratch to `run_as`; a runner that stays root (without capabilities) takes it back."""
    with contextlib.suppress(OSError):
        os.chown(scratch, os.getuid(), os.getgid())


def _can_become(uid: int, gid: int) -> bool:
    try:
        return can_become(uid, gid)
    except OSError:
        return False


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


_ALL = _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS | _CLONE_NEWCGROUP
_NAMESPACE_ATTEMPTS = (
    (_CLONE_NEWUSER | _ALL, ["user", "mount", "network", "ipc", "uts", "cgroup"]),
    (_CLONE_NEWUSER | _CLONE_NEWNET, ["user", "network"]),
    (_ALL, ["mount", "network", "ipc", "uts", "cgroup"]),
    (_CLONE_NEWNET, ["network"]),
)


def _unshare(libc: Any, *, user: bool) -> list[str]:
    """New namespaces; without `user` (a root runner about to switch ids) no user namespace is made."""
    uid, gid = os.getuid(), os.getgid()
    for flags, names in _NAMESPACE_ATTEMPTS:
        if "user" in names and not user:
            continue
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


def _make_private(libc: Any) -> bool:
    """Stop mount propagation, so nothing mounted here can reach the host's namespace."""
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return bool(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0)


def _hide_site_packages(libc: Any) -> bool:
    """Cover the base interpreter's `site-packages` (inside the readable standard library) with an empty tmpfs.

    `python -I -S` imports nothing from it, but Landlock grants the standard library as a whole:
    without this, the program could read every third-party package installed there.
    """
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_RDONLY
    hidden = True
    for path in sorted({os.path.join(p, name) for p in sys.path if p for name in ("site-packages", "dist-packages")}):
        if os.path.isdir(path):
            hidden = libc.mount(b"tmpfs", path.encode(), b"tmpfs", flags, b"size=4k,mode=0555") == 0 and hidden
    return hidden


def _mount_scratch(libc: Any, scratch: str, size: int, owner: tuple[int, int] | None) -> bool:
    """A private tmpfs over the scratch directory: size-limited, invisible to the host, gone at exit."""
    ownership = f",uid={owner[0]},gid={owner[1]}" if owner is not None else ""
    options = f"size={size},mode=0700{ownership}".encode()
    if libc.mount(b"tmpfs", scratch.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, options) != 0:
        return False
    os.chdir(scratch)
    return True


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


def _landlock(libc: Any, scratch: str, readable: list[str]) -> int:
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
        rules = [(p, _READ_FS) for p in readable] + [(scratch, writable)]
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
