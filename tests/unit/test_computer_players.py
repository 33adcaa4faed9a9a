"""Computer players (issue 53): every level plays every game to its end with legal moves only,
and a decision is a function of the seat's view and its seed, nothing else."""

from __future__ import annotations

import copy

import msgspec
import pytest

import bots
from domain import registry
from domain.decider import Context
from domain.randomness import Draws
from domain.viewers import Seat
from service.tools.matches import play_match

GAMES = [
    ("exploding_kittens", {"reaction_window": 0}, 2),
    ("exploding_kittens", {"reaction_window": 3, "edition": "classic"}, 3),
    ("a_risk_cat", {}, 3),
    ("a_risk_cat", {"mode": "full"}, 4),
]


@pytest.mark.parametrize("level", bots.LEVELS)
@pytest.mark.parametrize(("kind", "options", "seats"), GAMES)
def test_every_level_finishes_every_game_with_legal_moves_only(
    kind: str, options: dict[str, object], seats: int, level: bots.Level
) -> None:
    for seed in range(5):
        # play_match sends each chosen move to the game's own decide: an illegal one would raise.
        match = play_match(kind, (level,) * seats, options, seed)
        assert match.winners, f"{kind} seed {seed} did not finish"


@pytest.mark.parametrize(("kind", "options", "seats"), GAMES)
def test_normal_plays_against_easy_to_the_end(kind: str, options: dict[str, object], seats: int) -> None:
    for seed in range(5):
        levels = tuple("normal" if seat == seed % seats else "easy" for seat in range(seats))
        assert play_match(kind, levels, options, seed).winners


@pytest.mark.parametrize("level", bots.LEVELS)
def test_a_decision_is_a_function_of_the_seat_s_view_and_its_seed(level: bots.Level) -> None:
    view = _table({"seat": 0, "hand": ["Defuse", "Skip"], "seen_future": [], "placed_kitten": None})
    moves = [{"type": "DrawCard"}, {"type": "PlayCard", "card": "Skip"}]
    chosen = {
        str(bots.choose("exploding_kittens", level, copy.deepcopy(view), list(moves), bots.seeded("g", 0, 7)))
        for _ in range(20)
    }
    assert len(chosen) == 1


def _table(seat: dict[str, object]) -> dict[str, object]:
    public = {
        "players": 2,
        "alive": [True, True],
        "active_seat": 0,
        "turns_owed": 1,
        "under_attack": False,
        "hand_sizes": [1, 5],
        "draw_pile_size": 20,
        "discard": [],
        "window": None,
        "pending": None,
    }
    return {**seat, "public": public}


def test_normal_never_draws_a_kitten_it_has_seen_when_it_can_skip() -> None:
    view = _table(
        {"seat": 0, "hand": ["Skip"], "seen_future": ["Exploding Kitten", "Tacocat"], "placed_kitten": None}
    )
    moves = [{"type": "DrawCard"}, {"type": "PlayCard", "card": "Skip"}]
    assert bots.choose("exploding_kittens", "normal", view, moves, bots.seeded("g", 0, 1)) == moves[1]


def test_normal_gives_its_cheapest_card_to_a_favor_never_a_defuse() -> None:
    view = _table(
        {"seat": 1, "hand": ["Defuse", "Tacocat", "Nope"], "seen_future": [], "placed_kitten": None}
    )
    moves = [{"type": "GiveCard", "card": card} for card in ("Defuse", "Tacocat", "Nope")]
    assert bots.choose("exploding_kittens", "normal", view, moves, bots.seeded("g", 1, 1)) == moves[1]


def test_the_view_a_computer_player_gets_is_the_seat_s_own() -> None:
    """What play_match hands a level is the game's view for that seat, as the service encodes it."""
    decider = registry.get("exploding_kittens")
    state = decider.initial_state(decider.parse_options({"players": 2}))
    state = decider.fold(state, list(decider.start(state, Context(Draws(bytes(32), 0), 0.0, None))))
    seat_view = msgspec.to_builtins(decider.view(state, Seat(0)))
    assert seat_view.get("view") == "seat" and "hands" not in seat_view
