"""An instance with the switchable parts off (docs/configuration.md) still plays whole games:
it only stops projecting the read models, logging each command and announcing appends."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import asyncpg
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.tools.bot import play_game
from service.tools.client import PlaylogClient


async def test_an_instance_with_every_part_switched_off_plays_a_game_and_projects_nothing(
    settings: Settings, pool: asyncpg.Pool
) -> None:
    quiet = dataclasses.replace(settings, read_models=False, command_log=False, notify_appends=False)
    async with AsyncTestClient(create_app(quiet)) as http:
        api = PlaylogClient(str(http.base_url), http=http)
        report = await play_game(
            api, "exploding_kittens", {"players": 2, "reaction_window": 0}, rng=random.Random(7)
        )
        assert report.errors == [] and report.finished and report.verified
        await asyncio.sleep(0.5)  # a projector would have taken its lock and folded by now
        assert not http.app.state.projector.leading
        assert await pool.fetchval("SELECT count(*) FROM lobby_games") == 0
        assert not http.app.state.games.command_log
        assert http.app.state.games.notifier is None
