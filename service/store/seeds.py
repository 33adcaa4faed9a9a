"""The servers' secret seeds of games (migration 0017; domain/randomness.py says what they key).

A seed is drawn once, when its game is created (``draw``), and stored with the create's append,
in its statement (service/store/batching.py; a store without a batcher stores it first,
``keep``), so it is committed whenever its commitment is. It never changes (the table refuses
updates; a second create of the game stores nothing): a keyed create that is retried is answered
with the first one's events, and the first one's seed is the game's.
Seeds are read on every command of a game that draws (its deadlines too), so the process keeps
the newest ones; a seed never changes, so a kept one is never stale.
"""

from __future__ import annotations

import secrets
import uuid
from collections import OrderedDict
from typing import Any

from domain.randomness import SEED_BYTES

KEPT = 20_000  # seeds kept in memory (32 bytes each, plus the key)


class SeedStore:
    def __init__(self, db: Any) -> None:
        self.db = db  # a pool or one connection (service/store/pool.py)
        self._kept: OrderedDict[uuid.UUID, bytes] = OrderedDict()

    def _keep(self, game_id: uuid.UUID, seed: bytes) -> bytes:
        self._kept[game_id] = seed
        self._kept.move_to_end(game_id)
        if len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return seed

    @staticmethod
    def draw() -> bytes:
        """A new game's seed."""
        return secrets.token_bytes(SEED_BYTES)

    async def keep(self, game_id: uuid.UUID, seed: bytes) -> None:
        """Store ``seed`` as the game's unless it has one (before its create's append)."""
        await self.db.execute(
            "INSERT INTO game_seeds (game_id, seed) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING",
            game_id,
            seed,
        )

    def remember(self, game_id: uuid.UUID, seed: bytes) -> None:
        """The seed of a game whose create was appended with it."""
        self._keep(game_id, seed)

    async def of(self, game_id: uuid.UUID) -> bytes | None:
        """The game's seed (None: a game created before seeds, or a seeded game)."""
        if (kept := self._kept.get(game_id)) is not None:
            return kept
        seed = await self.db.fetchval("SELECT seed FROM game_seeds WHERE game_id = $1", game_id)
        return None if seed is None else self._keep(game_id, bytes(seed))
