"""Acknowledged means durable on Citus (issue 32), on nodes whose default is ``synchronous_commit =
off``: the append delegated to a worker commits with it on; bot games of every kind go on through
``force_logical`` shard moves of the games they are played in, and afterwards every command the
service acknowledged is in the log once, and every chain verifies. The players' tables live in a
colocation group of their own, so no move of the games' shards moves players.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import uuid
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import pytest

from domain import registry
from service.app.incidents import Incidents
from service.store.citus import distribute
from service.store.events import EventStore, GameUnderIncident, HeadNotInLog, NewEvent
from service.tools.bot import GameReport, play_game
from service.tools.client import PlaylogClient
from tests.citus.cluster import Cluster
from tests.command_groups import COMMAND_EVENTS

log = logging.getLogger(__name__)

MOVES = 8
LANES_PER_KIND = 2  # games played at once of each kind, a new one as soon as one ends
EVENTS_BETWEEN_MOVES = 20  # the games are live when a shard holding them moves


async def test_the_workers_commit_asynchronously_but_a_delegated_append_commits_with_synchronous_commit_on(
    citus_cluster: Cluster, citus_pool: asyncpg.Pool, citus_api: PlaylogClient
) -> None:
    for worker in citus_cluster.workers:  # the careless default this is about
        conn = await asyncpg.connect(worker.url)
        try:
            assert await conn.fetchval("SHOW synchronous_commit") == "off"
        finally:
            await conn.close()
    # A test-only check inside each worker's append: an event inserted by a transaction that
    # would commit asynchronously fails there.
    await citus_pool.execute(
        "CREATE FUNCTION playlog_test_refuse_async_commit() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN IF current_setting('synchronous_commit') = 'off' THEN"
        "   RAISE EXCEPTION 'committing asynchronously on %', inet_server_port();"
        " END IF; RETURN NEW; END $$"
    )
    await citus_pool.execute(
        "CREATE TRIGGER playlog_test_refuse_async_commit BEFORE INSERT ON events"
        " FOR EACH ROW EXECUTE FUNCTION playlog_test_refuse_async_commit()"
    )
    try:
        kind, decider = next(iter(registry.games().items()))
        options = {"players": decider.seats.min}
        games: list[uuid.UUID] = []
        ports: set[int] = set()
        workers = {w.port for w in citus_cluster.workers}
        while ports != workers and len(games) < 64:  # a game created is its first append, on its node
            games.append((await citus_api.create_game(kind, options, public=True)).game_id)
            placed = await citus_pool.fetch(
                "SELECT DISTINCT n.nodeport FROM unnest($1::uuid[]) g"
                " JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('events', g)"
                " JOIN pg_dist_node n USING (groupid)",
                games,
            )
            ports = {row["nodeport"] for row in placed}
        assert ports == workers  # both workers appended, under the check
        # The check is live: an insert on the worker without the append's setting is refused.
        with pytest.raises(asyncpg.PostgresError, match="committing asynchronously"):
            await citus_pool.execute(
                "INSERT INTO events (game_id, seq, type, schema_version, data, metadata, recorded_at,"
                " prev_hash, hash) VALUES ($1, 3, 'Ticked', 1, '{}', '{}', now(), '\\x00', '\\x00')",
                games[0],
            )
    finally:
        await citus_pool.execute("DROP TRIGGER playlog_test_refuse_async_commit ON events")
        await citus_pool.execute("DROP FUNCTION playlog_test_refuse_async_commit()")


async def groups(pool: asyncpg.Pool) -> dict[str, int]:
    rows = await pool.fetch(
        "SELECT logicalrelid::text AS name, colocationid FROM pg_dist_partition"
        " WHERE logicalrelid::text = ANY($1)",
        ["streams", "events", "incidents", "players", *PLAYER_TABLES],
    )
    return {row["name"]: row["colocationid"] for row in rows}


PLAYER_TABLES = ("players", "player_games")


async def test_the_players_tables_are_colocated_with_each_other_not_with_the_games(
    citus_pool: asyncpg.Pool,
) -> None:
    group = await groups(citus_pool)
    assert group["events"] == group["streams"] == group["incidents"]
    assert group["players"] == group["player_games"]
    assert group["players"] != group["streams"]


async def test_distributing_again_splits_the_players_off_the_games_group_of_an_older_cluster(
    citus_url: str, citus_pool: asyncpg.Pool
) -> None:
    """A cluster distributed before had the players' tables in the games' group (Citus's
    default): each players shard next to the games shard of its hash range, the same group."""
    placed = await citus_pool.fetch(
        "SELECT g.shardid AS games, p.shardid AS players, gn.nodeport AS games_port,"
        " pn.nodeport AS players_port"
        " FROM pg_dist_shard g JOIN pg_dist_shard p ON p.shardminvalue = g.shardminvalue"
        " JOIN pg_dist_placement gp ON gp.shardid = g.shardid JOIN pg_dist_node gn ON gn.groupid = gp.groupid"
        " JOIN pg_dist_placement pp ON pp.shardid = p.shardid JOIN pg_dist_node pn ON pn.groupid = pp.groupid"
        " WHERE g.logicalrelid = 'streams'::regclass AND p.logicalrelid = 'players'::regclass"
    )
    for row in placed:
        if row["games_port"] != row["players_port"]:
            await orphans_cleaned_up(citus_pool)
            await citus_pool.execute(
                "SELECT citus_move_shard_placement($1, '127.0.0.1', $2, '127.0.0.1', $3,"
                " shard_transfer_mode := 'block_writes')",
                row["players"],
                row["players_port"],
                row["games_port"],
            )
    for table in PLAYER_TABLES:
        await citus_pool.execute(
            "SELECT update_distributed_table_colocation($1, colocate_with := 'streams')", table
        )
    assert len(set((await groups(citus_pool)).values())) == 1

    conn = await asyncpg.connect(citus_url)
    try:
        steps = await distribute(conn)
        assert steps == ["players, player_games: a colocation group apart from the games'"]
        assert await distribute(conn) == []
    finally:
        await conn.close()
    group = await groups(citus_pool)
    assert group["players"] == group["player_games"] != group["streams"]


async def play_until(
    api: PlaylogClient, tokens: Sequence[str], stop: asyncio.Event, reports: list[GameReport]
) -> None:
    """Bot games of every kind, each lane starting a new game until ``stop`` is set."""

    async def lane(kind: str, options: dict[str, object], lane_id: int) -> None:
        for n in itertools.count():
            if stop.is_set():
                return
            rng = random.Random(f"{kind}:{lane_id}:{n}")
            reports.append(
                await play_game(api, kind, options, rng=rng, player_tokens=tokens[:2], timeout=240)
            )

    lanes = []
    for kind, decider in registry.games().items():
        about = decider.about
        options = {"players": decider.seats.min, **(about.quick_options if about else {})}
        lanes += [lane(kind, options, n) for n in range(LANES_PER_KIND)]
    await asyncio.gather(*lanes)


async def event_count(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM events"))


async def orphans_cleaned_up(pool: asyncpg.Pool) -> None:
    """The placements earlier moves left behind are dropped (a move onto a node that still has
    one fails): Citus drops them once nothing holds them."""
    for _ in range(1200):
        await pool.execute("CALL citus_cleanup_orphaned_resources()")
        if await pool.fetchval("SELECT count(*) FROM pg_dist_cleanup") == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the placements of earlier moves were not dropped")


async def move_a_live_game(pool: asyncpg.Pool, cluster: Cluster, last: int | None) -> tuple[int, int]:
    """Move the shard group of a game appended to last to the other worker, copying while writes
    go on (``force_logical``): another group than the ``last`` one moved when a live game allows;
    returns the shard and the port it moved to."""
    live = await pool.fetch(
        "SELECT get_shard_id_for_distribution_column('events', game_id) AS shard FROM streams"
        " ORDER BY updated_at DESC LIMIT 20"
    )
    shards = [row["shard"] for row in live]
    shard = next((s for s in shards if s != last), shards[0])
    source = await pool.fetchval(
        "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $1",
        shard,
    )
    (target,) = [w.port for w in cluster.workers if w.port != source]
    await orphans_cleaned_up(pool)
    await pool.execute(
        "SELECT citus_move_shard_placement($1, '127.0.0.1', $2, '127.0.0.1', $3,"
        " shard_transfer_mode := 'force_logical')",
        shard,
        source,
        target,
    )
    return int(shard), target


async def test_no_acknowledged_command_is_lost_across_force_logical_moves_of_live_games(
    citus_cluster: Cluster, citus_pool: asyncpg.Pool, citus_api: PlaylogClient, tmp_path: Path
) -> None:
    pool, api = citus_pool, citus_api
    tokens = [(await api.create_player(f"durable-{n}")).token for n in range(2)]
    players_before = await pool.fetch(
        "SELECT shardid, groupid FROM pg_dist_placement JOIN pg_dist_shard USING (shardid)"
        " WHERE logicalrelid = 'players'::regclass ORDER BY shardid"
    )
    stop = asyncio.Event()
    reports: list[GameReport] = []
    playing = asyncio.create_task(play_until(api, tokens, stop, reports))
    moved = []
    try:
        async with asyncio.timeout(300):  # bounded phases: a hang says where it is
            for _ in range(MOVES):
                target = await event_count(pool) + EVENTS_BETWEEN_MOVES
                while await event_count(pool) < target:
                    assert not playing.done(), playing.exception()
                    await asyncio.sleep(0.05)
                moved.append(await move_a_live_game(pool, citus_cluster, moved[-1][0] if moved else None))
                log.info("moved shard %s to :%s", *moved[-1])
    finally:
        stop.set()
    async with asyncio.timeout(300):
        await playing

    assert len(moved) == MOVES
    for shard, port in moved[-1:]:
        now = await pool.fetchval(
            "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)"
            " WHERE p.shardid = $1",
            shard,
        )
        assert now == port
    failed = [(r.game_id, r.finished, r.errors[:3], r.verified) for r in reports]
    assert all(r.finished and not r.errors and r.verified for r in reports), failed

    # Every acknowledged command (its Idempotency-Key and the version it returned): in the log,
    # once, ending at that version.
    store = EventStore(pool)
    acknowledged = [(r.game_id, seat, key, version) for r in reports for seat, key, version in r.acknowledged]
    driver_log = tmp_path / "acknowledged.tsv"  # what the driver was told, kept for a post-mortem
    driver_log.write_text(
        "".join(f"{g}\t{seat}\t{key}\t{version}\n" for g, seat, key, version in acknowledged)
    )
    lost, duplicated = [], []
    for game_id, seat, key, version in acknowledged:
        command_id = f"seat:{seat}:{key}"
        applied = await store.command_events(game_id, command_id)
        if applied is None or applied[0][-1].seq != version:
            lost.append((game_id, key, version))
            continue
        written = len(await pool.fetch(COMMAND_EVENTS, game_id, command_id))
        if written != len(applied[0]):
            duplicated.append((game_id, key, written))
    log.info(
        "%d acknowledged commands in %d games over %d moves (%s)",
        len(acknowledged),
        len(reports),
        MOVES,
        driver_log,
    )
    assert len(acknowledged) > MOVES * EVENTS_BETWEEN_MOVES // 4
    assert (lost, duplicated) == ([], [])

    for report in reports:
        events = await store.read(report.game_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert (await store.verify(report.game_id)).ok, report.game_id
    assert await pool.fetchval("SELECT count(*) FROM incidents") == 0

    # The players' shards stayed where they were: no move of a game's group carried them.
    players_after = await pool.fetch(
        "SELECT shardid, groupid FROM pg_dist_placement JOIN pg_dist_shard USING (shardid)"
        " WHERE logicalrelid = 'players'::regclass ORDER BY shardid"
    )
    assert players_after == players_before


async def test_a_torn_head_and_an_incident_are_refused_on_the_games_worker(
    citus_pool: asyncpg.Pool, citus_api: PlaylogClient
) -> None:
    kind, decider = next(iter(registry.games().items()))
    game = (await citus_api.create_game(kind, {"players": decider.seats.min}, public=True)).game_id
    store = EventStore(citus_pool)
    at = await store.current_seq(game)
    event = NewEvent("ignored", b"{}")
    head = await citus_pool.fetchrow("SELECT seq, last_hash FROM streams WHERE game_id = $1", game)
    await citus_pool.execute("UPDATE streams SET seq = seq + 1 WHERE game_id = $1", game)
    try:
        with pytest.raises(HeadNotInLog):  # PL412, from the worker through the delegation
            await store.append(game, at + 1, [event])
    finally:
        await citus_pool.execute(
            "UPDATE streams SET seq = $2, last_hash = $3 WHERE game_id = $1",
            game,
            head["seq"],
            head["last_hash"],
        )
    assert await store.current_seq(game) == at

    # A deadline passed an hour ago, as an append would have left it (its wake time no later).
    await citus_pool.execute(
        "UPDATE streams SET due_at = now() - interval '1 hour', wake_at = now() - interval '1 hour'"
        " WHERE game_id = $1",
        game,
    )
    try:
        assert await store.raise_incident(game, reason="cache_ahead_of_log", acknowledged=at + 1, log_seq=at)
        with pytest.raises(GameUnderIncident):  # PL423
            await store.append(game, at, [event])
        assert game not in await store.due_games(limit=1000)
        cleared = await Incidents(citus_pool, lambda _: None).clear(game, "mia", "checked")
        assert cleared.cleared_by == "mia"
        assert game in await store.due_games(limit=1000)
    finally:
        await citus_pool.execute("UPDATE streams SET due_at = NULL, wake_at = NULL WHERE game_id = $1", game)
    assert [e.seq for e in await store.read(game)] == list(range(1, at + 1))
