"""Waking streams across instances: NOTIFY as a hint, polling as the guarantee.

``Notifier`` sends what was appended as ``game_id:seq`` pairs on channel ``playlog_events``, after
the append committed and coalesced into one NOTIFY per burst: a NOTIFY inside the append
transaction would take PostgreSQL's cluster-wide notify lock at every commit and halve commit
throughput. ``Listener`` keeps one LISTEN connection per instance and wakes local waiters; the
instance's own appends reach them at once, without the round trip (``Listener.deliver``). Every
waiter also times out and polls, so a notification lost while reconnecting delays an event,
never loses it.

Both survive any error and a database restart: the notifier keeps what it could not send and
sends it once the database answers again (views of other instances trust these notifications);
the listener reconnects, then tells its subscribers to drop what they may have missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence

import asyncpg

from service.runtime.log import get_logger
from service.store.pool import Pool
from service.store.tasks import Backoff, log_failure, stop, wait_event

CHANNEL = "playlog_events"
AUTH_PREFIX = "auth:"  # payload kind on the same channel: a change of who may do what
ERASED_PREFIX = "erased:"  # and another: a game's personal texts were erased (docs/erasure.md)
MAX_PAYLOAD = 7900  # PostgreSQL refuses payloads of 8000 bytes or more
CONNECT_TIMEOUT = 5.0
HEALTH_CHECK_SECONDS = 5.0
# The notifier waits this long after the first append of a burst, so that the appends of the
# next 50 ms share its NOTIFY. Each NOTIFY is a transaction and wakes every instance's listener
# (a backend and a process each): 5 ms bursts, up to 200 a second per process under load, cost
# throughput and tail latency (docs/performance.md). Only other instances wait for it:
# this one's own waiters are woken at the append (``Notifier(local=...)``).
COALESCE_SECONDS = 0.05
log = get_logger("playlog.notifications")
# A NOTIFY commits a transaction of its own, and that commit waited for its WAL flush like an
# append's. A hint needs no durability: the transaction's own setting lets it return at once.
_NOTIFY = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)"


class Notifier:
    def __init__(self, pool: Pool, *, local: Callable[[uuid.UUID, int], None] | None = None) -> None:
        """``local(game_id, seq)``: what this instance does with its own appends at once (the
        listener's ``deliver``), as a notification would make it do later."""
        self._pool = pool
        self._local = local
        self._pending: dict[uuid.UUID, int] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playlog-notifier")

    async def stop(self) -> None:
        await stop(self._task)
        try:  # the last appends' hint, if the database still answers
            async with asyncio.timeout(2.0):
                await self._flush()
        except Exception as exc:
            log_failure(log, "notify_failed", exc)

    def publish(self, game_id: uuid.UUID, seq: int) -> None:
        """Record that ``game_id`` reached ``seq``; sent soon, off the caller's path."""
        if self._local is not None:  # the next turn: a failure there is not the append's
            asyncio.get_running_loop().call_soon(self._deliver_locally, game_id, seq)
        if seq > self._pending.get(game_id, 0):
            self._pending[game_id] = seq
        self._wake.set()

    def _deliver_locally(self, game_id: uuid.UUID, seq: int) -> None:
        assert self._local is not None
        try:
            self._local(game_id, seq)
        except Exception as exc:  # a subscriber's: the NOTIFY still tells everyone, this one included
            log_failure(log, "local_delivery_failed", exc, game_id=str(game_id))

    async def _run(self) -> None:
        backoff = Backoff()
        while True:
            await self._wake.wait()
            await asyncio.sleep(COALESCE_SECONDS)
            self._wake.clear()
            try:
                await self._flush()
                backoff.reset()
            except Exception as exc:  # any: a notifier that died would leave other instances stale
                log_failure(log, "notify_failed", exc)
                await backoff.pause()

    async def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        try:
            await self._send(pending)
        except BaseException:
            for game_id, seq in pending.items():  # kept for the next attempt, merged with newer
                self.publish(game_id, seq)
            raise

    async def _send(self, pending: dict[uuid.UUID, int]) -> None:
        async with self._pool.acquire() as conn:
            for payload in _payloads([f"{game_id}:{seq}" for game_id, seq in pending.items()]):
                await conn.execute(_NOTIFY, CHANNEL, payload)


class Listener:
    """One LISTEN connection per instance; local waiters subscribe per game or to everything."""

    def __init__(self, dsn: str, poll_interval: float = 1.0) -> None:
        self._dsn = dsn
        self.poll_interval = poll_interval
        self._by_game: dict[uuid.UUID, set[asyncio.Event]] = defaultdict(set)
        self._everything: set[asyncio.Event] = set()
        self._task: asyncio.Task[None] | None = None
        self._conn: asyncpg.Connection | None = None
        self._on_append: list[Callable[[uuid.UUID, int], None]] = []
        self._on_resync: list[Callable[[], None]] = []
        self._on_auth: list[Callable[[str], None]] = []
        self._on_erased: list[Callable[[uuid.UUID], None]] = []

    def on_append(self, callback: Callable[[uuid.UUID, int], None]) -> None:
        """Call ``callback(game_id, seq)`` for every append notified (caches drop stale entries)."""
        self._on_append.append(callback)

    def on_resync(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` on every (re)connection: notifications may have been missed."""
        self._on_resync.append(callback)

    def on_auth(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(topic)`` for every ``auth:<topic>`` notification (see ``notify_auth``)."""
        self._on_auth.append(callback)

    def on_erased(self, callback: Callable[[uuid.UUID], None]) -> None:
        """Call ``callback(game_id)`` when a person in that game is erased: whatever holds the
        game's texts drops them (see ``notify_erased``)."""
        self._on_erased.append(callback)

    def erased(self, game_id: uuid.UUID) -> None:
        for callback in self._on_erased:
            callback(game_id)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playlog-listener")

    async def stop(self) -> None:
        await stop(self._task)
        if self._conn is not None and not self._conn.is_closed():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await self._conn.close()
            self._conn.terminate()

    def subscribe(self, game_id: uuid.UUID | None) -> asyncio.Event:
        event = asyncio.Event()
        (self._everything if game_id is None else self._by_game[game_id]).add(event)
        return event

    def unsubscribe(self, game_id: uuid.UUID | None, event: asyncio.Event) -> None:
        if game_id is None:
            self._everything.discard(event)
            return
        waiters = self._by_game.get(game_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._by_game[game_id]

    async def wait(self, event: asyncio.Event, timeout: float | None = None) -> None:
        """Until woken or the poll interval passes, whichever comes first."""
        await wait_event(event, timeout or self.poll_interval)
        event.clear()

    def wake(self, game_id: uuid.UUID) -> None:
        for event in self._by_game.get(game_id, ()):
            event.set()
        for event in self._everything:
            event.set()

    def _on_notification(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        for item in payload.split(";"):
            if item.startswith(AUTH_PREFIX):
                for on_auth in self._on_auth:
                    on_auth(item.removeprefix(AUTH_PREFIX))
                continue
            if item.startswith(ERASED_PREFIX):
                with contextlib.suppress(ValueError):
                    self.erased(uuid.UUID(item.removeprefix(ERASED_PREFIX)))
                continue
            game, _, seq = item.partition(":")
            with contextlib.suppress(ValueError):
                self.deliver(uuid.UUID(game), int(seq))

    def deliver(self, game_id: uuid.UUID, seq: int) -> None:
        """What a notification that ``game_id`` reached ``seq`` does: subscribers told, waiters woken."""
        for callback in self._on_append:
            callback(game_id, seq)
        self.wake(game_id)

    async def _run(self) -> None:
        backoff = Backoff()
        while True:
            try:
                await self._listen(backoff)
            except Exception as exc:  # any: without it, every cross-instance view goes stale
                log_failure(log, "listener_reconnecting", exc)
            finally:
                if self._conn is not None:
                    self._conn.terminate()  # gone or unhealthy: never reused
                    self._conn = None
            await backoff.pause()

    async def _listen(self, backoff: Backoff) -> None:
        self._conn = conn = await asyncpg.connect(
            self._dsn, timeout=CONNECT_TIMEOUT, server_settings={"application_name": "playlog-listener"}
        )
        await conn.add_listener(CHANNEL, self._on_notification)
        backoff.reset()
        # Anything sent while we were away: drop what may be stale, let every waiter poll.
        for resync in self._on_resync:
            resync()
        for waiters in [*list(self._by_game.values()), self._everything]:
            for event in waiters:
                event.set()
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _conn: lost.set())
        while not conn.is_closed():
            # A dead peer that never closed the socket shows up as an unanswered query.
            if await wait_event(lost, HEALTH_CHECK_SECONDS):
                break
            async with asyncio.timeout(HEALTH_CHECK_SECONDS):
                await conn.execute("SELECT 1")


async def notify_auth(conn: asyncpg.Connection, topic: str) -> None:
    """Tell every instance's listener that ``topic`` (e.g. ``moderators``) changed."""
    await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, AUTH_PREFIX + topic)


def _payloads(items: Sequence[str]) -> list[str]:
    """``items`` joined by ``;`` into as few payloads as PostgreSQL's size limit allows."""
    payloads: list[str] = []
    current: list[str] = []
    size = 0
    for item in items:
        if current and size + len(item) + 1 > MAX_PAYLOAD:
            payloads.append(";".join(current))
            current, size = [], 0
        current.append(item)
        size += len(item) + 1
    if current:
        payloads.append(";".join(current))
    return payloads


async def notify_erased(db: Pool | asyncpg.Connection, game_ids: Sequence[uuid.UUID]) -> None:
    """Tell every instance's listener that a person in each of ``game_ids`` was erased."""
    for payload in _payloads([ERASED_PREFIX + str(game_id) for game_id in game_ids]):
        await db.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
