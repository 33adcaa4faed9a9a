"""The clock's questions to Exploding Kittens (domain/decider.py's ``Clock``, issue 52): whose
answer a deadline waits for (the table counts that seat's timeouts in a row), and the per-move
limit a public game gets unless its host names one."""

from __future__ import annotations

from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import PlayCard

from .builders import CM, TC, A, F, S, given, rigged

waiting_for = DECIDER.clock.waiting_for


def test_clock__a_turn_waits_for_the_active_seat() -> None:
    assert waiting_for(rigged([[TC], [CM], [A]], active=2, decision_timeout=5.0)) == 2


def test_clock__a_pending_decision_waits_for_the_seat_that_must_answer_it() -> None:
    state, _ = given(rigged([[F], [A, S, TC], [CM]], decision_timeout=5.0)).when(
        PlayCard(card=F, target=1), 0
    )
    assert waiting_for(state) == 1  # the Favor's giver, not the seat whose turn it is


def test_clock__a_reaction_window_waits_for_nobody_in_particular() -> None:
    state, _ = given(rigged([[F], [A, S, TC], [CM]], reaction_window=3.0)).when(PlayCard(card=F, target=1), 0)
    assert state.window is not None and waiting_for(state) is None


def test_clock__a_game_not_running_waits_for_nobody() -> None:
    assert waiting_for(DECIDER.initial_state(DECIDER.parse_options({"players": 2}))) is None


def test_clock__a_public_game_gets_a_minute_a_move_unless_its_host_names_a_limit() -> None:
    assert DECIDER.clock.public_defaults == {"decision_timeout": 60.0}
    assert DECIDER.parse_options({"players": 2, **DECIDER.clock.public_defaults}).decision_timeout == 60.0
