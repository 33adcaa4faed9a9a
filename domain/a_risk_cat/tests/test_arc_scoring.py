"""RULES 2.4: scoring, the black-cat tie-breaker, the Twins, shared wins."""

from __future__ import annotations

import random

import pytest

from domain.a_risk_cat.commands import StopAndStack
from domain.a_risk_cat.events import ARiskCatGameEnded
from domain.a_risk_cat.rules import outcome
from domain.a_risk_cat.scoring import score
from domain.a_risk_cat.tokens import tokens_in_play
from domain.decider import Outcome

from .builders import given, make_state


def test_2_4_paintings__most_tokens_wins_the_painting() -> None:
    sheet = score([["p5-2", "p5-3"], ["p5-1"], []])
    assert sheet.paintings_won[4] == 0
    assert sheet.scores == (2 + 5, 1, 0)


def test_2_4_paintings__tie_goes_to_black_cat_holder_outside_the_tie() -> None:
    sheet = score([["p7-2", "p7-3"], ["p7-4", "p7-5"], ["p7-1"]])
    assert sheet.paintings_won[6] == 2
    assert sheet.scores == (2, 2, 1 + 7)


def test_2_4_paintings__tie_goes_to_black_cat_holder_inside_the_tie() -> None:
    sheet = score([["p7-2", "p7-3"], ["p7-1", "p7-5"], ["p7-4"]])
    assert sheet.paintings_won[6] == 1
    assert sheet.scores == (2, 2 + 7, 1)


def test_2_1_black_cat__banker_breaks_painting_two_ties() -> None:
    sheet = score([["p2-2"], ["p2-1"], []])
    assert sheet.paintings_won[1] == 1


def test_2_4_score__twins_score_two_points_each() -> None:
    sheet = score([["p8-2", "p8-3", "p5-1"], [], []])
    assert sheet.scores[0] == 2 + 2 + 1 + 8 + 5


def test_2_4_score__equal_highest_scores_share_the_win() -> None:
    sheet = score([["p5-1"], ["p5-2", "p4-1"], ["p4-2"]])
    # seat 0: 1 + 5 (black cat breaks the tie on 5); seat 1: 2 + 4 (black cat of 4 is seat 1)
    assert sheet.scores == (6, 6, 1)
    assert sheet.winners == (0, 1)


def _deal_all(players: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    stacks: list[list[str]] = [[] for _ in range(players)]
    for token in tokens_in_play(players):
        stacks[rng.randrange(players)].append(token)
    return stacks


@pytest.mark.parametrize("seed", range(5))
def test_2_4_check__scoring_totals_140_with_all_paintings(seed: int) -> None:
    sheet = score(_deal_all(6, seed))
    assert sum(sheet.scores) == 140
    assert sum(sum(row) for row in sheet.holdings) == 66


@pytest.mark.parametrize("seed", range(5))
def test_2_4_check__scoring_totals_120_without_painting_ten(seed: int) -> None:
    sheet = score(_deal_all(3, seed), removed=(10,))
    assert sum(sheet.scores) == 120
    assert sheet.paintings_won[9] == -1


def test_2_4_score__outcome_is_none_while_running_and_the_scores_at_the_end() -> None:
    state = make_state(stacks=[["p5-1"], ["p5-2", "p4-1"], ["p4-2"]], bag=[], turn_tokens=["p3-1"])
    assert outcome(state) is None
    state, events = given(state).when(StopAndStack(order=["p3-1"]))
    end = events[-1]
    assert isinstance(end, ARiskCatGameEnded)
    # seat 0 now also has the Angel (1 + 3 points)
    assert end.scores == (1 + 5 + 1 + 3, 6, 1)
    assert end.winners == (0,)
    assert end.holdings[0][2] == 1
    assert outcome(state) == Outcome(winners=(0,), scores=(10, 6, 1))
