"""Moderators have names; a revoked name is refused on the next request on every instance."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
import time
from contextlib import AsyncExitStack

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.config import Settings


async def cli(settings: Settings, *args: str) -> str:
    env = {
        **os.environ,
        "PLAYLOG_DATABASE_URL": str(settings.database_url),
        "PLAYLOG_JWT_SECRET": settings.jwt_secret,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service.cli",
        "moderator-token",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    return out.decode()


async def status(http: AsyncTestClient[Litestar], game_id: str, token: str) -> int:
    response = await http.get(f"/games/{game_id}/audit/log", headers={"Authorization": f"Bearer {token}"})
    return response.status_code


async def test_a_revoked_moderator_is_refused_by_every_instance(settings: Settings) -> None:
    # A cache that would trust its list for an hour: only the notification can make this pass.
    slow_cache = dataclasses.replace(settings, moderator_cache_seconds=3600.0)
    async with AsyncExitStack() as stack:
        first, second = [
            await stack.enter_async_context(AsyncTestClient(create_app(slow_cache))) for _ in range(2)
        ]
        game = (
            await first.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
        ).json()
        game_id = game["game_id"]
        mia = (await cli(settings, "--name", "mia", "--ttl", "2")).strip()
        max_ = (await cli(settings, "--name", "max")).strip()
        for http in (first, second):
            assert await status(http, game_id, mia) == 200  # each instance has cached the names
        assert "mia" in await cli(settings, "--list")

        await cli(settings, "--revoke", "mia")

        deadline = time.monotonic() + 30  # the notification arrives; bounded, not timed
        while {await status(http, game_id, mia) for http in (first, second)} != {401}:
            assert time.monotonic() < deadline, "an instance still accepts a revoked moderator"
            await asyncio.sleep(0.05)
        listed = await cli(settings, "--list")
        assert "mia" not in listed and "max" in listed
        assert {await status(http, game_id, max_) for http in (first, second)} == {200}

        # A token issued after the revocation works again.
        again = (await cli(settings, "--name", "mia")).strip()
        assert {await status(http, game_id, again) for http in (first, second)} == {200}


async def test_a_moderator_token_must_name_its_moderator(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    from service.auth import Principal, issue

    game = (await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})).json()
    nameless = issue(settings.keyring(), Principal(role="moderator"), 600)
    assert await status(http, game["game_id"], nameless) == 401
