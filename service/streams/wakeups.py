"""When a feed's waiting streams wake: grouped by what they wait for, so that one wakes only when
it may have something to send.

A stream waits either for the feed's next event, or (its next event not yet due) for an instant.
A spectator stream holds every event back by its game's delay: when an event arrives, the streams
waiting with that delay are not woken but moved to the instant the event is released, and wake
once, then. Every instant has one timer, however many streams wait for it; keep-alive instants
(rounded up to the second by the caller) wake every idle stream of the feed. Each waiting stream
holds one bare future (no coroutine, no timer of its own); a cancelled one is forgotten.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from projections.spectator import release_at

TIMER_SECONDS = 15.0  # the longest a timer is armed for: the streams it wakes arm the next


class Wakeups:
    def __init__(self) -> None:
        self._idle: dict[float, list[asyncio.Future[None]]] = {}  # by the streams' delay
        self._at: dict[float, list[asyncio.Future[None]]] = {}  # by instant (time.time())
        self._keepalives: set[float] = set()

    def idle(self, delay: float) -> asyncio.Future[None]:
        """Done when an event arrives and, ``delay`` s after it was recorded, is released; at a
        keep-alive instant; or when ``all`` wakes everyone."""
        waiter = asyncio.get_running_loop().create_future()
        self._idle.setdefault(delay, []).append(waiter)
        return waiter

    def at(self, when: float) -> asyncio.Future[None]:
        """Done at ``when`` (or a little earlier, see ``TIMER_SECONDS``), or when ``all`` wakes
        everyone."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiting_at(when).append(waiter)
        return waiter

    def keepalive_at(self, when: float) -> None:
        """Wake every idle stream at ``when``."""
        if when not in self._keepalives:
            self._keepalives.add(when)
            _call_at(when, self._keepalive, when)

    def arrived(self, recorded_at: float) -> None:
        """Events recorded at ``recorded_at`` arrived: the idle streams wake when they are due."""
        idle, self._idle = self._idle, {}
        now = time.time()
        for delay, waiters in idle.items():
            due = release_at(recorded_at, delay)
            if due <= now:
                _wake(waiters)
            else:
                self._waiting_at(due).extend(waiters)

    def all(self) -> None:
        """Wake every waiting stream now."""
        idle, self._idle, at, self._at = self._idle, {}, self._at, {}
        for waiters in (*idle.values(), *at.values()):
            _wake(waiters)

    def forget(self, waiter: asyncio.Future[None]) -> None:
        """``waiter``'s stream was cancelled: it waits no more."""
        for waiters in (*self._idle.values(), *self._at.values()):
            if waiter in waiters:
                waiters.remove(waiter)
                return

    def _waiting_at(self, when: float) -> list[asyncio.Future[None]]:
        waiters = self._at.get(when)
        if waiters is None:
            waiters = self._at[when] = []
            _call_at(when, self._instant, when)
        return waiters

    def _instant(self, when: float) -> None:
        _wake(self._at.pop(when, ()))

    def _keepalive(self, when: float) -> None:
        self._keepalives.discard(when)
        idle, self._idle = self._idle, {}
        for waiters in idle.values():
            _wake(waiters)


def _call_at(when: float, callback: Callable[[float], None], arg: float) -> None:
    wait = min(max(when - time.time(), 0.0), TIMER_SECONDS)
    asyncio.get_running_loop().call_later(wait, callback, arg)


def _wake(waiters: list[asyncio.Future[None]] | tuple[()]) -> None:
    for waiter in waiters:
        if not waiter.done():  # not cancelled meanwhile
            waiter.set_result(None)
