"""The event store against a real PostgreSQL, its appends sent one by one and in batches."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest

from service.store.batching import AppendBatcher
from service.store.events import (
    START,
    ConcurrencyConflict,
    Cursor,
    EventStore,
    InvalidExpectedSeq,
    NewEvent,
    StoredEvent,
)


@pytest.fixture(params=["one by one", "batched"])
def store(request: pytest.FixtureRequest, pool: asyncpg.Pool) -> EventStore:
    """Every promise of the log holds for appends sent alone and for appends sent in batches."""
    return EventStore(pool, batcher=AppendBatcher(pool) if request.param == "batched" else None)


def event(n: int, kind: str = "Ticked") -> NewEvent:
    return NewEvent(type=kind, data=msgspec.json.encode({"type": kind, "n": n}))


async def test_append_assigns_contiguous_seqs_and_reads_them_back(store: EventStore) -> None:
    game = uuid.uuid4()
    first = await store.append(game, 0, [event(1), event(2)], command_id="c1", actor="seat:0")
    second = await store.append(game, 2, [event(3)], command_id="c2", actor="seat:1")
    assert [e.seq for e in first.events + second.events] == [1, 2, 3]
    assert not first.duplicate
    read = await store.read(game)
    assert [msgspec.json.decode(e.data)["n"] for e in read] == [1, 2, 3]
    assert read[0].metadata == {"command_id": "c1", "actor": "seat:0"}
    assert [e.seq for e in await store.read(game, after_seq=1)] == [2, 3]
    assert await store.current_seq(game) == 3


async def test_a_commands_record_and_id_ride_on_its_first_event_only(store: EventStore) -> None:
    game = uuid.uuid4()
    record = {"body": {"type": "table.start"}, "now": 1.5, "events": 3}
    appended = await store.append(
        game, 0, [event(1), event(2), event(3)], command_id="c1", actor="host", command=record
    )
    read = await store.read(game)
    assert read[0].metadata == {"command_id": "c1", "actor": "host", "command": record}
    assert [e.metadata for e in read[1:]] == [{"actor": "host"}] * 2  # the id too: migration 0024
    # What the append answered is what the log holds, hashes included.
    assert [(e.seq, e.metadata, e.hash) for e in appended.events] == [
        (e.seq, e.metadata, e.hash) for e in read
    ]


async def test_fifty_concurrent_appenders_with_the_same_expected_seq(store: EventStore) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(0)])
    for expected in range(1, 4):
        results = await asyncio.gather(
            *(store.append(game, expected, [event(i)]) for i in range(50)), return_exceptions=True
        )
        winners = [r for r in results if not isinstance(r, BaseException)]
        conflicts = [r for r in results if isinstance(r, ConcurrencyConflict)]
        assert len(winners) == 1
        assert len(conflicts) == 49
        assert all(c.current == expected + 1 for c in conflicts)
    events = await store.read(game)
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert (await store.verify(game)).ok


async def test_duplicate_command_id_returns_the_first_result_and_appends_nothing(
    store: EventStore,
) -> None:
    game = uuid.uuid4()
    first = await store.append(game, 0, [event(1), event(2)], command_id="same", fingerprint="f1")
    again = await store.append(game, 2, [event(9)], command_id="same", fingerprint="f2")
    assert again.duplicate
    assert again.fingerprint == "f1"
    assert [e.hash for e in again.events] == [e.hash for e in first.events]
    assert await store.current_seq(game) == 2


async def test_duplicate_command_id_arriving_at_once_appends_once(store: EventStore) -> None:
    game = uuid.uuid4()
    results = await asyncio.gather(
        *(store.append(game, 0, [event(i)], command_id="once") for i in range(20)),
        return_exceptions=True,
    )
    assert not [r for r in results if isinstance(r, BaseException)]
    assert sum(1 for r in results if not isinstance(r, BaseException) and not r.duplicate) == 1
    assert await store.current_seq(game) == 1


async def test_negative_expected_seq_is_a_clear_error(store: EventStore) -> None:
    with pytest.raises(InvalidExpectedSeq, match="0 or more"):
        await store.append(uuid.uuid4(), -1, [event(1)])


async def test_future_expected_seq_is_a_clear_error(store: EventStore) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1)])
    with pytest.raises(InvalidExpectedSeq, match="ahead"):
        await store.append(game, 5, [event(2)])
    assert await store.current_seq(game) == 1


async def test_stale_expected_seq_raises_concurrency_conflict(store: EventStore) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1), event(2)])
    with pytest.raises(ConcurrencyConflict) as raised:
        await store.append(game, 1, [event(3)])
    assert raised.value.current == 2


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET type = 'Forged'",
        "DELETE FROM events",
        "TRUNCATE events",
        "TRUNCATE events CASCADE",
    ],
)
async def test_raw_sql_cannot_change_the_log(store: EventStore, pool: asyncpg.Pool, statement: str) -> None:
    game = uuid.uuid4()
    await store.append(game, 0, [event(1)])
    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await pool.execute(statement)
    assert len(await store.read(game)) == 1


async def test_verify_names_the_first_altered_seq(store: EventStore, pool: asyncpg.Pool) -> None:
    game = uuid.uuid4()
    for i in range(5):
        await store.append(game, i, [event(i)])
    assert (await store.verify(game)).ok
    async with pool.acquire() as conn:
        # As a superuser would: switch the guard off, rewrite history.
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await conn.execute(
            'UPDATE events SET data = \'{"type": "Ticked", "n": 99}\' WHERE game_id = $1 AND seq = 3',
            game,
        )
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    report = await store.verify(game)
    assert not report.ok
    assert report.first_bad_seq == 3


async def test_verify_catches_a_deleted_tail(store: EventStore, pool: asyncpg.Pool) -> None:
    game = uuid.uuid4()
    for i in range(3):
        await store.append(game, i, [event(i)])
    async with pool.acquire() as conn:
        await conn.execute("SET session_replication_role = replica")
        await conn.execute("DELETE FROM events WHERE game_id = $1 AND seq = 3", game)
    report = await store.verify(game)
    assert not report.ok
    assert report.first_bad_seq == 3


async def _drain(store: EventStore, cursor: Cursor) -> tuple[list[StoredEvent], Cursor]:
    seen: list[StoredEvent] = []
    while batch := await store.read_all(cursor, limit=7):
        seen.extend(batch)
        cursor = Cursor.after(batch[-1])
    return seen, cursor


async def test_read_all_pages_through_every_game_in_key_order(store: EventStore) -> None:
    games = [uuid.uuid4() for _ in range(6)]
    for n, game in enumerate(games):
        await store.append(game, 0, [event(seq) for seq in range(n + 1)])
    seen, cursor = await _drain(store, START)
    ours = [(e.game_id, e.seq) for e in seen if e.game_id in games]
    assert ours == sorted((game, seq) for n, game in enumerate(games) for seq in range(1, n + 2))
    keys = [(e.game_id, e.seq) for e in seen]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    assert (await _drain(store, cursor))[0] == []


async def test_read_all_reads_a_game_appended_to_after_the_cursor_and_not_a_passed_one(
    store: EventStore,
) -> None:
    low, high = sorted(uuid.uuid4() for _ in range(2))
    await store.append(low, 0, [event(1)])
    await store.append(high, 0, [event(1)])
    first = await store.read_all(Cursor(low, 0), limit=2)
    assert [(e.game_id, e.seq) for e in first] == [(low, 1), (high, 1)]
    await store.append(low, 1, [event(2)])  # behind the cursor: for readers that follow games
    await store.append(high, 1, [event(2)])
    later = await store.read_all(Cursor.after(first[-1]))
    assert [(e.game_id, e.seq) for e in later] == [(high, 2)]


async def test_read_all_under_concurrent_writers_never_shows_a_gap_in_a_game(store: EventStore) -> None:
    games = [uuid.uuid4() for _ in range(10)]
    snapshots: list[list[StoredEvent]] = []
    stop = asyncio.Event()

    async def reader() -> None:
        while not stop.is_set():
            snapshots.append((await _drain(store, START))[0])
            await asyncio.sleep(0.005)

    async def writer(game: uuid.UUID) -> None:
        for seq in range(20):
            await store.append(game, seq, [event(seq)])

    task = asyncio.create_task(reader())
    await asyncio.gather(*(writer(g) for g in games))
    stop.set()
    await task
    snapshots.append((await _drain(store, START))[0])
    for seen in snapshots:
        for game in games:
            seqs = [e.seq for e in seen if e.game_id == game]
            assert seqs == list(range(1, len(seqs) + 1))
    final = [(e.game_id, e.seq) for e in snapshots[-1] if e.game_id in games]
    assert len(final) == len(set(final)) == 200


async def test_a_store_over_one_connection_appends_reads_and_refuses_like_over_the_pool(
    pool: asyncpg.Pool,
) -> None:
    game = uuid.uuid4()
    async with pool.acquire() as conn:
        own = EventStore(conn)
        await own.append(game, 0, [event(1), event(2)])
        with pytest.raises(ConcurrencyConflict):
            await own.append(game, 1, [event(3)])
        await own.append(game, 2, [event(3)])
        assert [e.seq for e in await own.read(game)] == [1, 2, 3]
    assert (await EventStore(pool).verify(game)).ok
