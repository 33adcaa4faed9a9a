"""The read models' state and their fold: which games are behind, their events folded into the
lobby list, each player's games and the dispute queue, one transaction a batch (the projector's
module docstring, service/readmodels/projector.py, says how it stays exact).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime

import asyncpg
import msgspec

from projections import read_models
from projections import table as tables
from projections.read_models import BatchChanges
from projections.table import Table
from service.app import webhooks
from service.app.tables import Tables
from service.readmodels import sql
from service.store.events import EventStore, StoredEvent, stored_event

NAME = "read_models"
# Advisory lock key (bigint): rebuilds take it exclusively, live batches shared.
PAUSE_LOCK = 0x706C_6179_0002

# Folding runs on the event loop that answers requests: a round folds up to a second of the log
# (tens of milliseconds of work under load), so it hands the loop back at least this often, or
# every request that arrives meanwhile waits for the whole round.
FOLD_SLICE = 0.001

ProgressCallback = Callable[[int, int], None]  # (events read so far, events in the log at the start)


class _Slices:
    """Hands the event loop back once ``FOLD_SLICE`` has passed since it last did, for ``rest``
    seconds (0: only to the tasks ready meanwhile)."""

    def __init__(self, rest: float = 0.0) -> None:
        self._rest = rest
        self._ends = time.perf_counter() + FOLD_SLICE

    async def pause(self) -> None:
        if time.perf_counter() >= self._ends:
            await asyncio.sleep(self._rest)
            self._ends = time.perf_counter() + FOLD_SLICE


class GenerationMoved(Exception):
    """A rebuild emptied the read models since this projector read them: reload and go on."""


class Behind(msgspec.Struct, frozen=True):
    """A game whose read model is at ``projected`` while its log is at ``seq``."""

    game_id: uuid.UUID
    projected: int
    seq: int


# The time ``read_models.changes`` gives a start or an end, passed when there is neither (a run).
_NO_TRANSITION = datetime.fromtimestamp(0, UTC)


class ReadModels:
    """Folds games' events into the read-model tables; the state behind both loops."""

    def __init__(
        self, store: EventStore, *, name: str = NAME, tables: Tables | None = None, webhooks: bool = False
    ) -> None:
        self.store = store
        self.name = name
        self.webhooks = webhooks  # queue the webhooks' messages of what it folds (the live projector's)
        self.tables = tables or Tables(store)
        self.tables.forget_behind()  # another projector may have gone on meanwhile

    async def generation(self, conn: asyncpg.Connection) -> int:
        """The read models' generation (its row created if there is none)."""
        await conn.execute(
            "INSERT INTO projector_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", self.name
        )
        return await self._stored_generation(conn)

    async def reset(self, conn: asyncpg.Connection) -> int:
        """Empty the read models and start a new generation, atomically; returns it."""
        async with conn.transaction():
            await conn.execute("TRUNCATE lobby_games, player_games, disputes, rated_games")
            generation: int = await conn.fetchval(
                "INSERT INTO projector_checkpoints AS c (name, generation) VALUES ($1, 1) ON CONFLICT (name)"
                " DO UPDATE SET generation = c.generation + 1, updated_at = EXCLUDED.updated_at"
                " RETURNING generation",
                self.name,
            )
        self.tables.forget_behind()
        return generation

    async def behind(
        self, conn: asyncpg.Connection, games: Collection[uuid.UUID] | None = None
    ) -> list[Behind]:
        """The games whose read model is behind their log: all of them, or among ``games``."""
        rows = (
            await conn.fetch(sql.BEHIND) if games is None else await conn.fetch(sql.BEHIND_AMONG, list(games))
        )
        return [Behind(row[0], row[1], row[2]) for row in rows]

    async def catch_up(
        self,
        conn: asyncpg.Connection,
        generation: int,
        games: Collection[uuid.UUID] | None = None,
        *,
        batch_size: int = 1000,
        rest: float = 0.0,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Fold what the games behind (all, or among ``games``) have committed; returns the events
        folded. Batches of about ``batch_size`` events, each in one transaction; ``rest``: how
        long folding rests after each ``FOLD_SLICE`` of work."""
        todo = deque(sorted(await self.behind(conn, games), key=lambda b: b.game_id))
        folded = 0
        while todo:
            chunk: list[Behind] = []
            size = 0
            while todo and (not chunk or size + todo[0].seq - todo[0].projected <= batch_size):
                game = todo.popleft()
                chunk.append(game)
                size += game.seq - game.projected
            folded += await self._fold(conn, generation, chunk, rest)
            if progress is not None:
                progress(folded)
        return folded

    # -- deciding ------------------------------------------------------------------------------

    async def _fold(
        self, conn: asyncpg.Connection, generation: int, chunk: Sequence[Behind], rest: float = 0.0
    ) -> int:
        batch = BatchChanges()
        staged: dict[uuid.UUID, Table | None] = {}
        told: list[tuple[str, webhooks.Notice]] = []
        folded = 0
        to_read: list[Behind] = []
        slices = _Slices(rest)
        for game in chunk:
            await slices.pause()
            table = self._jump(batch, game)
            if table is None:
                to_read.append(game)
            else:
                staged[game.game_id] = table
                if self.webhooks:
                    told += webhooks.notices(game.game_id, self.tables.behind(game.game_id), table)
                folded += table.version - game.projected
        rows = (
            await conn.fetch(
                sql.EVENTS_OF,
                [b.game_id for b in to_read],
                [b.projected for b in to_read],
                [b.seq for b in to_read],
            )
            if to_read
            else []
        )
        events: dict[uuid.UUID, list[StoredEvent]] = {}
        for stored in await self.store.personal.open([stored_event(row) for row in rows]):
            events.setdefault(stored.game_id, []).append(stored)
        for game in to_read:
            await slices.pause()
            table = await self._table(game)
            version = table.version if table is not None else 0
            following: list[StoredEvent] = []
            for stored in events.get(game.game_id, ()):
                if stored.seq <= version:
                    continue  # already folded
                if stored.seq > version + 1:
                    break  # a gap: held back until the events before it are readable
                following.append(stored)
                version += 1
            staged[game.game_id] = self._apply(batch, table, following)
            if self.webhooks:
                told += webhooks.notices(game.game_id, table, staged[game.game_id])
            folded += len(following)
        await self._commit(conn, generation, batch, webhooks.enqueue_args(told))
        self._remember(staged)
        return folded

    def _jump(self, batch: BatchChanges, game: Behind) -> Table | None:
        """The game's newest table, when its read models can go straight to it without folding
        its events again (the commands that appended them folded them already); else None.

        Only while the game's status stays the same: then no event in between started or ended
        it (the one thing whose time is the event's own), and what the read models take from
        the two tables adds up as the events one by one would (the latest lobby and player rows,
        the differences of wins and penalties, the disputes that changed).
        """
        before, after = self.tables.behind(game.game_id), self.tables.latest(game.game_id)
        if (
            before is None
            or after is None
            or before.version != game.projected
            or after.version < game.seq
            or after.status != before.status
        ):
            return None
        batch.add(read_models.changes(game.game_id, before, after, _NO_TRANSITION))
        return after

    async def _table(self, game: Behind) -> Table | None:
        """The game's table at what the read model holds: cached, or folded from its log."""
        cached = self.tables.behind(game.game_id)
        if cached is not None and cached.version == game.projected:
            return cached
        if game.projected == 0:
            return None
        return await self.tables.fold(game.game_id, game.projected)

    @staticmethod
    def _apply(batch: BatchChanges, table: Table | None, events: Sequence[StoredEvent]) -> Table | None:
        """Fold one game's ``events`` (in seq order) onto ``table``. What they change is taken
        once for each run of events that keeps the game's status, from the run's first table to
        its last (as ``_jump`` does), and once for each event that creates, starts or ends the game
        (its time is the event's own): the same changes as event by event, at a fraction of it."""
        since = table  # where the current run of one status began
        for stored in events:
            before = table
            table, _ = tables.step(before, stored.type, stored.data, stored.schema_version)
            if before is None or table.status != before.status:
                if before is not None and since is not before:  # the run before it
                    batch.add(read_models.changes(stored.game_id, since, before, _NO_TRANSITION))
                batch.add(read_models.changes(stored.game_id, before, table, stored.recorded_at))
                since = table
        if table is not None and since is not table:
            batch.add(read_models.changes(events[-1].game_id, since, table, _NO_TRANSITION))
        return table

    def _remember(self, staged: dict[uuid.UUID, Table | None]) -> None:
        for game_id, table in staged.items():
            if table is not None:
                self.tables.offer(game_id, table, behind=True)

    # -- writing -------------------------------------------------------------------------------

    async def _stored_generation(self, conn: asyncpg.Connection) -> int:
        stored = await conn.fetchval(
            "SELECT generation FROM projector_checkpoints WHERE name = $1", self.name
        )
        return int(stored or 0)

    async def _commit(
        self,
        conn: asyncpg.Connection,
        generation: int,
        batch: BatchChanges,
        told: tuple[list[uuid.UUID], list[str]] | None = None,
    ) -> None:
        if not batch:
            return
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock_shared($1)", PAUSE_LOCK)
            stored = await self._stored_generation(conn)  # read after the lock: a rebuild is done
            if stored != generation:
                self.tables.forget_behind()
                raise GenerationMoved(f"read models are at generation {stored}, this batch read {generation}")
            if batch.lobby:
                await conn.executemany(
                    sql.UPSERT_GAME,
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
                            msgspec.json.encode(row.rulings).decode(),
                        )
                        for row in batch.lobby.values()
                    ],
                )
            if batch.disputes:
                await conn.executemany(
                    sql.UPSERT_DISPUTE,
                    [
                        (
                            d.dispute_id,
                            d.game_id,
                            d.kind,
                            d.seat,
                            d.category,
                            d.status,
                            d.claimed_by,
                            d.verdict,
                            d.action,
                            d.review_of,
                            d.raised_at,
                            d.raised_seq,
                            d.resolved_at,
                        )
                        for d in batch.disputes.values()
                    ],
                )
            if batch.player_games:
                await conn.executemany(
                    sql.DELETE_PLAYER_GAMES,
                    [
                        (game.game_id, [row.player for row in game.rows])
                        for game in batch.player_games.values()
                    ],
                )
                await conn.executemany(
                    sql.UPSERT_PLAYER_GAME,
                    [
                        (
                            row.player,
                            game.game_id,
                            game.kind,
                            list(row.seats),
                            game.status,
                            row.outcome,
                            game.created_at,
                            game.spectator_delay,
                            game.finished_at,
                            row.ended,
                            msgspec.json.encode(row.rulings).decode(),
                        )
                        for game in batch.player_games.values()
                        for row in game.rows
                    ],
                )
            if batch.rated:
                await conn.executemany(
                    sql.UPSERT_RATED_GAME,
                    [
                        (
                            game.game_id,
                            game.kind,
                            game.finished_at,
                            game.spectator_delay,
                            msgspec.json.encode(game.results).decode(),
                        )
                        for game in batch.rated.values()
                    ],
                )
            if told is not None:
                await conn.execute(webhooks.ENQUEUE, *told)


async def connect(dsn: str, purpose: str) -> asyncpg.Connection:
    conn: asyncpg.Connection = await asyncpg.connect(
        dsn, timeout=5.0, server_settings={"application_name": f"playlog-{purpose}"}
    )
    return conn


async def close(conn: asyncpg.Connection) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(2.0):
            await conn.close()
    if not conn.is_closed():
        conn.terminate()
