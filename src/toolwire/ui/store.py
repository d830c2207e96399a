"""Where paused runs wait between two requests of a chat.

A run that waits for the user (an approval, a card, a suspended or browser-side call) is
saved under its chat's key as JSON: the agent's exported state and the approval ids handed to
the browser. The next request takes it out atomically, so an answer is used once: a replayed
or concurrent answer finds nothing and is refused. Keep the store per deployment (a database
table, Redis) when the server has several processes or restarts; `MemoryChatStore` is one
process's memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol


class ChatStore(Protocol):
    """Saves and takes the JSON record of a chat's paused run."""

    def save(self, key: str, record: dict[str, Any]) -> None:
        """Keep `record` under `key`, replacing what was there."""
        ...

    def take(self, key: str) -> dict[str, Any] | None:
        """Remove and return the record under `key` in one step (None: there is none)."""
        ...


class MemoryChatStore:
    """A `ChatStore` in this process's memory, keeping at most `max_chats` records (oldest dropped)."""

    def __init__(self, max_chats: int = 10_000) -> None:
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max_chats = max_chats

    def save(self, key: str, record: dict[str, Any]) -> None:
        """Keep `record` under `key`."""
        with self._lock:
            self._records.pop(key, None)
            self._records[key] = record
            while len(self._records) > self._max_chats:
                self._records.popitem(last=False)

    def take(self, key: str) -> dict[str, Any] | None:
        """Remove and return the record under `key`."""
        with self._lock:
            return self._records.pop(key, None)

    def __len__(self) -> int:
        return len(self._records)
