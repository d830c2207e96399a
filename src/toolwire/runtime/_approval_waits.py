"""Calls awaiting an approval answer in process (`approvals="wait"`), woken from any thread or task.

An answer may come from another thread (a UI handler, a web server) than the loop the call
waits in, so waking goes through the waiting loop's `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio

from .abort import AbortSignal, Interrupted, await_interruptible
from .approvals import Decision


class ApprovalWaits:
    """One future per approval id, alive while its call waits."""

    def __init__(self) -> None:
        self._futures: dict[str, asyncio.Future[Decision]] = {}

    def __contains__(self, approval_id: object) -> bool:
        return approval_id in self._futures

    def ids(self) -> set[str]:
        """The approval ids calls wait on now (their state lives in this process only)."""
        return set(self._futures)

    async def wait(self, approval_id: str, abort: AbortSignal | None = None) -> bool:
        """True once `wake` answers this id; False when `abort` fires first (nobody will answer in time)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._futures[approval_id] = future
        try:
            await (future if abort is None else await_interruptible(future, abort))
        except Interrupted:
            return False
        finally:
            self._futures.pop(approval_id, None)
        return True

    def wake(self, approval_id: str, decision: Decision) -> None:
        """Wake the call waiting on this id, if any (safe from any thread)."""
        future = self._futures.get(approval_id)
        if future is not None:
            future.get_loop().call_soon_threadsafe(_resolve, future, decision)


def _resolve(future: asyncio.Future[Decision], decision: Decision) -> None:
    if not future.done():
        future.set_result(decision)
