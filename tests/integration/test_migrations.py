"""Alembic: every revision upgrades and downgrades cleanly on an empty database."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec

from projections.table import GameCreated, SeatJoined, event_tag
from service.readmodels.models import NAME, ReadModels
from service.store import database
from service.store.events import EventStore, NewEvent
from service.store.pool import create_pool


async def _tables(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {row["tablename"] for row in rows}
    finally:
        await conn.close()


async def test_upgrade_downgrade_upgrade_on_an_empty_database(empty_database_url: str) -> None:
    await asyncio.to_thread(database.upgrade, empty_database_url)
    assert {"events", "streams", "commands"} <= await _tables(empty_database_url)
    await asyncio.to_thread(database.downgrade, empty_database_url, "base")
    assert await _tables(empty_database_url) <= {"alembic_version"}
    await asyncio.to_thread(database.upgrade, empty_database_url)
    assert "events" in await _tables(empty_database_url)


async def test_upgrading_to_player_games_replays_the_whole_log_into_the_read_models(
    empty_database_url: str,
) -> None:
    """0005 starts the read models over: a game projected before it gets its players' rows."""
    await asyncio.to_thread(database.upgrade, empty_database_url, "0003")
    pool = await create_pool(empty_database_url, min_size=1, max_size=2)
    try:
        store = EventStore(pool)
        game_id, player = uuid.uuid4(), str(uuid.uuid4())
        created = GameCreated(
            kind="exploding_kittens", options={"players": 2}, public=True, spectator_delay=0, created_at=0.0
        )
        joined = SeatJoined(seat=0, name="pat", occupancy="o1", player=player)
        await store.append(
            game_id,
            0,
            [NewEvent(type=event_tag(e), data=msgspec.json.encode(e)) for e in (created, joined)],
            actor="lobby",
        )
        # The projector had seen all of it before the upgrade (no player_games table then).
        await pool.execute(
            "INSERT INTO projector_checkpoints (name, tx_id, position)"
            " SELECT $1, max(tx_id), max(position) FROM events",
            NAME,
        )
        await pool.execute(
            "INSERT INTO lobby_games (game_id, kind, status, public, spectator_delay, seat_names,"
            " seats_taken, seats_total, created_at, version)"
            " VALUES ($1, 'exploding_kittens', 'open', true, 0, '{pat,NULL}', 1, 2, now(), 2)",
            game_id,
        )

        await asyncio.to_thread(database.upgrade, empty_database_url)
        async with pool.acquire() as conn:
            models = ReadModels(store)
            generation = await models.generation(conn)
            while await models.catch_up(conn, generation):
                pass
        rows = await pool.fetch("SELECT player_id, game_id, seats, status FROM player_games")
        assert [tuple(r) for r in rows] == [(uuid.UUID(player), game_id, [0], "open")]
        assert await pool.fetchval("SELECT seat_names FROM lobby_games") == ["pat", None]
    finally:
        await pool.close()
