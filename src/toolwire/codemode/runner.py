"""The command that starts the sandbox runner: a stdlib-only program passed to `python -I -S -c`.

The runner's modules (`_child_confine`, `_child_program`, `_child_main`) are shipped as source
text inside the command, so the child imports nothing from the host's environment: `-I`
ignores `PYTHON*` variables, the user site and the current directory, `-S` skips `site`, and
only the standard library is importable. Use `runner_command(..., io="stdio")` to start the
runner inside a container or microVM that speaks the protocol over stdin and stdout.
"""

from __future__ import annotations

import base64
import functools
import json
import marshal
import os
import sys
from importlib import resources
from typing import Any, Literal

_MODULES = ("_child_seccomp", "_child_privileges", "_child_confine", "_child_program", "_child_main")

_PRELUDE = """\
import sys, types
sys.modules["ssl"] = None
for _name in ("toolwire", "toolwire.codemode"):
    _package = types.ModuleType(_name)
    _package.__path__ = []
    sys.modules[_name] = _package
"""
_LOAD = """\
for _name, _code in {modules}:
    _module = types.ModuleType(_name)
    sys.modules[_name] = _module
    exec({code}, _module.__dict__)
sys.modules["toolwire.codemode._child_main"].main(sys.argv[1:])
"""


def _sources() -> tuple[tuple[str, str], ...]:
    package = resources.files("toolwire.codemode")
    return tuple((f"toolwire.codemode.{name}", (package / f"{name}.py").read_text("utf-8")) for name in _MODULES)


@functools.cache
def runner_source(*, bytecode: bool = False) -> str:
    """The `-c` program: the runner's modules loaded under their own names.

    With `bytecode`, they travel pre-compiled (marshal, host to child only), which saves the
    child compiling them; only valid for a child running this very interpreter.
    """
    if not bytecode:
        return _PRELUDE + _LOAD.format(modules=repr(_sources()), code='compile(_code, "<" + _name + ">", "exec")')
    compiled = [(name, compile(text, f"<{name}>", "exec", dont_inherit=True, optimize=2)) for name, text in _sources()]
    blob = base64.b64encode(marshal.dumps(compiled)).decode("ascii")
    loader = f"__import__('marshal').loads(__import__('binascii').a2b_base64({blob!r}))"
    return _PRELUDE + _LOAD.format(modules=loader, code="_code")


def default_confinement(timeout: float) -> dict[str, Any]:
    """The runner's own limits when nothing else is given: 512 MiB, the timeout plus a second of CPU."""
    return {
        "memory_bytes": 512 << 20,
        "cpu_seconds": int(timeout) + 1,
        "max_open_files": 64,
        "max_file_bytes": 16 << 20,
        "scratch_bytes": 64 << 20,
    }


def runner_command(
    python: str | None = None,
    *,
    io: Literal["stdio"] | tuple[int, int] = "stdio",
    confine: dict[str, Any] | None = None,
    probe: bool = False,
) -> list[str]:
    """argv that starts the runner: `io` is `"stdio"` or the (read, write) descriptors it inherits.

    `confine` holds the settings of the runner's own confinement (`memory_bytes`,
    `cpu_seconds`, `max_open_files`, `max_file_bytes`); None skips it, for runners started
    inside a boundary that is already trusted.
    """
    options = {"io": io if io == "stdio" else list(io), "confine": confine, "probe": probe}
    interpreter = python or sys.executable
    same = os.path.realpath(interpreter) == os.path.realpath(sys.executable)
    source = runner_source(bytecode=same)
    return [interpreter, "-I", "-S", "-B", "-X", "utf8", "-c", source, json.dumps(options)]
