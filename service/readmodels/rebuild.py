"""Rebuilding the read models: empty them and fold every game again, while live projectors pause."""

from __future__ import annotations

import time

import msgspec

from service.readmodels.models import NAME, PAUSE_LOCK, ProgressCallback, ReadModels, close, connect
from service.runtime.log import get_logger
from service.store.events import EventStore

log = get_logger("playlog.projector")


class RebuildReport(msgspec.Struct, frozen=True):
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


async def rebuild(
    store: EventStore,
    dsn: str,
    *,
    name: str = NAME,
    batch_size: int = 5000,
    progress: ProgressCallback | None = None,
) -> RebuildReport:
    """Empty the read models and fold every game into them again (see the module docstring)."""
    conn = await connect(dsn, "rebuild")
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
        await close(conn)
