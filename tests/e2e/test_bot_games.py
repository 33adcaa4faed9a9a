"""Full games played by bots through the real HTTP app, then rebuilt from the log."""

from __future__ import annotations

import random

import pytest

from service.tools.bot import play_game
from service.tools.client import PlaylogClient


@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_exploding_kittens_bot_game_runs_to_the_end_and_verifies(
    api: PlaylogClient, players: int
) -> None:
    report = await play_game(
        api,
        "exploding_kittens",
        {"players": players, "reaction_window": 0},
        rng=random.Random(players),
    )
    assert report.errors == []
    assert report.finished
    assert report.winners is not None and len(report.winners) == 1
    assert report.verified
