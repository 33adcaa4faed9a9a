"""Acting on deadlines with no client request: reaction windows, decision timeouts, lobbies
not started in time (domain/table/clock.py).

Each instance asks the store for the games whose deadline has passed (``streams.due_at``, set by
every append from the table's ``deadline``, found through a wake time that is never later:
migration 0025) every ``interval`` seconds. Several instances may pick the same game: each decides
against the state it loaded and appends with the expected seq and the command id
``deadline:<version>``, so exactly one append lands and nobody appends twice.

It is a ``Polling`` loop (service/app/polling.py): a test drives it with a fake ``sleep``.
"""

from __future__ import annotations

from service.app.polling import Polling
from service.runtime import metrics
from service.runtime.log import get_logger
from service.store.tasks import log_failure

# After a failed scan: pauses from the interval (at least FIRST_PAUSE) doubling up to MAX_PAUSE,
# as every background loop backs off (service/store/tasks.py's Backoff).
log = get_logger("playlog.scheduler")


class Scheduler(Polling):
    name = "playlog-scheduler"
    failed = "scheduler_failed"
    log = log

    async def tick(self) -> int:
        acted = 0
        for game_id in await self.games.store.due_games():
            try:
                if await self.games.lobby.act_on_deadline(game_id):
                    acted += 1
                    metrics.DEADLINES.inc()
            except Exception as exc:
                log_failure(log, "deadline_failed", exc, game_id=str(game_id))
        return acted
