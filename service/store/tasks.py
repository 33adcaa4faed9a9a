"""Background tasks: waiting with a timeout, and stopping them for sure.

``asyncio.wait_for`` on Python 3.11 can swallow a cancellation that arrives just as the awaited
thing completes (fixed in 3.12), which left a background loop running and an app unable to shut
down. ``asyncio.timeout`` has no such race; ``stop`` cancels until the task is really done.

Every background loop (notifier, listener, scheduler, projector, feeds) catches every
``Exception`` around one round of its work, logs it (``log_failure``) and pauses (``Backoff``)
before the next: one that let an unexpected error through would end silently for good.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from service.store.database import UNAVAILABLE_ERRORS


async def wait_event(event: asyncio.Event, timeout: float) -> bool:
    """Until ``event`` is set (True) or ``timeout`` seconds pass (False)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            await event.wait()
            return True
    return False


async def stop(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` and wait until it has finished, cancelling again if it shrugged it off."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=1.0)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()


class Backoff:
    """Pauses between the retries of a background loop: ``first`` doubling up to ``cap`` seconds,
    back to ``first`` once an attempt succeeds. The cap is short on purpose: after the database
    comes back, every loop must be working again within a few seconds."""

    def __init__(self, first: float = 0.1, cap: float = 2.0) -> None:
        self.first = first
        self.cap = cap
        self._next = first

    def reset(self) -> None:
        self._next = self.first

    async def pause(self) -> None:
        delay, self._next = self._next, min(self._next * 2, self.cap)
        await asyncio.sleep(delay)


def log_failure(log: Any, event: str, exc: BaseException, **fields: Any) -> None:
    """A background loop's failure: a warning when the database is away (expected, it retries),
    with the traceback otherwise (a bug it survives, but must be seen)."""
    if isinstance(exc, UNAVAILABLE_ERRORS):
        log.warning(event, error=f"{type(exc).__name__}: {exc}", **fields)
    else:
        log.error(event, error=f"{type(exc).__name__}: {exc}", exc_info=exc, **fields)
