"""A game's summary (``GET /games/{id}``, the lobby's answers): its lobby facts and result as
spectators number them, of the table each caller may see (service/views/spectators.py decides
which table a spectator sees)."""

from __future__ import annotations

import uuid

import msgspec

from domain.viewers import SPECTATOR
from projections.disputes import RuledOutcome, ruled_outcome
from projections.numbering import version_for
from projections.table import Table


class GameSummary(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    version: int  # the public numbering's version: events hidden from spectators are not counted
    public: bool
    spectator_delay: float
    seats: list[str | None]
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome


def summary(game_id: uuid.UUID, table: Table) -> GameSummary:
    return GameSummary(
        game_id=game_id,
        kind=table.kind,
        status=table.status,
        version=version_for(table, SPECTATOR),
        public=table.public,
        spectator_delay=table.spectator_delay,
        seats=list(table.seats),
        winners=list(table.outcome.winners) if table.outcome else None,
        ruled_outcome=ruled_outcome(table),
    )
