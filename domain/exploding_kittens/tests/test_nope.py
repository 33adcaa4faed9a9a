"""RULES 1.7: Nope and the reaction window."""

from __future__ import annotations

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
from domain.exploding_kittens.events import ReactionsResolved
from domain.viewers import Seat, Spectator

from .builders import CM, SF, SH, TC, A, F, N, S, given, rigged, types

W = 5.0


def _refused(state: object, seat: int | None, command: object, code: str, now: float = 0.0) -> None:
    given(state).when(command, seat, now=now).then(code)


def _favor_window(hands: list[list[object]] | None = None) -> object:
    state = rigged(hands or [[F, N], [N, A], [N, S]], reaction_window=W)
    state, events = given(state).when(PlayCard(card=F, target=1), 0)
    assert types(events) == ["CardPlayed"]
    return state


def test_1_6_window__played_action_opens_a_window_until_the_deadline() -> None:
    state = _favor_window()
    window = DECIDER.view(state, Spectator()).public.window
    assert window.deadline == W and window.eligible == (1, 2) and window.chain_length == 0
    assert DECIDER.clock.deadline(state) == W
    assert DECIDER.clock.on_deadline(state) == ResolveReactions()


def test_1_7_chain__nope_cancels_the_action() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2, now=1.0)
    state, _ = given(state).when(PassReaction(), 0, now=1.5)
    state, events = given(state).when(PassReaction(), 1, now=2.0)
    assert types(events) == ["ReactionPassed", "ReactionsResolved"]
    assert events[1].noped  # type: ignore[union-attr]
    assert state.pending is None and state.hands[1] == (N, A)


def test_1_7_chain__yup_restores_the_favor() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2, now=1.0)
    state, _ = given(state).when(Nope(chain_length=1), 1, now=2.0)
    state, _ = given(state).when(PassReaction(), 0, now=2.5)
    state, events = given(state).when(PassReaction(), 2, now=3.0)
    assert types(events) == ["ReactionPassed", "ReactionsResolved", "FavorAsked"]
    assert state.pending.seat == 1
    state, _ = given(state).when(GiveCard(card=A), 1)
    assert state.hands[0] == (N, A)


def test_1_7_chain__three_nopes_cancel_the_action() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2)
    state, _ = given(state).when(Nope(chain_length=1), 1)
    state, _ = given(state).when(Nope(chain_length=2), 0)
    state, events = given(state).when(ResolveReactions(), None, now=W)
    assert events[0].noped and state.pending is None  # type: ignore[union-attr]
    assert state.discard == (F, N, N, N)


def test_1_7_noped__noped_cards_stay_in_the_discard_pile() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2)
    state, _ = given(state).when(ResolveReactions(), None, now=W)
    assert state.discard == (F, N)


def test_1_7_who_nopes__nope_is_played_out_of_turn_by_any_living_player() -> None:
    state = _favor_window()
    assert Nope(chain_length=0) in DECIDER.legal_commands(state, 2)
    state, _ = given(state).when(Nope(chain_length=0), 2)
    assert state.window.nopes == (2,)


def test_1_7_who_nopes__nobody_nopes_their_own_card() -> None:
    state = _favor_window()
    _refused(state, 0, Nope(chain_length=0), "cannot_nope_own_card")
    state, _ = given(state).when(Nope(chain_length=0), 2)
    _refused(state, 2, Nope(chain_length=1), "cannot_nope_own_card")


def test_1_7_who_nopes__the_actor_may_nope_a_nope_against_its_action() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2)
    assert Nope(chain_length=1) in DECIDER.legal_commands(state, 0)
    state, _ = given(state).when(Nope(chain_length=1), 0)
    assert state.window.nopes == (2, 0)


def test_1_7_who_nopes__eliminated_players_cannot_nope() -> None:
    state = rigged([[F, N], [N, A], [N, S]], alive=[True, True, False], reaction_window=W)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    _refused(state, 2, Nope(chain_length=0), "player_eliminated")
    assert DECIDER.legal_commands(state, 2) == []


def test_1_7_no_window__nope_when_no_window_is_open_is_refused() -> None:
    _refused(rigged([[N], [N]]), 1, Nope(chain_length=0), "window_closed")


def test_1_7_no_window__nope_after_the_deadline_is_refused_even_before_the_resolution_is_written() -> None:
    state = _favor_window()
    _refused(state, 2, Nope(chain_length=0), "window_closed", now=W)
    _refused(state, 2, PassReaction(), "window_closed", now=W + 1)


def test_1_7_stale__stale_nope_is_refused_and_the_card_is_not_spent() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2)
    _refused(state, 1, Nope(chain_length=0), "stale_nope")
    assert N in state.hands[1]


def test_1_7_who_nopes__nope_without_a_nope_card_is_refused() -> None:
    state = _favor_window([[F], [A], [S]])
    _refused(state, 1, Nope(chain_length=0), "card_not_in_hand")


def test_1_7_close__window_closes_when_all_other_living_seats_passed() -> None:
    state = _favor_window()
    state, events = given(state).when(PassReaction(), 1)
    assert types(events) == ["ReactionPassed"] and state.window is not None
    _refused(state, 1, PassReaction(), "already_passed")
    _refused(state, 0, PassReaction(), "not_eligible")
    state, events = given(state).when(PassReaction(), 2)
    closed = events[1]
    assert isinstance(closed, ReactionsResolved) and closed.closed_by == "passes"


def test_1_7_security__window_does_not_close_early_when_nobody_holds_nope() -> None:
    state = _favor_window([[F], [A], [S]])
    assert state.window is not None
    state, _ = given(state).when(PassReaction(), 1)
    assert state.window is not None
    public = DECIDER.view(state, Seat(2)).public.window
    assert public.eligible == (1, 2)


def test_1_7_public_window__eligible_seats_are_all_living_seats_but_the_top_card_player() -> None:
    state = _favor_window()
    state, _ = given(state).when(Nope(chain_length=0), 2)
    assert DECIDER.view(state, Spectator()).public.window.eligible == (0, 1)


def test_1_7_close__each_nope_restarts_the_window_and_the_passes() -> None:
    state = _favor_window()
    state, _ = given(state).when(PassReaction(), 1, now=1.0)
    state, _ = given(state).when(Nope(chain_length=0), 2, now=4.0)
    assert state.window.deadline == 4.0 + W and state.window.passed == ()
    _refused(state, None, ResolveReactions(), "deadline_not_reached", now=W + 1)
    state, _ = given(state).when(PassReaction(), 1, now=5.0)
    assert state.window is not None  # seat 0 has not passed since the Nope


def test_1_7_close__a_seat_that_passed_may_still_nope() -> None:
    state = _favor_window()
    state, _ = given(state).when(PassReaction(), 1)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    assert state.window.nopes == (1,)


def test_1_7_public_window__passes_are_not_broadcast() -> None:
    state = _favor_window()
    _, events = given(state).when(PassReaction(), 1)
    assert DECIDER.redact(events[0], Seat(1)) == events[0]
    assert DECIDER.redact(events[0], Seat(0)) is None
    assert DECIDER.redact(events[0], Spectator()) is None


def test_resolve_reactions_before_the_deadline_is_refused() -> None:
    state = _favor_window()
    _refused(state, None, ResolveReactions(), "deadline_not_reached", now=W - 0.01)
    _refused(rigged([[A], [S]]), None, ResolveReactions(), "window_closed")


def test_1_7_on_time__window_closes_on_time_without_any_client() -> None:
    state = _favor_window()
    state, events = given(state).when(ResolveReactions(), None, now=W)
    assert types(events) == ["ReactionsResolved", "FavorAsked"]
    assert events[0].closed_by == "deadline"  # type: ignore[union-attr]


def test_1_7_on_time__an_expired_window_is_closed_before_the_next_command() -> None:
    state = rigged([[SF, A], [S]], pile=(TC, CM, A), reaction_window=W)
    state, _ = given(state).when(PlayCard(card=SF), 0)
    _refused(state, 0, DrawCard(), "window_open", now=1.0)
    state, events = given(state).when(DrawCard(), 0, now=W)
    assert types(events) == ["ReactionsResolved", "FutureSeen", "CardDrawn", "OwedTurnStarted"]


def test_1_4_who_plays__only_nope_and_pass_while_a_window_is_open() -> None:
    state = _favor_window()
    _refused(state, 0, PlayCard(card=N), "window_open")
    _refused(state, 0, DrawCard(), "window_open")
    assert DECIDER.legal_commands(state, 0) == [Concede()]
    assert DECIDER.legal_commands(state, 1) == [Nope(chain_length=0), PassReaction(), Concede()]


def test_1_7_close__reaction_window_zero_resolves_at_once() -> None:
    state = rigged([[SH, TC, TC], [N, CM]])
    state, events = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0)
    assert types(events) == ["ComboPlayed", "ReactionsResolved", "CardStolen"]
    assert events[1].closed_by == "at_once"  # type: ignore[union-attr]
    assert state.window is None


def test_1_7_noped__noped_see_the_future_shows_nothing() -> None:
    state = rigged([[SF], [N]], reaction_window=W)
    state, _ = given(state).when(PlayCard(card=SF), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, events = given(state).when(ResolveReactions(), None, now=W)
    assert types(events) == ["ReactionsResolved"]
    assert state.seen_future[0] == ()


def test_1_7_noped__noped_shuffle_does_not_shuffle() -> None:
    pile = (TC, CM, A, S, F)
    state = rigged([[SH], [N]], pile=pile, reaction_window=W)
    state, _ = given(state).when(PlayCard(card=SH), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, _ = given(state).when(PassReaction(), 0)
    assert state.draw_pile == pile


def test_1_7_noped__noped_pair_takes_nothing() -> None:
    state = rigged([[TC, TC], [N, A]], reaction_window=W)
    state, _ = given(state).when(PlayCombo(cards=(TC, TC), target=1), 0)
    state, _ = given(state).when(Nope(chain_length=0), 1)
    state, _ = given(state).when(PassReaction(), 0)
    assert state.hands == ((), (A,))
