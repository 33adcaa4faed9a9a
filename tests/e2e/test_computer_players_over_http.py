"""Computer players over HTTP (issue 53): seats played through the seat API with seat tokens,
each move signed by a receipt the client checks, and every decision made again afterwards from
the seat's own view alone gives the same move."""

from __future__ import annotations

import pytest

import bots
from service.tools.bot import play_game
from service.tools.client import PlaylogClient

GAMES = [
    ("exploding_kittens", {"players": 2, "reaction_window": 0}, ("normal", "easy")),
    ("a_risk_cat", {"players": 3}, ("easy", "normal", "normal")),
]


@pytest.mark.parametrize(("kind", "options", "levels"), GAMES)
async def test_computer_players_decide_from_their_seat_s_view_alone(
    api: PlaylogClient, kind: str, options: dict[str, object], levels: tuple[bots.Level, ...]
) -> None:
    report = await play_game(api, kind, dict(options), levels=levels)
    assert report.finished and report.verified, report.errors
    assert len(report.decisions) == report.commands > 0
    assert len(api.receipts) >= report.commands  # every acknowledged move came with a checked receipt
    for decision in report.decisions:
        assert decision.view["view"] == "seat" and decision.view["seat"] == decision.seat
        assert "hands" not in decision.view and "bag" not in decision.view  # nobody else's secrets
        again = bots.choose(
            kind,
            decision.level,
            decision.view,
            decision.moves,
            bots.seeded(str(report.game_id), decision.seat, decision.version),
        )
        assert again == decision.move
