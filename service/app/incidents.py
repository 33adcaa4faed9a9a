"""Incidents: a game whose log lacks seqs the service had acknowledged, stopped for moderators.

The service raises one (``GameService``, through ``EventStore.raise_incident``) when it finds
its cache ahead of the log, or the game's head in ``streams`` not the last event of its log:
what players were told happened is not in the log. Deciding again over those seqs would give
them other events under the same numbers, so the game stops instead: every append to it is
refused (``game_under_incident``, SQLSTATE PL423 in the append, migration 0012) until a
moderator, having looked at the game, clears the incident. Clearing accepts the log as it
stands: the head is set to the log's last event and the game goes on from there.

Moderators list the open ones (``GET /moderation/incidents``) and clear one
(``POST /moderation/incidents/{game_id}/clear``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

import msgspec

from service.app.errors import ServiceError
from service.runtime.log import get_logger
from service.store.pool import Pool

log = get_logger("playlog.moderation")

GENESIS_HASH = bytes(32)


class Incident(msgspec.Struct, frozen=True):
    """One incident: the seqs ``log_seq + 1`` to ``acknowledged_seq`` were missing."""

    game_id: uuid.UUID
    raised_at: datetime
    reason: str  # cache_ahead_of_log, head_not_in_log
    acknowledged_seq: int
    log_seq: int
    cleared_at: datetime | None = None
    cleared_by: str | None = None
    note: str | None = None


_COLUMNS = "game_id, raised_at, reason, acknowledged_seq, log_seq, cleared_at, cleared_by, note"


def under_incident(game_id: uuid.UUID) -> ServiceError:
    return ServiceError(
        409,
        "game_under_incident",
        f"Game {game_id} is stopped: its log lacks moves that were acknowledged; a moderator must clear it.",
    )


class Incidents:
    """The moderators' side: the open incidents, and clearing one."""

    def __init__(self, pool: Pool, forget: Callable[[uuid.UUID], None]) -> None:
        """``forget`` drops a game's cached table (``GameService.forget``)."""
        self._pool = pool
        self._forget = forget

    async def open(self) -> list[Incident]:
        """The open incidents, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM incidents WHERE cleared_at IS NULL ORDER BY raised_at"
        )
        return [Incident(**dict(row)) for row in rows]

    async def clear(self, game_id: uuid.UUID, moderator: str, note: str) -> Incident:
        """Clear the game's open incident and set its head to the log's last event, in one
        transaction under the game's lock; 404 ``no_open_incident`` when it has none."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT 1 FROM streams WHERE game_id = $1 FOR UPDATE", game_id)
            row = await conn.fetchrow(
                "UPDATE incidents SET cleared_at = now(), cleared_by = $2, note = $3"
                f" WHERE game_id = $1 AND cleared_at IS NULL RETURNING {_COLUMNS}",
                game_id,
                moderator,
                note,
            )
            if row is None:
                raise ServiceError(404, "no_open_incident", f"Game {game_id} has no open incident.")
            last = await conn.fetchrow(
                "SELECT seq, hash FROM events WHERE game_id = $1 ORDER BY seq DESC LIMIT 1", game_id
            )
            await conn.execute(
                "UPDATE streams SET seq = $2, last_hash = $3 WHERE game_id = $1",
                game_id,
                last["seq"] if last else 0,
                bytes(last["hash"]) if last else GENESIS_HASH,
            )
        self._forget(game_id)
        log.warning("incident_cleared", game_id=str(game_id), moderator=moderator)
        return Incident(**dict(row))
