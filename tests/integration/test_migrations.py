"""Alembic: every revision upgrades and downgrades cleanly on an empty database."""

from __future__ import annotations

import asyncio

import asyncpg

from service import database


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
