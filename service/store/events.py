"""The event store: an append-only log of game events in PostgreSQL, through asyncpg.

Its queries are here; the rows as values and the refusals as errors are in
service/store/records.py (re-exported here, where every reader imports them from).

Appends
    ``append`` calls the ``playlog_append`` SQL function (migrations/versions/0001): one round
    trip, one transaction. It locks the game's row in ``streams`` (so appends to one game are
    ordered and appends to different games run in parallel), answers a repeated ``command_id``
    with the events that command appended the first time, refuses a stale ``expected_seq``, and
    chains every event's hash to the previous one. Nothing here uses ``ON CONFLICT DO NOTHING``
    on events: a conflict must surface. A store given a batcher (the service's, on plain
    PostgreSQL) sends appends that arrive together as one call of ``playlog_append_batch``
    (migration 0010, service/store/batching.py): the same promises, item by item, in one transaction.

Durable, on a head the log has (migration 0012)
    An append commits with ``synchronous_commit`` at least 'on' whatever the node's default,
    so it is acknowledged only once flushed on the node holding the game. It refuses to chain
    onto a head (``streams``) that is not the last event of the game's log there
    (``HeadNotInLog``), and refuses every append to a game with an open incident
    (``GameUnderIncident``; ``raise_incident``, service/app/incidents.py).

Reading the whole log
    ``read_all`` pages through every game's events in key order, ``(game_id, seq)``: the
    primary key serves it, so appends maintain no index for it, and the order is the same on one
    node and on Citus shards. It is no subscription: a batch sees what had committed when it ran,
    so an event appended later to a game the cursor has already passed is not read again. Within a
    game it never shows a gap (appends to a game are serialised by its ``streams`` row, each
    committed before the next takes the lock). Readers that must follow new events follow games,
    ``streams.seq`` against their own per-game version, as the read-model projector does
    (service/readmodels/projector.py); ``read_all`` serves benches and tools.

Tamper evidence
    ``hash = sha256(prev_hash || canonical bytes)``, computed by ``playlog_event_digest`` from
    the stored columns. ``verify`` recomputes the chain and names the first seq that breaks it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from projections.personal import Kept
from service.store.batching import CONFLICT, Append, AppendBatcher
from service.store.personal import PersonalTexts
from service.store.pool import Pool
from service.store.records import (
    EVENT_COLUMNS,
    GENESIS_HASH,
    SQLSTATES,
    START,
    AppendResult,
    ChainReport,
    ConcurrencyConflict,
    Cursor,
    GameUnderIncident,
    HeadNotInLog,
    InvalidExpectedSeq,
    NewEvent,
    StoredEvent,
    StoreError,
    append_result,
    event_columns,
    refusal,
    stored_event,
    stored_row,
)
from service.store.seeds import SeedStore

_encoder = msgspec.json.Encoder()

__all__ = [
    "GENESIS_HASH",
    "START",
    "AppendResult",
    "ChainReport",
    "ConcurrencyConflict",
    "Cursor",
    "EventStore",
    "GameUnderIncident",
    "HeadNotInLog",
    "InvalidExpectedSeq",
    "NewEvent",
    "StoreError",
    "StoredEvent",
    "event_columns",
    "stored_event",
]


class EventStore:
    """The log, over a pool (each call takes a connection for itself) or over one connection
    (a caller making several calls in a row, a benchmark writer say, keeps its own)."""

    def __init__(
        self,
        db: Pool | asyncpg.Connection,
        *,
        batcher: AppendBatcher | None = None,
        personal: PersonalTexts | None = None,
    ) -> None:
        """With a ``batcher`` (over a pool, on plain PostgreSQL: Citus delegates each
        ``playlog_append`` to its game's node, which a batch cannot be), appends go through it.
        ``personal``: where the texts are kept (a replica's store reads the primary's)."""
        self.db = db
        self._batcher = batcher
        self.seeds = SeedStore(db)  # the games' secret seeds (migration 0017)
        self.personal = personal or PersonalTexts(db)  # personal texts (migration 0018)

    async def append(
        self,
        game_id: uuid.UUID,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        command_id: str | None = None,
        actor: str | None = None,
        fingerprint: str | None = None,
        due_at: float | None = None,
        command: dict[str, Any] | None = None,
        kept: Sequence[Kept] = (),
        seed: bytes | None = None,
    ) -> AppendResult:
        """Append ``events`` after ``expected_seq``, atomically; see the module docstring.

        ``due_at`` (epoch seconds) is when the game next needs the scheduler, or None.
        ``command``: the command that produced the events, recorded in the metadata of the
        append's first event (projections/commands.py); every event's holds the id and the actor.
        ``kept``: the personal texts whose seals the events and the command carry, kept first
        (service/store/personal.py).
        ``seed``: a new game's secret seed, stored with its create (service/store/seeds.py).
        """
        if self._batcher is None:  # stored first, each in a round trip of its own
            if seed is not None:
                await self.seeds.keep(game_id, seed)
            if kept:
                await self.personal.keep(game_id, kept)
        try:
            result = await self._append(
                game_id, expected_seq, events, command_id, actor, fingerprint, due_at,
                command, kept, seed,
            )  # fmt: skip
        except StoreError:  # refused, so never appended (any other failure may have appended: kept)
            if kept:
                await self.personal.drop(game_id, kept)
            raise
        if not result.duplicate:  # a duplicate's game has the first create's seed
            if seed is not None:
                self.seeds.remember(game_id, seed)
            if kept:
                self.personal.remember(kept)
        if not kept:
            return result
        if result.duplicate:
            await self.personal.drop(game_id, kept)
        return AppendResult(
            events=await self.personal.open(result.events),
            duplicate=result.duplicate,
            fingerprint=result.fingerprint,
        )

    async def _append(
        self,
        game_id: uuid.UUID,
        expected_seq: int,
        events: Sequence[NewEvent],
        command_id: str | None,
        actor: str | None,
        fingerprint: str | None,
        due_at: float | None,
        command: dict[str, Any] | None,
        kept: Sequence[Kept] = (),
        seed: bytes | None = None,
    ) -> AppendResult:
        """``kept``, ``seed``: what the batcher writes with the append (without one, written already)."""
        if expected_seq < 0:
            raise InvalidExpectedSeq(f"Expected seq must be 0 or more, not {expected_seq}.")
        if not events:
            raise ValueError("Nothing to append.")
        fields: dict[str, Any] = {"command_id": command_id, "actor": actor}
        metadata = _encoder.encode(fields if command is None else {**fields, "command": command}).decode()
        # The first event carries the metadata whole; the others its actor (migrations 0023, 0024).
        rest = _encoder.encode({"actor": actor}).decode() if len(events) > 1 else ""
        bodies = [e.data.decode() for e in events]
        if self._batcher is not None:
            rows = await self._batcher.append(
                Append(
                    game_id, expected_seq, command_id, fingerprint,
                    [e.type for e in events], [e.schema_version for e in events], bodies, metadata, due_at,
                    kept, seed,
                )
            )  # fmt: skip
            conflict = rows[0][CONFLICT] if rows else None
            if conflict is not None:
                raise refusal(game_id, expected_seq, conflict, rows[0][1])
            return append_result(rows, game_id, bodies, metadata, rest)
        try:
            rows = await self.db.fetch(
                "SELECT * FROM playlog_append($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                game_id,
                expected_seq,
                command_id,
                fingerprint,
                [e.type for e in events],
                [e.schema_version for e in events],
                bodies,
                metadata,
                due_at,
            )
        except asyncpg.PostgresError as exc:
            conflict = SQLSTATES.get(getattr(exc, "sqlstate", None) or "")
            if conflict is not None:
                raise refusal(game_id, expected_seq, conflict, int(exc.detail or 0)) from None
            raise
        return append_result(rows, game_id, bodies, metadata, rest)

    async def current_seq(self, game_id: uuid.UUID) -> int:
        seq = await self.db.fetchval("SELECT seq FROM streams WHERE game_id = $1", game_id)
        return int(seq or 0)

    async def command_events(
        self, game_id: uuid.UUID, command_id: str
    ) -> tuple[list[StoredEvent], str | None] | None:
        """The events a command appended and its fingerprint, or None if it never was applied."""
        row = await self.db.fetchrow(
            "SELECT first_seq, last_seq, encode(fingerprint, 'hex') AS fingerprint FROM commands"
            " WHERE game_id = $1 AND command_id = $2",
            game_id,
            command_id,
        )
        if row is None:
            return None
        events = await self.read(game_id, row["first_seq"] - 1, row["last_seq"])  # opened
        return events, row["fingerprint"]

    async def key_game(self, caller: str, key: str, game_id: uuid.UUID) -> uuid.UUID:
        """The game ``caller`` first sent ``key`` for (``game_id``, if never before: recorded)."""
        bound: uuid.UUID = await self.db.fetchval(
            "INSERT INTO caller_keys AS k (caller, key, game_id) VALUES ($1, $2, $3)"
            " ON CONFLICT (caller, key) DO UPDATE SET game_id = k.game_id RETURNING k.game_id",
            caller,
            key,
            game_id,
        )
        return bound

    async def raise_incident(
        self, game_id: uuid.UUID, *, reason: str, acknowledged: int, log_seq: int
    ) -> bool:
        """Record that the log lacks seqs up to ``acknowledged`` (it ends at ``log_seq``): the
        game's appends stop until a moderator clears it (service/app/incidents.py). False when the
        game had an open incident already."""
        raised = await self.db.fetchval(
            "INSERT INTO incidents (game_id, reason, acknowledged_seq, log_seq) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (game_id) WHERE cleared_at IS NULL DO NOTHING RETURNING true",
            game_id,
            reason,
            acknowledged,
            log_seq,
        )
        return bool(raised)

    async def due_games(self, limit: int = 100) -> list[uuid.UUID]:
        """Games whose deadline has passed (for the scheduler), but for those under an incident
        (no append until a moderator clears it). Found by their wake time, never after the
        deadline and left behind by a move that puts the deadline later (migration 0025): a game
        woken early gets its wake time moved to its deadline, reread under the row's lock."""
        rows = await self.db.fetch(
            "SELECT s.game_id, coalesce(s.due_at <= now(), false) AS due FROM streams s"
            " WHERE s.wake_at <= now() AND NOT EXISTS"
            " (SELECT 1 FROM incidents i WHERE i.game_id = s.game_id AND i.cleared_at IS NULL)"
            " ORDER BY s.wake_at LIMIT $1",
            limit,
        )
        early = [row["game_id"] for row in rows if not row["due"]]
        if early:
            await self.db.execute(
                "UPDATE streams SET wake_at = due_at WHERE game_id = ANY($1::uuid[])"
                " AND wake_at <= now() AND (due_at IS NULL OR due_at > now())",
                early,
            )
        return [row["game_id"] for row in rows if row["due"]]

    async def read(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[StoredEvent]:
        """One game's events after ``after_seq`` (and up to ``up_to_seq``), in seq order."""
        rows = await self.db.fetch(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq > $2"
            " AND ($3::int IS NULL OR seq <= $3) ORDER BY seq",
            game_id,
            after_seq,
            up_to_seq,
        )
        return await self.personal.open([stored_row(row, game_id) for row in rows])

    async def seat_moves(self, game_id: uuid.UUID, seat: int) -> list[tuple[str, str | None, datetime]]:
        """A seat's joins and leaves in log order: ``(type, the join's occupancy, recorded_at)``."""
        rows = await self.db.fetch(
            "SELECT type, data->>'occupancy', recorded_at FROM events WHERE game_id = $1"
            " AND type IN ('lobby.joined', 'lobby.left') AND (data->>'seat')::int = $2 ORDER BY seq",
            game_id,
            seat,
        )
        return [(row[0], row[1], row[2]) for row in rows]

    async def read_bodies(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[tuple[str, int, str]]:
        """Only ``(type, schema_version, data)`` of one game's events after ``after_seq`` (and up
        to ``up_to_seq``), in seq order: all a fold needs, at a fraction of the cost of full rows
        (the replay hot path)."""
        if up_to_seq is None:
            rows = await self.db.fetch(
                "SELECT type, schema_version, data FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                game_id,
                after_seq,
            )
        else:
            rows = await self.db.fetch(
                "SELECT type, schema_version, data FROM events WHERE game_id = $1 AND seq > $2"
                " AND seq <= $3 ORDER BY seq",
                game_id,
                after_seq,
                up_to_seq,
            )
        return await self.personal.open_bodies(game_id, [(row[0], row[1], row[2]) for row in rows])

    async def read_all(self, after: Cursor = START, limit: int = 1000) -> list[StoredEvent]:
        """Up to ``limit`` events of every game after the cursor, in ``(game_id, seq)`` order
        (see above); ``Cursor.after(batch[-1])`` continues."""
        rows = await self.db.fetch(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE (game_id, seq) > ($1, $2)"
            " ORDER BY game_id, seq LIMIT $3",
            after.game_id,
            after.seq,
            limit,
        )
        return await self.personal.open([stored_row(row) for row in rows])

    async def verify(self, game_id: uuid.UUID) -> ChainReport:
        """Recompute the hash chain of one game and report the first seq that breaks it."""
        rows = await self.db.fetch(
            "SELECT seq, prev_hash, hash, playlog_event_digest(prev_hash, game_id, seq, type,"
            " schema_version, data, metadata, recorded_at) AS digest"
            " FROM events WHERE game_id = $1 ORDER BY seq",
            game_id,
        )
        head = await self.db.fetchrow("SELECT seq, last_hash FROM streams WHERE game_id = $1", game_id)
        running = GENESIS_HASH
        for expected_seq, row in enumerate(rows, start=1):
            reason = None
            if row["seq"] != expected_seq:
                reason = f"seq {expected_seq} is missing"
            elif bytes(row["prev_hash"]) != running:
                reason = "prev_hash does not match the previous event's hash"
            elif bytes(row["digest"]) != bytes(row["hash"]):
                reason = "content does not match its hash"
            if reason:
                return ChainReport(False, len(rows), expected_seq, running.hex(), reason)
            running = bytes(row["hash"])
        if head is not None and (head["seq"] != len(rows) or bytes(head["last_hash"]) != running):
            return ChainReport(
                False, len(rows), len(rows) + 1, running.hex(), "events after this seq are missing"
            )
        return ChainReport(True, len(rows), None, running.hex())
