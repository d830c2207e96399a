"""What a sandbox actually enforces, and the sentence that tells the model so.

The instructions are generated from an `Isolation`, never from a hope: Mastra's stdio
transport once told the model "no filesystem, network or process access" while the program
ran as plain Node on the host (mastra#20329). `LocalSandbox` measures its `Isolation` by
starting a confined child; a transport that runs code elsewhere (a container, a microVM)
declares it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolwire.exceptions import ConfigurationError

Guarantee = Literal["network", "filesystem", "processes", "environment"]
GUARANTEES: tuple[Guarantee, ...] = ("network", "filesystem", "processes", "environment")


class IsolationError(ConfigurationError):
    """The sandbox cannot give a guarantee that was required of it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Isolation:
    """The guarantees a sandbox gives the host about the program it runs."""

    network: bool
    """True: the program cannot open any network connection (loopback, private or public) nor resolve names."""
    filesystem: bool
    """True: the program sees only its scratch directory plus read-only runtime files (stdlib, shared libraries)."""
    processes: bool
    """True: the program cannot start processes or threads, nor signal or trace other processes."""
    environment: bool
    """True: no host environment variable is visible to the program."""
    boundary: str
    """Where the program runs, in words the model can read (e.g. "a separate, locked-down Python process")."""
    layers: tuple[str, ...] = ()
    """What enforces the guarantees, for the host's logs (e.g. `seccomp`, `landlock-abi-7`)."""
    python: str | None = None
    """The interpreter version inside the sandbox, e.g. `3.11`."""
    limits: Mapping[str, Any] = field(default_factory=dict)
    """Resource limits the sandbox applies (`memory_bytes`, `cpu_seconds`, ...), for the instructions."""

    def missing(self, required: Collection[Guarantee]) -> list[Guarantee]:
        """The required guarantees this isolation does not give."""
        return [g for g in GUARANTEES if g in required and not getattr(self, g)]

    def require(self, required: Collection[Guarantee], *, who: str) -> None:
        """Fail unless every required guarantee holds.

        Raises:
            IsolationError: a required guarantee is missing; the message names it and `who`.
        """
        unknown = sorted(set(required) - set(GUARANTEES))
        if unknown:
            raise IsolationError(f"{who}: unknown guarantees {unknown}; known: {list(GUARANTEES)}")
        missing = self.missing(required)
        if missing:
            raise IsolationError(
                f"{who} cannot isolate {', '.join(missing)} on this machine "
                f"(enforced layers: {', '.join(self.layers) or 'none'}); refusing to run code without it"
            )

    def covers(self, promised: Isolation) -> bool:
        """Whether this isolation gives at least every guarantee `promised` gives."""
        return not any(getattr(promised, g) and not getattr(self, g) for g in GUARANTEES)

    def describe(self) -> str:
        """Sentences for the model: what the program can and cannot reach."""
        runtime = f"Python {self.python}, standard library only" if self.python else "standard library only"
        can_not = []
        if self.network:
            can_not.append("no network access")
        if self.environment:
            can_not.append("no environment variables")
        if self.processes:
            can_not.append("no subprocesses or threads")
        sentences = [f"The program runs in {self.boundary} ({runtime})."]
        if can_not:
            sentences.append("It has " + _join(can_not) + ".")
        if self.filesystem:
            sentences.append(
                "Its working directory is a fresh, empty scratch directory deleted after the run; apart from "
                "reading the Python standard library and the shared libraries it loads, it cannot read or write any "
                "other file."
            )
        else:
            sentences.append(
                "Its working directory is a fresh scratch directory deleted after the run; the sandbox does "
                "not isolate other files, so use only that directory."
            )
        if not self.network:
            sentences.append("The sandbox does not block the network: do not make network requests.")
        memory = self.limits.get("memory_bytes")
        if isinstance(memory, int):
            sentences.append(f"Memory is limited to {memory // (1 << 20)} MiB.")
        return " ".join(sentences)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
