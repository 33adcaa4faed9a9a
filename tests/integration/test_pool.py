"""The shared connection pool against a real PostgreSQL: fair turns, timeouts, cancellation."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from service.store import pool as pool_module
from service.store.pool import create_pool


async def test_the_pool_serves_waiting_tasks_in_turn(database_url: str) -> None:
    """Many tasks on few connections, each asking again soon after it gave its connection back.
    asyncpg's own pool hands a released connection to whichever task asks first, not to the one
    that has waited longest, so some waits span hundreds of other grants (MagicStack/asyncpg#1247);
    in turn, a task waits for at most the tasks ahead of it."""
    tasks, connections = 50, 2
    pool = await create_pool(database_url, min_size=connections, max_size=connections)
    granted = 0
    longest_wait = 0  # in grants to other tasks between asking and being served

    async def client() -> None:
        nonlocal granted, longest_wait
        for _ in range(20):
            asked_at = granted
            async with pool.acquire() as conn:
                longest_wait = max(longest_wait, granted - asked_at)
                granted += 1
                await conn.fetchval("SELECT 1")
            await asyncio.sleep(0)

    try:
        await asyncio.gather(*(client() for _ in range(tasks)))
    finally:
        await pool.close()
    assert granted == tasks * 20
    assert longest_wait <= tasks


async def test_waiting_for_a_turn_honours_the_acquire_timeout(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        async with pool.acquire():
            with pytest.raises(TimeoutError):
                async with pool.acquire(timeout=0.05):
                    pass
        assert await pool.fetchval("SELECT 1") == 1  # the timed-out waiter left no turn taken
    finally:
        await pool.close()


async def test_a_cancelled_waiter_gives_its_turn_away(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        async with pool.acquire():
            waiter = asyncio.create_task(pool.fetchval("SELECT 1"))
            await asyncio.sleep(0.01)
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
        async with asyncio.timeout(5):
            assert await pool.fetchval("SELECT 2") == 2
    finally:
        await pool.close()


async def test_a_connection_taken_with_await_gives_its_turn_back_once(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        conn = await pool.acquire()
        await pool.release(conn)
        await pool.release(conn)  # asyncpg ignores a second release: so must the turns
        held = await pool.acquire()
        with pytest.raises(TimeoutError):
            await pool.acquire(timeout=0.05)  # one connection, one turn: not two
        await pool.release(held)
        assert await pool.fetchval("SELECT 1") == 1
    finally:
        await pool.close()


async def test_a_connection_given_back_inside_a_transaction_is_not_handed_on(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        conn = await pool.acquire()
        before = await conn.fetchval("SELECT pg_backend_pid()")
        await conn.execute("BEGIN")
        await pool.release(conn)  # its user left a transaction open: its state is not the next user's
        async with pool.acquire() as again:
            assert await again.fetchval("SELECT pg_backend_pid()") != before
            assert not again.is_in_transaction()
    finally:
        await pool.close()


async def test_connections_idle_past_their_lifetime_close_down_to_the_minimum(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "IDLE_LIFETIME", 0.05)
    pool = await create_pool(database_url, min_size=1, max_size=3)
    try:
        held = [await pool.acquire() for _ in range(3)]
        for conn in held:
            await pool.release(conn)
        await asyncio.sleep(0.1)  # past their lifetime: a span, not a wait for the pool
        await pool.fetchval("SELECT 1")  # a release: the ones idle too long are closed
        async with asyncio.timeout(10):
            while sum(not conn.is_closed() for conn in held) > 1:
                await asyncio.sleep(0.01)
        assert sum(not conn.is_closed() for conn in held) == 1
    finally:
        await pool.close()


async def test_closing_waits_for_connections_in_use_and_refuses_new_takers(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=2)
    conn = await pool.acquire()
    closing = asyncio.create_task(pool.close())
    await asyncio.sleep(0.05)
    assert not closing.done()  # the connection in use is still out
    with pytest.raises(asyncpg.InterfaceError):
        await pool.fetchval("SELECT 1")
    await pool.release(conn)
    async with asyncio.timeout(5):
        await closing
    assert conn.is_closed()
