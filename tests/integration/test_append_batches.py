"""Appends sent together in one call of ``playlog_append_batch`` (service/store/batching.py), against a
real PostgreSQL: each keeps its own answer, its own refusal and its own error."""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY

from service.store.batching import Append, AppendBatcher
from service.store.events import ConcurrencyConflict, EventStore, InvalidExpectedSeq, NewEvent
from service.store.pool import Pool, create_pool


def event(n: int) -> NewEvent:
    return NewEvent(type="Ticked", data=msgspec.json.encode({"type": "Ticked", "n": n}))


class CountingBatcher(AppendBatcher):
    """Records the size of every call it makes."""

    def __init__(self, pool: Pool, **kwargs: Any) -> None:
        super().__init__(pool, **kwargs)
        self.calls: list[int] = []

    async def _call(self, batch: Sequence[Append], *, wait: bool = False) -> list[Any]:
        self.calls.append(len(batch))
        return await super()._call(batch, wait=wait)


def batched_store(pool: Pool, **kwargs: Any) -> tuple[EventStore, CountingBatcher]:
    batcher = CountingBatcher(pool, **kwargs)
    return EventStore(pool, batcher=batcher), batcher


async def test_appends_arriving_while_a_call_is_out_go_together_in_the_next(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    games = [uuid.uuid4() for _ in range(20)]
    results = await asyncio.gather(*(store.append(g, 0, [event(1), event(2)]) for g in games))
    assert batcher.calls == [1, 19]  # the first went at once; the others waited for it together
    for game, result in zip(games, results, strict=True):
        assert [e.seq for e in result.events] == [1, 2]
        assert all(e.game_id == game for e in result.events)
        assert (await store.verify(game)).ok


async def test_a_quiet_store_sends_each_append_at_once(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    for n in range(3):
        await store.append(uuid.uuid4(), 0, [event(n)])
    assert batcher.calls == [1, 1, 1]


async def test_the_batch_sizes_are_a_metric(pool: Pool) -> None:
    store, _ = batched_store(pool, in_flight=1)

    def sample(name: str) -> float:
        return REGISTRY.get_sample_value(f"playlog_append_batch_size_{name}") or 0.0

    calls, appends = sample("count"), sample("sum")
    await asyncio.gather(*(store.append(uuid.uuid4(), 0, [event(1)]) for _ in range(5)))
    assert (sample("count") - calls, sample("sum") - appends) == (2, 5)  # one alone, then four


async def test_a_batch_caps_its_items(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1, max_items=8)
    await asyncio.gather(*(store.append(uuid.uuid4(), 0, [event(1)]) for _ in range(20)))
    assert batcher.calls == [1, 8, 8, 3]


async def test_each_append_of_a_batch_gets_its_own_answer_refusal_or_duplicate(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    fresh, stale, ahead, repeated = (uuid.uuid4() for _ in range(4))
    await store.append(stale, 0, [event(1)])
    await store.append(ahead, 0, [event(1)])
    first = await store.append(repeated, 0, [event(1), event(2)], command_id="c1", fingerprint="0f")
    batcher.calls.clear()
    blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
    results = await asyncio.gather(
        store.append(fresh, 0, [event(1), event(2), event(3)]),
        store.append(stale, 0, [event(2)]),
        store.append(ahead, 5, [event(2)]),
        store.append(repeated, 2, [event(3)], command_id="c1", fingerprint="0f"),
        return_exceptions=True,
    )
    await blocker
    assert batcher.calls == [1, 4]
    appended, conflict, early, duplicate = results
    assert not isinstance(appended, BaseException)
    assert [e.seq for e in appended.events] == [1, 2, 3]
    assert isinstance(conflict, ConcurrencyConflict) and conflict.current == 1
    assert isinstance(early, InvalidExpectedSeq)
    assert not isinstance(duplicate, BaseException)
    assert duplicate.duplicate and duplicate.fingerprint == "0f"
    assert [e.hash for e in duplicate.events] == [e.hash for e in first.events]
    assert [await store.current_seq(g) for g in (fresh, stale, ahead, repeated)] == [3, 1, 1, 2]


async def test_one_game_twice_in_a_batch_appends_once_and_refuses_the_second(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    game = uuid.uuid4()
    blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
    results = await asyncio.gather(
        store.append(game, 0, [event(1)]), store.append(game, 0, [event(2)]), return_exceptions=True
    )
    await blocker
    assert batcher.calls == [1, 2]
    assert sum(isinstance(r, ConcurrencyConflict) for r in results) == 1
    assert [e.seq for e in await store.read(game)] == [1]


async def test_a_games_next_append_in_the_same_batch_sees_the_one_before(pool: Pool) -> None:
    """The batch writes its items' events together at the end (migration 0027), but a game's item
    still sees the events, command and head of that game's item before it in the batch."""
    store, batcher = batched_store(pool, in_flight=1)
    game = uuid.uuid4()
    blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
    first, second, again = await asyncio.gather(
        store.append(game, 0, [event(1), event(2)], command_id="a", fingerprint="0a"),
        store.append(game, 2, [event(3)], command_id="b", fingerprint="0b"),
        store.append(game, 3, [event(4)], command_id="a", fingerprint="0a"),
    )
    await blocker
    assert batcher.calls == [1, 3]
    assert [e.seq for e in first.events] == [1, 2] and not first.duplicate
    assert [e.seq for e in second.events] == [3] and second.events[0].prev_hash == first.events[-1].hash
    assert again.duplicate and [e.hash for e in again.events] == [e.hash for e in first.events]
    stored = await store.read(game)
    assert [e.seq for e in stored] == [1, 2, 3]
    assert [e.hash for e in stored] == [e.hash for e in first.events + second.events]
    assert await store.current_seq(game) == 3


async def test_an_append_postgresql_refuses_fails_alone_and_its_batch_is_sent_again(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    good = [uuid.uuid4() for _ in range(3)]
    blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
    bad = NewEvent(type="Ticked", data=b'{"not json')  # the server's jsonb input refuses it
    results = await asyncio.gather(
        *(store.append(g, 0, [event(1)]) for g in good[:2]),
        store.append(uuid.uuid4(), 0, [bad]),
        store.append(good[2], 0, [event(1)]),
        return_exceptions=True,
    )
    await blocker
    assert batcher.calls == [1, 4, 1, 1, 1, 1]  # refused whole, then each alone
    assert [type(r).__name__ for r in results] == [
        "AppendResult",
        "AppendResult",
        "InvalidTextRepresentationError",
        "AppendResult",
    ]
    assert [await store.current_seq(g) for g in good] == [1, 1, 1]


async def test_a_cancelled_caller_gives_up_its_answer_not_its_batch(pool: Pool) -> None:
    store, _ = batched_store(pool, in_flight=1)
    games = [uuid.uuid4() for _ in range(5)]
    blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
    callers = [asyncio.ensure_future(store.append(g, 0, [event(1)])) for g in games]
    await asyncio.sleep(0)
    callers[0].cancel()
    await blocker
    results = await asyncio.gather(*callers, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert all(not isinstance(r, BaseException) for r in results[1:])
    assert [await store.current_seq(g) for g in games[1:]] == [1, 1, 1, 1]


async def test_batches_from_two_processes_over_the_same_games_never_deadlock(database_url: str) -> None:
    """Each batch locks its games in one order (by id), whatever order its appends came in."""
    pools = [await create_pool(database_url, min_size=1, max_size=4) for _ in range(2)]
    try:
        stores = [batched_store(p, in_flight=2)[0] for p in pools]
        games = [uuid.uuid4() for _ in range(12)]
        seqs = dict.fromkeys(games, 0)
        for _ in range(15):
            attempts = [
                store.append(g, seqs[g], [event(1)])
                for n, store in enumerate(stores)
                for g in (games if n == 0 else games[::-1])
            ]
            results = await asyncio.gather(*attempts, return_exceptions=True)
            errors = [
                r for r in results if isinstance(r, BaseException) and not isinstance(r, ConcurrencyConflict)
            ]
            assert errors == []
            for game in games:
                seqs[game] = await stores[0].current_seq(game)
        assert all(seq == 15 for seq in seqs.values())
        for game in games:
            assert (await stores[0].verify(game)).ok
    finally:
        for p in pools:
            await p.close()


@pytest.mark.parametrize("in_flight", [1, 2])
async def test_many_concurrent_appends_keep_every_game_contiguous(pool: Pool, in_flight: int) -> None:
    store, batcher = batched_store(pool, in_flight=in_flight)
    games = [uuid.uuid4() for _ in range(10)]

    async def play(game: uuid.UUID) -> None:
        for seq in range(0, 20, 2):
            await store.append(game, seq, [event(seq), event(seq + 1)], command_id=f"c{seq}")

    await asyncio.gather(*(play(g) for g in games))
    assert max(batcher.calls) > 1
    for game in games:
        assert [e.seq for e in await store.read(game)] == list(range(1, 21))
        assert (await store.verify(game)).ok


async def test_a_game_another_session_holds_holds_up_its_own_append_only(pool: Pool) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    held, others = uuid.uuid4(), [uuid.uuid4() for _ in range(3)]
    await store.append(held, 0, [event(1)])
    batcher.calls.clear()
    async with pool.acquire() as locker, locker.transaction():
        await locker.execute("SELECT 1 FROM streams WHERE game_id = $1 FOR UPDATE", held)
        blocker = asyncio.ensure_future(store.append(uuid.uuid4(), 0, [event(0)]))
        waiting = asyncio.ensure_future(store.append(held, 1, [event(2)]))
        done = await asyncio.wait_for(asyncio.gather(*(store.append(g, 0, [event(1)]) for g in others)), 10)
        await blocker
        assert [[e.seq for e in result.events] for result in done] == [[1], [1], [1]]
        assert not waiting.done()  # sent alone, it waits for the game as one append does
    assert [e.seq for e in (await waiting).events] == [2]
    assert batcher.calls == [1, 4, 1]  # the blocker; the batch; the busy game's append alone
    assert (await store.verify(held)).ok


async def test_a_batch_lost_with_its_session_fails_every_append_in_it_and_none_is_sent_again(
    pool: Pool,
) -> None:
    store, batcher = batched_store(pool, in_flight=1)
    games = [uuid.uuid4() for _ in range(4)]
    # Asked outside the locker's transaction, which would see one snapshot of the stats.
    stuck = "FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    async with pool.acquire() as locker, locker.transaction():
        await locker.execute("LOCK TABLE events IN EXCLUSIVE MODE")  # every insert waits
        waiting = asyncio.gather(*(store.append(g, 0, [event(1)]) for g in games), return_exceptions=True)
        while not waiting.done():  # the first append alone, then the three that queued behind it
            if await pool.fetchval(f"SELECT count(*) {stuck}"):
                await pool.execute(f"SELECT pg_terminate_backend(pid) {stuck}")
            await asyncio.sleep(0.01)
        results = await waiting
    assert batcher.calls == [1, 3]
    assert all(isinstance(r, asyncpg.ConnectionDoesNotExistError) for r in results)
    assert [await store.current_seq(g) for g in games] == [0, 0, 0, 0]


_BATCH = "SELECT * FROM playlog_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false)"


class _Item(msgspec.Struct, frozen=True):
    game: int  # which of the three games
    expected: int
    command: str | None
    count: int


_items = st.lists(
    st.builds(
        _Item,
        game=st.integers(0, 2),
        expected=st.integers(0, 5),
        command=st.none() | st.sampled_from(["a", "b", "c", "d"]),
        count=st.integers(1, 3),
    ),
    min_size=1,
    max_size=8,
)


async def _send(
    conn: asyncpg.Connection, games: list[uuid.UUID], items: list[tuple[str, _Item]]
) -> list[Any]:
    """One call of the batch function with the labelled ``items`` (each event's type names its
    item and place); its rows as (item's label, conflict, duplicate, seq, type)."""
    types = [f"{label}.{e}" for label, item in items for e in range(item.count)]
    rows = await conn.fetch(
        _BATCH,
        [games[i.game] for _, i in items],
        [i.expected for _, i in items],
        [i.command for _, i in items],
        [None if i.command is None else "0f" * 32 for _, i in items],
        [i.count for _, i in items],
        types,
        [1] * len(types),
        [json.dumps({"type": t}) for t in types],
        [json.dumps({"command": {"label": label}, "command_id": i.command}) for label, i in items],
        [None] * len(items),
    )
    return [(items[r["item"] - 1][0], r["conflict"], r["duplicate"], r["seq"], r["type"]) for r in rows]


async def _state(conn: asyncpg.Connection, games: list[uuid.UUID]) -> list[Any]:
    """Each game's log (seq and type; checked chained and ending at its head) and recorded commands."""
    out = []
    for game in games:
        events = await conn.fetch(
            "SELECT seq, type, prev_hash, hash FROM events WHERE game_id = $1 ORDER BY seq", game
        )
        assert all(a["hash"] == b["prev_hash"] for a, b in itertools.pairwise(events))
        head = await conn.fetchrow("SELECT seq, last_hash FROM streams WHERE game_id = $1", game)
        if events:
            assert (head["seq"], head["last_hash"]) == (events[-1]["seq"], events[-1]["hash"])
        commands = await conn.fetch(
            "SELECT command_id, first_seq, last_seq FROM commands WHERE game_id = $1 ORDER BY command_id",
            game,
        )
        out.append(([(e["seq"], e["type"]) for e in events], [tuple(c) for c in commands]))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=_items)
async def test_a_batch_answers_and_writes_as_its_items_would_one_at_a_time(
    database_url: str, items: list[_Item]
) -> None:
    """Whatever the batch holds (stale and early appends, repeated keys, one game several times),
    its answers and what it writes are those of its items sent one by one in the order the batch
    takes them: by game, then as given (migration 0027 writes a batch's items together)."""
    conn = await asyncpg.connect(database_url)
    try:
        together, alone = [uuid.uuid4() for _ in range(3)], [uuid.uuid4() for _ in range(3)]
        for games in (together, alone):  # the same start: game g holds g events, by command "a"
            for g in (1, 2):
                await _send(conn, games, [("start", _Item(g, 0, "a", g))])
        labelled = [(f"item{k}", item) for k, item in enumerate(items)]
        answers = await _send(conn, together, labelled)
        one_by_one: list[Any] = []
        for k in sorted(range(len(items)), key=lambda k: (items[k].game, k)):
            one_by_one += await _send(conn, alone, [labelled[k]])
        assert sorted(answers, key=repr) == sorted(one_by_one, key=repr)
        assert await _state(conn, together) == await _state(conn, alone)
    finally:
        await conn.close()
