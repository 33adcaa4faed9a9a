"""The public lobby listing, served from the lobby read model (eventually consistent).

Spectators must not learn from the listing what the spectator delay hides from their stream
(projections/spectator.py decides what and when): a game shows as running only once
``started_at + spectator_delay`` has passed, and as finished (with its winners) only once
``finished_at + spectator_delay`` has; before that it shows its previous status. A ruling that
changed the outcome shows once its own time plus the delay has passed (before that, the outcome
as the previous one released left it). Seat names are lobby information and show at once.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal, cast, get_args

import asyncpg
import msgspec

from projections.disputes import RuledOutcome, ruled_from_row
from projections.spectator import released_sql, ruling_released_sql
from service.app.errors import ServiceError
from service.store.replica import Reads

ListedStatus = Literal["open", "running", "finished"]
STATUSES: tuple[str, ...] = get_args(ListedStatus)
# A page starts after this row: the listing's order, newest first (service/http/paging.py).
ListingKey = tuple[datetime, uuid.UUID]


class ListedGame(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: ListedStatus  # as spectators may know it (see the module docstring)
    spectator_delay: float
    seats: list[str | None]
    seats_taken: int
    seats_total: int
    created_at: float  # epoch seconds
    started_at: float | None = None
    finished_at: float | None = None
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome


class ListingQuery(msgspec.Struct, frozen=True):
    status: ListedStatus | None
    kind: str | None
    limit: int
    after: ListingKey | None = None  # the last row of the previous page
    offset: int = 0  # deprecated: old clients' paging (docs/api.md, "Pages")


class ListingPage(msgspec.Struct, frozen=True):
    games: list[ListedGame]
    last: ListingKey | None  # the key of the page's last game when more follow


def listing_query(
    status: str | None, kind: str | None, limit: int, after: ListingKey | None = None, offset: int = 0
) -> ListingQuery:
    """The query's parameters, checked; a bad one is a 400 with a stable code."""
    if status is not None and status not in STATUSES:
        raise ServiceError(400, "invalid_status", f"status must be one of {', '.join(STATUSES)}.")
    return ListingQuery(cast(ListedStatus | None, status), kind or None, limit, after, offset)


# The ruled winners the listing may show: those of the last ruling released (``rulings`` holds
# each one's time and winners, a JSON null where the original winners stand).
_RULED = f"""
SELECT CASE WHEN jsonb_typeof(r -> 'winners') = 'array'
            THEN ARRAY(SELECT jsonb_array_elements_text(r -> 'winners')::int) END
  FROM jsonb_array_elements(g.rulings) WITH ORDINALITY AS made(r, n)
 WHERE {ruling_released_sql("r", "g.spectator_delay")}
 ORDER BY n DESC LIMIT 1
"""

_LISTING = f"""
SELECT game_id, kind, spectator_delay, seat_names, seats_taken, seats_total, shown,
       created_at AS created, extract(epoch FROM created_at)::float8 AS created_at,
       extract(epoch FROM started_at)::float8 AS started_at,
       extract(epoch FROM finished_at)::float8 AS finished_at,
       winners, ruled_winners
  FROM (
    SELECT g.*,
           CASE WHEN {released_sql("g.finished_at", "g.spectator_delay")} THEN 'finished'
                WHEN {released_sql("g.started_at", "g.spectator_delay")} THEN 'running'
                ELSE 'open'
           END AS shown,
           ({_RULED}) AS ruled_winners
      FROM lobby_games g
     WHERE g.public AND ($1::text IS NULL OR g.kind = $1)
  ) listed
 WHERE ($2::text IS NULL OR shown = $2)
   AND ($5::timestamptz IS NULL OR (listed.created_at, listed.game_id) < ($5, $6::uuid))
 ORDER BY listed.created_at DESC, game_id DESC
 LIMIT $3 OFFSET $4
"""


def _listed(row: asyncpg.Record) -> ListedGame:
    shown: ListedStatus = row["shown"]
    finished = shown == "finished"
    return ListedGame(
        game_id=row["game_id"],
        kind=row["kind"],
        status=shown,
        spectator_delay=row["spectator_delay"],
        seats=list(row["seat_names"]),
        seats_taken=row["seats_taken"],
        seats_total=row["seats_total"],
        created_at=row["created_at"],
        started_at=row["started_at"] if shown != "open" else None,
        finished_at=row["finished_at"] if finished else None,
        winners=list(row["winners"]) if finished and row["winners"] is not None else None,
        ruled_outcome=ruled_from_row(row["ruled_winners"]) if finished else None,
    )


async def fetch_listing(reads: Reads, query: ListingQuery) -> ListingPage:
    """A page of the listing: newest first, keyed by (created_at, game_id) so that games created
    while a client pages never shift the pages it has not read yet."""
    after = query.after or (None, None)
    rows = await reads.fetch(_LISTING, query.kind, query.status, query.limit + 1, query.offset, *after)
    shown = rows[: query.limit]
    last = (shown[-1]["created"], shown[-1]["game_id"]) if len(rows) > query.limit else None
    return ListingPage(games=[_listed(row) for row in shown], last=last)


class Listings:
    """The listing's reads, for the routes and pages (which hold no pool)."""

    def __init__(self, reads: Reads) -> None:
        self.reads = reads

    async def read(self, query: ListingQuery) -> ListingPage:
        return await fetch_listing(self.reads, query)
