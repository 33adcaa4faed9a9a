"""The connection pool every part of the service shares: fair, lean, and safe after a restart.

asyncpg's own pool costs more than the query it runs: ``pool.fetch("SELECT 1")`` took 105 us of
the caller's CPU against 55 us on a connection of its own, and 152 us of wall time against 100
(``bench/pool.py``; this pool: 44 and 84). Each release goes through ``asyncio.shield``,
a task of its own that runs on a later turn of the event loop, and each acquire through a queue,
a proxy object and an inactivity timer set and cancelled again. This pool does what the service
needs and nothing else:

- Fair: a task that has to wait is served in the order it asked (asyncpg's pool hands a released
  connection to whichever task asks next, so under contention a task that has waited can lose
  its turn again and again: MagicStack/asyncpg#1247; 500 tasks on 20 connections had p99 waits of
  250 ms and a maximum near 1 s). A released connection goes straight to the first waiter.
- Lean: no reset query on release (pool connections hold no session state: LISTEN and advisory
  locks use connections of their own), no proxy, no task per release.
- Safe after a database restart: a connection whose user saw a client-side error (the socket gone,
  a protocol out of step, a cancelled query), or that comes back inside a transaction, is
  terminated, never handed to the next task; its place goes to the first waiter, which opens a new
  one. (The server's FATAL "terminating connection" reaches an idle connection a moment before its
  socket closes; asyncpg then leaves the connection open with its protocol in an error state, and
  the next query fails with ``InternalClientError: cannot switch to state 12``.)
- Connections idle for ``IDLE_LIFETIME`` beyond ``min_size`` are closed; idle connections are
  reused most recent first, so the ones a quiet pool does not need age out.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Generator
from types import TracebackType
from typing import Any

import asyncpg

IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000
CONNECT_TIMEOUT = 5.0  # asyncpg's default is 60 s: a request would hang that long, not answer 503
IDLE_LIFETIME = 300.0  # as asyncpg's pool's max_inactive_connection_lifetime
CLOSE_TIMEOUT = 10.0
# Errors after which a connection's protocol state is unknown (a PostgresError, raised by the
# server in good order, leaves the connection ready for the next query).
CLIENT_SIDE_ERRORS = (
    asyncpg.InternalClientError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.PostgresConnectionError,
    OSError,
    asyncio.CancelledError,
)

# What a waiter is handed: a connection, or None: a place came free, open a connection in it.
_Handed = asyncio.Future[Any]


class Pool:
    """``fetch``, ``fetchval``, ``fetchrow``, ``execute`` on a connection of the pool, and
    ``acquire`` (``async with pool.acquire() as conn`` or ``conn = await pool.acquire()`` then
    ``await pool.release(conn)``), as asyncpg's pool offers them."""

    def __init__(self, dsn: str, *, min_size: int, max_size: int, server_settings: dict[str, str]) -> None:
        self._dsn = dsn
        self._min_size = min_size
        self._max_size = max_size
        self._server_settings = server_settings
        self._idle: deque[tuple[asyncpg.Connection, float]] = (
            deque()
        )  # (connection, released at): newest right
        self._in_use: set[asyncpg.Connection] = set()
        self._opening = 0  # places taken by connections being opened
        self._waiters: deque[_Handed] = deque()
        self._closing = False
        self._drained = asyncio.Event()  # set once closing and every connection is back
        self._closers: set[asyncio.Task[None]] = set()

    async def open(self) -> None:
        """Open the first ``min_size`` connections."""
        self._opening += self._min_size
        try:
            opened = await asyncio.gather(*(self._connect() for _ in range(self._min_size)))
        finally:
            self._opening -= self._min_size
        now = time.monotonic()
        self._idle.extend((conn, now) for conn in opened)

    async def _connect(self) -> asyncpg.Connection:
        conn = await asyncpg.connect(
            self._dsn, timeout=CONNECT_TIMEOUT, server_settings=self._server_settings
        )
        try:
            await conn.set_type_codec("jsonb", encoder=str, decoder=str, schema="pg_catalog")
        except BaseException:
            conn.terminate()
            raise
        return conn

    # -- taking and giving back ---------------------------------------------------------------

    def acquire(self, *, timeout: float | None = None) -> _Acquire:
        return _Acquire(self, timeout)

    async def release(self, conn: asyncpg.Connection, *, timeout: float | None = None) -> None:
        self._give_back(conn, broken=False)

    async def _take(self, timeout: float | None) -> asyncpg.Connection:
        if self._closing:
            raise asyncpg.InterfaceError("pool is closing")
        if not self._waiters:  # nobody is ahead: an idle connection, or a new one if there is room
            while self._idle:
                conn = self._idle.pop()[0]
                if not conn.is_closed():
                    self._in_use.add(conn)
                    return conn
            if len(self._in_use) + self._opening < self._max_size:
                self._opening += 1
                return await self._open_taken(timeout)
        handed: _Handed = asyncio.get_running_loop().create_future()
        self._waiters.append(handed)
        started = time.monotonic()
        try:
            if timeout is None:
                conn = await handed
            else:
                async with asyncio.timeout(timeout):
                    conn = await handed
        except BaseException:
            if handed.done() and not handed.cancelled():  # handed over as the wait ended: pass it on
                if (given := handed.result()) is None:
                    self._opening -= 1
                    self._place_freed()
                else:
                    self._give_back(given, broken=False)
            else:
                self._forget_waiter(handed)
            raise
        if conn is None:
            left = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
            return await self._open_taken(left)
        return conn

    async def _open_taken(self, timeout: float | None) -> asyncpg.Connection:
        """Open a connection in a place already counted in ``_opening``, for the caller's use."""
        try:
            if timeout is None:
                conn = await self._connect()
            else:
                async with asyncio.timeout(timeout):
                    conn = await self._connect()
        except BaseException:
            self._opening -= 1
            self._place_freed()
            raise
        self._opening -= 1
        self._in_use.add(conn)
        return conn

    def _give_back(self, conn: asyncpg.Connection, *, broken: bool) -> None:
        if conn not in self._in_use:  # a second release gives nothing back twice
            return
        self._in_use.discard(conn)
        if broken or self._closing or _unusable(conn):
            conn.terminate()
            self._place_freed()
        else:
            while self._waiters:
                handed = self._waiters.popleft()
                if not handed.done():
                    self._in_use.add(conn)
                    handed.set_result(conn)
                    return
            now = time.monotonic()
            self._idle.append((conn, now))
            self._close_aged(now)
        if self._closing and not self._in_use:
            self._drained.set()

    def _place_freed(self) -> None:
        """A connection is gone: the first waiter may open one in its place."""
        while self._waiters:
            handed = self._waiters.popleft()
            if not handed.done():
                self._opening += 1
                handed.set_result(None)
                return

    def _forget_waiter(self, handed: _Handed) -> None:
        with contextlib.suppress(ValueError):
            self._waiters.remove(handed)

    def _close_aged(self, now: float) -> None:
        while len(self._idle) > self._min_size and self._idle[0][1] < now - IDLE_LIFETIME:
            conn = self._idle.popleft()[0]
            closing = asyncio.ensure_future(_close_quietly(conn))
            self._closers.add(closing)
            closing.add_done_callback(self._closers.discard)

    # -- asyncpg's shortcuts --------------------------------------------------------------------

    async def fetch(self, query: str, *args: Any, timeout: float | None = None) -> list[Any]:
        conn = await self._take(None)
        broken = False
        try:
            rows: list[Any] = await conn.fetch(query, *args, timeout=timeout)
            return rows
        except BaseException as exc:
            broken = isinstance(exc, CLIENT_SIDE_ERRORS)
            raise
        finally:
            self._give_back(conn, broken=broken)

    async def fetchrow(self, query: str, *args: Any, timeout: float | None = None) -> Any:
        async with self.acquire() as conn:
            return await conn.fetchrow(query, *args, timeout=timeout)

    async def fetchval(self, query: str, *args: Any, column: int = 0, timeout: float | None = None) -> Any:
        async with self.acquire() as conn:
            return await conn.fetchval(query, *args, column=column, timeout=timeout)

    async def execute(self, query: str, *args: Any, timeout: float | None = None) -> str:
        async with self.acquire() as conn:
            status: str = await conn.execute(query, *args, timeout=timeout)
            return status

    # -- the end --------------------------------------------------------------------------------

    async def close(self) -> None:
        """Refuse new takers, close the idle connections, wait (a while) for the others to come
        back, then terminate what is left."""
        self._closing = True
        while self._waiters:
            handed = self._waiters.popleft()
            if not handed.done():
                handed.set_exception(asyncpg.InterfaceError("pool is closing"))
        idle = [conn for conn, _ in self._idle]
        self._idle.clear()
        await asyncio.gather(*(_close_quietly(conn) for conn in idle), *self._closers)
        if self._in_use:
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._drained.wait()
            except TimeoutError:
                self.terminate()

    def terminate(self) -> None:
        self._closing = True
        for conn in [*self._in_use, *(conn for conn, _ in self._idle)]:
            conn.terminate()
        self._in_use.clear()
        self._idle.clear()


def _unusable(conn: asyncpg.Connection) -> bool:
    """Closed, inside a transaction its user left open, or still cancelling a query."""
    return bool(conn.is_closed() or conn.is_in_transaction() or conn._protocol._is_cancelling())


async def _close_quietly(conn: asyncpg.Connection) -> None:
    try:
        await conn.close(timeout=CLOSE_TIMEOUT)
    except (Exception, asyncio.CancelledError):
        conn.terminate()


class _Acquire:
    """``async with pool.acquire() as conn`` or ``conn = await pool.acquire()``."""

    __slots__ = ("_conn", "_pool", "_timeout")

    def __init__(self, pool: Pool, timeout: float | None) -> None:
        self._pool = pool
        self._timeout = timeout
        self._conn: asyncpg.Connection | None = None

    async def __aenter__(self) -> asyncpg.Connection:
        self._conn = await self._pool._take(self._timeout)
        return self._conn

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._conn is not None
        self._pool._give_back(self._conn, broken=isinstance(exc, CLIENT_SIDE_ERRORS))

    def __await__(self) -> Generator[Any, None, asyncpg.Connection]:
        return self._pool._take(self._timeout).__await__()


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10) -> Pool:
    pool = Pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        server_settings={
            "application_name": "playlog",
            "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_TIMEOUT_MS),
        },
    )
    await pool.open()
    return pool
