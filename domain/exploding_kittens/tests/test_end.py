"""RULES 1.8: leaving and winning."""

from __future__ import annotations

import pytest

from domain.decider import Concede
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import (
    DrawCard,
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    ResolveReactions,
)
from domain.exploding_kittens.events import PlayerConceded
from domain.viewers import Spectator

from .builders import CM, HP, TC, A, D, F, K, N, S, given, rigged, types

W = 5.0


def test_1_8_leave__leave_discards_the_hand_and_removes_the_bottom_most_kitten() -> None:
    state = rigged([[A], [S, TC], [CM]], pile=(K, HP, K, CM))
    state, events = given(state).when(Concede(), 1)
    assert types(events) == ["PlayerConceded"]
    assert state.alive == (True, False, True)
    assert state.discard == (S, TC) and state.hands[1] == ()
    assert state.draw_pile == (K, HP, CM) and state.out_of_game == (K,)
    assert state.active_seat == 0
    public = DECIDER.redact(events[0], Spectator())
    assert isinstance(public, PlayerConceded) and not hasattr(public, "position")


def test_1_4_who_plays__leave_while_placing_a_kitten_removes_that_kitten() -> None:
    state = rigged([[D], [S], [CM]], pile=(K, HP, K))
    state, _ = given(state).when(DrawCard(), 0)
    state, events = given(state).when(Concede(), 0)
    assert types(events) == ["PlayerConceded", "OwedTurnStarted"]
    assert state.draw_pile == (HP, K) and state.out_of_game == (K,) and state.drawn_kitten is None
    assert state.pending is None and state.discard == (D,)
    assert (state.active_seat, state.turns_owed) == (1, 1)


def test_1_8_leave_turns__leave_on_own_turn_loses_owed_turns_and_next_seat_owes_one() -> None:
    state = rigged([[A], [S], [CM]], pile=(K, K), turns_owed=3, under_attack=True)
    state, _ = given(state).when(Concede(), 0)
    assert (state.active_seat, state.turns_owed, state.under_attack) == (1, 1, False)


def test_1_8_leave_chain__leave_discards_an_unresolved_chain_of_the_leaver() -> None:
    state = rigged([[F], [N, A], [S]], pile=(K, K), reaction_window=W)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, events = given(state).when(Concede(), 0)
    assert types(events) == ["PlayerConceded", "OwedTurnStarted"]
    assert state.window is None and state.pending is None
    assert state.discard == (F, N)  # the Nope stays played


def test_1_8_leave_chain__leave_of_the_favor_giver_resolves_with_nothing() -> None:
    state = rigged([[F], [A, S], [CM]], pile=(K, K))
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    state, events = given(state).when(Concede(), 1)
    assert types(events) == ["PlayerConceded"]
    assert state.pending is None and state.active_seat == 0 and state.hands[0] == ()


def test_1_8_leave_chain__leave_of_the_target_during_the_window_resolves_with_no_effect() -> None:
    state = rigged([[TC, TC], [A], [CM]], pile=(K, K), reaction_window=W)
    state, _ = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0)
    state, _ = given(state).when(PassReaction(), 2)
    state, events = given(state).when(Concede(), 1)
    assert types(events) == ["PlayerConceded", "ReactionsResolved", "ActionHadNoEffect"]
    assert events[1].closed_by == "leave"  # type: ignore[union-attr]


def test_1_8_leave_chain__nothing_can_target_a_seat_that_left() -> None:
    state = rigged([[F], [A], [CM]], pile=(K, K))
    state, _ = given(state).when(Concede(), 1)
    given(state).when(PlayCard(card=F, target=1), 0).then("target_not_alive")


def test_1_8_last_wins__the_last_living_player_wins_at_once_even_with_a_window_open() -> None:
    state = rigged([[F], [N, A]], reaction_window=W, turns_owed=2, under_attack=True)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    state, events = given(state).when(Concede(), 0)
    assert types(events) == ["PlayerConceded", "ExplodingKittensWon"]
    assert DECIDER.outcome(state).winners == (1,)  # type: ignore[union-attr]
    assert DECIDER.clock.deadline(state) is None
    state = rigged([[F], [N, A], [S]], reaction_window=W)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    state, _ = given(state).when(Concede(), 2)
    state, events = given(state).when(Concede(), 1)
    assert DECIDER.outcome(state).winners == (0,)  # type: ignore[union-attr]


def test_outcome_is_none_while_the_game_runs() -> None:
    assert DECIDER.outcome(rigged([[A], [S]])) is None


@pytest.mark.parametrize(
    "command",
    [DrawCard(), Concede(), PassReaction(), Nope(chain_length=0), GiveCard(card=A), ResolveReactions()],
)
def test_every_command_is_refused_once_the_game_is_over(command: object) -> None:
    state, _ = given(rigged([[A], [S]])).when(Concede(), 0)
    given(state).when(command, 1).then("game_over")
    assert DECIDER.legal_commands(state, 1) == []
