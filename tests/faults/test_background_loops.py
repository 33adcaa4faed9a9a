"""Every background loop survives any exception: it logs, backs off and carries on.

The faults are injected at the loop's seam (its pool, its store, its callbacks) as errors none of
them expects, such as the ``InternalClientError`` asyncpg raised after a PostgreSQL restart,
which once ended the notifier for good: no instance sent a NOTIFY again.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
from structlog.testing import capture_logs

from service.app.games import GameService
from service.app.scheduler import Scheduler
from service.store.events import EventStore
from service.store.notifications import CHANNEL, Listener, Notifier

BOUND = 15.0  # generous: only a loop that died never gets there


class FlakyPool:
    """The real pool, whose first ``failures`` acquires fail with an unexpected error."""

    def __init__(self, pool: asyncpg.Pool, failures: int) -> None:
        self.pool = pool
        self.failures = failures

    def acquire(self, **kwargs: Any) -> Any:
        if self.failures > 0:
            self.failures -= 1
            raise asyncpg.InternalClientError(
                "cannot switch to state 12; another operation (2) is in progress"
            )
        return self.pool.acquire(**kwargs)


class FlakyStore(EventStore):
    """The real store, whose first ``failures`` scans for due games fail unexpectedly."""

    def __init__(self, pool: asyncpg.Pool, failures: int) -> None:
        super().__init__(pool)
        self.failures = failures
        self.scans = 0

    async def due_games(self, limit: int = 100) -> list[uuid.UUID]:
        self.scans += 1
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("an error nobody expected")
        return await super().due_games(limit)


async def _until(condition: Any) -> None:
    async with asyncio.timeout(BOUND):
        while not condition():
            await asyncio.sleep(0.02)


async def test_the_notifier_keeps_sending_after_unexpected_errors_and_loses_nothing(
    pool: asyncpg.Pool, database_url: str
) -> None:
    received: list[tuple[uuid.UUID, int]] = []
    listener = Listener(database_url)
    listener.on_append(lambda game_id, seq: received.append((game_id, seq)))
    notifier = Notifier(FlakyPool(pool, failures=3))  # type: ignore[arg-type]
    listener.start()
    notifier.start()
    try:
        await _until(lambda: listener._conn is not None)
        game = uuid.uuid4()
        notifier.publish(game, 1)  # fails three times: kept and sent once the pool works
        await _until(lambda: (game, 1) in received)
        notifier.publish(game, 2)
        await _until(lambda: (game, 2) in received)
    finally:
        await notifier.stop()
        await listener.stop()


async def test_the_listener_reconnects_after_an_unexpected_error(
    pool: asyncpg.Pool, database_url: str
) -> None:
    received: list[tuple[uuid.UUID, int]] = []
    resyncs = 0

    def resync() -> None:
        nonlocal resyncs
        resyncs += 1
        if resyncs == 1:
            raise RuntimeError("a subscriber failed")

    listener = Listener(database_url)
    listener.on_resync(resync)
    listener.on_append(lambda game_id, seq: received.append((game_id, seq)))
    listener.start()
    try:
        await _until(lambda: resyncs >= 2)
        game = uuid.uuid4()
        async with asyncio.timeout(BOUND):
            while (game, 7) not in received:  # NOTIFY again until the new LISTEN hears one
                await pool.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{game}:7")
                await asyncio.sleep(0.05)
    finally:
        await listener.stop()


async def test_the_scheduler_keeps_scanning_after_unexpected_errors(pool: asyncpg.Pool) -> None:
    store = FlakyStore(pool, failures=3)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the fake clock: the pause is noted, not waited
        slept.append(seconds)
        await asyncio.sleep(0)

    scheduler = Scheduler(GameService(store), interval=0.01, sleep=sleep)
    with capture_logs() as logs:
        scheduler.start()
        try:
            await _until(lambda: store.scans > 5)
        finally:
            await scheduler.stop()
    # Each failure backs off (doubling), then the interval; a scan that works resets the pause.
    assert slept[:6] == [0.1, 0.01, 0.2, 0.01, 0.4, 0.01]
    assert set(slept[6:]) == {0.01}
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["scheduler_failed"] * 3
