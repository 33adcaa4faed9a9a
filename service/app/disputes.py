"""Disputes over HTTP's needs: raise, reply, the moderators' work, and each viewer's reading.

Every change is a command through ``GameService.execute`` (the game's own log: hash-chained,
idempotent with the request's key), with the seat or the moderator as the actor. Readings fold
the log (projections/disputes.py) and cut each dispute for its reader. The queue reads the read
model ``disputes`` (service/readmodels/projector.py); a dispute's game is found through the log's index,
so a moderator never waits for the projector.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import msgspec

from domain.disputes.commands import (
    ModeratorCommand,
    OpenReview,
    RaiseDispute,
    ReleaseRevokedClaim,
    ReplyToQuestion,
    ResolveDispute,
)
from domain.disputes.events import Category, DisputeRaised
from domain.disputes.rules import seat_held_by
from domain.disputes.state import Status as DisputeStatus
from domain.errors import RuleViolation
from domain.viewers import MODERATOR, SPECTATOR, Moderator, Seat, Viewer
from projections import disputes as readings
from projections import table as tables
from projections.disputes import DisputeOut, Record
from projections.numbering import private_seat, sees
from projections.spectator import released_by
from projections.table import Table
from service.app import moderators
from service.app.auth import Principal
from service.app.errors import ServiceError, not_found
from service.app.games import Executed, GameService
from service.app.idempotency import Keyed, disputes_caller, keyed
from service.runtime import metrics
from service.runtime.log import get_logger
from service.store.events import StoredEvent
from service.store.pool import Pool

log = get_logger("playlog.moderation")

Item = tuple[int, float, Any]  # (seq, recorded_at, event)


class DisputeSummary(msgspec.Struct, frozen=True):
    """A dispute in the moderators' queue."""

    dispute_id: uuid.UUID
    game_id: uuid.UUID
    kind: str
    seat: int | None
    category: str
    status: DisputeStatus  # the dispute's, not the game's
    claimed_by: str | None
    verdict: str | None
    action: str | None
    review_of: uuid.UUID | None
    raised_at: datetime
    resolved_at: datetime | None


# A page of the queue starts after this dispute: oldest first (service/http/paging.py).
QueueKey = tuple[datetime, uuid.UUID]


def moderator_name(principal: Principal) -> str:
    if principal.role != "moderator" or not principal.name:
        raise ServiceError(403, "moderator_only", "A moderator token is required.")
    return principal.name


def refuse_seated(table: Table, moderator: str) -> None:
    """A moderator who held a seat in the game reads its disputes only as that seat does."""
    if seat_held_by(table, moderator) is not None:
        raise ServiceError(
            403,
            "moderator_was_seated",
            "You held a seat in this game: read its disputes through your seat, not as a moderator.",
        )


class Disputes:
    def __init__(
        self, games: GameService, pool: Pool, window: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.games = games
        self.pool = pool
        self.window = window  # seconds after a game ends during which its seats may raise
        self.clock = clock

    # -- reading -------------------------------------------------------------------------------

    async def _log(self, game_id: uuid.UUID) -> tuple[Table, list[StoredEvent], list[Item]]:
        stored = await self.games.store.read(game_id)
        if not stored:
            raise not_found(f"Game {game_id}")
        table: Table | None = None
        items: list[Item] = []
        for s in stored:
            table, event = tables.step(table, s.type, s.data, s.schema_version)
            items.append((s.seq, s.recorded_at.timestamp(), event))
        assert table is not None
        return table, stored, items

    @staticmethod
    def _numbers(table: Table, items: list[Item], viewer: Viewer) -> dict[int, int] | None:
        """Log seq -> ``viewer``'s number (None: the same, nothing is hidden from anyone)."""
        if isinstance(viewer, Moderator) or not any(table.private):
            return None
        return readings.numbering((seq, sees(private_seat(table.decider, e), viewer)) for seq, _, e in items)

    def _shown(self, game_id: uuid.UUID, table: Table, items: list[Item], viewer: Viewer) -> list[DisputeOut]:
        if viewer == SPECTATOR and table.spectator_delay > 0:
            until = released_by(self.clock(), table.spectator_delay)
            items = [item for item in items if item[1] <= until]
        numbers = self._numbers(table, items, viewer)
        if not isinstance(viewer, Moderator) or not any(table.private):
            return [readings.shown_to(game_id, r, viewer, numbers) for r in readings.records(items)]
        # A moderator relates each seat's words to the log: the raising seat's numbers too.
        seats: dict[int, dict[int, int] | None] = {}
        out = []
        for r in readings.records(items):
            if r.seat is not None and r.seat not in seats:
                seats[r.seat] = self._numbers(table, items, Seat(r.seat))
            raiser = seats.get(r.seat) if r.seat is not None else None
            out.append(readings.shown_to(game_id, r, viewer, numbers, raiser))
        return out

    def viewer(self, table: Table, game_id: uuid.UUID, principal: Principal | None) -> Viewer:
        """Who reads a game's disputes: a moderator, a seat holder, or (public games) a spectator."""
        if principal is not None and principal.role == "moderator":
            seated = seat_held_by(table, principal.name or "")
            return MODERATOR if seated is None else Seat(seated)
        if principal is not None and principal.role == "seat" and principal.game_id == game_id:
            seat = principal.seat
            if (
                seat is not None
                and 0 <= seat < len(table.occupancies)
                and table.occupancies[seat] == principal.occupancy
            ):
                return Seat(seat)
        if not table.public:
            raise ServiceError(403, "private_game", "This game is private: only its seats see its disputes.")
        return SPECTATOR

    async def listed(self, game_id: uuid.UUID, principal: Principal | None) -> list[DisputeOut]:
        table, _, items = await self._log(game_id)
        return self._shown(game_id, table, items, self.viewer(table, game_id, principal))

    async def one(
        self, game_id: uuid.UUID, dispute_id: str, viewer: Viewer, *, upto: int | None = None
    ) -> DisputeOut:
        """The dispute as ``viewer`` reads it (``upto``: as the log left it at that seq)."""
        table, _, items = await self._log(game_id)
        if upto is not None:
            items = [item for item in items if item[0] <= upto]
        for shown in self._shown(game_id, table, items, viewer):
            if str(shown.dispute_id) == dispute_id:
                return shown
        raise not_found(f"Dispute {dispute_id}")

    async def record(self, game_id: uuid.UUID, dispute_id: str) -> tuple[Table, Record]:
        table, _, items = await self._log(game_id)
        found = next((r for r in readings.records(items) if r.dispute_id == dispute_id), None)
        if found is None:
            raise not_found(f"Dispute {dispute_id}")
        return table, found

    # -- a seat's side ---------------------------------------------------------------------------

    @staticmethod
    def seat_of(game_id: uuid.UUID, principal: Principal) -> int:
        if principal.role != "seat" or principal.game_id != game_id or principal.seat is None:
            raise ServiceError(403, "not_seated", "Only a seat of this game can do this (its seat token).")
        return principal.seat

    async def raise_dispute(
        self,
        game_id: uuid.UUID,
        principal: Principal,
        seqs: list[int],
        category: Category,
        reason: str,
        *,
        key: str | None,
        body: bytes,
    ) -> DisputeOut:
        """``seqs`` are in the seat's numbering; the log gets the log's seqs."""
        seat = self.seat_of(game_id, principal)
        table, stored, items = await self._log(game_id)
        numbers = self._numbers(table, items, Seat(seat))
        by_number = {n: s for s, n in numbers.items()} if numbers is not None else None
        log_seqs = tuple(n if by_number is None else by_number.get(n, 0) for n in seqs)
        closes = None
        if table.finished_version is not None:
            closes = stored[table.finished_version - 1].recorded_at.timestamp() + self.window
        command = RaiseDispute(
            dispute_id=str(uuid.uuid4()),
            seat=seat,
            holder=principal.occupancy,
            seqs=log_seqs,
            category=category,
            reason=reason,
            window_closes_at=closes,
        )
        keys = keyed(key, disputes_caller(f"seat:{seat}"), "raiseDispute", (game_id,), body)
        done = await self._execute(game_id, command, f"seat:{seat}", keys)
        raised = self._raised(table, done)
        if not done.duplicate:
            metrics.DISPUTES_RAISED.labels(category=category).inc()
        return await self.one(game_id, raised, Seat(seat), upto=_last(done))

    async def reply(
        self,
        game_id: uuid.UUID,
        dispute_id: uuid.UUID,
        principal: Principal,
        text: str,
        *,
        key: str | None,
        body: bytes,
    ) -> DisputeOut:
        seat = self.seat_of(game_id, principal)
        command = ReplyToQuestion(
            dispute_id=str(dispute_id), seat=seat, holder=principal.occupancy, text=text
        )
        keys = keyed(key, disputes_caller(f"seat:{seat}"), "replyToDispute", (game_id, dispute_id), body)
        done = await self._execute(game_id, command, f"seat:{seat}", keys)
        return await self.one(game_id, str(dispute_id), Seat(seat), upto=_last(done))

    # -- the moderators' side --------------------------------------------------------------------

    async def game_of(self, dispute_id: uuid.UUID) -> uuid.UUID:
        """The game a dispute belongs to, from the log (index events_dispute_raised)."""
        game_id: uuid.UUID | None = await self.pool.fetchval(
            "SELECT game_id FROM events WHERE type = 'dispute.raised' AND data->>'dispute_id' = $1 LIMIT 1",
            str(dispute_id),
        )
        if game_id is None:
            raise not_found(f"Dispute {dispute_id}")
        return game_id

    async def moderate(
        self,
        dispute_id: uuid.UUID,
        principal: Principal,
        command: Callable[[str, str], ModeratorCommand],
        *,
        operation: str,
        key: str | None,
        body: bytes,
    ) -> DisputeOut:
        """Run a moderator's command on a dispute; one log line with the moderator's name.

        ``command(dispute_id, moderator)`` builds it. Returns the dispute the command is about
        (for a review: the new one) as the command left it.
        """
        name = moderator_name(principal)
        game_id = await self.game_of(dispute_id)
        built = command(str(dispute_id), name)
        outcome = "error"
        caller = disputes_caller(f"moderator:{name}")
        keys = keyed(key, caller, operation, (dispute_id,), body)
        try:
            await self.games.bind_key(caller, key, game_id)  # a moderator's token reaches every game
            try:
                done = await self._execute(game_id, built, f"moderator:{name}", keys)
            except RuleViolation as exc:
                if exc.code != "dispute_claimed" or not await self._release_if_revoked(game_id, dispute_id):
                    raise
                done = await self._execute(game_id, built, f"moderator:{name}", keys)
            outcome = "duplicate" if done.duplicate else "applied"
        except (RuleViolation, ServiceError) as exc:
            outcome = exc.code
            raise
        finally:
            log.info(
                "moderation",
                action=type(built).__name__,
                moderator=name,
                game_id=str(game_id),
                dispute_id=str(dispute_id),
                outcome=outcome,
            )
        if isinstance(built, ResolveDispute) and not done.duplicate:
            self._count_ruling(done.table, str(dispute_id))
        shown = self._raised(done.table, done) if isinstance(built, OpenReview) else str(dispute_id)
        return await self.one(game_id, shown, MODERATOR, upto=_last(done))

    async def release_claims_of(self, name: str) -> int:
        """Release every dispute ``name`` holds, its tokens just revoked: how many were. A claim
        the queue does not show yet is released when another moderator acts on its dispute."""
        rows = await self.pool.fetch(
            "SELECT game_id, dispute_id FROM disputes WHERE status = 'claimed' AND claimed_by = $1", name
        )
        released = 0
        for row in rows:
            released += await self._release_if_revoked(row["game_id"], row["dispute_id"])
        return released

    async def _release_if_revoked(self, game_id: uuid.UUID, dispute_id: uuid.UUID) -> bool:
        """Release the dispute if the moderator holding it has been revoked since (the server
        acts: the claimant's name stays in the event, with why)."""
        table = await self.games.load(game_id)
        held = next((d for d in table.disputes if d.dispute_id == str(dispute_id)), None)
        holder = held.claimed_by if held is not None else None
        if holder is None or not await moderators.is_revoked(self.pool, holder):
            return False
        release = ReleaseRevokedClaim(dispute_id=str(dispute_id), moderator=holder)
        with contextlib.suppress(RuleViolation):  # released or resolved meanwhile: nobody holds it
            await self.games.execute(
                game_id, release, "server", command_id=f"server:release-revoked:{dispute_id}:{table.version}"
            )
        log.warning("claim_released", moderator=holder, game_id=str(game_id), dispute_id=str(dispute_id))
        return True

    @staticmethod
    def _count_ruling(table: Table, dispute_id: str) -> None:
        dispute = next(d for d in table.disputes if d.dispute_id == dispute_id)
        assert dispute.ruling is not None
        metrics.DISPUTES_RESOLVED.labels(category=dispute.category, verdict=dispute.ruling.verdict).inc()
        metrics.DISPUTE_RESOLUTION_SECONDS.observe(max(0.0, dispute.ruling.at - dispute.raised_at))

    async def queue(
        self,
        *,
        status: str | None,
        kind: str | None,
        category: str | None,
        limit: int,
        after: QueueKey | None,
    ) -> tuple[list[DisputeSummary], QueueKey | None]:
        """A page of the queue, oldest first, and the key of its last dispute when more follow."""
        rows = await self.pool.fetch(
            """
            SELECT dispute_id, game_id, kind, seat, category, status, claimed_by, verdict, action,
                   review_of, raised_at, resolved_at
            FROM disputes
            WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR kind = $2)
              AND ($3::text IS NULL OR category = $3)
              AND ($4::timestamptz IS NULL OR (raised_at, dispute_id) > ($4, $5::uuid))
            ORDER BY raised_at, dispute_id
            LIMIT $6
            """,
            status,
            kind,
            category,
            after[0] if after else None,
            after[1] if after else None,
            limit + 1,
        )
        items = [DisputeSummary(**dict(row)) for row in rows[:limit]]
        return items, (items[-1].raised_at, items[-1].dispute_id) if len(rows) > limit else None

    # -- the loop --------------------------------------------------------------------------------

    async def _execute(self, game_id: uuid.UUID, command: Any, actor: str, keys: Keyed | None) -> Executed:
        return await self.games.execute(
            game_id,
            command,
            actor,
            command_id=keys.command_id if keys else None,
            fingerprint=keys.fingerprint if keys else None,
        )

    @staticmethod
    def _raised(table: Table, done: Executed) -> str:
        """The id of the dispute the command raised (a retried request: the first one's)."""
        if done.events:
            event = done.events[0]
        else:
            first = done.stored[0]
            event = tables.decode(table.kind, first.type, first.data, first.schema_version)
        assert isinstance(event, DisputeRaised)
        return event.dispute_id


def _last(done: Executed) -> int | None:
    """The seq of the command's last event: its answer reads the log up to there."""
    return done.stored[-1].seq if done.stored else None
