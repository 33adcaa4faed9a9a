"""The read-model projector: follows the whole log and keeps the lobby list and player statistics.

How it stays exact
    It follows ``store.read_all`` from a checkpoint ``(tx_id, position)`` kept in
    ``projector_checkpoints``, so a transaction that commits late is delayed, never skipped. Each
    batch is written in ONE transaction that also moves the checkpoint, after checking that the
    checkpoint is still where this projector read it from (compare-and-set): a crash replays the
    batch, a second projector (or a rebuild) that moved the checkpoint makes this one reload,
    and nothing is ever counted twice. The lobby row's ``version`` records how far each game was
    projected, so an event a game committed out of order is folded once, in seq order.

Which instance projects
    One per database: the live projector takes a session-level ``pg_try_advisory_lock`` on a
    connection of its own and holds it while it runs; the others retry every ``retry_interval``
    seconds and take over when that connection goes away. It is woken by the listener on every
    append anywhere, and polls as a fallback.

Rebuilding
    ``rebuild`` takes the pause lock exclusively (each live batch takes it shared, so the live
    projector pauses between two batches), truncates the read models and resets the checkpoint
    in one transaction, then replays the whole log with the same batch loop. Interrupted, it
    leaves consistent rows and a checkpoint the live projector simply continues from; run again,
    it starts over from an empty read model.

The games' tables come from the one cache (service/tables.py, shared with the commands and the
feeds), at the version each lobby row says was projected; what one event changes is decided by
the pure ``projections.read_models``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Callable, Sequence

import asyncpg
import msgspec

from projections import read_models
from projections import table as tables
from projections.read_models import BatchChanges
from projections.table import Table
from service.log import get_logger
from service.notifications import Listener
from service.store import START, Cursor, EventStore, StoredEvent
from service.tables import Tables
from service.tasks import Backoff, log_failure, stop

log = get_logger("playlog.projector")

NAME = "read_models"
# Advisory lock keys (bigint): one live projector per database; rebuilds pause it.
LEADER_LOCK = 0x706C_6179_0001
PAUSE_LOCK = 0x706C_6179_0002

ProgressCallback = Callable[[int, int], None]  # (events read so far, events in the log at the start)


class CheckpointMoved(Exception):
    """Someone else moved this projector's checkpoint (a rebuild): reload it and go on."""


class RebuildReport(msgspec.Struct, frozen=True):
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


_UPSERT_GAME = """
INSERT INTO lobby_games AS g (game_id, kind, status, public, spectator_delay, seat_names, seats_taken,
                              seats_total, created_at, started_at, finished_at, winners, version)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (game_id) DO UPDATE SET
    kind = EXCLUDED.kind, status = EXCLUDED.status, public = EXCLUDED.public,
    spectator_delay = EXCLUDED.spectator_delay, seat_names = EXCLUDED.seat_names,
    seats_taken = EXCLUDED.seats_taken, seats_total = EXCLUDED.seats_total,
    started_at = coalesce(g.started_at, EXCLUDED.started_at),
    finished_at = coalesce(g.finished_at, EXCLUDED.finished_at),
    winners = EXCLUDED.winners, version = EXCLUDED.version
WHERE g.version < EXCLUDED.version
"""

_UPSERT_STATS = """
INSERT INTO player_stats AS s (player_id, kind, played, won) VALUES ($1::text::uuid, $2, $3, $4)
ON CONFLICT (player_id, kind) DO UPDATE SET played = s.played + EXCLUDED.played, won = s.won + EXCLUDED.won
"""


class ReadModels:
    """Folds batches of the log into the read-model tables; the state behind both loops."""

    def __init__(self, store: EventStore, *, name: str = NAME, tables: Tables | None = None) -> None:
        self.store = store
        self.name = name
        self.tables = tables or Tables(store)
        self.tables.forget_behind()  # another projector may have gone on meanwhile

    async def checkpoint(self, conn: asyncpg.Connection) -> Cursor:
        """The stored checkpoint (created at the start of the log if there is none)."""
        await conn.execute(
            "INSERT INTO projector_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", self.name
        )
        return await self._stored_cursor(conn)

    async def reset(self, conn: asyncpg.Connection) -> None:
        """Empty the read models and move the checkpoint back to the start, atomically."""
        async with conn.transaction():
            await conn.execute("TRUNCATE lobby_games, player_stats")
            await conn.execute(
                "INSERT INTO projector_checkpoints AS c (name) VALUES ($1) ON CONFLICT (name)"
                " DO UPDATE SET tx_id = '0', position = 0, updated_at = now()",
                self.name,
            )
        self.tables.forget_behind()

    async def step(self, conn: asyncpg.Connection, cursor: Cursor, limit: int) -> tuple[Cursor, int]:
        """Project the next batch after ``cursor``; returns the new cursor and the events read."""
        events = await self.store.read_all(cursor, limit)
        if not events:
            await self._check_checkpoint(conn, cursor)  # a rebuild may have moved it meanwhile
            return cursor, 0
        after = Cursor(events[-1].tx_id, events[-1].position)
        batch, staged = await self._changes(conn, events)
        await self._commit(conn, cursor, after, batch)
        self._remember(staged)
        return after, len(events)

    # -- deciding ------------------------------------------------------------------------------

    async def _changes(
        self, conn: asyncpg.Connection, events: Sequence[StoredEvent]
    ) -> tuple[BatchChanges, dict[uuid.UUID, Table | None]]:
        """The batch's changes, and the games' tables after it (cached only once committed)."""
        missing = list({e.game_id for e in events if self.tables.behind(e.game_id) is None})
        projected = await self._projected_versions(conn, missing) if missing else {}
        staged: dict[uuid.UUID, Table | None] = {}
        batch = BatchChanges()
        for stored in events:
            game_id = stored.game_id
            if game_id in staged:
                table = staged[game_id]
            elif (behind := self.tables.behind(game_id)) is not None:
                table = behind
            else:
                table = await self._load(game_id, projected.get(game_id, 0))
            version = table.version if table is not None else 0
            if stored.seq <= version:
                staged[game_id] = table  # committed out of order, already folded
                continue
            if stored.seq > version + 1:  # earlier events of this game commit after this one
                for gap in await self.store.read(game_id, version, stored.seq - 1):
                    table = self._apply(batch, table, gap)
            staged[game_id] = self._apply(batch, table, stored)
        return batch, staged

    @staticmethod
    def _apply(batch: BatchChanges, before: Table | None, stored: StoredEvent) -> Table:
        after, _ = tables.step(before, stored.type, stored.data, stored.schema_version)
        batch.add(read_models.changes(stored.game_id, before, after, stored.recorded_at))
        return after

    async def _projected_versions(
        self, conn: asyncpg.Connection, game_ids: list[uuid.UUID]
    ) -> dict[uuid.UUID, int]:
        rows = await conn.fetch(
            "SELECT game_id, version FROM lobby_games WHERE game_id = ANY($1::uuid[])", game_ids
        )
        return {row["game_id"]: row["version"] for row in rows}

    async def _load(self, game_id: uuid.UUID, version: int) -> Table | None:
        """The game's table at ``version`` (what the read model already holds)."""
        return await self.tables.fold(game_id, version) if version else None

    def _remember(self, staged: dict[uuid.UUID, Table | None]) -> None:
        for game_id, table in staged.items():
            if table is not None:
                self.tables.offer(game_id, table, behind=True)

    # -- writing -------------------------------------------------------------------------------

    async def _stored_cursor(self, conn: asyncpg.Connection, *, for_update: bool = False) -> Cursor:
        row = await conn.fetchrow(
            'SELECT tx_id::text::bigint AS tx_id, "position" FROM projector_checkpoints WHERE name = $1'
            + (" FOR UPDATE" if for_update else ""),
            self.name,
        )
        if row is None:
            return START
        return Cursor(row["tx_id"], row["position"])

    async def _check_checkpoint(
        self, conn: asyncpg.Connection, expected: Cursor, *, for_update: bool = False
    ) -> None:
        stored = await self._stored_cursor(conn, for_update=for_update)
        if stored != expected:
            self.tables.forget_behind()
            raise CheckpointMoved(f"checkpoint is at {stored}, this projector read from {expected}")

    async def _commit(
        self, conn: asyncpg.Connection, before: Cursor, after: Cursor, batch: BatchChanges
    ) -> None:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock_shared($1)", PAUSE_LOCK)
            await self._check_checkpoint(conn, before, for_update=True)
            if batch.lobby:
                await conn.executemany(
                    _UPSERT_GAME,
                    [
                        (
                            row.game_id,
                            row.kind,
                            row.status,
                            row.public,
                            row.spectator_delay,
                            list(row.seat_names),
                            row.seats_taken,
                            row.seats_total,
                            row.created_at,
                            row.started_at,
                            row.finished_at,
                            list(row.winners) if row.winners is not None else None,
                            row.version,
                        )
                        for row in batch.lobby.values()
                    ],
                )
            if batch.stats:
                await conn.executemany(
                    _UPSERT_STATS,
                    [(player, kind, played, won) for (player, kind), (played, won) in batch.stats.items()],
                )
            await conn.execute(
                "UPDATE projector_checkpoints SET tx_id = $2::text::xid8, position = $3, updated_at = now()"
                " WHERE name = $1",
                self.name,
                str(after.tx_id),
                after.position,
            )


async def _connect(dsn: str, purpose: str) -> asyncpg.Connection:
    conn: asyncpg.Connection = await asyncpg.connect(
        dsn, timeout=5.0, server_settings={"application_name": f"playlog-{purpose}"}
    )
    return conn


async def _close(conn: asyncpg.Connection) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(2.0):
            await conn.close()
    if not conn.is_closed():
        conn.terminate()


class Projector:
    """The live projector of one instance (only the one holding the leader lock projects)."""

    def __init__(
        self,
        store: EventStore,
        dsn: str,
        listener: Listener | None = None,
        *,
        name: str = NAME,
        batch_size: int = 1000,
        poll_interval: float = 1.0,
        retry_interval: float = 5.0,
        tables: Tables | None = None,
    ) -> None:
        self.store = store
        self.dsn = dsn
        self.listener = listener
        self.name = name
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.retry_interval = retry_interval
        self.tables = tables
        self.leading = False
        self.cursor: Cursor | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.listener is not None:
            self._wake = self.listener.subscribe(None)
        self._task = asyncio.create_task(self._run(), name="playlog-projector")

    async def stop(self) -> None:
        await stop(self._task)
        if self.listener is not None and self._wake is not None:
            self.listener.unsubscribe(None, self._wake)

    async def _run(self) -> None:
        backoff = Backoff(cap=min(self.retry_interval, 2.0))
        while True:
            try:
                await self._lead(backoff)
            except Exception as exc:  # any, an event it cannot fold included: say so, retry, never die
                log_failure(log, "projector_failed", exc, name=self.name)
            self.leading = False
            await backoff.pause()

    async def _lead(self, backoff: Backoff) -> None:
        conn = await _connect(self.dsn, "projector")
        try:
            backoff.reset()
            while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK):
                await asyncio.sleep(self.retry_interval)  # another instance projects
            self.leading = True
            log.info("projector_leading", name=self.name)
            models = ReadModels(self.store, name=self.name, tables=self.tables)
            cursor = await models.checkpoint(conn)
            while True:
                try:
                    cursor, read = await models.step(conn, cursor, self.batch_size)
                except CheckpointMoved:
                    cursor = await models.checkpoint(conn)
                    read = 0
                    log.info("projector_checkpoint_moved", tx_id=cursor.tx_id, position=cursor.position)
                self.cursor = cursor
                if read < self.batch_size:
                    await self._idle()
        finally:
            self.leading = False
            await _close(conn)

    async def _idle(self) -> None:
        if self.listener is not None and self._wake is not None:
            await self.listener.wait(self._wake, self.poll_interval)
        else:
            await asyncio.sleep(self.poll_interval)


async def rebuild(
    store: EventStore,
    dsn: str,
    *,
    name: str = NAME,
    batch_size: int = 5000,
    progress: ProgressCallback | None = None,
) -> RebuildReport:
    """Empty the read models and replay the whole log into them (see the module docstring)."""
    conn = await _connect(dsn, "rebuild")
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", PAUSE_LOCK)
        started = time.perf_counter()
        total = int(await conn.fetchval("SELECT count(*) FROM events"))
        models = ReadModels(store, name=name)
        await models.reset(conn)
        cursor, done = START, 0
        if progress is not None:
            progress(0, total)
        while True:
            cursor, read = await models.step(conn, cursor, batch_size)
            if read == 0:
                break
            done += read
            if progress is not None:
                progress(done, total)
        seconds = time.perf_counter() - started
        log.info("read_models_rebuilt", name=name, events=done, seconds=round(seconds, 3))
        return RebuildReport(events=done, seconds=seconds)
    finally:
        await _close(conn)
