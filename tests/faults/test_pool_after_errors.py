"""The shared pool never hands a connection in an unknown state to the next task."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from service.store.pool import create_pool
from tests.faults.conftest import OwnPostgres


async def _backend(pool: asyncpg.Pool) -> int:
    pid: int = await pool.fetchval("SELECT pg_backend_pid()")
    return pid


@pytest.mark.parametrize(
    "error",
    [
        # What asyncpg raises on an idle connection the server terminated (pg_ctl restart) a
        # moment before its socket closed: the protocol is out of step with the server.
        asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
        asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
        ConnectionResetError("connection reset by peer"),
    ],
)
async def test_a_connection_that_failed_on_the_client_side_is_terminated_not_reused(
    database_url: str, error: Exception
) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        before = await _backend(pool)
        with pytest.raises(type(error)):
            async with pool.acquire():
                raise error
        assert await _backend(pool) != before  # a new connection, the pool still whole
        assert await asyncio.gather(*(pool.fetchval("SELECT 1") for _ in range(5))) == [1] * 5
    finally:
        await pool.close()


async def test_a_server_side_error_keeps_the_connection(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        before = await _backend(pool)
        with pytest.raises(asyncpg.DivisionByZeroError):
            await pool.fetchval("SELECT 1 / 0")
        assert await _backend(pool) == before
    finally:
        await pool.close()


async def test_a_connection_the_server_terminated_is_replaced(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    admin = await asyncpg.connect(database_url)
    try:
        before = await _backend(pool)
        await admin.execute("SELECT pg_terminate_backend($1)", before)
        for _ in range(50):  # the first queries may see the dropped connection; then a new one
            try:
                after = await _backend(pool)
                break
            except (asyncpg.PostgresError, asyncpg.InternalClientError, asyncpg.InterfaceError, OSError):
                await asyncio.sleep(0.05)
        assert after != before
    finally:
        await admin.close()
        await pool.close()


async def test_a_busy_pool_works_again_once_postgresql_has_restarted(own_postgres: OwnPostgres) -> None:
    """Thirty tasks on five connections while the server restarts (every session terminated):
    errors while it is away, then every query answers and no turn of the pool is left taken."""
    pool = await create_pool(own_postgres.url, min_size=2, max_size=5)
    failures: list[BaseException] = []
    after_restart = asyncio.Event()
    done = asyncio.Event()

    async def client(n: int) -> None:
        while not done.is_set():
            try:
                if n % 3 == 0:
                    async with pool.acquire() as conn, conn.transaction():
                        await conn.execute("SELECT pg_sleep(0.001)")
                else:
                    await pool.fetchval("SELECT pg_notify('x', $1)", str(n))
            except Exception as exc:
                if after_restart.is_set():
                    failures.append(exc)
                await asyncio.sleep(0.01)

    tasks = [asyncio.create_task(client(n)) for n in range(30)]
    try:
        await asyncio.sleep(0.5)
        await asyncio.to_thread(own_postgres.restart)
        async with asyncio.timeout(30):  # settled: a round of queries on every connection works
            while True:
                try:
                    await asyncio.gather(*(pool.fetchval("SELECT 1") for _ in range(10)))
                    break
                except Exception:
                    await asyncio.sleep(0.1)
        after_restart.set()
        await asyncio.sleep(2.0)
    finally:
        done.set()
        await asyncio.gather(*tasks)
    try:
        assert failures == []
        async with asyncio.timeout(10):  # every turn given back: all five at once
            conns = [await pool.acquire() for _ in range(5)]
        for conn in conns:
            await pool.release(conn)
    finally:
        await pool.close()
