"""A no-show in a public game, over HTTP with the real app and its real scheduler (issue 52): a
seat that stops acting is played for by the clock, then removed, and the game finishes with the
others. The clock is the game's own options, made short; the scheduler acts on its own, and every
clock action is an event every seat reads and ``playlog verify`` re-executes.

The present seats play whatever they may (the bots' pick, service/tools/bot.py) as fast as the
machine lets them; a per-move limit of a few seconds leaves them time, and a present seat the
clock answers for once is back (``lobby.back``) the moment it acts again. Timeouts guard hangs,
never measure speed.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import verify as export_verify
from service.tools.bot import RACES, pick
from service.tools.client import ApiError, EventOut, PlaylogClient

from .conftest import Game

ABSENT = 1
TIMEOUTS_TO_REMOVE = 2
OPTIONS = {
    "exploding_kittens": {"players": 3, "reaction_window": 0, "decision_timeout": 3, "first_seat": 0},
    "a_risk_cat": {"players": 3, "mode": "base", "decision_timeout": 3, "first_seat": 0},
}


async def _public_game(api: PlaylogClient, kind: str) -> Game:
    created = await api.create_game(
        kind, OPTIONS[kind], public=True, spectator_delay=0, timeouts_to_remove=TIMEOUTS_TO_REMOVE
    )
    seats = [await api.join(created.game_id, f"p{n}") for n in range(created.seats)]
    await api.start(created.game_id, created.host_token)
    return Game(api, created, seats)


async def _play_without(game: Game, absent: int, rng: random.Random) -> None:
    """Every seat but ``absent`` plays what it may until the game is over."""
    present = [s for s in range(len(game.seats)) if s != absent]
    while True:
        views = await asyncio.gather(*(game.view(s) for s in present))
        if views[0].status == "finished":
            return
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        if not choices:
            await asyncio.sleep(0.05)  # the absent seat's turn: the clock answers for it
            continue
        view, command = rng.choice(choices)
        try:
            await game.send(view.seat, command, expected_version=view.version)
        except ApiError as exc:
            if exc.code not in RACES:
                raise


def _clock(events: list[EventOut]) -> list[dict[str, Any]]:
    return [e.data for e in events if e.type == "lobby.timed_out"]


@pytest.mark.parametrize("kind", sorted(OPTIONS))
async def test_a_seat_that_stops_acting_is_played_for_then_removed_and_the_others_finish(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], kind: str
) -> None:
    game = await _public_game(api, kind)
    async with asyncio.timeout(240):  # a guard against a hang, not a speed check
        await _play_without(game, ABSENT, random.Random(7))

    events = await api.events(game.id, 0, game.seats[0].token)
    timed_out = [t for t in _clock(events) if t["seat"] == ABSENT]
    assert [(t["in_a_row"], t["removed"]) for t in timed_out] == [(1, False), (2, True)]
    # Played for first: the game's forced move follows the first timeout, marked as the server's.
    first = next(i for i, e in enumerate(events) if e.type == "lobby.timed_out" and e.data["seat"] == ABSENT)
    assert events[first + 1].data.get("by_server") is True
    # Then removed: its concession follows the last, and nobody else was.
    last = max(i for i, e in enumerate(events) if e.type == "lobby.timed_out" and e.data["seat"] == ABSENT)
    assert events[last + 1].type.endswith("Conceded") and events[last + 1].data["seat"] == ABSENT
    assert [t["seat"] for t in _clock(events) if t["removed"]] == [ABSENT]

    summary = await api.game(game.id)
    assert summary.status == "finished" and summary.winners and ABSENT not in summary.winners

    export = await http.get(f"/games/{game.id}/export", headers=moderator)
    report = export_verify.verify_lines(export.text.splitlines(keepends=True))
    assert report.ok and report.level == "re-executed", report.lines()


async def test_a_public_lobby_nobody_starts_closes_on_its_own(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 3}, public=True, spectator_delay=0, lobby_timeout=1
    )
    hana = await api.create_player("hana")
    await api.join(created.game_id, player_token=hana.token)
    async with asyncio.timeout(30):  # the scheduler closes it; a guard against a hang
        while (await api.game(created.game_id)).status != "finished":
            await asyncio.sleep(0.05)
    with pytest.raises(ApiError) as refused:
        await api.join(created.game_id, "late")
    assert (refused.value.status, refused.value.code) == (409, "lobby_closed")
    summary = await api.game(created.game_id)
    assert summary.winners is None and summary.seats == ["hana", None, None]
    async with asyncio.timeout(30):  # the read models follow the log
        while not (games := [g for g in await api.all_my_games(hana.token) if g.status == "finished"]):
            await asyncio.sleep(0.05)
    assert games[0].outcome is None  # nobody won or lost a closed lobby
    async with asyncio.timeout(30):  # the listing: finished, never started
        while not (
            listed := [
                g
                for g in (await http.get("/games?status=finished")).json()["games"]
                if g["game_id"] == str(created.game_id)
            ]
        ):
            await asyncio.sleep(0.05)
    assert listed[0]["started_at"] is None and listed[0]["winners"] is None

    export = await http.get(f"/games/{created.game_id}/export", headers=moderator)
    report = export_verify.verify_lines(export.text.splitlines(keepends=True))
    assert report.ok and report.level == "re-executed", report.lines()  # the seed disclosed, too
