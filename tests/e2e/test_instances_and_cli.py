"""Several instances on one database, and the bots command line against a live server."""

from __future__ import annotations

import asyncio
import sys

import httpx

from service.config import Settings
from service.store.events import EventStore
from service.tools.client import PlaylogClient
from tests.conftest import live_server
from tests.e2e.conftest import started_game


async def test_two_schedulers_resolve_a_window_exactly_once(settings: Settings, store: EventStore) -> None:
    async with (
        live_server(settings) as url_a,
        live_server(settings) as url_b,
        httpx.AsyncClient(base_url=url_a) as http_a,
        httpx.AsyncClient(base_url=url_b) as http_b,
    ):
        api_a, api_b = PlaylogClient(url_a, http=http_a), PlaylogClient(url_b, http=http_b)
        resolved = 0
        for seed in range(30):
            game = await started_game(api_a, seed=seed, reaction_window=0.2)
            active = await game.active()
            view = await api_b.view(game.id, active, game.seats[active].token)
            plays = [c for c in view.legal_commands if c["type"] in {"PlayCard", "PlayCombo"}]
            if not plays:
                continue
            await game.send(active, plays[0])
            await asyncio.sleep(1.0)  # both instances' schedulers see the deadline pass
            events = await store.read(game.id)
            assert [e.type for e in events].count("ReactionsResolved") == 1
            resolved += 1
            if resolved == 3:
                break
        assert resolved == 3


async def test_bots_command_plays_games_and_prints_a_summary(settings: Settings) -> None:
    async with live_server(settings) as url:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "service.tools.cli",
            "bots",
            "--url",
            url,
            "--kind",
            "exploding_kittens",
            "--players",
            "3",
            "--games",
            "3",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 300)
    assert proc.returncode == 0, err.decode()[-2000:]
    summary = out.decode()
    for column in ("games", "commands", "errors", "commands/s"):
        assert column in summary


async def test_bots_command_fails_when_the_server_is_unreachable() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service.tools.cli",
        "bots",
        "--url",
        "http://127.0.0.1:9",
        "--games",
        "1",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode != 0
