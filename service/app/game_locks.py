"""One command of a game decided at a time in this process (across processes, the append's
expected seq guards the log).

A game's lock lives while a command holds it or waits for it, and is dropped when the last one
leaves, so that idle games cost nothing. Counting its users in a plain dict is what a
``WeakValueDictionary`` of locks did, without a weak reference made and collected per command.
"""

from __future__ import annotations

import asyncio
import uuid
from types import TracebackType


class GameLocks:
    def __init__(self) -> None:
        self._held: dict[uuid.UUID, GameLock] = {}

    def of(self, game_id: uuid.UUID) -> GameLock:
        """The game's lock, to be entered (``async with``)."""
        lock = self._held.get(game_id)
        if lock is None:
            lock = self._held[game_id] = GameLock(self._held, game_id)
        return lock

    def __len__(self) -> int:
        """The games whose lock is held or waited for."""
        return len(self._held)


class GameLock:
    __slots__ = ("_game_id", "_held", "_lock", "_users")

    def __init__(self, held: dict[uuid.UUID, GameLock], game_id: uuid.UUID) -> None:
        self._held = held
        self._game_id = game_id
        self._lock = asyncio.Lock()
        self._users = 0  # holding or waiting

    async def __aenter__(self) -> None:
        self._users += 1
        try:
            await self._lock.acquire()
        except BaseException:  # cancelled while waiting
            self._leave()
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._lock.release()
        self._leave()

    def _leave(self) -> None:
        self._users -= 1
        if not self._users:
            del self._held[self._game_id]
