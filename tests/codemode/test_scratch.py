"""Scratch directories on the host: named after their host process, stale ones swept at the next start."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from toolwire.codemode._scratch import SCRATCH_PREFIX, drop_scratch, make_scratch


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_a_scratch_directory_is_named_after_the_host_and_private(tmp_path: Path) -> None:
    """`toolwire-codemode-<pid>-<random>`, mode 0700, gone after `drop_scratch`."""
    path = make_scratch(str(tmp_path))
    name = os.path.basename(path)
    assert name.startswith(f"{SCRATCH_PREFIX}{os.getpid()}-")
    assert os.stat(path).st_mode & 0o777 == 0o700
    drop_scratch(path)
    assert not os.path.exists(path)


def test_directories_of_dead_hosts_are_swept_with_their_contents(tmp_path: Path) -> None:
    """Including files the program made unreadable."""
    stale = tmp_path / f"{SCRATCH_PREFIX}{_dead_pid()}-abc123"
    (stale / "locked").mkdir(parents=True)
    (stale / "locked" / "data").write_text("x")
    (stale / "locked").chmod(0)
    drop_scratch(make_scratch(str(tmp_path)))
    assert list(tmp_path.iterdir()) == []


def test_a_directory_with_this_pid_that_this_process_did_not_make_is_stale(tmp_path: Path) -> None:
    """Containers reuse low pids: a previous run's leftovers can carry ours."""
    (tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-old").mkdir()
    drop_scratch(make_scratch(str(tmp_path)))
    assert list(tmp_path.iterdir()) == []


def test_symlinks_and_other_names_are_left_alone(tmp_path: Path) -> None:
    """A link named like a scratch directory is never followed; unrelated directories stay."""
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("x")
    link = tmp_path / f"{SCRATCH_PREFIX}{_dead_pid()}-link"
    link.symlink_to(target)
    other = tmp_path / f"{SCRATCH_PREFIX}notes"
    other.mkdir()
    drop_scratch(make_scratch(str(tmp_path)))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, link.name, other.name])
    assert (target / "keep.txt").read_text() == "x"


def test_a_directory_swapped_for_a_symlink_after_listing_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local user racing the sweep: even when the symlink check is passed, no mode outside changes."""
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o755)
    outside.chmod(0o755)
    stale = tmp_path / f"{SCRATCH_PREFIX}{_dead_pid()}-race"
    stale.mkdir()
    (stale / "swapped").symlink_to(outside)
    monkeypatch.setattr(os.path, "islink", lambda path: False)  # the race, won: every check sees a directory
    drop_scratch(make_scratch(str(tmp_path)))
    monkeypatch.undo()
    assert (sorted(p.name for p in tmp_path.iterdir()), outside.stat().st_mode & 0o777) == (["outside"], 0o755)
