"""RULES 1.6: actions and combos."""

from __future__ import annotations

from domain.commitment import verify
from domain.decider import ActOnTimeout
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import (
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import (
    CardStolen,
    CardTakenFromDiscard,
    DeckShuffled,
    FavorGiven,
    FutureSeen,
    NamedCardRequested,
)
from domain.exploding_kittens.state import PendingFavor
from domain.viewers import Seat, Spectator

from .builders import BC, CM, HP, RR, SF, SH, TC, A, D, F, K, N, S, given, rigged, types


def _refused(state: object, seat: int | None, command: object, code: str, now: float = 0.0) -> None:
    given(state).when(command, seat, now=now).then(code)


# ---- Favor


def test_1_6_favor__favor_target_chooses_the_card() -> None:
    state = rigged([[F], [A, S, TC], [CM]])
    state, events = given(state).when(PlayCard(card=F, target=1), 0)
    assert types(events) == ["CardPlayed", "ReactionsResolved", "FavorAsked"]
    assert state.pending == PendingFavor(seat=1, receiver=0, deadline=None)
    assert DECIDER.legal_commands(state, 1)[:3] == [GiveCard(card=A), GiveCard(card=S), GiveCard(card=TC)]
    _refused(state, 0, GiveCard(card=A), "not_your_decision")
    _refused(state, 1, GiveCard(card=CM), "card_not_in_hand")
    state, events = given(state).when(GiveCard(card=S), 1)
    assert state.hands[0] == (S,) and state.hands[1] == (A, TC)
    assert state.pending is None and state.active_seat == 0


def test_1_9_public__favor_card_is_visible_to_giver_and_receiver_only() -> None:
    state, _ = given(rigged([[F], [A, S], [CM]])).when(PlayCard(card=F, target=1), 0)
    _, events = given(state).when(GiveCard(card=S), 1)
    event = events[0]
    assert isinstance(event, FavorGiven)
    assert DECIDER.redact(event, Seat(0)).card == S
    assert DECIDER.redact(event, Seat(1)).card == S
    assert DECIDER.redact(event, Seat(2)).card is None
    assert DECIDER.redact(event, Spectator()).card is None


def test_3_timeout_ek__favor_timeout_gives_a_random_card() -> None:
    state, _ = given(rigged([[F], [A, S, TC], [CM]], decision_timeout=5.0)).when(
        PlayCard(card=F, target=1), 0
    )
    assert DECIDER.clock.deadline(state) == 5.0
    cards = set()
    for seed in range(30):
        _, events = given(state).when(ActOnTimeout(), None, now=5.0, seed=seed)
        event = events[0]
        assert isinstance(event, FavorGiven) and event.by_server
        cards.add(event.card)
    assert cards == {A, S, TC}


# ---- pairs, triples, five different


def test_1_6_pair__pair_steals_a_random_card_with_the_server_rng() -> None:
    state = rigged([[TC, TC], [A, S, CM], [HP]])
    taken = set()
    for seed in range(30):
        after, events = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0, seed=seed)
        stolen = events[-1]
        assert isinstance(stolen, CardStolen) and stolen.thief == 0 and stolen.victim == 1
        assert stolen.card is not None
        assert after.hands[0] == (stolen.card,) and len(after.hands[1]) == 2
        taken.add(stolen.card)
    assert taken == {A, S, CM}


def test_1_9_two_seats__pair_stolen_card_is_visible_to_thief_and_victim_only() -> None:
    _, events = given(rigged([[TC, TC], [A], [HP]])).when(PlayCombo(cards=(TC, TC), target=1), 0)
    stolen = events[-1]
    assert DECIDER.redact(stolen, Seat(0)).card == A and DECIDER.redact(stolen, Seat(1)).card == A
    assert DECIDER.redact(stolen, Seat(2)).card is None and DECIDER.redact(stolen, Spectator()).card is None


def test_1_6_combo_shapes__pair_of_different_cats_is_refused() -> None:
    _refused(rigged([[TC, CM], [A]]), 0, PlayCombo(cards=(TC, CM), target=1), "invalid_combo")


def test_1_6_combo_shapes__four_of_a_kind_is_refused() -> None:
    _refused(rigged([[TC] * 4, [A]]), 0, PlayCombo(cards=(TC,) * 4, target=1), "invalid_combo")


def test_1_6_lone_cat__single_cat_is_refused() -> None:
    _refused(rigged([[TC], [A]]), 0, PlayCard(card=TC), "single_cat")
    _refused(rigged([[TC], [A]]), 0, PlayCombo(cards=(TC,), target=1), "single_cat")


def test_pair_needs_both_cards_in_hand() -> None:
    _refused(rigged([[TC], [A]]), 0, PlayCombo(cards=(TC, TC), target=1), "card_not_in_hand")


def test_1_6_any_title__special_combos_allow_a_pair_of_any_title() -> None:
    state, _ = given(rigged([[D, D], [A]])).when(PlayCombo(cards=(D, D), target=1), 0)
    assert state.hands[0] == (A,) and state.discard == (D, D)


def test_1_2_special_combos__without_special_combos_only_cat_pairs_are_allowed() -> None:
    state = rigged([[D, D, TC, TC, TC], [A]], special_combos=False)
    _refused(state, 0, PlayCombo(cards=(D, D), target=1), "invalid_combo")
    _refused(state, 0, PlayCombo(cards=(TC, TC, TC), target=1, named=A), "invalid_combo")
    after, _ = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0)
    assert A in after.hands[0]


def test_1_6_triple__triple_takes_the_named_card_when_held() -> None:
    state = rigged([[CM, CM, CM], [A, S], [HP]])
    state, events = given(state).when(PlayCombo(cards=(CM, CM, CM), target=1, named=S), 0)
    event = events[-1]
    assert isinstance(event, NamedCardRequested) and event.given
    assert DECIDER.redact(event, Spectator()) == event  # the title and whether it moved are public
    assert state.hands[0] == (S,) and state.hands[1] == (A,)


def test_1_6_triple__triple_named_card_not_held_takes_nothing_and_spends_the_three() -> None:
    state = rigged([[CM, CM, CM], [A, S], [HP]])
    state, events = given(state).when(PlayCombo(cards=(CM, CM, CM), target=1, named=D), 0)
    event = events[-1]
    assert isinstance(event, NamedCardRequested) and not event.given
    assert state.hands[0] == () and state.hands[1] == (A, S) and state.discard == (CM, CM, CM)


def test_1_6_triple__triple_must_name_a_title_but_not_the_kitten() -> None:
    state = rigged([[CM, CM, CM], [A]])
    _refused(state, 0, PlayCombo(cards=(CM, CM, CM), target=1), "named_card_required")
    _refused(state, 0, PlayCombo(cards=(CM, CM, CM), target=1, named=K), "invalid_named_card")
    _refused(rigged([[CM, CM], [A]]), 0, PlayCombo(cards=(CM, CM), target=1, named=A), "invalid_named_card")


FIVE = (TC, CM, HP, BC, RR)


def test_1_5_dead_defuse__five_different_classic_takes_a_card_from_the_discard_pile() -> None:
    state = rigged([[*FIVE, A], [S]], discard=(D, SF), edition="classic")
    state, events = given(state).when(PlayCombo(cards=FIVE), 0)
    assert types(events) == ["ComboPlayed", "ReactionsResolved", "DiscardPickAsked"]
    offered = DECIDER.legal_commands(state, 0)
    assert TakeFromDiscard(card=D) in offered and TakeFromDiscard(card=TC) in offered
    state, events = given(state).when(TakeFromDiscard(card=D), 0)
    assert isinstance(events[0], CardTakenFromDiscard)
    assert DECIDER.redact(events[0], Spectator()) == events[0]
    assert state.hands[0] == (A, D) and state.discard == (SF, *FIVE)


def test_1_6_five__five_different_may_take_one_of_the_five() -> None:
    state = rigged([[*FIVE], [S]], edition="classic")
    state, _ = given(state).when(PlayCombo(cards=FIVE), 0)
    state, _ = given(state).when(TakeFromDiscard(card=HP), 0)
    assert state.hands[0] == (HP,)


def test_1_6_five__five_different_never_takes_a_kitten() -> None:
    state = rigged([[*FIVE], [S]], discard=(K,), edition="classic")
    state, _ = given(state).when(PlayCombo(cards=FIVE), 0)
    _refused(state, 0, TakeFromDiscard(card=K), "card_not_in_discard")
    _refused(state, 0, TakeFromDiscard(card=A), "card_not_in_discard")


def test_1_2_five_different__five_different_is_refused_in_2022_and_without_special_combos() -> None:
    _refused(rigged([[*FIVE], [S]]), 0, PlayCombo(cards=FIVE), "invalid_combo")
    state = rigged([[*FIVE], [S]], edition="classic", special_combos=False)
    _refused(state, 0, PlayCombo(cards=FIVE), "invalid_combo")
    state = rigged([[*FIVE], [S]], edition="classic")
    _refused(state, 0, PlayCombo(cards=FIVE, target=1), "invalid_target")


def test_five_different_timeout_takes_a_random_card() -> None:
    state = rigged([[*FIVE], [S]], edition="classic", decision_timeout=2.0)
    state, _ = given(state).when(PlayCombo(cards=FIVE), 0)
    _, events = given(state).when(ActOnTimeout(), None, now=2.0)
    assert isinstance(events[0], CardTakenFromDiscard) and events[0].by_server


def test_3_timeout_ek__five_different_timeout_takes_a_uniformly_random_eligible_discard() -> None:
    """RULES 3: any eligible card of the discard pile may be taken (the five, the older discards,
    never a Kitten), chosen by the server's RNG, not a fixed title such as See the Future."""
    state = rigged([[*FIVE], [S]], discard=(K, D, SF, A), edition="classic", decision_timeout=2.0)
    state, _ = given(state).when(PlayCombo(cards=FIVE), 0)
    eligible = [c for c in state.discard if c is not K]
    taken = set()
    for seed in range(300):
        after, events = given(state).when(ActOnTimeout(), None, now=2.0, seed=seed)
        event = events[0]
        assert isinstance(event, CardTakenFromDiscard) and event.by_server
        assert event.card in eligible and after.hands[0] == (event.card,)
        taken.add(event.card)
    assert taken == set(eligible)


# ---- targets


def test_1_6_no_cards_target__action_on_a_target_with_no_cards_is_refused() -> None:
    state = rigged([[F, TC, TC], [], [A]])
    _refused(state, 0, PlayCard(card=F, target=1), "target_has_no_cards")
    _refused(state, 0, PlayCombo(cards=(TC, TC), target=1), "target_has_no_cards")


def test_1_6_favor__action_on_an_eliminated_target_is_refused() -> None:
    state = rigged([[F], [A], [A]], alive=[True, False, True])
    _refused(state, 0, PlayCard(card=F, target=1), "target_not_alive")


def test_1_6_emptied_target__target_hand_emptied_during_the_window_resolves_with_no_effect() -> None:
    state = rigged([[F, N], [N], [A]], reaction_window=5.0)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, _ = given(state).when(Nope(chain_length=1), 0)
    state, _ = given(state).when(PassReaction(), 1)
    state, events = given(state).when(PassReaction(), 2)
    assert types(events) == ["ReactionPassed", "ReactionsResolved", "ActionHadNoEffect"]
    assert state.pending is None


def test_1_6_emptied_target__pair_target_hand_emptied_during_the_window_resolves_with_no_effect() -> None:
    state = rigged([[TC, TC, N], [N], [A]], reaction_window=5.0)
    state, _ = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)  # its last card: the hand is now empty
    state, _ = given(state).when(Nope(chain_length=1), 0)
    state, _ = given(state).when(PassReaction(), 1)
    state, events = given(state).when(PassReaction(), 2)
    assert types(events) == ["ReactionPassed", "ReactionsResolved", "ActionHadNoEffect"]
    assert state.hands[0] == () and state.hands[1] == ()


# ---- Shuffle and See the Future


def test_1_9_no_positions__shuffle_shuffles_commits_and_does_not_end_the_turn() -> None:
    pile = (TC, CM, HP, BC, RR, K, A, S)
    state = rigged([[SH], [A]], pile=pile)
    state, events = given(state).when(PlayCard(card=SH), 0, seed=3)
    shuffled = events[-1]
    assert isinstance(shuffled, DeckShuffled) and shuffled.salt is not None
    assert sorted(state.draw_pile) == sorted(pile) and state.draw_pile != pile
    assert verify(state.draw_pile, shuffled.salt, shuffled.commitment)
    assert state.commitment == shuffled.commitment
    assert state.active_seat == 0 and state.turns_owed == 1
    public = DECIDER.redact(shuffled, Seat(0))
    assert public.order == () and public.salt is None


def test_1_9_public__see_the_future_shows_the_top_three_to_the_seer_only() -> None:
    state = rigged([[SF], [A]], pile=(TC, CM, K, HP))
    state, events = given(state).when(PlayCard(card=SF), 0)
    seen = events[-1]
    assert isinstance(seen, FutureSeen) and seen.cards == (TC, CM, K)
    assert state.draw_pile == (TC, CM, K, HP)
    assert DECIDER.redact(seen, Seat(1)).cards == () and DECIDER.redact(seen, Spectator()).cards == ()
    assert DECIDER.view(state, Seat(0)).seen_future == (TC, CM, K)
    assert DECIDER.view(state, Seat(1)).seen_future == ()


def test_see_the_future_shows_fewer_when_deck_small() -> None:
    _state, events = given(rigged([[SF], [A]], pile=(K, TC))).when(PlayCard(card=SF), 0)
    assert events[-1].cards == (K, TC)  # type: ignore[union-attr]


def test_action_cards_other_than_favor_take_no_target() -> None:
    _refused(rigged([[SF], [A]]), 0, PlayCard(card=SF, target=1), "invalid_target")
    _refused(rigged([[F], [A]]), 0, PlayCard(card=F), "target_required")
    _refused(rigged([[F], [A]]), 0, PlayCard(card=F, target=0), "invalid_target")
    _refused(rigged([[F], [A]]), 0, PlayCard(card=F, target=7), "invalid_target")
