"""RULES 1.2 / 1.3: setup per edition and player count."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.commitment import verify
from domain.errors import RuleViolation
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.cards import COUNTS, DECK_SIZE, Card
from domain.exploding_kittens.commands import DrawCard
from domain.exploding_kittens.events import DeckDealt

from .builders import given

PILE = {"2022": {2: 35, 3: 29, 4: 23, 5: 16}, "classic": {2: 35, 3: 30, 4: 23, 5: 16}}
OUT = {"2022": {2: 5, 3: 3, 4: 1, 5: 0}, "classic": {2: 5, 3: 2, 4: 1, 5: 0}}


def _deal(players: int, edition: str = "2022", seed: int = 1, **extra: object) -> DeckDealt:
    opts = DECIDER.parse_options({"players": players, "edition": edition, **extra})
    (event,) = given(DECIDER.initial_state(opts)).when_started(seed=seed).events
    assert isinstance(event, DeckDealt)
    return event


@pytest.mark.parametrize("edition", ["2022", "classic"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_1_1__setup_counts_table(edition: str, players: int) -> None:
    dealt = _deal(players, edition)
    assert len(dealt.draw_pile) == PILE[edition][players] == dealt.draw_pile_size
    assert len(dealt.out_of_game) == OUT[edition][players]
    assert [len(h) for h in dealt.hands] == [8] * players
    everything = Counter(dealt.draw_pile) + Counter(dealt.out_of_game)
    for hand in dealt.hands:
        everything += Counter(hand)
    assert sum(everything.values()) == DECK_SIZE
    assert everything == Counter(COUNTS)
    assert dealt.draw_pile.count(Card.EXPLODING_KITTEN) == players - 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_1_2_spare_defuses__each_hand_starts_with_exactly_one_defuse_and_no_kitten(players: int) -> None:
    for seed in range(20):
        dealt = _deal(players, seed=seed)
        for hand in dealt.hands:
            assert hand.count(Card.DEFUSE) == 1
            assert Card.EXPLODING_KITTEN not in hand


def test_1_2_defuses__three_players_2022_puts_two_defuses_back() -> None:
    assert _deal(3).draw_pile.count(Card.DEFUSE) == 2


def test_1_2_defuses__five_players_2022_puts_one_defuse_back() -> None:
    assert _deal(5).draw_pile.count(Card.DEFUSE) == 1


def test_1_2_defuses__classic_three_players_puts_all_remaining_defuses_back() -> None:
    assert _deal(3, "classic").draw_pile.count(Card.DEFUSE) == 3


def test_1_2_defuses__two_players_put_two_defuses_back_in_both_editions() -> None:
    assert _deal(2, "classic").draw_pile.count(Card.DEFUSE) == 2
    assert _deal(2, "2022").draw_pile.count(Card.DEFUSE) == 2


def test_1_3_6_first_seat__first_seat_given_by_creator_is_used() -> None:
    assert _deal(4, first_seat=3).first_seat == 3


def test_1_3_6_first_seat__first_seat_is_random_when_not_given() -> None:
    assert {_deal(3, seed=seed).first_seat for seed in range(40)} == {0, 1, 2}


def test_1_3_6_shuffle__setup_commits_to_the_draw_pile_order() -> None:
    dealt = _deal(4)
    assert dealt.salt is not None
    assert verify(dealt.draw_pile, dealt.salt, dealt.commitment)


def test_1_3_6_shuffle__setup_is_reproducible_from_the_rng() -> None:
    assert _deal(4, seed=7) == _deal(4, seed=7)
    assert _deal(4, seed=7) != _deal(4, seed=8)


def test_1_4_no_start_draw__no_draw_at_start_of_turn() -> None:
    dealt = _deal(3, first_seat=1)
    state = given(DECIDER.initial_state(DECIDER.parse_options({"players": 3})), dealt).state
    assert state.active_seat == 1 and state.turns_owed == 1 and not state.under_attack
    assert [len(h) for h in state.hands] == [8, 8, 8]


def test_start_twice_is_refused() -> None:
    opts = DECIDER.parse_options({"players": 2})
    # the code every game and the lobby use
    given(DECIDER.initial_state(opts), _deal(2)).when_started().then("game_already_started")


def test_command_before_start_is_refused() -> None:
    state = DECIDER.initial_state(DECIDER.parse_options({"players": 2}))
    given(state).when(DrawCard(), 0).then("game_not_started")
    assert DECIDER.outcome(state) is None and DECIDER.clock.deadline(state) is None


@pytest.mark.parametrize(
    "raw",
    [
        {"players": 1},
        {"players": 6},
        {},
        {"players": 3, "first_seat": 3},
        {"players": 3, "first_seat": -1},
        {"players": 3, "unknown": 1},
        {"players": 3, "edition": "2023"},
        {"players": 3, "reaction_window": -1},
        {"players": 3, "reaction_window": 601},
        {"players": 3, "reaction_window": float("nan")},
        {"players": 3, "decision_timeout": 0},
        {"players": 3, "special_combos": "yes"},
        {"players": 3, "seed": "abc"},
        {"players": True},
        None,
        [],
    ],
)
def test_3_creation__bad_options_are_refused(raw: object) -> None:
    with pytest.raises(RuleViolation) as err:
        DECIDER.parse_options(raw)
    assert err.value.code == "invalid_options"


def test_1_2_option__option_defaults() -> None:
    opts = DECIDER.parse_options({"players": 2})
    assert (opts.edition, opts.special_combos, opts.reaction_window) == ("2022", True, 3.0)
    assert (opts.decision_timeout, opts.seed, opts.first_seat) == (None, None, None)
    full = {
        "players": 5,
        "edition": "classic",
        "special_combos": False,
        "reaction_window": 0,
        "decision_timeout": 30,
        "seed": 42,
        "first_seat": 4,
    }
    assert DECIDER.parse_options(full).first_seat == 4
