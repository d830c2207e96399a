"""Scratch directories on the host: named after the host process, removed after the run or later.

Each is `toolwire-codemode-<host pid>-<random>`. A host killed with SIGKILL cannot remove its
own, so the first scratch directory a process makes in a parent directory first sweeps that
parent: directories of host processes that no longer exist (or, for this very pid, that this
process did not make) are deleted. Removal never follows a symlink the program left behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading

SCRATCH_PREFIX = "toolwire-codemode-"
_NAME = re.compile(rf"{SCRATCH_PREFIX}(\d+)-[A-Za-z0-9_]+\Z")
_made: set[str] = set()
_swept: set[tuple[str, int]] = set()
_lock = threading.Lock()


def make_scratch(parent: str | None = None) -> str:
    """A fresh, empty directory (0700) for one runner, after sweeping stale ones out of `parent`."""
    parent = parent or tempfile.gettempdir()
    sweep_stale(parent)
    with _lock:  # made and registered at once, so a concurrent sweep never takes it for stale
        path = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=parent)
        _made.add(path)
    return path


def drop_scratch(path: str) -> None:
    """Delete a directory `make_scratch` made."""
    remove_tree(path)
    with _lock:
        _made.discard(path)


def sweep_stale(parent: str) -> None:
    """Delete scratch directories left in `parent` by dead hosts (once per process and parent)."""
    key = (os.path.realpath(parent), os.getpid())
    with _lock:
        if key in _swept:
            return
        _swept.add(key)
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        with _lock, contextlib.suppress(OSError):
            if entry.path not in _made and _stale(int(match.group(1)), entry.stat(follow_symlinks=False).st_uid):
                remove_tree(entry.path)


def _stale(pid: int, owner: int) -> bool:
    if os.geteuid() not in (0, owner):
        return False  # another user's: not ours to judge
    if pid == os.getpid():
        return True  # an earlier process with our pid (containers reuse low pids); ours are in `_made`
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def remove_tree(path: str) -> None:
    """Delete a scratch directory the program may have made unreadable; symlinks are never followed.

    Not even one swapped in for a directory after it was listed (a local user racing the sweep of
    a shared temporary directory): subdirectories are reached through `os.fwalk`'s descriptors and
    opened with `O_NOFOLLOW` before their mode changes.
    """
    if os.path.islink(path) or not os.path.isdir(path):
        return
    _unlock(path)
    with contextlib.suppress(OSError):
        for _, directories, _, root_fd in os.fwalk(path, follow_symlinks=False):
            for name in directories:
                _unlock(name, root_fd)
    shutil.rmtree(path, ignore_errors=True)


def _unlock(name: str, dir_fd: int | None = None) -> None:
    """Make a directory removable (0700), never through a symlink."""
    if not hasattr(os, "O_PATH"):  # macOS and the BSDs have lchmod
        with contextlib.suppress(OSError, NotImplementedError):
            os.chmod(name, 0o700, dir_fd=dir_fd, follow_symlinks=False)
        return
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY, dir_fd=dir_fd)
    except OSError:
        return  # a symlink (or gone)
    try:
        with contextlib.suppress(OSError):
            os.chmod(f"/proc/self/fd/{fd}", 0o700)  # Linux has no lchmod: chmod the opened directory itself
    finally:
        os.close(fd)
