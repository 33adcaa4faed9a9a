"""Several instances on one database, and the bots command line against a live server."""

from __future__ import annotations

import asyncio
import sys

from service.config import Settings
from service.store.events import EventStore
from service.tools.client import PlaylogClient
from tests.conftest import live_server, two_instances
from tests.e2e.conftest import started_game


async def test_two_schedulers_resolve_a_window_exactly_once(settings: Settings, store: EventStore) -> None:
    async with two_instances(settings) as (http_a, http_b):
        api_a, api_b = (
            PlaylogClient(str(http_a.base_url), http=http_a),
            PlaylogClient(str(http_b.base_url), http=http_b),
        )
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


async def test_given_two_instances_when_a_player_is_erased_on_one_then_the_other_shows_the_pseudonym(
    settings: Settings,
) -> None:
    """The other instance opened the name before (its tables, feeds and opened texts hold it):
    the erasure's notification makes it forget them (docs/erasure.md)."""
    async with two_instances(settings) as (http_a, http_b):
        api_a = PlaylogClient(str(http_a.base_url), http=http_a)
        player = await api_a.create_player("Twice Seen")
        created = await api_a.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
        await api_a.join(created.game_id, player_token=player.token)
        guest = await api_a.join(created.game_id, "Stays Put")
        seat_b = {"Authorization": f"Bearer {guest.token}"}

        async def names_on_b() -> tuple[list[str], list[str]]:
            seats = (await http_b.get(f"/games/{created.game_id}")).json()["seats"]
            events = (await http_b.get(f"/games/{created.game_id}/seats/1/events", headers=seat_b)).json()
            return seats, [e["data"]["name"] for e in events if e["type"] == "lobby.joined"]

        assert await names_on_b() == (["Twice Seen", "Stays Put"], ["Twice Seen", "Stays Put"])
        erase = await http_a.delete(
            "/players/me", params={"erase": "true"}, headers=player_auth(player.token)
        )
        pseudonym = erase.json()["pseudonym"]
        for _ in range(200):  # the notification crosses at once; polled, never slept past
            if await names_on_b() == ([pseudonym, "Stays Put"], [pseudonym, "Stays Put"]):
                break
            await asyncio.sleep(0.02)
        assert await names_on_b() == ([pseudonym, "Stays Put"], [pseudonym, "Stays Put"])


def player_auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
