"""Read models: the live projector, late commits, and rebuilds (real PostgreSQL).

Projections are eventually consistent: tests wait (bounded) until every game's lobby row has
caught up with the game's log, never for a fixed time.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.table import GameCreated, SeatJoined
from service.app.games import GameService
from service.readmodels import models as readmodels
from service.readmodels import projector
from service.readmodels.models import PAUSE_LOCK, Behind, GenerationMoved, ReadModels
from service.readmodels.rebuild import rebuild
from service.store.events import EventStore
from service.tools.bot import GameReport, play_game
from service.tools.client import PlaylogClient

EK_OPTIONS = {"players": 2, "reaction_window": 0}
Rows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]


async def wait_for(check: Callable[[], Awaitable[bool]], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s")
        await asyncio.sleep(0.05)


async def caught_up(pool: asyncpg.Pool) -> bool:
    """Every game's lobby row is at the game's last seq."""
    behind = await pool.fetchval(
        "SELECT count(*) FROM streams s LEFT JOIN lobby_games g USING (game_id)"
        " WHERE g.version IS DISTINCT FROM s.seq"
    )
    return int(behind) == 0


async def read_model_rows(pool: asyncpg.Pool) -> Rows:
    lobby = await pool.fetch("SELECT * FROM lobby_games ORDER BY game_id")
    games = await pool.fetch("SELECT * FROM player_games ORDER BY player_id, game_id")
    return [tuple(r) for r in lobby], [tuple(r) for r in games]


async def bot_games(api: PlaylogClient, count: int, player_tokens: Sequence[str] = ()) -> list[GameReport]:
    reports = await asyncio.gather(
        *(
            play_game(api, "exploding_kittens", EK_OPTIONS, rng=random.Random(n), player_tokens=player_tokens)
            for n in range(count)
        )
    )
    assert all(r.finished and not r.errors for r in reports), reports
    return list(reports)


async def some_lobby_games(api: PlaylogClient) -> None:
    """An open public game with one seat taken, and a private one."""
    open_game = await api.create_game("exploding_kittens", {"players": 3}, spectator_delay=5)
    await api.join(open_game.game_id, "alice")
    private = await api.create_game("exploding_kittens", {"players": 2}, public=False)
    await api.join(private.game_id, "bob")


def created(kind: str = "exploding_kittens") -> str:
    event = GameCreated(kind=kind, options={"players": 2}, public=True, spectator_delay=0, created_at=0.0)
    return msgspec.json.encode(event).decode()


async def test_projector_follows_bot_games_into_lobby_rows_and_player_games(
    api: PlaylogClient, pool: asyncpg.Pool
) -> None:
    await some_lobby_games(api)
    # Two players with one display name: two identities, two records.
    players = [await api.create_player("bot") for _ in range(2)]
    reports = await bot_games(api, 3, [p.token for p in players])
    guests = await bot_games(api, 1)
    await wait_for(lambda: caught_up(pool))

    for report in reports:
        row = await pool.fetchrow("SELECT * FROM lobby_games WHERE game_id = $1", report.game_id)
        assert row["status"] == "finished"
        assert row["kind"] == "exploding_kittens"
        assert row["seat_names"] == ["bot-0", "bot-1"]
        assert (row["seats_taken"], row["seats_total"]) == (2, 2)
        assert row["winners"] == report.winners
        assert row["created_at"] <= row["started_at"] <= row["finished_at"]
    open_row = await pool.fetchrow("SELECT * FROM lobby_games WHERE 'alice' = ANY(seat_names)")
    assert open_row["status"] == "open"
    assert open_row["seat_names"] == ["alice", None, None]
    assert (open_row["seats_taken"], open_row["seats_total"]) == (1, 3)
    assert open_row["started_at"] is None and open_row["winners"] is None
    assert open_row["spectator_delay"] == 5

    assert guests[0].finished
    rows = await pool.fetch("SELECT player_id, outcome, ended, finished_at FROM player_games")
    assert {r["player_id"] for r in rows} == {p.player_id for p in players}  # guests have no rows
    assert len(rows) == 6 and all(r["outcome"] == r["ended"] and r["finished_at"] for r in rows)
    wins = [sum(seat in (r.winners or []) for r in reports) for seat in (0, 1)]
    for player, won in zip(players, wins, strict=True):
        shown = await api.player(player.player_id)
        assert (shown.name, [(s.kind, s.played, s.won) for s in shown.stats]) == (
            "bot",
            [("exploding_kittens", 3, won)],
        )


async def test_a_transaction_that_commits_late_holds_back_only_its_own_game(
    store: EventStore, pool: asyncpg.Pool, database_url: str
) -> None:
    games = GameService(store)
    first, _ = await games.lobby.create("exploding_kittens", {"players": 2}, public=True, spectator_delay=0)
    models = ReadModels(store)
    conn = await asyncpg.connect(database_url)
    try:
        generation = await models.generation(conn)
        assert await models.catch_up(conn, generation, batch_size=3) == 1

        # A transaction appends a game and stays open ...
        slow = await pool.acquire()
        tx = slow.transaction()
        await tx.start()
        late = uuid.uuid4()
        await slow.fetch(
            "SELECT * FROM playlog_append($1, 0, NULL, NULL, $2, $3, $4, '{}')",
            late,
            ["lobby.created"],
            [1],
            [created()],
        )
        # ... while later ones commit other games: those are folded, the open one is not seen.
        lobby = games.lobby
        others = [(await lobby.create("exploding_kittens", EK_OPTIONS, public=True, spectator_delay=0))[0]]
        others += [(await lobby.create("a_risk_cat", {"players": 3}, public=False, spectator_delay=0))[0]]
        others += [(await lobby.create("exploding_kittens", EK_OPTIONS, public=True, spectator_delay=9))[0]]
        assert await models.catch_up(conn, generation, batch_size=3) == 3
        assert await models.behind(conn) == []

        await tx.commit()
        await pool.release(slow)
        assert [b.game_id for b in await models.behind(conn)] == [late]
        assert await models.catch_up(conn, generation, batch_size=3) == 1
        ids = {r["game_id"] for r in await pool.fetch("SELECT game_id FROM lobby_games")}
        assert ids == {first, late, *others}
        assert await models.behind(conn) == []
    finally:
        await conn.close()


async def test_a_games_events_committed_out_of_order_are_folded_once_in_seq_order(
    store: EventStore, pool: asyncpg.Pool, database_url: str
) -> None:
    game = uuid.uuid4()
    # The transaction that will append seq 2 takes its transaction id first ...
    early = await pool.acquire()
    tx = early.transaction()
    await tx.start()
    await early.fetchval("SELECT pg_current_xact_id()")
    # ... seq 1 commits from a later transaction ...
    await pool.fetch(
        "SELECT * FROM playlog_append($1, 0, NULL, NULL, $2, $3, $4, '{}')",
        game,
        ["lobby.created"],
        [1],
        [created()],
    )
    # ... then seq 2 commits: an order by writing transaction puts seq 2 before seq 1.
    joined = msgspec.json.encode(SeatJoined(seat=0, name="carol")).decode()
    await early.fetch(
        "SELECT * FROM playlog_append($1, 1, NULL, NULL, $2, $3, $4, '{}')",
        game,
        ["lobby.joined"],
        [1],
        [joined],
    )
    await tx.commit()
    await pool.release(early)
    by_transaction = "SELECT seq FROM events WHERE game_id = $1 ORDER BY xmin::text::bigint"
    assert [row[0] for row in await pool.fetch(by_transaction, game)] == [2, 1]

    for batch_size in (1, 100):
        models = ReadModels(store)
        conn = await asyncpg.connect(database_url)
        try:
            generation = await models.reset(conn)
            assert await models.catch_up(conn, generation, batch_size=batch_size) == 2
            assert await models.catch_up(conn, generation, batch_size=batch_size) == 0
        finally:
            await conn.close()
        row = await pool.fetchrow("SELECT * FROM lobby_games WHERE game_id = $1", game)
        assert row["version"] == 2
        assert row["seat_names"] == ["carol", None]
        assert row["created_at"] is not None


async def test_a_gap_in_a_games_events_is_held_back_until_filled(
    store: EventStore, pool: asyncpg.Pool, database_url: str
) -> None:
    """Events readable out of seq order (as a node may show them) are folded only without a gap."""
    game = uuid.uuid4()
    joined = msgspec.json.encode(SeatJoined(seat=0, name="erin")).decode()

    async def insert(seq: int, type_: str, data: str) -> None:  # bypasses the append on purpose
        await pool.execute(
            "INSERT INTO events (game_id, seq, type, data, prev_hash, hash) VALUES ($1, $2, $3, $4, '', '')",
            game,
            seq,
            type_,
            data,
        )

    await pool.execute("INSERT INTO streams (game_id, seq) VALUES ($1, 2)", game)
    await insert(2, "lobby.joined", joined)
    models = ReadModels(store)
    conn = await asyncpg.connect(database_url)
    try:
        generation = await models.generation(conn)
        assert await models.catch_up(conn, generation) == 0
        assert await pool.fetchval("SELECT count(*) FROM lobby_games WHERE game_id = $1", game) == 0
        await insert(1, "lobby.created", created())
        assert await models.catch_up(conn, generation) == 2
        assert await models.catch_up(conn, generation) == 0
    finally:
        await conn.close()
    row = await pool.fetchrow("SELECT version, seat_names FROM lobby_games WHERE game_id = $1", game)
    assert (row["version"], row["seat_names"]) == (2, ["erin", None])


async def test_a_live_batch_read_before_a_rebuild_is_refused(store: EventStore, database_url: str) -> None:
    games = GameService(store)
    await games.lobby.create("exploding_kittens", {"players": 2}, public=True, spectator_delay=0)
    live, rebuilder = ReadModels(store), ReadModels(store)
    conn = await asyncpg.connect(database_url)
    try:
        generation = await live.generation(conn)
        await rebuilder.reset(conn)
        with pytest.raises(GenerationMoved):
            await live.catch_up(conn, generation)
        assert await live.catch_up(conn, await live.generation(conn)) == 1
    finally:
        await conn.close()


async def test_rebuild_gives_the_same_rows_as_the_live_projector(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    pool: asyncpg.Pool,
    store: EventStore,
    database_url: str,
) -> None:
    await some_lobby_games(api)
    players = [await api.create_player("bot") for _ in range(2)]
    await bot_games(api, 2, [p.token for p in players])
    await wait_for(lambda: caught_up(pool))
    live = await read_model_rows(pool)
    # Each player's games (two players, two games each), by player id, rebuilt the same.
    assert (len(live[0]), len(live[1])) == (4, 4)

    seen: list[tuple[int, int]] = []
    report = await rebuild(store, database_url, batch_size=37, progress=lambda d, t: seen.append((d, t)))
    total = await pool.fetchval("SELECT count(*) FROM events")
    assert report.events == total
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert await read_model_rows(pool) == live

    # The live projector goes on after the rebuild moved its checkpoint.
    await api.join((await api.create_game("exploding_kittens", {"players": 2})).game_id, "dave")
    await wait_for(lambda: caught_up(pool))
    assert http.app.state.projector.leading


async def test_folding_a_games_events_in_pieces_gives_the_rows_of_folding_them_one_by_one(
    api: PlaylogClient, pool: asyncpg.Pool, store: EventStore
) -> None:
    """A round folds whatever each game has appended since the last: its changes merged in one
    batch (the latest lobby row and player rows) must give the rows that folding
    one event a round gives."""
    players = [await api.create_player("bot") for _ in range(2)]
    await bot_games(api, 3, [p.token for p in players])
    await some_lobby_games(api)
    heads = {row[0]: row[1] for row in await pool.fetch("SELECT game_id, seq FROM streams")}

    async def folded(conn: asyncpg.Connection, pieces: Callable[[], int]) -> Rows:
        models = ReadModels(store, name="pieces")  # a cache of its own: every piece is read and folded
        generation = await models.reset(conn)
        for game_id, seq in heads.items():
            projected = 0
            while projected < seq:
                up_to = min(seq, projected + pieces())
                await models._fold(conn, generation, [Behind(game_id, projected, up_to)])
                projected = up_to
        return await read_model_rows(pool)

    async with pool.acquire() as conn:  # as a rebuild does: the live projector writes nothing meanwhile
        await conn.execute("SELECT pg_advisory_lock($1)", PAUSE_LOCK)
        try:
            one_by_one = await folded(conn, lambda: 1)
            rng = random.Random(7)
            assert await folded(conn, lambda: rng.randint(2, 12)) == one_by_one
            assert await folded(conn, lambda: 1000) == one_by_one  # each game whole
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", PAUSE_LOCK)


async def test_a_round_hands_the_event_loop_back_while_it_folds(
    api: PlaylogClient, pool: asyncpg.Pool, store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folding shares the event loop with the requests the process answers: a long round must let
    them in between its games, not only at its database calls."""
    await bot_games(api, 3)
    await some_lobby_games(api)
    applied = 0

    class Counting(ReadModels):
        @staticmethod
        def _apply(batch: Any, table: Any, events: Any) -> Any:
            nonlocal applied
            applied += len(events)
            return ReadModels._apply(batch, table, events)

    async def seen_while_folding(slice_seconds: float) -> set[int]:
        """The counts of folded events that another task saw while one round folded everything."""
        nonlocal applied
        monkeypatch.setattr(readmodels, "FOLD_SLICE", slice_seconds)
        models = Counting(store, name="slices")  # a cache of its own: every event is read and folded
        seen: set[int] = set()
        done = False

        async def other_request() -> None:
            while not done:
                seen.add(applied)
                await asyncio.sleep(0)

        async with pool.acquire() as conn:  # as a rebuild does: the live projector writes nothing meanwhile
            await conn.execute("SELECT pg_advisory_lock($1)", PAUSE_LOCK)
            try:
                generation = await models.reset(conn)
                applied = 0
                other = asyncio.create_task(other_request())
                total = await models.catch_up(conn, generation)
                done = True
                await other
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", PAUSE_LOCK)
        return {count for count in seen if 0 < count < total}

    games = int(await pool.fetchval("SELECT count(*) FROM streams"))
    assert len(await seen_while_folding(0.0)) >= games - 1  # let in between every two games
    assert not await seen_while_folding(3600.0)  # the same round unsliced: only at its ends


async def test_a_live_round_rests_between_its_slices_and_a_rebuild_does_not(
    api: PlaylogClient,
    store: EventStore,
    pool: asyncpg.Pool,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The live projector spreads a round's work so that the other processes get the cores
    meanwhile; a rebuild, which no request waits behind, folds at full speed."""
    rests: list[float] = []
    slept: list[float] = []

    class Recorded(readmodels._Slices):
        def __init__(self, rest: float = 0.0) -> None:
            rests.append(rest)
            super().__init__(rest)

    real_sleep, this_test = asyncio.sleep, asyncio.current_task()

    async def sleep(seconds: float) -> None:
        if asyncio.current_task() is this_test:  # the app's own loops sleep too
            slept.append(seconds)
        await real_sleep(seconds)

    monkeypatch.setattr(readmodels, "_Slices", Recorded)
    monkeypatch.setattr(readmodels, "FOLD_SLICE", 0.0)  # every pause hands the loop back
    await bot_games(api, 1)
    await wait_for(lambda: caught_up(pool))
    assert rests and set(rests) == {projector.FOLD_REST}

    rests.clear()
    await rebuild(store, database_url)
    assert rests and set(rests) == {0.0}

    monkeypatch.setattr(readmodels.asyncio, "sleep", sleep)
    await readmodels._Slices(rest=0.25).pause()
    await readmodels._Slices().pause()
    assert slept == [0.25, 0.0]


async def test_an_interrupted_rebuild_then_a_full_one_gives_the_same_rows(
    api: PlaylogClient, pool: asyncpg.Pool, store: EventStore, database_url: str
) -> None:
    await some_lobby_games(api)
    await bot_games(api, 2, [(await api.create_player("bot")).token])
    await wait_for(lambda: caught_up(pool))
    live = await read_model_rows(pool)

    class Interrupted(Exception):
        pass

    def interrupt_after_two_batches(done: int, total: int) -> None:
        if done >= 2 * 20:
            raise Interrupted

    with pytest.raises(Interrupted):
        await rebuild(store, database_url, batch_size=20, progress=interrupt_after_two_batches)
    # Half rebuilt: consistent rows; the live projector continues from the stored checkpoint.
    await wait_for(lambda: caught_up(pool))
    assert await read_model_rows(pool) == live

    with pytest.raises(Interrupted):
        await rebuild(store, database_url, batch_size=20, progress=interrupt_after_two_batches)
    await rebuild(store, database_url, batch_size=20)
    assert await read_model_rows(pool) == live


async def test_an_append_nobody_notified_is_projected_by_the_sweep(
    http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    """No NOTIFY (a writer that is not the service, or a lost notification): the sweep finds it."""
    assert http.app.state.projector is not None
    game = uuid.uuid4()
    await pool.fetch(
        "SELECT * FROM playlog_append($1, 0, NULL, NULL, $2, $3, $4, '{}')",
        game,
        ["lobby.created"],
        [1],
        [created()],
    )
    await wait_for(lambda: caught_up(pool))
    assert await pool.fetchval("SELECT version FROM lobby_games WHERE game_id = $1", game) == 1
