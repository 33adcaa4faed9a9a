"""RULES section 3 and the refusal codes: every refused command raises RuleViolation, changes nothing."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.decider import ActOnTimeout, Concede
from domain.errors import RuleViolation
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import (
    Defuse,
    DrawCard,
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import CardDrawn, KittenDrawn, OwedTurnStarted
from domain.rereading import rereading

from .builders import CM, TC, A, D, F, K, N, S, ctx, given, rigged

# Commands built by hand, as a client's body would be read (domain/rereading.py).
HAND_BUILT = rereading(DECIDER)


def test_1_4_who_plays__command_from_a_seat_that_is_not_the_active_one_is_refused() -> None:
    state = rigged([[A], [S]])
    given(state).when(DrawCard(), 1).then("not_your_turn")
    given(state).when(PlayCard(card=S), 1).then("not_your_turn")


@pytest.mark.parametrize("seat", [None, -1, 2, 99])
def test_seat_only_commands_need_a_seat_of_the_game(seat: int | None) -> None:
    state = rigged([[A], [S]])
    for command in (DrawCard(), Concede(), Nope(chain_length=0), PassReaction(), Defuse(position=0)):
        given(state).when(command, seat).then("not_a_player")


def test_eliminated_seats_are_refused() -> None:
    state = rigged([[A], [S], [TC]], alive=[True, False, True])
    given(state).when(Concede(), 1).then("player_eliminated")
    given(state).when(DrawCard(), 1).then("player_eliminated")


def test_card_not_in_hand() -> None:
    given(rigged([[A], [S]])).when(PlayCard(card=S), 0).then("card_not_in_hand")


@pytest.mark.parametrize("card", [D, N, K])
def test_defuse_nope_and_kitten_are_not_played_as_actions(card: Any) -> None:
    given(rigged([[D, N], [S]])).when(PlayCard(card=card), 0).then("not_playable")


def test_no_pending_decision() -> None:
    state = rigged([[A], [S]])
    given(state).when(Defuse(position=0), 0).then("no_pending_decision")
    given(state).when(GiveCard(card=S), 1).then("no_pending_decision")
    given(state).when(TakeFromDiscard(card=A), 0).then("no_pending_decision")


def test_1_4_who_plays__decision_pending_blocks_the_turn() -> None:
    state, _ = given(rigged([[F, A], [S]])).when(PlayCard(card=F, target=1), 0)
    given(state).when(DrawCard(), 0).then("decision_pending")
    given(state).when(PlayCard(card=A), 0).then("decision_pending")


def test_1_6_combo_shapes__wrong_combo_shapes_are_refused() -> None:
    state = rigged([[TC, TC, CM, A, S], [S]])
    given(state).when(PlayCombo(cards=(), target=1), 0).then("invalid_combo")
    given(state).when(PlayCombo(cards=(A,), target=1), 0).then("invalid_combo")
    given(state).when(PlayCombo(cards=(TC, TC, CM), target=1), 0).then("invalid_combo")
    given(state).when(PlayCombo(cards=(TC, TC)), 0).then("target_required")


GARBAGE: list[Any] = [
    None,
    42,
    "DrawCard",
    {"type": "DrawCard"},
    PlayCard(card="Not a card"),  # type: ignore[arg-type]
    PlayCard(card=A, target="1"),  # type: ignore[arg-type]
    PlayCard(card=A, target=True),  # type: ignore[arg-type]
    PlayCombo(cards=(TC, object()), target=1),  # type: ignore[arg-type]
    PlayCombo(cards=None, target=1),  # type: ignore[arg-type]
    Nope(chain_length=1.5),  # type: ignore[arg-type]
    Nope(chain_length=None),  # type: ignore[arg-type]
    Defuse(position="top"),  # type: ignore[arg-type]
    Defuse(position=10**40),
    GiveCard(card=3),  # type: ignore[arg-type]
    TakeFromDiscard(card=[]),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("command", GARBAGE)
def test_garbage_commands_raise_only_rule_violations(command: Any) -> None:
    for state in (rigged([[A, TC, TC], [S]]), DECIDER.initial_state(DECIDER.parse_options({"players": 2}))):
        for seat in (None, 0, 1, 5):
            with pytest.raises(RuleViolation):
                HAND_BUILT.decide(state, command, ctx(seat))


def test_play_combo_cards_given_as_a_list_are_accepted_after_validation() -> None:
    # msgspec validation normalises the fields; the decoded JSON form is what the API sends.
    command = msgspec.json.Decoder(DECIDER.types.command).decode(
        b'{"type":"PlayCombo","cards":["Tacocat","Tacocat"],"target":1}'
    )
    state, _ = given(rigged([[TC, TC], [S]])).when(command, 0)
    assert state.hands[0] == (S,)


# ---- decision timeout (RULES 3)


def test_3_timeout_option__idle_active_seat_draws_on_timeout_by_the_server() -> None:
    state = rigged([[A], [S]], pile=(TC, K), decision_timeout=30.0)
    state, _ = given(state).when(PlayCard(card=A), 0, now=0.0)  # window 0: resolves, seat 1 owes 2
    assert DECIDER.clock.deadline(state) == 30.0
    assert DECIDER.clock.on_deadline(state) == ActOnTimeout()
    state, events = given(state).when(ActOnTimeout(), None, now=31.0)
    assert isinstance(events[0], CardDrawn) and events[0].by_server
    assert isinstance(events[1], OwedTurnStarted) and events[1].deadline == 61.0
    assert (state.active_seat, state.turns_owed) == (1, 1)


def test_timeout_draw_of_a_kitten_asks_for_a_placement() -> None:
    state = rigged([[D], [S]], pile=(K, TC), decision_timeout=30.0, turns_owed=1)
    state = msgspec.structs.replace(state, turn_deadline=30.0)
    state, events = given(state).when(ActOnTimeout(), None, now=30.0)
    assert isinstance(events[0], KittenDrawn) and events[0].by_server and events[0].deadline == 60.0
    assert DECIDER.clock.deadline(state) == 60.0


def test_act_on_timeout_is_refused_before_the_deadline_or_without_timeouts() -> None:
    state = msgspec.structs.replace(rigged([[A], [S]], decision_timeout=30.0), turn_deadline=30.0)
    given(state).when(ActOnTimeout(), None, now=29.9).then("deadline_not_reached")
    given(rigged([[A], [S]])).when(ActOnTimeout(), None, now=1e9).then("no_deadline")
    assert DECIDER.clock.deadline(rigged([[A], [S]])) is None


def test_act_on_timeout_during_a_window_is_refused() -> None:
    state = rigged([[F], [S]], decision_timeout=30.0, reaction_window=5.0)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0)
    given(state).when(ActOnTimeout(), None, now=1.0).then("window_open")


def test_the_turn_clock_restarts_when_the_seat_is_free_again() -> None:
    state = rigged([[F, A], [S, CM]], decision_timeout=30.0)
    state, _ = given(state).when(PlayCard(card=F, target=1), 0, now=10.0)
    assert DECIDER.clock.deadline(state) == 40.0  # the giver's decision
    state, _ = given(state).when(GiveCard(card=CM), 1, now=12.0)
    assert DECIDER.clock.deadline(state) == 42.0  # the active seat's turn again


def test_unknown_and_malformed_commands_have_their_own_codes() -> None:
    state = rigged([[A], [S]])
    given(state).when("DrawCard", 0).then("unknown_command")
    given(state).when(DrawCard.__mro__[1](), 0).then("unknown_command")  # the bare Command base
    given(state).when(PlayCard(card="Joker"), 0).then("invalid_command")  # type: ignore[arg-type]
    given(state).when(Nope(chain_length="0"), 0).then("invalid_command")  # type: ignore[arg-type]


def test_3_timeout_option__decision_timeout_is_off_by_default() -> None:
    state, _ = given(rigged([[D], [S]], pile=(K, TC))).when(DrawCard(), 0)
    assert state.pending is not None and DECIDER.clock.deadline(state) is None


def test_a_late_answer_is_accepted_until_the_server_acts() -> None:
    state, _ = given(rigged([[D], [S]], pile=(K, TC), decision_timeout=5.0)).when(DrawCard(), 0)
    state, events = given(state).when(Defuse(position=1), 0, now=9.0)
    assert not events[0].by_server  # type: ignore[union-attr]
    assert state.draw_pile == (TC, K)


def test_view_of_a_seat_outside_the_game_is_refused_as_in_every_game() -> None:
    from domain.viewers import Seat

    for seat in (-1, 2, 9):
        with pytest.raises(RuleViolation) as err:
            DECIDER.view(rigged([[A], [S]]), Seat(seat))
        assert err.value.code == "not_a_player"


def test_a_seat_cannot_send_the_servers_deadline_commands_as_in_every_game() -> None:
    from domain.exploding_kittens.commands import ResolveReactions

    state = rigged([[F], [A], [S]], reaction_window=5.0, decision_timeout=10.0)
    for command in (ResolveReactions(), ActOnTimeout()):
        given(state).when(command, 0, now=1e9).then("server_only")
