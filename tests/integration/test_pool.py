"""The shared connection pool against a real PostgreSQL: fair turns, timeouts, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from service.pool import create_pool


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
