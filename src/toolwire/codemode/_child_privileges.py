"""Runs inside the sandbox child: who the runner is and what it may still do as that user.

Standard library only (shipped as source). A runner started by root switches to an
unprivileged uid and gid (and no supplementary groups), so it owns no host file; every runner
drops all capabilities (effective, permitted, inheritable, ambient and the bounding set); and
every runner asks for SIGKILL when its parent dies, so a killed host leaves no runner behind.
Each step is measured afterwards, not assumed.

An interpreter installed under a directory only root may enter (pyenv or uv under `/root`)
would leave the unprivileged runner unable to import the standard library. In the runner's
private mount namespace that directory is covered by an empty tmpfs holding read-only bind
mounts of the import path alone (which also hides everything else under it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CAPGET = {"x86_64": 125, "aarch64": 90}
_CAPSET = {"x86_64": 126, "aarch64": 91}
_CAPABILITY_VERSION_3 = 0x20080522
_PR_SET_PDEATHSIG, _PR_CAPBSET_READ, _PR_CAPBSET_DROP = 1, 23, 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_IS_SET, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 1, 4
_LAST_CAPABILITY = 63
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT, _MS_BIND, _MS_REC = 1, 2, 4, 32, 4096, 16384
_MNT_DETACH = 2


def open_import_path(libc: Any, uid: int, gid: int, keep: list[str]) -> bool:
    """Cover each directory that stops `uid` reaching the import path; `keep` paths stay reachable too.

    Only in a private mount namespace. False when an import directory itself is unreadable.
    """
    needed = [p for p in sys.path if p and os.path.isdir(p)]
    if not all(_allows(p, uid, gid, stat.S_IRUSR | stat.S_IXUSR) for p in needed):
        return False
    blockers = sorted({b for p in needed if (b := _blocker(p, uid, gid)) is not None}, key=len)
    covered: list[str] = []
    for blocker in blockers:
        if any(blocker.startswith(outer + "/") for outer in covered):
            continue
        under = [p for p in [*needed, *keep] if p.startswith(blocker + "/")]
        if not _cover(libc, blocker, under, read_only=set(needed)):
            return False
        covered.append(blocker)
    return True


def _cover(libc: Any, blocker: str, under: list[str], read_only: set[str]) -> bool:
    sources = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in under}
    try:
        if libc.mount(b"tmpfs", blocker.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=1m,mode=0755") != 0:
            return False
        for path, fd in sources.items():
            os.makedirs(path, mode=0o755, exist_ok=True)
            flags = _MS_REMOUNT | _MS_BIND | _MS_NOSUID | _MS_NODEV | (_MS_RDONLY if path in read_only else 0)
            bound = libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, _MS_BIND | _MS_REC, None) == 0
            if not bound or libc.mount(None, path.encode(), None, flags, None) != 0:
                libc.umount2(blocker.encode(), _MNT_DETACH)  # show the original directory again, whole
                return False
    finally:
        for fd in sources.values():
            os.close(fd)
    return True


def _blocker(path: str, uid: int, gid: int) -> str | None:
    """The outermost ancestor of `path` that `uid` may not enter, if any."""
    parts = path.strip("/").split("/")
    for depth in range(len(parts)):
        ancestor = "/" + "/".join(parts[:depth])
        if not _allows(ancestor, uid, gid, stat.S_IXUSR):
            return ancestor
    return None


def _allows(path: str, uid: int, gid: int, owner_bits: int) -> bool:
    """Classic permission bits (no ACLs) for a process with exactly `uid` and `gid`."""
    info = os.stat(path)
    shift = 0 if info.st_uid == uid else 3 if info.st_gid == gid else 6
    wanted = owner_bits >> shift
    return info.st_mode & wanted == wanted


def can_become(uid: int, gid: int) -> bool:
    """Whether `uid`/`gid` could still import the standard library (checked as them, then restored)."""
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    original_gid = os.getegid()
    os.setgroups([])
    os.setegid(gid)
    os.seteuid(uid)
    try:
        return all(os.access(p, os.R_OK | os.X_OK, effective_ids=True) for p in paths)
    finally:
        os.seteuid(0)
        os.setegid(original_gid)


def become(uid: int, gid: int) -> None:
    """Switch real, effective and saved ids for good (the kernel clears every capability with it)."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def empty_bounding_set(libc: Any) -> None:
    """Empty the bounding and ambient sets; needs CAP_SETPCAP, so it comes before `become`."""
    for capability in range(_LAST_CAPABILITY + 1):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the kernel's last capability
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)


def clear_capabilities(libc: Any) -> None:
    """Empty the effective, permitted and inheritable sets."""
    number = _CAPSET.get(os.uname().machine)
    if number is not None:
        header = struct.pack("Ii", _CAPABILITY_VERSION_3, 0)
        libc.syscall(number, ctypes.c_char_p(header), ctypes.c_char_p(bytes(24)))


def holds_no_capability(libc: Any) -> bool:
    """Measured: all five capability sets are empty."""
    number = _CAPGET.get(os.uname().machine)
    if number is None:
        return False
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(24)
    if libc.syscall(number, header, data) != 0 or any(data.raw):
        return False
    for capability in range(_LAST_CAPABILITY + 1):
        if libc.prctl(_PR_CAPBSET_READ, capability, 0, 0, 0) == 1:
            return False
        if libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_IS_SET, capability, 0, 0) == 1:
            return False
    return True


def die_with_parent(libc: Any, parent: int | None) -> bool:
    """SIGKILL this process when its parent dies; exit now if that already happened."""
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the host died before the signal was armed
    return True
