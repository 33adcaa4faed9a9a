"""The notifier's hints on a real PostgreSQL: heard by a listener, and never at the cost of the
durability of what its pooled connection commits next."""

from __future__ import annotations

import asyncio
import uuid

from service.store.notifications import Listener, Notifier
from service.store.pool import create_pool


async def test_a_hint_is_heard_and_its_connections_next_commits_still_wait_for_the_flush(
    database_url: str,
) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1)  # the hint's connection, reused next
    received: list[tuple[uuid.UUID, int]] = []
    listener = Listener(database_url)
    listener.on_append(lambda game_id, seq: received.append((game_id, seq)))
    notifier = Notifier(pool)
    listener.start()
    try:
        async with asyncio.timeout(15):
            while listener._conn is None:
                await asyncio.sleep(0.02)
            game = uuid.uuid4()
            notifier.publish(game, 3)
            await notifier._flush()
            while (game, 3) not in received:
                await asyncio.sleep(0.02)
        # The hint turned synchronous commit off for its own transaction only: the append that
        # takes this connection next still waits for its WAL flush.
        assert await pool.fetchval("SHOW synchronous_commit") == "on"
    finally:
        await listener.stop()
        await pool.close()
