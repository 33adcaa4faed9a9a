"""RULES 1.9: views and redaction."""

from __future__ import annotations

from typing import get_args

import msgspec

from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import DrawCard
from domain.exploding_kittens.events import CardDrawn, DeckDealt
from domain.exploding_kittens.state import ExplodingKittensPending
from domain.exploding_kittens.views import (
    DecisionKind,
    ExplodingKittensModeratorView,
    ExplodingKittensSeatView,
    ExplodingKittensSpectatorView,
)
from domain.viewers import Moderator, Seat, Spectator

from .builders import CM, HP, TC, A, K, S, given, rigged


def _dealt() -> tuple[object, DeckDealt]:
    opts = DECIDER.parse_options({"players": 3, "first_seat": 0})
    state, (event,) = given(DECIDER.initial_state(opts)).when_started(seed=5)
    assert isinstance(event, DeckDealt)
    return state, event


def test_1_9_one_seat__setup_event_shows_a_seat_only_its_own_hand_and_the_pile_size() -> None:
    _, event = _dealt()
    mine = DECIDER.redact(event, Seat(1))
    assert mine.hands[1] == event.hands[1] and mine.hands[0] == () and mine.hands[2] == ()
    assert mine.draw_pile == () and mine.salt is None and mine.draw_pile_size == len(event.draw_pile)
    assert mine.commitment == event.commitment and mine.hand_sizes == (8, 8, 8)
    public = DECIDER.redact(event, Spectator())
    assert public.hands == ((), (), ()) and public.draw_pile == ()
    assert DECIDER.redact(event, Moderator()) == event


def test_1_9_one_seat__drawn_card_is_seen_by_the_drawer_only() -> None:
    _, events = given(rigged([[A], [S]], pile=(TC, K))).when(DrawCard(), 0)
    drawn = events[0]
    assert isinstance(drawn, CardDrawn)
    assert DECIDER.redact(drawn, Seat(0)).card == TC
    assert DECIDER.redact(drawn, Seat(1)).card is None
    assert DECIDER.redact(drawn, Spectator()).card is None


def test_1_9_public__seat_view_holds_its_hand_and_the_public_state() -> None:
    state = rigged([[A, TC], [S], [CM, HP, HP]], pile=(TC, K, K), active=2, discard=(S,))
    seat_view = DECIDER.view(state, Seat(0))
    assert isinstance(seat_view, ExplodingKittensSeatView)
    assert seat_view.hand == (A, TC)
    public = seat_view.public
    assert public.hand_sizes == (2, 1, 3) and public.draw_pile_size == 3
    assert public.active_seat == 2 and public.turns_owed == 1 and public.discard == (S,)
    assert seat_view.legal_commands and all(type(c).__name__ == "Concede" for c in seat_view.legal_commands)
    encoded = msgspec.json.decode(msgspec.json.encode(seat_view))
    assert "draw_pile" not in encoded["public"] and "hands" not in encoded


def test_1_9_public__spectator_view_has_no_hands_and_no_pile_order() -> None:
    state = rigged([[A, TC], [S]], pile=(TC, K))
    spectator = DECIDER.view(state, Spectator())
    assert isinstance(spectator, ExplodingKittensSpectatorView)
    text = msgspec.json.encode(spectator).decode()
    assert "Tacocat" not in text and "Attack" not in text


def test_1_9_moderators__moderator_view_has_everything() -> None:
    state = rigged([[A, TC], [S]], pile=(TC, K))
    moderator = DECIDER.view(state, Moderator())
    assert isinstance(moderator, ExplodingKittensModeratorView)
    assert moderator.hands == ((A, TC), (S,)) and moderator.draw_pile == (TC, K)


def test_views_and_events_are_msgspec_encodable() -> None:
    state, event = _dealt()
    for viewer in (Seat(0), Spectator(), Moderator()):
        msgspec.json.encode(DECIDER.view(state, viewer))
        msgspec.json.encode(DECIDER.redact(event, viewer))
    decoded = msgspec.json.Decoder(DECIDER.types.event).decode(msgspec.json.encode(event))
    assert decoded == event
    msgspec.json.Decoder(DECIDER.types.view).decode(msgspec.json.encode(DECIDER.view(state, Seat(0))))


def test_a_pending_decision_s_kind_in_the_views_is_its_tag_in_the_state() -> None:
    tags = {pending.__struct_config__.tag for pending in get_args(ExplodingKittensPending)}
    assert tags == set(get_args(DecisionKind))
