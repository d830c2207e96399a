"""`LocalSandbox` settings: validation, a missing interpreter, pre-warming and running as another user."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from toolwire.codemode import LocalSandbox, SandboxStartError
from toolwire.codemode.limits import Limits
from toolwire.codemode.runner import runner_command, runner_source

Runner = Any


class TestSettings:
    @pytest.mark.parametrize(
        "field", ["memory_bytes", "scratch_bytes", "max_file_bytes", "max_open_files", "cpu_seconds"]
    )
    @pytest.mark.parametrize("value", [0, -5, 1.5, True])
    def test_sizes_must_be_positive_integers(self, field: str, value: Any) -> None:
        """Bad settings fail when the sandbox is made, naming the setting."""
        with pytest.raises(ValueError, match=f"LocalSandbox `{field}` must be a positive integer, got {value!r}"):
            LocalSandbox(**{field: value})

    def test_a_missing_interpreter_fails_when_isolation_is_measured(self) -> None:
        """Creation of the code-mode tool (which measures the isolation) reports it."""
        with pytest.raises(SandboxStartError, match="LocalSandbox could not start '/nonexistent/python3'"):
            LocalSandbox(python="/nonexistent/python3").isolation()

    def test_an_interpreter_that_cannot_run_the_runner_is_reported(self) -> None:
        """Something that starts but never says `ready` is not a sandbox."""
        with pytest.raises(SandboxStartError, match="'/bin/true' did not start the code-mode runner"):
            LocalSandbox(python="/bin/true").isolation()

    def test_the_child_gets_the_configured_limits(self) -> None:
        """CPU defaults to the run's timeout plus one second; a root host's child becomes 65534."""
        sandbox = LocalSandbox(memory_bytes=1 << 28, max_open_files=32)
        expected: dict[str, Any] = {
            "memory_bytes": 1 << 28,
            "cpu_seconds": 10,
            "max_open_files": 32,
            "max_file_bytes": 16 << 20,
            "scratch_bytes": 64 << 20,
            "parent_pid": os.getpid(),
        }
        if os.geteuid() == 0:
            expected["run_as"] = [65534, 65534]
        assert sandbox.confine_settings(Limits(timeout=9.5)) == expected

    def test_an_explicit_user_replaces_the_automatic_switch(self) -> None:
        """With `user=`, the host starts the child as that user and asks for no switch of its own."""
        settings = LocalSandbox(user="nobody").confine_settings(Limits())
        assert "run_as" not in settings

    def test_only_this_interpreter_gets_the_runner_as_bytecode(self) -> None:
        """Bytecode is valid for one interpreter version only; any other gets the source."""
        assert runner_command(sys.executable, io=(3, 4))[7] == runner_source(bytecode=True)
        assert runner_command("/usr/bin/python3", io=(3, 4))[7] == runner_source()


class TestPrewarm:
    async def test_a_prewarmed_sandbox_runs_consecutive_programs(self, run: Runner) -> None:
        """Each run takes the waiting child and starts the next one; results are unaffected."""
        sandbox = LocalSandbox(prewarm=True)
        try:
            first = await run("import os\nos.getpid()", sandbox=sandbox)
            second = await run("import os\nos.getpid()", sandbox=sandbox)
            assert first.success
            assert second.success
            assert first.result != second.result
        finally:
            await sandbox.aclose()

    async def test_no_scratch_directory_or_process_outlives_a_run(self, run: Runner, tmp_path: Path) -> None:
        """Every scratch directory is removed and every child reaped, whatever the outcome."""
        sandbox = LocalSandbox(scratch_parent=str(tmp_path))
        for code in ("1", "1 / 0", "import os\nos.getpid()"):
            await run(code, sandbox=sandbox)
        assert list(tmp_path.iterdir()) == []

    async def test_aclose_stops_the_waiting_child(self, run: Runner) -> None:
        """No idle process outlives the sandbox's owner."""
        sandbox = LocalSandbox(prewarm=True)
        await run("1", sandbox=sandbox)
        ((_, waiting),) = sandbox._warm.values()
        channel = await waiting
        await sandbox.aclose()
        assert channel.process.returncode is not None
        assert sandbox._warm == {}


def _usable_by_others(path: str) -> bool:
    """Whether `path` and every directory above it can be used by any user."""
    path = os.path.realpath(path)
    while os.stat(path).st_mode & 0o001:
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent
    return False


SHARED_PYTHON = next(
    (p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p) and _usable_by_others(p)), None
)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching the child to another user needs root on the host")
@pytest.mark.skipif(SHARED_PYTHON is None, reason="no Python 3.11+ here that other users may run")
class TestOtherUser:
    async def test_the_child_can_run_as_an_unprivileged_user(self, run: Runner) -> None:
        """A root host drops the child to `nobody`; its scratch directory is still writable."""
        sandbox = LocalSandbox(python=SHARED_PYTHON, user=65534, group=65534)
        code = "import os\nopen('x', 'w').write('ok')\n[os.getuid(), os.getgid(), open('x').read()]"
        result = await run(code, sandbox=sandbox)
        assert result.result == [65534, 65534, "ok"]


OTHER_PYTHONS = sorted(str(p) for p in Path(sys.base_prefix).parent.glob("3.1[2-9]*/bin/python3"))


@pytest.mark.skipif(not OTHER_PYTHONS, reason="no other Python 3.12+ installed next to this interpreter")
@pytest.mark.parametrize("python", OTHER_PYTHONS or ["none"])
async def test_newer_interpreters_run_the_same_runner(run: Runner, python: str) -> None:
    """The runner is plain standard-library Python; a newer interpreter runs it from source."""
    code = "import sys\ntry:\n    1 / 0\nexcept ZeroDivisionError as e:\n    return [sys.version_info[0], str(e)]"
    result = await run(code, sandbox=LocalSandbox(python=python))
    assert result.result == [3, "division by zero"]
