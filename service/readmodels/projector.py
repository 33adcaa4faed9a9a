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

Webhooks
    The live projector (not a rebuild) also queues the webhooks' messages of what each batch
    folds, in the batch's transaction (service/app/webhooks.py): once per event, off the command
    path, whichever instance projects.

The games' tables come from the one cache (service/app/tables.py, shared with the commands and the
feeds), at the version each lobby row says was projected; what one event changes is decided by
the pure ``projections.read_models``.
"""

from __future__ import annotations

import asyncio
import time
import uuid

from service.app.tables import Tables
from service.readmodels.models import NAME, GenerationMoved, ReadModels, close, connect
from service.runtime.log import get_logger
from service.store.events import EventStore
from service.store.notifications import Listener
from service.store.tasks import Backoff, log_failure, stop

log = get_logger("playlog.projector")

# Advisory lock key (bigint): one live projector per database.
LEADER_LOCK = 0x706C_6179_0001

# See "Cadence": each round is a commit and a rewrite of every busy game's lobby row, whatever
# number of its events it folds, so under load frequent rounds cost PostgreSQL a large share of
# its work per command and lengthen the commands' tail (docs/performance.md). An append to a
# quiet database is still folded at once.
ROUND_INTERVAL = 1.0
# A live round then rests this long, and commits every LIVE_BATCH events: its work, and its
# backend's, spread over the round's second instead of taking a core in one burst while the
# requests wait for one (the open-loop tail, docs/performance.md). A rebuild does not rest.
FOLD_REST = 0.001
LIVE_BATCH = 200


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
        conn = await connect(self.dsn, "projector")
        try:
            backoff.reset()
            while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK):
                await asyncio.sleep(self.retry_interval)  # another instance projects
            self.leading = True
            log.info("projector_leading", name=self.name)
            models = ReadModels(self.store, name=self.name, tables=self.tables, webhooks=True)
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
            await close(conn)

    async def _idle(self) -> None:
        if self.listener is not None and self._wake is not None:
            await self.listener.wait(self._wake, self.poll_interval)
        else:
            await asyncio.sleep(self.poll_interval)
