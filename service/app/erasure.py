"""Erasing a person (docs/erasure.md): their texts destroyed, a tombstone in every game they
wrote in, every instance told to forget what it opened.

A person is a ``subject``: ``player:<id>``, or a guest's seat holding ``seat:<occupancy>``.
1. Their texts and salts beside the log are destroyed (service/store/personal.py): every seal of
   theirs opens to their pseudonym (a name) or "(erased)" (a text) from now on. A player's own
   row keeps the pseudonym as its name; their statistics, penalties and rulings stay with it.
2. The idempotency fingerprints of the commands that carried their words are cleared: they hash
   the request's body, words included.
3. Each game gets a tombstone, ``lobby.erased``, through the one loop (``EraseSeats``, keyed so
   that erasing again appends none), naming the seats the person holds there now.
4. Every instance drops the game's tables, feeds and opened texts (``notify_erased``). (The
   planner gathers no statistics on the columns that hold names: migration 0018.)
Nothing of the log changes: every chain, receipt, proof and export made before still verifies.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from domain import personal, registry
from domain.table.commands import EraseSeats
from projections.personal import holder
from service.app.errors import ServiceError
from service.app.games import GameService
from service.runtime.log import get_logger
from service.store.notifications import notify_erased
from service.store.pool import Pool

log = get_logger("playlog.erasure")
# Any personal field of an event (each event type has its own; none shares a name with another's).
_SEALED_FIELD = " OR ".join(
    f"e.data->>'{field}' = ANY($3)"
    for field in sorted({f for fs in registry.PERSONAL_EVENTS.values() for f in fs})
)
_UNFINGERPRINT = (
    "UPDATE commands c SET fingerprint = NULL FROM events e"
    " WHERE e.game_id = ANY($1) AND c.game_id = e.game_id AND c.first_seq = e.seq"
    f" AND e.type = ANY($2) AND ({_SEALED_FIELD})"
)


class Erased(msgspec.Struct, frozen=True):
    """What an erasure did."""

    pseudonym: str
    games: list[uuid.UUID]  # the games the person wrote in, each with its tombstone
    texts: int  # texts destroyed (a name per seat taken, a dispute's reason, a reply)
    # Games the person sat in before texts were kept beside the log (migration 0018): their
    # names are in the hashed events themselves and stay (docs/erasure.md).
    kept: list[uuid.UUID]
    refused: list[uuid.UUID]  # games whose tombstone was refused (an open incident): erased all the same


class Erasure:
    def __init__(self, games: GameService, pool: Pool, *, forget: Callable[[uuid.UUID], None]) -> None:
        """``forget(game_id)``: what this instance drops at once (others hear ``notify_erased``)."""
        self.games = games
        self.pool = pool
        self._forget = forget

    async def player(self, player_id: uuid.UUID) -> Erased:
        """Erase a player: every game they sat in, their name everywhere."""
        subject = f"player:{player_id}"
        pseudonym = personal.pseudonym(subject)
        named = await self.pool.execute(
            "UPDATE players SET name = $2, erased_at = coalesce(erased_at, $3) WHERE player_id = $1",
            player_id,
            pseudonym,
            datetime.now(UTC),
        )
        if named == "UPDATE 0":
            raise ServiceError(404, "not_found", f"Player {player_id} does not exist.")
        sat = await self.pool.fetch("SELECT game_id FROM player_games WHERE player_id = $1", player_id)
        erased = await self._erase(subject)
        kept = sorted({row["game_id"] for row in sat} - set(erased.games))
        return msgspec.structs.replace(erased, kept=kept)

    async def guest(self, game_id: uuid.UUID, occupancy: str) -> Erased:
        """Erase a guest through the seat holding it had (the seat token's occupancy)."""
        if not occupancy:
            raise ServiceError(403, "not_erasable", "This seat token names no holding to erase.")
        return await self._erase(f"seat:{occupancy}")

    async def _erase(self, subject: str) -> Erased:
        store = self.games.store
        pseudonym = personal.pseudonym(subject)
        games, seals = await store.personal.erase(subject)
        if seals:  # the fingerprints of the commands whose first event carries one of the seals
            await self.pool.execute(_UNFINGERPRINT, games, list(registry.PERSONAL_EVENTS), seals)
        refused = []
        for game_id in games:
            if not await self._tombstone(game_id, subject, pseudonym):
                refused.append(game_id)
            self._forget(game_id)
        await notify_erased(self.pool, games)
        log.info("erased", games=len(games), texts=len(seals))
        return Erased(pseudonym=pseudonym, games=games, texts=len(seals), kept=[], refused=refused)

    async def _tombstone(self, game_id: uuid.UUID, subject: str, pseudonym: str) -> bool:
        table = await self.games.load(game_id, fresh=True)
        key = "erase:" + hashlib.sha256(subject.encode()).hexdigest()[:32]  # once per person and game
        seats = [
            i for i in range(len(table.seats)) if table.seats[i] is not None and holder(table, i) == subject
        ]
        try:
            await self.games.execute(
                game_id, EraseSeats(seats=seats, pseudonym=pseudonym), "erasure", command_id=key
            )
        except ServiceError as exc:
            if exc.code != "game_under_incident":
                raise
            return False
        return True
