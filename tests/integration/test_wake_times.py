"""The scheduler finds a game by its wake time, never later than its deadline, which a move that
puts the deadline later leaves alone (migration 0025): no deadline is missed, and a clocked
game's moves do not rewrite the scheduler's index."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import msgspec
import pytest

from service.store.batching import AppendBatcher
from service.store.events import EventStore, NewEvent


@pytest.fixture(params=["one by one", "batched"])
def store(request: pytest.FixtureRequest, pool: asyncpg.Pool) -> EventStore:
    return EventStore(pool, batcher=AppendBatcher(pool) if request.param == "batched" else None)


def event(n: int) -> NewEvent:
    return NewEvent(type="Ticked", data=msgspec.json.encode({"type": "Ticked", "n": n}))


async def times(pool: asyncpg.Pool, game: uuid.UUID) -> tuple[float | None, float | None]:
    """The game's deadline and wake time, in epoch seconds."""
    row = await pool.fetchrow(
        "SELECT extract(epoch FROM due_at)::float8 AS due, extract(epoch FROM wake_at)::float8 AS wake"
        " FROM streams WHERE game_id = $1",
        game,
    )
    assert row is not None
    return row["due"], row["wake"]


async def test_a_deadline_moved_later_leaves_the_wake_time_where_it_was(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    game, now = uuid.uuid4(), time.time()
    await store.append(game, 0, [event(1)], due_at=now + 60)
    await store.append(game, 1, [event(2)], due_at=now + 120)
    due, wake = await times(pool, game)
    assert due == pytest.approx(now + 120) and wake == pytest.approx(now + 60)


async def test_a_deadline_moved_earlier_moves_the_wake_time_with_it(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    game, now = uuid.uuid4(), time.time()
    await store.append(game, 0, [event(1)], due_at=now + 60)
    await store.append(game, 1, [event(2)], due_at=now + 30)
    assert await times(pool, game) == (pytest.approx(now + 30), pytest.approx(now + 30))


async def test_a_game_without_a_deadline_has_no_wake_time(store: EventStore, pool: asyncpg.Pool) -> None:
    game, now = uuid.uuid4(), time.time()
    await store.append(game, 0, [event(1)], due_at=now + 60)
    await store.append(game, 1, [event(2)], due_at=None)
    assert await times(pool, game) == (None, None)


async def test_a_game_woken_before_its_deadline_is_not_due_and_sleeps_until_it(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    game, now = uuid.uuid4(), time.time()
    await store.append(game, 0, [event(1)], due_at=now - 5)
    await store.append(game, 1, [event(2)], due_at=now + 60)  # a move: the clock starts again
    assert (await times(pool, game))[1] == pytest.approx(now - 5)
    assert game not in await store.due_games()
    assert await times(pool, game) == (pytest.approx(now + 60), pytest.approx(now + 60))
    passed = uuid.uuid4()
    await store.append(passed, 0, [event(1)], due_at=now - 1)
    assert passed in await store.due_games()


async def test_a_deadline_brought_forward_while_the_scheduler_looks_is_not_missed(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """The scheduler reads a game woken early, and an append holding the game's row brings its
    deadline into the past before the scheduler moves the wake time: the move rereads the row
    once the append commits and leaves the wake time alone, so the next look finds it due."""
    game, now = uuid.uuid4(), time.time()
    await store.append(game, 0, [event(1)], due_at=now - 5)
    await store.append(game, 1, [event(2)], due_at=now + 60)
    async with pool.acquire() as appending:
        transaction = appending.transaction()
        await transaction.start()
        await appending.execute(
            "UPDATE streams SET due_at = to_timestamp($2) WHERE game_id = $1", game, now - 1
        )
        looking = asyncio.create_task(store.due_games())
        await asyncio.sleep(0.3)  # the scheduler's update waits for the row
        assert not looking.done()
        await transaction.commit()
        assert game not in await looking  # read before the append committed: not due yet
    assert (await times(pool, game))[1] == pytest.approx(now - 5)
    assert game in await store.due_games()
