"""The log on Citus: bot games of every kind through the service, a shard moved in the middle.

Checked afterwards: every chain verifies; within each game no event is lost, duplicated or out of
order; the projector's read models equal a rebuild from scratch; a retried command (the same
Idempotency-Key) gets its original events back; the append's error codes are the same.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import uuid
from typing import Any

import asyncpg
import pytest

from domain import registry
from service.readmodels.rebuild import rebuild
from service.store.events import ConcurrencyConflict, EventStore, InvalidExpectedSeq, NewEvent
from service.tools.bot import GameReport, pick, play_game
from service.tools.client import PlaylogClient
from tests.citus.cluster import Cluster

GAMES_PER_KIND = 3


async def wait_for_events(pool: asyncpg.Pool, count: int) -> None:
    for _ in range(6000):
        if await pool.fetchval("SELECT count(*) FROM events") >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {count} events appended")


async def move_a_shard(pool: asyncpg.Pool, cluster: Cluster) -> int:
    """Move one shard group of the game tables from the first worker to the second.

    ``block_writes``: appends to the moving games wait for the copy, the mode to use when in
    doubt (docs/scaling-citus.md); ``force_logical`` moves are test_durability.py's.
    """
    source, target = cluster.workers
    shard = await pool.fetchval(
        "SELECT s.shardid FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)"
        " JOIN pg_dist_node n USING (groupid)"
        " WHERE s.logicalrelid = 'events'::regclass AND n.nodeport = $1 ORDER BY s.shardid LIMIT 1",
        source.port,
    )
    await pool.execute(
        "SELECT citus_move_shard_placement($1, '127.0.0.1', $2, '127.0.0.1', $3,"
        " shard_transfer_mode := 'block_writes')",
        shard,
        source.port,
        target.port,
    )
    return int(shard)


async def caught_up(pool: asyncpg.Pool) -> bool:
    behind = await pool.fetchval(
        "SELECT count(*) FROM streams s LEFT JOIN lobby_games g USING (game_id)"
        " WHERE g.version IS DISTINCT FROM s.seq"
    )
    return int(behind) == 0


async def read_model_rows(pool: asyncpg.Pool) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    lobby = await pool.fetch("SELECT * FROM lobby_games ORDER BY game_id")
    games = await pool.fetch("SELECT * FROM player_games ORDER BY player_id, game_id")
    return [tuple(r) for r in lobby], [tuple(r) for r in games]


async def test_bot_games_survive_a_shard_move_and_the_read_models_stay_exact(
    citus_cluster: Cluster, citus_url: str, citus_pool: asyncpg.Pool, citus_api: PlaylogClient
) -> None:
    api, pool = citus_api, citus_pool
    players = [await api.create_player(f"player-{n}") for n in range(3)]
    tokens = [p.token for p in players]
    games = []
    for kind, decider in registry.games().items():
        about = decider.about
        options = {"players": decider.seats.min, **(about.quick_options if about else {})}
        games += [
            play_game(api, kind, options, rng=random.Random(n), player_tokens=tokens[: n + 1])
            for n in range(GAMES_PER_KIND)
        ]
    playing = asyncio.gather(*games)
    async with asyncio.timeout(60):
        await wait_for_events(pool, 60)
    async with asyncio.timeout(120):  # bounded phases: a hang says where it is
        shard = await move_a_shard(pool, citus_cluster)
    async with asyncio.timeout(120):
        reports: list[GameReport] = await playing

    failed = [(r.game_id, r.finished, r.errors[:3], r.verified) for r in reports]
    assert all(r.finished and not r.errors and r.verified for r in reports), failed
    moved = await pool.fetchval(
        "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $1",
        shard,
    )
    assert moved == citus_cluster.workers[1].port

    # Every game's log: seqs 1..n, once each, chained, recorded in order, where streams says.
    store = EventStore(pool)
    for report in reports:
        events = await store.read(report.game_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert len(events) == await store.current_seq(report.game_id)
        assert all(a.hash == b.prev_hash for a, b in itertools.pairwise(events))
        assert all(a.recorded_at <= b.recorded_at for a, b in itertools.pairwise(events))
        assert (await store.verify(report.game_id)).ok

    # No acknowledged command is missing from its game's log.
    for report in reports:
        for seat, key, version in report.acknowledged:
            applied = await store.command_events(report.game_id, f"seat:{seat}:{key}")
            assert applied is not None and applied[0][-1].seq == version, (report.game_id, key, version)

    # A retried command gets back the events it appended the first time, from its game's node.
    for report in reports:
        seat, key, version = report.acknowledged[-1]
        key = f"seat:{seat}:{key}"  # the command id the service makes of an Idempotency-Key
        first = await store.command_events(report.game_id, key)
        assert first is not None
        again = await store.append(
            report.game_id, 0, [NewEvent("ignored", b"{}")], command_id=key, fingerprint="other"
        )
        assert again.duplicate
        assert [(e.seq, e.hash) for e in again.events] == [(e.seq, e.hash) for e in first[0]]
        assert again.events[-1].seq == version

    # The error codes come back through the delegation.
    game_id = reports[0].game_id
    at = await store.current_seq(game_id)
    with pytest.raises(ConcurrencyConflict):
        await store.append(game_id, at - 1, [NewEvent("ignored", b"{}")])
    with pytest.raises(InvalidExpectedSeq):
        await store.append(game_id, at + 1, [NewEvent("ignored", b"{}")])
    assert await store.current_seq(game_id) == at

    # The live projector caught up; a rebuild from scratch gives the same rows.
    for _ in range(1200):
        if await caught_up(pool):
            break
        await asyncio.sleep(0.05)
    assert await caught_up(pool)
    live = await read_model_rows(pool)
    assert len(live[0]) == len(reports)
    report = await rebuild(store, citus_url, batch_size=50)
    assert report.events == await pool.fetchval("SELECT count(*) FROM events")
    assert await read_model_rows(pool) == live


async def test_an_idempotent_retry_over_http_returns_the_original_result(citus_api: PlaylogClient) -> None:
    api = citus_api
    kind, decider = next(iter(registry.games().items()))
    about = decider.about
    options = {"players": decider.seats.min, **(about.quick_options if about else {})}
    created = await api.create_game(kind, options, public=True, spectator_delay=0)
    seats = [await api.join(created.game_id, f"bot-{n}") for n in range(created.seats)]
    await api.start(created.game_id, created.host_token)
    for seat in seats:  # a seat that may act, and a move (never a concession: the bots' own choice)
        view = await api.view(created.game_id, seat.seat, seat.token)
        if (command := pick(random.Random(0), view.legal_commands)) is not None:
            break
    assert command is not None
    key = uuid.uuid4().hex
    first = await api.send(created.game_id, seat.seat, seat.token, command, idempotency_key=key)
    again = await api.send(created.game_id, seat.seat, seat.token, command, idempotency_key=key)
    assert again == first


async def test_distributing_again_changes_nothing(citus_url: str) -> None:
    from service.store.citus import distribute

    conn = await asyncpg.connect(citus_url)
    try:
        assert await distribute(conn) == []
        delegated = await conn.fetchval(
            "SELECT force_delegation FROM pg_dist_object WHERE objid = 'playlog_append'::regproc"
        )
        assert delegated
    finally:
        await conn.close()


async def test_a_player_erased_on_citus_shows_as_a_pseudonym_and_the_log_keeps_only_seals(
    citus_api: PlaylogClient, citus_pool: asyncpg.Pool
) -> None:
    """The personal texts are distributed with their game: kept, opened and erased on its node."""
    api = citus_api
    name = "Citus Erasable"
    player = await api.create_player(name)
    created = await api.create_game("exploding_kittens", {"players": 2}, public=True, spectator_delay=0)
    await api.join(created.game_id, player_token=player.token)
    await api.join(created.game_id, "Citus Stays")
    assert name in (await api.http.get(f"/games/{created.game_id}")).json()["seats"]
    headers = {"Authorization": f"Bearer {player.token}"}
    erased = (await api.http.delete("/players/me", params={"erase": "true"}, headers=headers)).json()
    assert erased["games"] == [str(created.game_id)]
    seats = (await api.http.get(f"/games/{created.game_id}")).json()["seats"]
    assert seats == [erased["pseudonym"], "Citus Stays"]
    kept = await citus_pool.fetch("SELECT text FROM personal_texts WHERE game_id = $1", created.game_id)
    assert sorted(str(r["text"]) for r in kept) == ["Citus Stays", "None"]
    rows = await citus_pool.fetch("SELECT data::text FROM events WHERE game_id = $1", created.game_id)
    assert not any(name in r["data"] for r in rows)
