"""A game's commands one at a time in this process (service/app/game_locks.py): other games go
on meanwhile, and a lock is dropped once nobody holds or waits for it, cancelled waiters too."""

from __future__ import annotations

import asyncio
import uuid

from service.app.game_locks import GameLocks

A, B = uuid.uuid4(), uuid.uuid4()


async def test_one_command_of_a_game_at_a_time_and_other_games_meanwhile() -> None:
    locks = GameLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def command(game: uuid.UUID, name: str, wait: bool = False) -> None:
        async with locks.of(game):
            order.append(f"{name} in")
            if wait:
                await release.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(command(A, "a1", wait=True))
    await asyncio.sleep(0)
    second = asyncio.create_task(command(A, "a2"))
    other = asyncio.create_task(command(B, "b1"))
    await asyncio.sleep(0.01)
    assert order == ["a1 in", "b1 in", "b1 out"]
    assert len(locks) == 1  # A's, held and waited for; B's dropped
    release.set()
    await asyncio.gather(first, second, other)
    assert order[3:] == ["a1 out", "a2 in", "a2 out"]
    assert len(locks) == 0


async def test_a_waiter_cancelled_leaves_no_lock_behind() -> None:
    locks = GameLocks()
    release = asyncio.Event()

    async def hold() -> None:
        async with locks.of(A):
            await release.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert len(locks) == 1
    release.set()
    await holder
    assert len(locks) == 0
    async with locks.of(A):  # a new command of the game takes a new lock at once
        assert len(locks) == 1
