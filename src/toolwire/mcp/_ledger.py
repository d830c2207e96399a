"""Single use of 2026-07-28 rounds: each `requestState` the server issues can be answered once.

The SDK seals the state and binds it to the tool, the arguments, the server (audience) and,
on authenticated transports, the principal; it cannot tell a first answer from a replay. So
every round the server issues carries a random id, and a request answering it redeems the id
in a `RoundLedger` first: a second request with the same state (from any connection) finds it
spent and is refused like an expired state. The ledger forgets an id once its state has
expired anyway. `MemoryRoundLedger` serves one process; workers that share
`request_state_security` keys must share a ledger too (implement `redeem` on a shared store,
e.g. Redis `SET round NX EX keep_for`), or a replay sent to another worker is accepted there.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable
from typing import Protocol


class RoundLedger(Protocol):
    """Where the server records the rounds already answered."""

    def redeem(self, round_id: str, keep_for: float) -> bool:
        """Record `round_id` as spent for at least `keep_for` seconds; False when it already was."""
        ...


class MemoryRoundLedger:
    """The spent rounds of one process (thread-safe; share one instance between servers of a process)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._spent: set[str] = set()
        self._expiries: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def redeem(self, round_id: str, keep_for: float) -> bool:
        """Record `round_id` as spent for `keep_for` seconds; False when it already was."""
        now = self._clock()
        with self._lock:
            while self._expiries and self._expiries[0][0] <= now:
                self._spent.discard(heapq.heappop(self._expiries)[1])
            if round_id in self._spent:
                return False
            self._spent.add(round_id)
            heapq.heappush(self._expiries, (now + keep_for, round_id))
            return True
