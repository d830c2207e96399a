"""Must-pass security properties of the local sandbox (reference, part 3).

Each test runs a hostile program in a real `LocalSandbox` and checks, on the host, that the
attack failed inside the child and left no trace outside it. Tests that depend on a kernel
feature skip with the reason when the machine lacks it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolwire import create_tool
from toolwire.codemode import CallRecord, CodeModeError, LocalSandbox

pytestmark = pytest.mark.security

Runner = Any
OUT_OF_MEMORY = "out of memory: the sandbox's memory limit was reached"


def program(source: str) -> str:
    return textwrap.dedent(source).strip("\n")


def attempt(statement: str) -> str:
    """A program that runs `statement` and returns `[exception type, errno]` or `"succeeded"`."""
    return program(
        f"""
        import errno, os, socket
        try:
            {statement}
        except BaseException as error:
            return [type(error).__name__, getattr(error, "errno", None)]
        return "succeeded"
        """
    )


@pytest.mark.usefixtures("needs_network_isolation")
class TestNoNetwork:
    async def test_loopback_is_unreachable(self, run: Runner) -> None:
        """A server listening on the host's 127.0.0.1 gets no connection."""
        connections: list[Any] = []

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections.append(reader)
            writer.close()

        server = await asyncio.start_server(accept, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            result = await run(attempt(f"socket.create_connection(('127.0.0.1', {port}), timeout=2)"))
        assert result.result == ["PermissionError", 1]
        assert connections == []

    @pytest.mark.parametrize("address", ["10.0.0.1", "192.168.1.1", "169.254.169.254", "8.8.8.8", "::1"])
    async def test_private_metadata_and_public_addresses_are_unreachable(self, run: Runner, address: str) -> None:
        """No socket can even be created, whatever the destination."""
        result = await run(attempt(f"socket.create_connection(({address!r}, 80), timeout=2)"))
        assert result.result == ["PermissionError", 1]

    async def test_udp_is_blocked_too(self, run: Runner) -> None:
        """Datagram sockets are sockets: refused."""
        result = await run(attempt("socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53))"))
        assert result.result == ["PermissionError", 1]

    async def test_dns_resolution_fails(self, run: Runner) -> None:
        """Name lookups need sockets (and the resolver files), so they fail."""
        result = await run(attempt("socket.getaddrinfo('example.com', 443)"))
        assert result.result[0] == "gaierror"

    async def test_unix_sockets_on_the_host_are_unreachable(self, run: Runner, tmp_path: Path) -> None:
        """A Unix socket the host listens on (think docker.sock) cannot be reached."""
        path = str(tmp_path / "host.sock")
        server = await asyncio.start_unix_server(lambda _r, w: w.close(), path)
        async with server:
            result = await run(attempt(f"socket.socket(socket.AF_UNIX).connect({path!r})"))
        assert result.result == ["PermissionError", 1]


class TestNoHostEnvironment:
    async def test_host_variables_are_absent(self, run: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
        """A secret in the host's environment is not in the child's."""
        monkeypatch.setenv("TOOLWIRE_TEST_SECRET", "hunter2")
        result = await run("import os\ndict(os.environ)")
        assert result.result == {}

    @pytest.mark.usefixtures("needs_filesystem_isolation")
    async def test_the_hosts_environment_cannot_be_read_through_proc(
        self, run: Runner, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`/proc/<host pid>/environ` would leak it; the child cannot open it."""
        monkeypatch.setenv("TOOLWIRE_TEST_SECRET", "hunter2")
        result = await run(attempt("open(f'/proc/{os.getppid()}/environ', 'rb').read()"))
        assert result.result == ["PermissionError", 13]

    async def test_the_childs_own_initial_environment_is_empty(self, run: Runner) -> None:
        """Nothing was passed in, so `/proc/self/environ` holds nothing either (when readable)."""
        code = program(
            """
            try:
                return open("/proc/self/environ", "rb").read().decode()
            except PermissionError:
                return ""
            """
        )
        assert (await run(code)).result == ""


@pytest.mark.usefixtures("needs_filesystem_isolation")
class TestNoHostFiles:
    @pytest.mark.parametrize("path", ["/etc/passwd", "/etc/hostname", "/root", "/home", "/"])
    async def test_system_files_cannot_be_read(self, run: Runner, path: str) -> None:
        """Neither files nor directory listings outside the sandbox's allow-list."""
        operation = f"os.listdir({path!r})" if path in ("/root", "/home", "/") else f"open({path!r}).read()"
        assert (await run(attempt(operation))).result == ["PermissionError", 13]

    async def test_a_host_secret_file_cannot_be_read(self, run: Runner, tmp_path: Path) -> None:
        """The application's own files (config, keys) are out of reach."""
        secret = tmp_path / "api-key.txt"
        secret.write_text("sk-secret")
        assert (await run(attempt(f"open({str(secret)!r}).read()"))).result == ["PermissionError", 13]

    async def test_files_outside_the_scratch_directory_cannot_be_written(self, run: Runner, tmp_path: Path) -> None:
        """Not even in the host's shared temp directory, which rlimits alone do not prevent."""
        target = tmp_path / f"escape-{uuid.uuid4().hex}.txt"
        assert (await run(attempt(f"open({str(target)!r}, 'w').write('x')"))).result == ["PermissionError", 13]
        assert not target.exists()

    async def test_files_outside_the_scratch_directory_cannot_be_deleted(self, run: Runner, tmp_path: Path) -> None:
        """Removing a host file in the shared temp directory is refused too."""
        victim = tmp_path / "keep-me.txt"
        victim.write_text("precious")
        assert (await run(attempt(f"os.remove({str(victim)!r})"))).result == ["PermissionError", 13]
        assert victim.read_text() == "precious"

    async def test_a_symlink_in_the_scratch_directory_does_not_open_host_files(self, run: Runner) -> None:
        """Access is checked on the resolved path."""
        result = await run(attempt("os.symlink('/etc/passwd', 'link'); open('link').read()"))
        assert result.result == ["PermissionError", 13]

    async def test_the_scratch_directory_is_usable_and_gone_afterwards(self, run: Runner) -> None:
        """Read and write in the working directory; after the run it no longer exists on the host."""
        code = program(
            """
            import os
            with open("notes.txt", "w") as handle:
                handle.write("kept for this run")
            return [os.getcwd(), sorted(os.listdir(".")), open("notes.txt").read()]
            """
        )
        result = await run(code)
        scratch, listing, text = result.result
        assert (listing, text) == (["notes.txt"], "kept for this run")
        assert not os.path.exists(scratch)

    async def test_the_standard_library_is_still_importable(self, run: Runner) -> None:
        """The read-only allow-list covers the interpreter's own files, including C extensions."""
        code = "import hashlib, json, decimal, zoneinfo\nhashlib.sha256(b'x').hexdigest()[:8]"
        assert (await run(code)).result == "2d711642"


@pytest.mark.usefixtures("needs_process_isolation")
class TestNoProcesses:
    @pytest.mark.parametrize(
        "statement",
        [
            "os.fork()",
            "import subprocess; subprocess.run(['true'])",
            "os.execv('/bin/true', ['true'])",
            "os.posix_spawn('/bin/true', ['true'], {})",
        ],
    )
    async def test_process_creation_is_refused(self, run: Runner, statement: str) -> None:
        """fork, exec and spawn all fail with EPERM."""
        assert (await run(attempt(statement))).result == ["PermissionError", 1]

    async def test_os_system_and_ctypes_system_run_nothing(self, run: Runner, tmp_path: Path) -> None:
        """smolagents #2094: `libc.system()` through ctypes is no way around it."""
        marker = tmp_path / "pwned"
        code = program(
            f"""
            import ctypes, os
            first = os.system("touch {marker}")
            second = ctypes.CDLL(None).system(b"touch {marker}")
            return [first, second]
            """
        )
        statuses = (await run(code)).result
        assert not marker.exists()
        # glibc reports a shell it could not spawn as exit status 127; others return -1.
        assert all(status in (-1, 127 << 8) for status in statuses)

    async def test_a_fork_bomb_is_contained(self, run: Runner) -> None:
        """The first fork already fails; nothing multiplies."""
        code = program(
            """
            import os
            forks = 0
            try:
                while True:
                    os.fork()
                    forks += 1
            except OSError as error:
                return [forks, error.errno]
            """
        )
        assert (await run(code)).result == [0, 1]

    async def test_threads_cannot_be_started(self, run: Runner) -> None:
        """No threads either, so nothing outlives the event loop."""
        result = await run(attempt("import threading; threading.Thread(target=print).start()"))
        assert result.result == ["RuntimeError", None]

    async def test_host_processes_cannot_be_signalled_or_traced(self, run: Runner) -> None:
        """`kill` and `ptrace` on the host (the child's parent) are refused."""
        code = program(
            """
            import ctypes, os, signal
            libc = ctypes.CDLL(None, use_errno=True)
            try:
                os.kill(os.getppid(), signal.SIGTERM)
                killed = "succeeded"
            except PermissionError as error:
                killed = error.errno
            traced = libc.ptrace(16, os.getppid(), 0, 0)
            return [killed, traced, ctypes.get_errno()]
            """
        )
        assert (await run(code)).result == [1, -1, 1]


class TestResourceLimits:
    async def test_a_memory_hog_gets_memory_error(self, run: Runner) -> None:
        """The address-space limit stops the allocation inside the program."""
        sandbox = LocalSandbox(memory_bytes=256 << 20)
        result = await run("blob = bytearray(2 * 1024**3)", sandbox=sandbox)
        assert result.error == CodeModeError(name="MemoryError", message=OUT_OF_MEMORY, line=1)

    async def test_gradual_memory_growth_is_stopped_and_reported(self, run: Runner) -> None:
        """Growing a list until the limit ends in a clean `MemoryError` result, not a dead host."""
        sandbox = LocalSandbox(memory_bytes=256 << 20)
        code = "chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))"
        result = await run(code, sandbox=sandbox)
        assert result.error == CodeModeError(name="MemoryError", message=OUT_OF_MEMORY, line=3)

    async def test_a_sleep_longer_than_the_timeout_is_killed(self, run: Runner) -> None:
        """Blocking sleeps are cut by the host's clock too."""
        result = await run("import time\ntime.sleep(60)", timeout=1.0)
        assert result.error == CodeModeError(
            name="TimeoutError", message="the program did not finish within 1 s and was stopped"
        )

    async def test_nothing_is_left_running_after_a_timeout(self, run: Runner) -> None:
        """The process group is killed and reaped: the child's pid is gone."""
        code = "import os\nprint(os.getpid())\nwhile True:\n    pass"
        result = await run(code, timeout=3.0)
        pid = int(result.logs[0])
        assert (
            not os.path.exists(f"/proc/{pid}/cmdline") or b"toolwire" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        )

    async def test_a_crash_of_the_interpreter_is_contained(self, run: Runner) -> None:
        """A segfault kills only the child; the host reports it (phoenix#14784's lesson)."""
        code = "import ctypes\nctypes.string_at(0)"
        result = await run(code)
        assert result.error is not None
        assert result.error.name == "NoResultError"
        assert result.error.message.startswith(
            "the sandbox process ended (killed by SIGSEGV) before the program finished"
        )

    async def test_a_large_file_is_refused(self, run: Runner) -> None:
        """Files are capped by size (EFBIG) so the scratch space cannot fill the disk."""
        sandbox = LocalSandbox(max_file_bytes=1 << 20)
        result = await run(attempt("open('big', 'wb').write(b'x' * (4 << 20))"), sandbox=sandbox)
        assert result.result == ["OSError", 27]

    async def test_open_files_are_capped(self, run: Runner) -> None:
        """`RLIMIT_NOFILE` stops descriptor exhaustion."""
        code = program(
            """
            handles = []
            try:
                for i in range(1000):
                    handles.append(open(f"f{i}", "w"))
            except OSError as error:
                return [error.errno, len(handles) < 64]
            """
        )
        assert (await run(code)).result == [24, True]


class TestKnownEscapes:
    """Payloads from smolagents and n8n advisories: harmless here because they only run in the child."""

    @pytest.mark.usefixtures("needs_process_isolation")
    async def test_class_hierarchy_traversal_to_popen_runs_nothing(self, run: Runner, tmp_path: Path) -> None:
        """CVE-2025-9959 / CVE-2026-4963: reaching `subprocess.Popen` through `__subclasses__`."""
        marker = tmp_path / "pwned"
        code = program(
            f"""
            popen = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "Popen"][0]
            try:
                popen(["touch", "{marker}"])
            except OSError as error:
                return [popen.__module__, error.errno]
            """
        )
        assert (await run(code)).result == ["subprocess", 1]
        assert not marker.exists()

    async def test_format_string_introspection_only_reaches_child_objects(self, run: Runner) -> None:
        """smolagents PR #2271: `str.format` field paths; the host receives a plain string."""
        result = await run("'{0.__class__.__bases__[0].__subclasses__}'.format(1)")
        assert result.result.startswith("<built-in method __subclasses__ of type object at 0x")

    @pytest.mark.usefixtures("needs_filesystem_isolation")
    async def test_a_hostile_exception_is_formatted_only_in_the_child(self, run: Runner, tmp_path: Path) -> None:
        """CVE-2026-0863: formatting an attacker-built exception; here its code runs confined."""
        marker = tmp_path / "pwned"
        code = program(
            f"""
            class Evil(Exception):
                def __str__(self):
                    try:
                        open("{marker}", "w").write("x")
                    except OSError as error:
                        return f"blocked {{error.errno}}"
                    return "escaped"

            raise Evil()
            """
        )
        result = await run(code)
        assert result.error == CodeModeError(name="Evil", message="blocked 13", line=9)
        assert not marker.exists()

    async def test_a_reduce_payload_is_never_unpickled(self, run: Runner, tmp_path: Path) -> None:
        """CVE-2025-14931: a `__reduce__` object cannot cross; only JSON can."""
        marker = tmp_path / "pwned"
        code = program(
            f"""
            import os
            class Payload:
                def __reduce__(self):
                    return (os.system, ("touch {marker}",))
            return Payload()
            """
        )
        result = await run(code)
        assert result.error is not None
        assert result.error.message.endswith("Object of type Payload is not JSON serializable")
        assert not marker.exists()

    async def test_a_time_bomb_destructor_never_runs_on_the_host(self, run: Runner, tmp_path: Path) -> None:
        """smolagents #2395: objects with `__del__` stay in the child, which is killed after `done`."""
        marker = tmp_path / "pwned"
        code = program(
            f"""
            class Bomb:
                def __del__(self):
                    open("{marker}", "w").write("boom")
            keep = Bomb()
            "finished"
            """
        )
        assert (await run(code)).result == "finished"
        assert not marker.exists()


class TestForgedFrames:
    """The program can write to the protocol pipe itself; the host treats what it writes as untrusted."""

    WRITE = "import json, os, sys\nfd = json.loads(sys.argv[1])['io'][1]\n"

    async def test_a_forged_call_to_an_unconfigured_tool_is_refused(self, run: Runner) -> None:
        """A host tool the program was not given never runs, even when called by raw frame."""
        ran: list[str] = []
        host_tools = {
            "admin": create_tool(id="admin", description="Dangerous.", execute=lambda _i: ran.append("admin")),
            "echo": create_tool(id="echo", description="Echo.", execute=lambda value: value),
        }
        forged = '{"jsonrpc":"2.0","id":999,"method":"call","params":{"tool":"admin","input":{}}}\\n'
        code = self.WRITE + f"os.write(fd, b'{forged}')\nawait external_echo({{'after': 'forgery'}})"
        result = await run(code, {"echo": host_tools["echo"]})
        assert ran == []
        assert result.calls == (CallRecord(tool="admin", status="refused"), CallRecord(tool="echo", status="ok"))
        assert result.result == {"after": "forgery"}

    async def test_an_oversized_frame_stops_the_run(self, run: Runner) -> None:
        """The host stops reading at the cap and kills the child; earlier logs survive."""
        from toolwire.codemode import Limits

        code = "print('before')\n" + self.WRITE + "os.write(fd, b'x' * 200_000)\nimport time\ntime.sleep(5)"
        result = await run(code, limits=Limits(max_frame_bytes=100_000, max_result_bytes=50_000))
        assert result.logs == ("before",)
        assert result.error == CodeModeError(
            name="ProtocolError", message="the sandbox broke the protocol (a frame over 100000 bytes) and was stopped"
        )

    async def test_malformed_json_stops_the_run(self, run: Runner) -> None:
        """Garbage on the pipe is a violation, not something to guess at."""
        code = self.WRITE + "os.write(fd, b'{garbage\\n')\nimport time\ntime.sleep(5)"
        result = await run(code)
        assert result.error == CodeModeError(
            name="ProtocolError",
            message="the sandbox broke the protocol (a frame that is not JSON (JSONDecodeError)) and was stopped",
        )

    async def test_only_the_first_done_counts(self, run: Runner) -> None:
        """A program can end its own run early with a forged `done`, and nothing after it is read."""
        forged = '{"jsonrpc":"2.0","method":"done","params":{"ok":true,"result":"forged"}}\\n'
        code = self.WRITE + f"os.write(fd, b'{forged}')\nos.write(fd, b'{forged.replace('forged', 'second')}')\n'real'"
        assert (await run(code)).result == "forged"


class TestHostHygiene:
    def test_no_host_module_deserializes_or_evaluates(self) -> None:
        """Host modules import no pickle-like module and call no eval, exec or marshal.load(s).

        (`runner.py` may `marshal.dumps` the runner for the child: host to child only.)
        """
        import ast

        import toolwire.codemode as package

        root = Path(package.__file__).parent
        host_modules = [p for p in root.glob("*.py") if not p.name.startswith("_child_")]
        offenders: list[str] = []
        for path in host_modules:
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                    risky = {"pickle", "shelve", "dill", "cloudpickle", "jsonpickle"}
                    offenders += [f"{path.name}: import {n}" for n in names if n.split(".")[0] in risky]
                if isinstance(node, ast.Call):
                    function = node.func
                    if isinstance(function, ast.Name) and function.id in {"eval", "exec"}:
                        offenders.append(f"{path.name}: {function.id}()")
                    if isinstance(function, ast.Attribute) and function.attr in {"load", "loads"}:
                        owner = function.value
                        if isinstance(owner, ast.Name) and owner.id in {"marshal", "pickle"}:
                            offenders.append(f"{path.name}: {owner.id}.{function.attr}()")
        assert offenders == []

    def test_the_child_gets_an_empty_environment_and_only_its_pipes(self) -> None:
        """The spawn options: no env, no stdin, own session, nothing but the two protocol fds."""
        from toolwire.codemode.local import _spawn_options

        options = _spawn_options("/tmp/scratch", (5, 6), None, None)
        assert options == {
            "pass_fds": (5, 6),
            "env": {},
            "cwd": "/tmp/scratch",
            "stdin": -3,
            "stdout": -3,
            "stderr": -1,
            "start_new_session": True,
        }

    def test_the_runner_starts_isolated_from_the_hosts_python_setup(self) -> None:
        """`-I -S -B`: no PYTHON* variables, no user site, no site-packages, no cwd on sys.path."""
        from toolwire.codemode import runner_command

        command = runner_command("/usr/bin/python3", io=(3, 4))
        assert command[:7] == ["/usr/bin/python3", "-I", "-S", "-B", "-X", "utf8", "-c"]

    async def test_sockets_are_not_used_by_the_host_for_the_channel(self) -> None:
        """The protocol runs over pipes, so there is no port anyone else could connect to."""
        assert socket.AF_UNIX  # the host creates no socket: `LocalSandbox.open` uses os.pipe only
        import inspect

        from toolwire.codemode import local

        assert "socket" not in inspect.getsource(local)
