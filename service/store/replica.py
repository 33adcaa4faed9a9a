"""Reads a streaming replica may serve (``PLAYLOG_READ_DATABASE_URL``), without going backwards.

A replica replays the primary's WAL some time behind it. The reads sent to it are the ones that
know which seq they need: a spectator's snapshot and stream, a feed woken by the primary's
notification of seq N, a seat's stream resumed after its ``Last-Event-ID``, the audit and the
transcripts (the primary's current seq, one index lookup). Such a read asks the replica; while
the replica's rows stop short of the seq needed it asks again, for ``wait`` seconds at most, then
reads the primary. So a viewer never sees less than what it was told exists, however far the
replica lags, and a replica that is down only costs the primary the reads. The listing (a read
model, eventually consistent anyway) goes to the replica as it is, to the primary when the
replica does not answer. Commands, seat views and everything that reads its own writes use the
primary and never come here.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import asyncpg
from prometheus_client import Counter

from service.runtime.log import get_logger
from service.store.database import UNAVAILABLE_ERRORS
from service.store.events import EventStore, StoredEvent

log = get_logger("playlog.replica")
POLL_SECONDS = 0.02
# What makes the primary serve a read instead: the replica unreachable, or a query it refused (a
# conflict with recovery cancels a standby's query, say).
REPLICA_ERRORS = (*UNAVAILABLE_ERRORS, asyncpg.PostgresError)

READS = Counter(
    "playlog_replica_reads_total",
    "Reads that a replica may serve, by who served them: replica, or primary (the replica lagged "
    "past the wait, did not answer, or none is configured)",
    ["served_by"],
)


class Reads:
    """Where lag-tolerant reads go: ``replica`` when configured and caught up, else ``primary``."""

    def __init__(self, primary: EventStore, replica: EventStore | None = None, *, wait: float = 0.5) -> None:
        self.primary = primary
        self.replica = replica
        self.wait = wait

    async def events(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None, *, needs: int
    ) -> list[StoredEvent]:
        """One game's events after ``after_seq`` (up to ``up_to_seq``), reaching at least seq
        ``needs`` (or ``up_to_seq``, the lower) when the log holds it."""
        if self.replica is not None:
            target = needs if up_to_seq is None else min(needs, up_to_seq)
            deadline = time.monotonic() + self.wait
            try:
                while True:
                    rows = await self.replica.read(game_id, after_seq, up_to_seq)
                    if (rows[-1].seq if rows else after_seq) >= target:
                        READS.labels("replica").inc()
                        return rows
                    if time.monotonic() >= deadline:
                        break
                    await asyncio.sleep(POLL_SECONDS)
            except REPLICA_ERRORS as exc:
                log.warning("replica_unavailable", error=repr(exc))
        READS.labels("primary").inc()
        return await self.primary.read(game_id, after_seq, up_to_seq)

    async def whole_log(self, game_id: uuid.UUID) -> list[StoredEvent]:
        """The game's whole log as the primary has it now: only with a replica is the primary
        asked how far that is (without one, the read itself is on the primary)."""
        if self.replica is None:
            READS.labels("primary").inc()
            return await self.primary.read(game_id)
        return await self.events(game_id, needs=await self.primary.current_seq(game_id))

    async def fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        """A read-model query, on the replica when it answers (read models lag anyway)."""
        if self.replica is not None:
            try:
                rows: list[asyncpg.Record] = await self.replica.db.fetch(query, *args)
            except REPLICA_ERRORS as exc:
                log.warning("replica_unavailable", error=repr(exc))
            else:
                READS.labels("replica").inc()
                return rows
        READS.labels("primary").inc()
        primary: list[asyncpg.Record] = await self.primary.db.fetch(query, *args)
        return primary
