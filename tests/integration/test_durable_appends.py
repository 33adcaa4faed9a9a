"""Migration 0012 against a real PostgreSQL: an append commits durably whatever the session's
default, never chains onto a head its log lacks, and stops for a game under an incident."""

from __future__ import annotations

import uuid

import asyncpg
import msgspec
import pytest

from service.store.batching import AppendBatcher
from service.store.events import ConcurrencyConflict, EventStore, GameUnderIncident, HeadNotInLog, NewEvent


@pytest.fixture(params=["one by one", "batched"])
def store(request: pytest.FixtureRequest, pool: asyncpg.Pool) -> EventStore:
    return EventStore(pool, batcher=AppendBatcher(pool) if request.param == "batched" else None)


def event(n: int) -> NewEvent:
    return NewEvent(type="Ticked", data=msgspec.json.encode({"type": "Ticked", "n": n}))


async def events_of(pool: asyncpg.Pool, game: uuid.UUID) -> list[tuple[int, bytes, bytes]]:
    rows = await pool.fetch("SELECT seq, prev_hash, hash FROM events WHERE game_id = $1 ORDER BY seq", game)
    return [(row["seq"], bytes(row["prev_hash"]), bytes(row["hash"])) for row in rows]


async def test_an_append_commits_with_synchronous_commit_on_whatever_the_session_default(
    pool: asyncpg.Pool,
) -> None:
    async with pool.acquire() as conn:
        await conn.execute("SET synchronous_commit = off")  # a node whose default is off
        try:
            async with conn.transaction():
                await EventStore(conn).append(uuid.uuid4(), 0, [event(1)])
                # What the commit of the append's transaction runs with.
                assert await conn.fetchval("SELECT current_setting('synchronous_commit')") == "on"
            # For that transaction only: the session keeps its own setting.
            assert await conn.fetchval("SELECT current_setting('synchronous_commit')") == "off"
            for stronger in ("remote_apply", "local"):  # never weakened
                await conn.execute(f"SET synchronous_commit = {stronger}")
                async with conn.transaction():
                    await EventStore(conn).append(uuid.uuid4(), 0, [event(1)])
                    assert await conn.fetchval("SELECT current_setting('synchronous_commit')") == stronger
        finally:
            await conn.execute("RESET synchronous_commit")


async def test_a_head_the_log_lacks_is_refused_and_no_hole_is_written(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1), event(2)], command_id="c1")
    before = await events_of(pool, game)
    # The head names seq 3, committed where a move left it behind and missing from this log.
    await pool.execute(
        "UPDATE streams SET seq = 3, last_hash = sha256('lost'::bytea) WHERE game_id = $1", game
    )
    with pytest.raises(HeadNotInLog) as caught:
        await store.append(game, 3, [event(4)], command_id="c2")
    assert caught.value.log_seq == 2
    with pytest.raises(HeadNotInLog):  # whatever the expected seq
        await store.append(game, 2, [event(3)])
    assert await events_of(pool, game) == before
    assert await pool.fetchval("SELECT count(*) FROM commands WHERE game_id = $1", game) == 1

    # The right seq with another hash (a different event 2 than the log's) is refused too.
    await pool.execute("UPDATE streams SET seq = 2 WHERE game_id = $1", game)
    with pytest.raises(HeadNotInLog):
        await store.append(game, 2, [event(3)])
    assert await events_of(pool, game) == before


async def test_a_head_behind_its_log_is_refused(store: EventStore, pool: asyncpg.Pool) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1), event(2)])
    await pool.execute(
        "UPDATE streams s SET seq = 1, last_hash = e.hash FROM events e"
        " WHERE s.game_id = $1 AND e.game_id = $1 AND e.seq = 1",
        game,
    )
    with pytest.raises(HeadNotInLog) as caught:
        await store.append(game, 1, [event(2)])
    assert caught.value.log_seq == 2


async def test_a_game_under_incident_takes_no_append_until_cleared(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1)], command_id="c1", due_at=0.0)  # its deadline passed
    assert game in await store.due_games()
    assert await store.raise_incident(game, reason="cache_ahead_of_log", acknowledged=2, log_seq=1)
    assert not await store.raise_incident(game, reason="cache_ahead_of_log", acknowledged=3, log_seq=1)
    with pytest.raises(GameUnderIncident):
        await store.append(game, 1, [event(2)])
    # A retried command still gets its events back: nothing is written.
    again = await store.append(game, 0, [event(1)], command_id="c1")
    assert again.duplicate and [e.seq for e in again.events] == [1]
    assert game not in await store.due_games()  # the scheduler leaves it alone too

    await pool.execute("UPDATE incidents SET cleared_at = now(), cleared_by = 'mia' WHERE game_id = $1", game)
    assert game in await store.due_games()
    with pytest.raises(ConcurrencyConflict):
        await store.append(game, 0, [event(2)])
    assert [e.seq for e in (await store.append(game, 1, [event(2)])).events] == [2]
