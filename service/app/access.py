"""Access records: every face-up read of a game by a moderator, on the record (docs/access-records.md).

A moderator's read of a game's hidden information (the audit's routes, a dispute's states) is
recorded here before its answer leaves: who, when (the database's clock), what (the operation
and the log's seq range it showed) and why (a dispute of the game, or a reason code with a short
note). If the record cannot be written the read fails (503 ``access_not_recorded``): nothing is
shown unrecorded. While the game runs a read needs a why (``admit``); after its end it needs none
and is recorded with ``after_end``.

The records are their own hash chain per game (migration 0015), apart from the game's log, so a
read moves no number a seat can count (RULES 3). The seats of a game list them (``listed``) once
it has ended, and at any time the records of a dispute they raised; a seat reads each range in
its own numbering and no chain fields. Anyone reading a finished public game without a moderator
token reads nothing hidden from spectators, so leaves no record.

The list is read in pages (docs/api.md, "Pages"), oldest first, keyed by what the reader already
reads on the page: a page starts after a ``Place``, the last record's ``at`` and how many records
with that same ``at`` this reader has read (``at`` is the database's clock at the append, taken
under the game's lock, so it rises with the chain; two records in one microsecond are the only
tie). The chain's ``n`` is no key: a seat that read it in a cursor would count the moderators'
reads it may not see (RULES 3). So the cursor tells a reader nothing its pages did not.
"""

from __future__ import annotations

import time
import uuid
from decimal import Decimal
from typing import Any

import asyncpg
import msgspec

from domain.access import AFTER_END, DISPUTE, REASONS
from domain.viewers import Seat
from projections.numbering import version_for
from projections.replay import Step
from projections.table import Table
from service.app.audit import moderates, replayed
from service.app.auth import Principal
from service.app.errors import ServiceError
from service.app.games import GameService
from service.runtime.log import get_logger
from service.store.database import UNAVAILABLE_ERRORS

log = get_logger("playlog.access")


class Ask(msgspec.Struct, frozen=True):
    """Why a moderator reads: the request's ``reason``, ``dispute`` and ``note``."""

    reason: str | None = None
    dispute: uuid.UUID | None = None
    note: str | None = None


class Grant(msgspec.Struct, frozen=True):
    """The why that goes on the record."""

    reason: str
    dispute_id: uuid.UUID | None
    note: str | None


class AccessRecord(msgspec.Struct, frozen=True):
    """One record. Moderators read the log's seqs and the chain (``n``, ``prev_hash``,
    ``hash``); a seat reads the range in its own numbering and no chain (None)."""

    at: float
    moderator: str
    operation: str
    seq_from: int
    seq_to: int
    reason: str
    dispute_id: uuid.UUID | None
    note: str | None
    n: int | None
    prev_hash: str | None
    hash: str | None


class Place(msgspec.Struct, frozen=True):
    """Where a page of records starts: after the ``seen`` records of this reader whose ``at`` is
    ``at_us`` (epoch microseconds), and every record before that time."""

    at_us: int
    seen: int


def _refused(code: str, message: str) -> ServiceError:
    return ServiceError(403, code, f"{message} Reasons: {', '.join(REASONS)}.")


def admit(table: Table, ask: Ask) -> Grant:
    """The why to record for a moderator's face-up read of ``table``'s game, or a 403: while the
    game runs, an open dispute of the game named by ``ask.dispute`` or a reason from ``REASONS``
    (the query parameter's type refuses any other reason, service/http/api/params.py)."""
    running = table.status != "finished"
    if ask.dispute is not None:
        dispute = next((d for d in table.disputes if d.dispute_id == str(ask.dispute)), None)
        if dispute is not None and (not running or dispute.status != "resolved"):
            return Grant(DISPUTE, ask.dispute, ask.note)
        if ask.reason is None:
            raise _refused(
                "access_reason_required",
                f"Dispute {ask.dispute} is not an open dispute of this game: give a reason.",
            )
    if ask.reason is not None:
        return Grant(ask.reason, None, ask.note)
    if running:
        raise _refused(
            "access_reason_required",
            "This game is running: name an open dispute of it (dispute=) or give a reason (reason=).",
        )
    return Grant(AFTER_END, None, ask.note)


class Access:
    """Recording and listing; ``seat_lapse``: how long after the end a seat token still reads."""

    def __init__(self, games: GameService, seat_lapse: float) -> None:
        self.games = games
        self.seat_lapse = seat_lapse

    async def face_up(
        self,
        game_id: uuid.UUID,
        principal: Principal | None,
        operation: str,
        ask: Ask,
        shown: tuple[int, int],
        table: Table | None = None,
    ) -> None:
        """Check and record a read of ``game_id`` that showed the log's seqs ``shown`` (first,
        last) face up; nothing for a reader who is not a moderator (it read what anyone may).
        ``table``: the game as the read saw it (default: the game now)."""
        if not moderates(principal):
            return
        assert principal is not None
        if not principal.name:  # a record names who read
            raise ServiceError(403, "moderator_only", "A moderator token with a name is required.")
        if table is None:
            table = await self.games.load(game_id)
        await self.record(game_id, principal.name, operation, shown, admit(table, ask))

    async def record(
        self, game_id: uuid.UUID, moderator: str, operation: str, shown: tuple[int, int], grant: Grant
    ) -> None:
        try:
            await self.games.store.db.fetchrow(
                "SELECT * FROM playlog_access_record($1, $2, $3, $4, $5, $6, $7, $8)",
                game_id,
                moderator,
                operation,
                shown[0],
                shown[1],
                grant.reason,
                grant.dispute_id,
                grant.note,
            )
        except (asyncpg.PostgresError, asyncpg.InterfaceError, *UNAVAILABLE_ERRORS) as exc:
            log.error("access_not_recorded", game_id=str(game_id), operation=operation, error=repr(exc))
            raise ServiceError(
                503, "access_not_recorded", "The read could not be recorded, so it is not shown."
            ) from exc
        log.info(
            "access", game_id=str(game_id), moderator=moderator, operation=operation, reason=grant.reason
        )

    async def listed(
        self, game_id: uuid.UUID, principal: Principal, limit: int, after: Place | None = None
    ) -> tuple[list[AccessRecord], Place | None]:
        """A page of the game's records as ``principal`` may read them, at most ``limit`` after
        ``after``, and where the next page starts (None: this is the last). All of them for a
        moderator; for a seat (its seat token, or the player token of the player who held it)
        those of an ended game, or of a dispute it raised; anyone else is refused."""
        steps = await replayed(self.games, game_id)
        table = steps[-1].table
        seats: list[int] = []
        if not moderates(principal):
            seats = await self._seats(game_id, table, principal)
        raised = [uuid.UUID(d.dispute_id) for d in table.disputes if d.seat in seats]
        start = after or Place(at_us=0, seen=0)
        # The rows this reader may read from ``start`` on: those of its time it has read are the
        # first of them, so skipping that many (OFFSET) skips nothing it has not read.
        rows = await self.games.store.db.fetch(
            "SELECT n, at, moderator, operation, seq_from, seq_to, reason, dispute_id, note,"
            " prev_hash, hash FROM access_records WHERE game_id = $1 AND at >= $2"
            " AND ($3 OR dispute_id = ANY($4::uuid[])) ORDER BY at, n OFFSET $5 LIMIT $6",
            game_id,
            Decimal(start.at_us).scaleb(-6),
            not seats or table.status == "finished",
            raised,
            start.seen,
            limit + 1,
        )
        page = rows[:limit]
        records = [_record(row) for row in page]
        if seats:
            records = [_seen(r, steps, Seat(seats[0])) for r in records]
        if len(rows) <= limit:
            return records, None
        last = _micros(page[-1]["at"])
        tied = sum(1 for row in page if _micros(row["at"]) == last)
        return records, Place(at_us=last, seen=tied + (start.seen if last == start.at_us else 0))

    async def _seats(self, game_id: uuid.UUID, table: Table, principal: Principal) -> list[int]:
        """The seats ``principal`` speaks for in the game (none: 403)."""
        if principal.role == "player" and principal.player_id is not None:
            held = [n for n, player in enumerate(table.players) if player == str(principal.player_id)]
            if held:
                return held
        elif principal.role == "seat" and principal.game_id == game_id and principal.seat is not None:
            seat = principal.seat
            if 0 <= seat < len(table.occupancies) and table.occupancies[seat] == principal.occupancy:
                ended = await self.games.ended_at(game_id, table)
                if ended is not None and ended + self.seat_lapse <= time.time():
                    raise ServiceError(401, "token_expired", "This seat token has expired.")
                return [seat]
        raise ServiceError(
            403, "not_seated", "Only the seats of this game (or the players who held them) and moderators."
        )


def _record(row: Any) -> AccessRecord:
    at: Decimal = row["at"]
    return AccessRecord(
        n=row["n"],
        at=float(at),
        moderator=row["moderator"],
        operation=row["operation"],
        seq_from=row["seq_from"],
        seq_to=row["seq_to"],
        reason=row["reason"],
        dispute_id=row["dispute_id"],
        note=row["note"],
        prev_hash=bytes(row["prev_hash"]).hex(),
        hash=bytes(row["hash"]).hex(),
    )


def _micros(at: Decimal) -> int:
    return int(at.scaleb(6))


def _seen(record: AccessRecord, steps: list[Step], seat: Seat) -> AccessRecord:
    """``record`` for ``seat``: its range counted in the events the seat may see (a read that
    showed only events hidden from it shows as an empty range, ``seq_from`` = ``seq_to`` + 1),
    and no chain (its numbers are the log's)."""
    last = min(record.seq_to, len(steps))
    before = version_for(steps[record.seq_from - 2].table, seat) if 1 < record.seq_from <= last + 1 else 0
    seq_to = version_for(steps[last - 1].table, seat) if last >= 1 else 0
    return msgspec.structs.replace(
        record, seq_from=before + 1, seq_to=seq_to, n=None, prev_hash=None, hash=None
    )
