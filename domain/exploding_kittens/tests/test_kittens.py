"""RULES 1.5: Exploding Kitten and Defuse."""

from __future__ import annotations

import pytest

from domain.commitment import verify
from domain.decider import ActOnTimeout, Concede
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import Defuse, DrawCard, Nope, PlayCard
from domain.exploding_kittens.events import KittenDefused, KittenDrawn
from domain.exploding_kittens.state import PendingDefuse
from domain.viewers import Seat, Spectator

from .builders import CM, HP, TC, A, D, K, N, S, given, rigged, types


def _drawn(pile: tuple[object, ...] = (K, TC, CM, HP), **options: object) -> object:
    state, events = given(rigged([[D, A], [S, N]], pile=pile, **options)).when(DrawCard(), 0)  # type: ignore[arg-type]
    return state, events


def test_1_5_revealed__drawn_kitten_is_revealed_publicly() -> None:
    state, events = _drawn()
    assert types(events) == ["KittenDrawn"]
    assert DECIDER.redact(events[0], Spectator()) == events[0]
    assert state.drawn_kitten == 0 and isinstance(state.pending, PendingDefuse)


def test_1_5_always_defuse__holding_a_defuse_always_defuses_only_the_position_is_chosen() -> None:
    state, _ = _drawn()
    offered = DECIDER.legal_commands(state, 0)
    assert offered == [Defuse(position=k) for k in range(4)] + [Concede()]


def test_1_5_defuse__defuse_at_position_zero_puts_kitten_on_top() -> None:
    state, _ = _drawn()
    state, events = given(state).when(Defuse(position=0), 0)
    assert state.draw_pile == (K, TC, CM, HP)
    assert types(events) == ["KittenDefused", "OwedTurnStarted"]
    assert state.active_seat == 1


def test_1_5_defuse__defuse_at_position_len_puts_kitten_at_bottom() -> None:
    state, _ = _drawn()
    state, _ = given(state).when(Defuse(position=3), 0)
    assert state.draw_pile == (TC, CM, HP, K)


def test_1_5_defuse__defuse_in_the_middle_keeps_the_order_without_shuffling() -> None:
    state, _ = _drawn()
    state, _ = given(state).when(Defuse(position=2), 0)
    assert state.draw_pile == (TC, CM, K, HP)


def test_1_5_defuse__defuse_spends_the_defuse_to_the_discard_pile() -> None:
    state, _ = _drawn()
    state, _ = given(state).when(Defuse(position=0), 0)
    assert state.hands[0] == (A,) and state.discard == (D,)
    assert state.drawn_kitten is None and state.pending is None


@pytest.mark.parametrize("position", [-1, 4, 100])
def test_1_5_defuse__defuse_out_of_range_is_refused(position: int) -> None:
    state, _ = _drawn()
    given(state).when(Defuse(position=position), 0).then("invalid_position")


def test_defuse_commits_to_the_new_order() -> None:
    state, _ = _drawn()
    state, events = given(state).when(Defuse(position=1), 0)
    event = events[0]
    assert isinstance(event, KittenDefused) and event.salt is not None
    assert verify(state.draw_pile, event.salt, event.commitment)


def test_1_5_secret_position__defuse_position_is_seen_by_the_defuser_only() -> None:
    state, _ = _drawn()
    state, events = given(state).when(Defuse(position=2), 0)
    event = events[0]
    mine = DECIDER.redact(event, Seat(0))
    theirs = DECIDER.redact(event, Seat(1))
    public = DECIDER.redact(event, Spectator())
    assert mine.position == 2 and mine.salt is None
    assert theirs.position is None and public.position is None and public.salt is None
    assert DECIDER.view(state, Seat(0)).placed_kitten == 2
    assert DECIDER.view(state, Seat(1)).placed_kitten is None


def test_1_5_explode__player_without_defuse_is_eliminated_hand_to_discard_kitten_leaves_game() -> None:
    state = rigged([[A, TC], [S], [CM]], pile=(K, K, HP))
    state, events = given(state).when(DrawCard(), 0)
    assert types(events) == ["KittenDrawn", "PlayerExploded", "OwedTurnStarted"]
    assert state.alive == (False, True, True)
    assert state.hands[0] == () and state.discard == (A, TC)
    assert state.out_of_game == (K,) and K not in state.discard
    assert state.draw_pile == (K, HP)


def test_1_8_last_wins__last_explosion_leaves_the_winner() -> None:
    state, events = given(rigged([[A], [S]], pile=(K, TC))).when(DrawCard(), 0)
    assert types(events)[-1] == "ExplodingKittensWon"
    assert DECIDER.outcome(state).winners == (1,)  # type: ignore[union-attr]


def test_1_5_no_nope__defuse_and_kitten_cannot_be_noped() -> None:
    state, _ = _drawn(reaction_window=5.0)
    assert state.window is None
    assert DECIDER.legal_commands(state, 1) == [Concede()]
    given(state).when(Nope(chain_length=0), 1).then("window_closed")
    state, _ = given(state).when(Defuse(position=0), 0)
    assert state.window is None
    given(rigged([[D], [S]])).when(PlayCard(card=D), 0).then("not_playable")


def test_1_5_timeout__defuse_timeout_puts_kitten_at_random_position() -> None:
    state, events = _drawn(decision_timeout=10.0)
    drawn = events[0]
    assert isinstance(drawn, KittenDrawn) and drawn.deadline == 10.0
    assert DECIDER.clock.deadline(state) == 10.0
    assert DECIDER.clock.on_deadline(state) == ActOnTimeout()
    positions = set()
    for seed in range(30):
        after, evs = given(state).when(ActOnTimeout(), None, now=10.0, seed=seed)
        defused = evs[0]
        assert isinstance(defused, KittenDefused) and defused.by_server
        positions.add(after.draw_pile.index(K))
    assert positions == {0, 1, 2, 3}
