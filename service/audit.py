"""The audit's reads: who may see a game's whole log without a moderator token (anyone once a
public game is over and its spectator delay has passed, projections/spectator decides), and the
log, its chain, its replay and its export for the audit routes (service/api/audit.py only calls
these; its guard, service/api/guards.py, calls ``open_to_anyone``)."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator

from projections import spectator
from projections.replay import RawEvent, Step, replay
from service import portable
from service.errors import not_found
from service.games import GameService
from service.store import ChainReport, StoredEvent

__all__ = ["ChainReport", "export_lines", "log", "open_to_anyone", "replayed", "verify"]


def _raw(stored: StoredEvent) -> RawEvent:
    return RawEvent(
        seq=stored.seq,
        recorded_at=stored.recorded_at.timestamp(),
        type=stored.type,
        data=stored.data,
        actor=stored.metadata.get("actor"),
        schema_version=stored.schema_version,
    )


async def open_to_anyone(games: GameService, game_id: uuid.UUID) -> bool:
    """Whether anyone may audit the game now (404 if there is no such game)."""
    table = await games.load(game_id, cached_ok=True)
    if table.status != "finished":
        return False
    ended = await games.ended_at(game_id, table)
    assert ended is not None
    return spectator.open_to_anyone(table, ended, time.time())


async def log(games: GameService, game_id: uuid.UUID) -> tuple[list[StoredEvent], list[Step]]:
    """The game's stored events and their replay step by step (404 if there is no such game)."""
    stored = await games.store.read(game_id)
    if not stored:
        raise not_found(f"Game {game_id}")
    return stored, replay(_raw(s) for s in stored)


async def replayed(games: GameService, game_id: uuid.UUID) -> list[Step]:
    """The game's log replayed step by step (404 if there is no such game)."""
    _, steps = await log(games, game_id)
    return steps


async def verify(games: GameService, game_id: uuid.UUID) -> ChainReport:
    """The game's hash chain recomputed (404 if there is no such game)."""
    await games.load(game_id, cached_ok=True)
    return await games.store.verify(game_id)


async def export_lines(games: GameService, game_id: uuid.UUID) -> AsyncIterator[str]:
    """The game as a portable JSON Lines file (docs/export-format.md), line by line (404 if
    there is no such game, before the first line)."""
    await games.load(game_id, cached_ok=True)
    return portable.export_lines(games.store.db, game_id, now=time.time())
