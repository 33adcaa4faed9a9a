"""A loop that looks for work every few moments, for the services that act with no request: the
deadline scheduler and the computer players. A failed look is logged and looked at again after
a pause that doubles (from at least FIRST_PAUSE up to MAX_PAUSE); the loop never dies.

The loop waits through ``sleep`` (asyncio's by default): a test passes a fake one and drives the
loop without waiting real time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from service.app.games import GameService
from service.store.tasks import log_failure, stop

FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0


class Polling:
    """Calls ``tick`` (the work done on ``games``: how much) every ``wait(done)`` seconds,
    ``interval`` unless a subclass says otherwise; ``name`` names the task, ``log`` and ``failed``
    the logger and the line of a failed look."""

    name = "playlog-polling"
    failed = "polling_failed"
    log: Any

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
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        await stop(self._task)

    async def tick(self) -> int:
        raise NotImplementedError

    def wait(self, done: int) -> float:
        return self.interval

    async def _run(self) -> None:
        first = max(self.interval, FIRST_PAUSE)
        pause = first
        while True:
            try:
                done = await self.tick()
                pause = first
            except Exception as exc:  # any: a dead loop would stall every game it acts for
                log_failure(self.log, self.failed, exc)
                await self.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)
                done = 0
            await self.sleep(self.wait(done))
