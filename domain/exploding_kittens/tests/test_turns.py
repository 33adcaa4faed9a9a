"""RULES 1.4: a turn, owed turns, Attack and Skip."""

from __future__ import annotations

from domain.exploding_kittens.commands import Defuse, DrawCard, Nope, PassReaction, PlayCard, PlayCombo
from domain.exploding_kittens.events import OwedTurnStarted

from .builders import BC, CM, HP, SF, TC, A, D, K, N, S, given, rigged, types


def _turn(state: object) -> tuple[int, int, bool]:
    return state.active_seat, state.turns_owed, state.under_attack  # type: ignore[attr-defined]


def test_1_3_6_clockwise__draw_ends_the_turn_and_passes_to_next_seat() -> None:
    state, events = given(rigged([[A], [S], [TC]])).when(DrawCard(), 0)
    assert types(events) == ["CardDrawn", "OwedTurnStarted"]
    assert state.hands[0] == (A, TC)
    assert _turn(state) == (1, 1, False)


def test_1_3_6_clockwise__play_order_skips_eliminated_seats() -> None:
    state, _ = given(rigged([[A], [S], [TC]], alive=[True, False, True])).when(DrawCard(), 0)
    assert state.active_seat == 2
    state, _ = given(rigged([[A], [S], [TC]], active=2, alive=[True, False, True])).when(DrawCard(), 2)
    assert state.active_seat == 0


def test_1_4_turn__playing_a_card_does_not_end_the_turn() -> None:
    state, _ = given(rigged([[SF, A], [S]])).when(PlayCard(card=SF), 0)
    assert _turn(state) == (0, 1, False)


def test_1_4_attack_2022__attack_ends_turn_without_drawing_and_next_owes_two() -> None:
    state, events = given(rigged([[A], [S], [TC]])).when(PlayCard(card=A), 0)
    assert "CardDrawn" not in types(events)
    assert state.hands[0] == () and len(state.draw_pile) == 4
    assert _turn(state) == (1, 2, True)


def test_1_4_under_attack__attack_sets_under_attack_in_both_editions() -> None:
    state, _ = given(rigged([[A], [S]], edition="classic")).when(PlayCard(card=A), 0)
    assert _turn(state) == (1, 2, True)


def test_1_2_attack_victim__attack_on_first_of_two_attacked_turns_gives_four() -> None:
    state, _ = given(rigged([[A], [S], [TC]], turns_owed=2, under_attack=True)).when(PlayCard(card=A), 0)
    assert _turn(state) == (1, 4, True)


def test_1_2_decision_seed_004__attack_on_second_of_two_attacked_turns_gives_three() -> None:
    state, _ = given(rigged([[A], [S], [TC]], turns_owed=1, under_attack=True)).when(PlayCard(card=A), 0)
    assert _turn(state) == (1, 3, True)


def test_1_4_attack_2022__attack_after_drawing_first_of_two_gives_three() -> None:
    state = rigged([[A], [S]], turns_owed=2, under_attack=True)
    state, _ = given(state).when(DrawCard(), 0)
    assert _turn(state) == (0, 1, True)
    state, _ = given(state).when(PlayCard(card=A), 0)
    assert _turn(state) == (1, 3, True)


def test_1_2_attack_victim__classic_edition_attack_on_attack_gives_two() -> None:
    state = rigged([[A], [S], [TC]], turns_owed=2, under_attack=True, edition="classic")
    state, _ = given(state).when(PlayCard(card=A), 0)
    assert _turn(state) == (1, 2, True)


def test_attack_skips_eliminated_seats() -> None:
    state, _ = given(rigged([[A], [S], [TC]], alive=[True, False, True])).when(PlayCard(card=A), 0)
    assert _turn(state) == (2, 2, True)


def test_1_4_owed__skip_ends_one_turn_without_drawing() -> None:
    state, events = given(rigged([[S], [A]])).when(PlayCard(card=S), 0)
    assert "CardDrawn" not in types(events) and len(state.draw_pile) == 4
    assert _turn(state) == (1, 1, False)


def test_1_4_skip__skip_while_owing_two_leaves_one() -> None:
    state, _ = given(rigged([[S, S], [A]], turns_owed=2, under_attack=True)).when(PlayCard(card=S), 0)
    assert _turn(state) == (0, 1, True)


def test_1_4_skip__two_skips_clear_both_owed_turns() -> None:
    state = rigged([[S, S], [A]], turns_owed=2, under_attack=True)
    state, _ = given(state).when(PlayCard(card=S), 0)
    state, _ = given(state).when(PlayCard(card=S), 0)
    assert _turn(state) == (1, 1, False)


def test_1_4_owed__drawing_while_owing_two_leaves_one() -> None:
    state, _ = given(rigged([[S], [A]], turns_owed=2, under_attack=True)).when(DrawCard(), 0)
    assert _turn(state) == (0, 1, True)


def test_1_4_noped_turns__noped_attack_changes_nothing_about_turns() -> None:
    state = rigged([[A], [N]], reaction_window=5.0)
    state, _ = given(state).when(PlayCard(card=A), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, events = given(state).when(PassReaction(), 0)
    assert types(events) == ["ReactionPassed", "ReactionsResolved"]
    assert _turn(state) == (0, 1, False)


def test_1_4_noped_turns__noped_skip_still_requires_draw() -> None:
    state = rigged([[S], [N]], reaction_window=5.0)
    state, _ = given(state).when(PlayCard(card=S), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, _ = given(state).when(PassReaction(), 0)
    assert _turn(state) == (0, 1, False)
    state, _ = given(state).when(DrawCard(), 0)
    assert state.active_seat == 1


def test_1_4_defuse_turn__defuse_ends_only_the_turn_it_answered() -> None:
    state = rigged([[D], [A]], pile=(K, TC), turns_owed=2, under_attack=True)
    state, _ = given(state).when(DrawCard(), 0)
    state, _ = given(state).when(Defuse(position=1), 0)
    assert _turn(state) == (0, 1, True)


def test_1_4_eliminated_owed__eliminated_while_owing_turns_next_seat_owes_one() -> None:
    state = rigged([[A], [S], [TC]], pile=(K, K, TC), turns_owed=3, under_attack=True)
    state, events = given(state).when(DrawCard(), 0)
    assert types(events) == ["KittenDrawn", "PlayerExploded", "OwedTurnStarted"]
    assert _turn(state) == (1, 1, False)


def test_1_4_hand_size__empty_hand_plays_on_and_draws() -> None:
    state, _ = given(rigged([[], [A]])).when(DrawCard(), 0)
    assert state.hands[0] == (TC,) and state.active_seat == 1


def test_1_4_hand_size__hand_size_has_no_maximum() -> None:
    state, _ = given(rigged([[TC] * 20, [A]])).when(DrawCard(), 0)
    assert len(state.hands[0]) == 21


def test_1_4_no_recycle__discard_pile_is_never_recycled() -> None:
    state = rigged([[S], [A]], pile=(TC, K), discard=(CM, HP, BC))
    state, _ = given(state).when(PlayCard(card=S), 0)
    state, _ = given(state).when(DrawCard(), 1)
    assert state.draw_pile == (K,)
    assert state.discard == (CM, HP, BC, S)


def test_1_6_combo_no_effect__combo_ignores_card_effects_three_attacks_give_no_turns() -> None:
    state = rigged([[A, A, A], [S]])
    state, events = given(state).when(PlayCombo(cards=(A, A, A), target=1, named=S), 0)
    assert _turn(state) == (0, 1, False)
    assert state.hands[0] == (S,) and state.hands[1] == ()
    assert not any(isinstance(e, OwedTurnStarted) for e in events)
