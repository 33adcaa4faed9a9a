"""The read-model projector: keeps the lobby list, each player's games (its statistics are counted
from them) and the dispute queue, game by game.

No global order
    A global cursor over the whole log (``(tx_id, position)`` until migration 0007) does not
    survive sharding: each node has its own transaction ids and identity ranges, and a shard move
    rewrites both. Read models need only each game's order, and each game already says how far it
    is: ``streams.seq`` (committed with the events, in the same transaction) and the read model's own
    ``lobby_games.version`` (the seq of the last event folded, written in the same transaction as
    the player rows that event changed). A game is *behind* while ``streams.seq > version``.

How it stays exact
    - Nothing is lost: every committed event leaves its game behind until it is folded, and the
      sweep (``behind`` with no games named: one query through the coordinator, a colocated join
      of ``streams`` and ``lobby_games`` that each node answers for its own shards) lists every
      game behind. It runs at start, after the listener reconnects, and every ``sweep_interval``;
      between sweeps the listener's ``game_id:seq`` notifications name the games to look at, so a
      lost notification delays a game by at most one sweep.
    - Nothing is folded twice or out of order: a game's events are read from ``version`` on and
      applied in seq order only while they follow on without a gap (a gap is held back for the
      next round); each batch writes the rows and the new versions in ONE transaction. One
      projector writes at a time (the leader lock), and a rebuild, which takes the pause lock
      exclusively, bumps ``projector_checkpoints.generation`` in the transaction that empties the
      read models: a live batch checks the generation under the shared pause lock and is refused
      (``GenerationMoved``) if it changed, so it never adds to rows it did not read.
    - A shard move changes where a game's rows live, never its seq or version: nothing to redo.
    - Events this instance's commands folded already are not read or folded again while the
      game's status holds (``_jump``): the newest cached table is the log folded to its version.
      Events that are folded add their changes once per run of one status (``_apply``).

Cadence
    Rounds start at least ``round_interval`` (1 s) apart: under load, a round folds every game
    notified since the last one with one read of their events and one commit, instead of one
    round per burst of notifications. The read models lag the log by that much more at most.
    A round's folding hands the event loop back every ``FOLD_SLICE``, so the requests the same
    process answers wait for a slice of it, not the whole round; and it rests ``FOLD_REST`` each
    time, committing every ``LIVE_BATCH`` events, so that the round's work (and its backend's)
    spreads over the round instead of taking one of the machine's cores in a burst.

Which instance projects
    One per database: the live projector takes a session-level ``pg_try_advisory_lock`` on a
    connection of its own and holds it while it runs; the others retry every ``retry_interval``
    seconds and take over when that connection goes away.

Rebuilding
    ``rebuild`` takes the pause lock exclusively (the live projector pauses between two batches),
    truncates the read models and bumps the generation in one transaction, then folds every game
    with the same batch loop. Interrupted, it leaves consistent rows that the live projector
    simply continues; run again, it starts over from an empty read model.

The games' tables come from the one cache (service/app/tables.py, shared with the commands and the
feeds), at the version each lobby row says was projected; what one event changes is decided by
the pure ``projections.read_models``.
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
from service.app.tables import Tables
from service.runtime.log import get_logger
from service.store.events import EventStore, StoredEvent, event_columns, stored_event
from service.store.notifications import Listener
from service.store.tasks import Backoff, log_failure, stop

log = get_logger("playlog.projector")

NAME = "read_models"
# Advisory lock keys (bigint): one live projector per database; rebuilds pause it.
LEADER_LOCK = 0x706C_6179_0001
PAUSE_LOCK = 0x706C_6179_0002

# See "Cadence": each round is a commit and a rewrite of every busy game's lobby row, whatever
# number of its events it folds, so under load frequent rounds cost PostgreSQL a large share of
# its work per command and lengthen the commands' tail (docs/performance.md). An append to a
# quiet database is still folded at once.
ROUND_INTERVAL = 1.0
# Folding runs on the event loop that answers requests: a round folds up to a second of the log
# (tens of milliseconds of work under load), so it hands the loop back at least this often, or
# every request that arrives meanwhile waits for the whole round.
FOLD_SLICE = 0.001
# A live round then rests this long, and commits every LIVE_BATCH events: its work, and its
# backend's, spread over the round's second instead of taking a core in one burst while the
# requests wait for one (the open-loop tail, docs/performance.md). A rebuild does not rest.
FOLD_REST = 0.001
LIVE_BATCH = 200

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


class RebuildReport(msgspec.Struct, frozen=True):
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


class Behind(msgspec.Struct, frozen=True):
    """A game whose read model is at ``projected`` while its log is at ``seq``."""

    game_id: uuid.UUID
    projected: int
    seq: int


_BEHIND = """
SELECT s.game_id, coalesce(g.version, 0) AS projected, s.seq
  FROM streams s LEFT JOIN lobby_games g ON g.game_id = s.game_id
 WHERE s.seq > coalesce(g.version, 0)
"""
# Among named games only: a condition on the distribution column alone, so Citus asks only the
# shards that hold them.
_BEHIND_AMONG = _BEHIND + " AND s.game_id = ANY($1::uuid[])"

# The time ``read_models.changes`` gives a start or an end, passed when there is neither (a run).
_NO_TRANSITION = datetime.fromtimestamp(0, UTC)

# The events of several games, each after its own seq and up to its own: one query.
_EVENTS_OF = f"""
SELECT {event_columns("e")}
  FROM events e JOIN unnest($1::uuid[], $2::int[], $3::int[]) AS r(game_id, after_seq, up_to_seq)
    ON e.game_id = r.game_id
 WHERE e.seq > r.after_seq AND e.seq <= r.up_to_seq
 ORDER BY e.game_id, e.seq
"""

_UPSERT_GAME = """
INSERT INTO lobby_games AS g (game_id, kind, status, public, spectator_delay, seat_names, seats_taken,
                              seats_total, created_at, started_at, finished_at, winners, version,
                              rulings)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
ON CONFLICT (game_id) DO UPDATE SET
    kind = EXCLUDED.kind, status = EXCLUDED.status, public = EXCLUDED.public,
    spectator_delay = EXCLUDED.spectator_delay, seat_names = EXCLUDED.seat_names,
    seats_taken = EXCLUDED.seats_taken, seats_total = EXCLUDED.seats_total,
    started_at = coalesce(g.started_at, EXCLUDED.started_at),
    finished_at = coalesce(g.finished_at, EXCLUDED.finished_at),
    winners = EXCLUDED.winners, version = EXCLUDED.version, rulings = EXCLUDED.rulings
WHERE g.version < EXCLUDED.version
"""

# A dispute's queue row: the batch holds each dispute's latest state (a game's events are folded
# in seq order, once), so the last write wins.
_UPSERT_DISPUTE = """
INSERT INTO disputes (dispute_id, game_id, kind, seat, category, status, claimed_by, verdict, action,
                      review_of, raised_at, raised_seq, resolved_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (game_id, dispute_id) DO UPDATE SET
    status = EXCLUDED.status, claimed_by = EXCLUDED.claimed_by, verdict = EXCLUDED.verdict,
    action = EXCLUDED.action, resolved_at = EXCLUDED.resolved_at
"""


# A game's player rows are replaced whole: those of players who left go, the others are rewritten,
# keeping the game's end (given only by the event that ended it).
_DELETE_PLAYER_GAMES = "DELETE FROM player_games WHERE game_id = $1 AND player_id <> ALL($2::text[]::uuid[])"
_UPSERT_PLAYER_GAME = """
INSERT INTO player_games AS p (player_id, game_id, kind, seats, status, outcome, created_at,
                               spectator_delay, finished_at, ended, rulings)
VALUES ($1::text::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
ON CONFLICT (player_id, game_id) DO UPDATE SET
    kind = EXCLUDED.kind, seats = EXCLUDED.seats, status = EXCLUDED.status, outcome = EXCLUDED.outcome,
    spectator_delay = EXCLUDED.spectator_delay, finished_at = coalesce(p.finished_at, EXCLUDED.finished_at),
    ended = EXCLUDED.ended, rulings = EXCLUDED.rulings
"""


class ReadModels:
    """Folds games' events into the read-model tables; the state behind both loops."""

    def __init__(self, store: EventStore, *, name: str = NAME, tables: Tables | None = None) -> None:
        self.store = store
        self.name = name
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
            await conn.execute("TRUNCATE lobby_games, player_games, disputes")
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
        rows = await conn.fetch(_BEHIND) if games is None else await conn.fetch(_BEHIND_AMONG, list(games))
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
                folded += table.version - game.projected
        rows = (
            await conn.fetch(
                _EVENTS_OF,
                [b.game_id for b in to_read],
                [b.projected for b in to_read],
                [b.seq for b in to_read],
            )
            if to_read
            else []
        )
        events: dict[uuid.UUID, list[StoredEvent]] = {}
        for row in rows:
            stored = stored_event(row)
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
            folded += len(following)
        await self._commit(conn, generation, batch)
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

    async def _commit(self, conn: asyncpg.Connection, generation: int, batch: BatchChanges) -> None:
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
                            msgspec.json.encode(row.rulings).decode(),
                        )
                        for row in batch.lobby.values()
                    ],
                )
            if batch.disputes:
                await conn.executemany(
                    _UPSERT_DISPUTE,
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
                    _DELETE_PLAYER_GAMES,
                    [
                        (game.game_id, [row.player for row in game.rows])
                        for game in batch.player_games.values()
                    ],
                )
                await conn.executemany(
                    _UPSERT_PLAYER_GAME,
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
        batch_size: int = LIVE_BATCH,
        poll_interval: float = 1.0,
        sweep_interval: float = 5.0,
        retry_interval: float = 5.0,
        round_interval: float = ROUND_INTERVAL,
        tables: Tables | None = None,
    ) -> None:
        self.store = store
        self.dsn = dsn
        self.listener = listener
        self.name = name
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.sweep_interval = sweep_interval
        self.retry_interval = retry_interval
        self.round_interval = round_interval
        self.tables = tables
        self.leading = False
        self._notified: set[uuid.UUID] = set()  # games named by notifications since the last round
        self._sweep_due = True
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.listener is not None:
            self._wake = self.listener.subscribe(None)
            self.listener.on_append(self._on_append)
            self.listener.on_resync(self._on_resync)
        self._task = asyncio.create_task(self._run(), name="playlog-projector")

    async def stop(self) -> None:
        await stop(self._task)
        if self.listener is not None and self._wake is not None:
            self.listener.unsubscribe(None, self._wake)

    def _on_append(self, game_id: uuid.UUID, _seq: int) -> None:
        if self.leading:  # a new leader starts with a sweep: the others keep nothing
            self._notified.add(game_id)

    def _on_resync(self) -> None:
        self._sweep_due = True  # notifications may have been missed

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
            generation = await models.generation(conn)
            self._sweep_due, last_sweep = True, 0.0
            last_round = 0.0
            while True:
                wait = self.round_interval - (time.monotonic() - last_round)
                if wait > 0:
                    await asyncio.sleep(wait)
                last_round = time.monotonic()
                if time.monotonic() - last_sweep >= self.sweep_interval:
                    self._sweep_due = True
                games: set[uuid.UUID] | None = None
                if self._sweep_due:
                    self._sweep_due, last_sweep = False, time.monotonic()
                    self._notified.clear()  # the sweep covers them
                else:
                    games, self._notified = self._notified, set()
                try:
                    if games is None or games:
                        await models.catch_up(
                            conn, generation, games, batch_size=self.batch_size, rest=FOLD_REST
                        )
                except GenerationMoved:
                    generation = await models.generation(conn)
                    self._sweep_due = True
                    log.info("projector_generation_moved", generation=generation)
                    continue
                except BaseException:
                    self._sweep_due = True  # what this round had to do is not done
                    raise
                if not self._notified and not self._sweep_due:
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
    """Empty the read models and fold every game into them again (see the module docstring)."""
    conn = await _connect(dsn, "rebuild")
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", PAUSE_LOCK)
        started = time.perf_counter()
        total = int(await conn.fetchval("SELECT count(*) FROM events"))
        models = ReadModels(store, name=name)
        generation = await models.reset(conn)
        if progress is not None:
            progress(0, total)
        done = 0

        def folded_so_far(folded: int) -> None:
            if progress is not None:
                progress(done + folded, total)

        # Games appended to meanwhile are folded by the next round; it ends when none is behind.
        while read := await models.catch_up(conn, generation, batch_size=batch_size, progress=folded_so_far):
            done += read
        seconds = time.perf_counter() - started
        log.info("read_models_rebuilt", name=name, events=done, seconds=round(seconds, 3))
        return RebuildReport(events=done, seconds=seconds)
    finally:
        await _close(conn)
