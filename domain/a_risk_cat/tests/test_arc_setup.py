"""RULES 2.1, 2.2 and 3 (options): components, setup, options."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.events import ARiskCatGameSetUp
from domain.a_risk_cat.rules import initial_state
from domain.a_risk_cat.state import ARiskCatOptions, PendingFirstDraw
from domain.a_risk_cat.tokens import (
    ALL_TOKENS,
    BANKER,
    CHEATER,
    black_cat,
    painting,
    tokens_in_play,
)
from domain.commitment import verify
from domain.errors import RuleViolation

from .builders import given


def _started(players: int, seed: int = 1, **options: object) -> tuple[ARiskCatGameSetUp, object]:
    opts = DECIDER.parse_options({"players": players, **options})
    state, events = given(initial_state(opts)).when_started(seed=seed)
    assert len(events) == 1
    setup = events[0]
    assert isinstance(setup, ARiskCatGameSetUp)
    return setup, state


def test_2_1_tokens__sixty_six_tokens_painting_n_has_n_tokens() -> None:
    assert len(ALL_TOKENS) == 66 == len(set(ALL_TOKENS))
    per_painting = Counter(painting(t) for t in ALL_TOKENS)
    assert per_painting == {n: n for n in range(1, 12)}


def test_2_1_black_cat__banker_is_painting_two_black_cat_and_cheater_is_distinct() -> None:
    assert painting(BANKER) == painting(CHEATER) == 2
    assert BANKER != CHEATER
    assert black_cat(2) == BANKER
    assert all(black_cat(n) in ALL_TOKENS for n in range(1, 12))


def test_2_2_stacks__initial_state_holds_options_and_nothing_drawn() -> None:
    state = initial_state(ARiskCatOptions(players=5))
    assert state.phase == "not_started"
    assert state.bag == () and state.turn_tokens == () and state.pending is None
    assert state.stacks == ((),) * 5
    assert DECIDER.outcome(state) is None and DECIDER.clock.deadline(state) is None


def test_2_2_stacks__start_puts_every_token_in_a_shuffled_bag_with_a_commitment() -> None:
    setup, state = _started(5)
    assert sorted(setup.bag) == sorted(ALL_TOKENS)
    assert setup.bag != ALL_TOKENS
    assert setup.bag_size == 66
    assert verify(list(setup.bag), setup.salt, setup.commitment)
    assert state.bag == setup.bag  # type: ignore[attr-defined]


@pytest.mark.parametrize("players", [3, 4])
def test_2_2_removal__three_players_remove_painting_ten(players: int) -> None:
    setup, _ = _started(players)
    assert setup.removed_paintings == (10,)
    assert len(setup.bag) == 56
    assert not any(painting(t) == 10 for t in setup.bag)
    assert len(tokens_in_play(players)) == 56


@pytest.mark.parametrize("players", [5, 8])
def test_2_2_removal__five_or_more_players_keep_painting_ten(players: int) -> None:
    setup, _ = _started(players)
    assert setup.removed_paintings == ()
    assert len(setup.bag) == 66


def test_2_2_first_seat__first_seat_is_random_unless_given() -> None:
    firsts = {_started(6, seed=s)[0].first_seat for s in range(40)}
    assert len(firsts) > 1
    setup, state = _started(6, first_seat=4)
    assert setup.first_seat == 4
    assert state.pending == PendingFirstDraw(seat=4)  # type: ignore[attr-defined]


def test_start_twice_is_refused() -> None:
    _, state = _started(3)
    given(state).when_started().then("game_already_started")


def test_commands_before_start_are_refused() -> None:
    from domain.a_risk_cat.commands import DrawToken

    state = initial_state(ARiskCatOptions(players=3))
    given(state).when(DrawToken(), 0).then("game_not_started")


@pytest.mark.parametrize(
    "raw",
    [
        {"players": 2},
        {"players": 9},
        {},
        {"players": True},
        {"players": 4, "mode": "expert"},
        {"players": 4, "colour": "red"},
        {"players": 4, "decision_timeout": 0},
        {"players": 4, "decision_timeout": -3},
        {"players": 4, "first_seat": 4},
        {"players": 4, "first_seat": -1},
        {"players": 4, "seed": "x"},
        "players=4",
    ],
)
def test_3_creation__bad_options_are_refused(raw: object) -> None:
    with pytest.raises(RuleViolation) as err:
        DECIDER.parse_options(raw)
    assert err.value.code == "invalid_options"


def test_good_options_parse_with_defaults() -> None:
    opts = DECIDER.parse_options({"players": 8, "mode": "full", "decision_timeout": 30, "seed": 7})
    assert opts == ARiskCatOptions(players=8, mode="full", decision_timeout=30.0, seed=7, first_seat=None)
    assert DECIDER.parse_options({"players": 3}).mode == "base"
    assert msgspec.json.decode(msgspec.json.encode(opts), type=ARiskCatOptions) == opts
