"""Acting on deadlines with no client request: reaction windows, decision timeouts, lobbies
not started in time (domain/table/clock.py).

Each instance polls the ``streams.due_at`` column (set by every append from the table's
``deadline``) every ``interval`` seconds. Several instances may pick the same game: each decides
against the state it loaded and appends with the expected seq and the command id
``deadline:<version>``, so exactly one append lands and nobody appends twice.

The loop waits through ``sleep`` (asyncio's by default): a test passes a fake one and drives the
loop without waiting real time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from service.app.games import GameService
from service.runtime import metrics
from service.runtime.log import get_logger
from service.store.tasks import log_failure, stop

# After a failed scan: pauses from the interval (at least FIRST_PAUSE) doubling up to MAX_PAUSE,
# as every background loop backs off (service/store/tasks.py's Backoff).
FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0

log = get_logger("playlog.scheduler")


class Scheduler:
    def __init__(
        self,
        games: GameService,
        interval: float = 0.05,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.games = games
        self.interval = interval
        self.sleep = sleep
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playlog-scheduler")

    async def stop(self) -> None:
        await stop(self._task)

    async def tick(self) -> int:
        acted = 0
        for game_id in await self.games.store.due_games():
            try:
                if await self.games.act_on_deadline(game_id):
                    acted += 1
                    metrics.DEADLINES.inc()
            except Exception as exc:
                log_failure(log, "deadline_failed", exc, game_id=str(game_id))
        return acted

    async def _run(self) -> None:
        first = max(self.interval, FIRST_PAUSE)
        pause = first
        while True:
            try:
                await self.tick()
                pause = first
            except Exception as exc:  # any: a dead scheduler would stall every game with a deadline
                log_failure(log, "scheduler_failed", exc)
                await self.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)
            await self.sleep(self.interval)
