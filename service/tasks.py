"""Background tasks: waiting with a timeout, and stopping them for sure.

``asyncio.wait_for`` on Python 3.11 can swallow a cancellation that arrives just as the awaited
thing completes (fixed in 3.12), which left a background loop running and an app unable to shut
down. ``asyncio.timeout`` has no such race; ``stop`` cancels until the task is really done.
"""

from __future__ import annotations

import asyncio
import contextlib


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
