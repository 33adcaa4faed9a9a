"""``evolve`` only applies facts: every choice a rule makes is made in ``decide`` and written in
the event; an event stored before a choice was recorded still folds exactly as it did."""

from __future__ import annotations

from msgspec.structs import replace

from domain.decider import Concede
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import DrawCard
from domain.exploding_kittens.events import KittenDrawn, PlayerConceded
from domain.exploding_kittens.state import PendingDefuse
from domain.viewers import MODERATOR, Seat, Spectator

from .builders import CM, HP, TC, A, D, K, S, given, rigged


def test_given_a_defuse_in_hand_when_a_kitten_is_drawn_then_the_event_says_a_placement_is_pending() -> None:
    state = rigged([[D], [S]], pile=(K, HP))
    _, events = given(state).when(DrawCard(), 0)
    assert isinstance(events[0], KittenDrawn) and events[0].defusable is True


def test_given_no_defuse_when_a_kitten_is_drawn_then_the_event_says_nothing_is_pending() -> None:
    state = rigged([[A], [S], [CM]], pile=(K, HP))
    _, events = given(state).when(DrawCard(), 0)
    assert isinstance(events[0], KittenDrawn) and events[0].defusable is False


def test_evolve_follows_the_recorded_fact_not_the_hand() -> None:
    # The fact decides: a fold never re-derives what decide already settled.
    state = rigged([[D], [S]], pile=(K, HP))
    assert given(state, KittenDrawn(seat=0, defusable=False)).state.pending is None


def test_an_old_kitten_drawn_without_the_fact_folds_as_it_did() -> None:
    state = rigged([[D], [S]], pile=(K, HP))
    _, events = given(state).when(DrawCard(), 0)
    new = given(state, events[0]).state
    old = given(state, replace(events[0], defusable=None)).state
    assert new == old and isinstance(old.pending, PendingDefuse)


def test_1_8_leave_kitten__when_a_seat_leaves_the_event_names_the_bottom_most_kitten() -> None:
    state = rigged([[A], [S, TC], [CM]], pile=(K, HP, K, CM))
    after, events = given(state).when(Concede(), 1)
    assert isinstance(events[0], PlayerConceded)
    assert (events[0].kitten_left, events[0].kitten_position) == ("pile", 2)
    assert after.draw_pile == (K, HP, CM)


def test_given_a_drawn_kitten_when_its_drawer_leaves_then_the_event_names_that_kitten() -> None:
    state = rigged([[D], [S], [CM]], pile=(K, HP, K))
    state, _ = given(state).when(DrawCard(), 0)
    _, events = given(state).when(Concede(), 0)
    assert isinstance(events[0], PlayerConceded)
    assert (events[0].kitten_left, events[0].kitten_position) == ("drawn", None)


def test_evolve_removes_the_recorded_kitten() -> None:
    state = rigged([[A], [S, TC], [CM]], pile=(K, HP, K, CM))
    event = PlayerConceded(seat=1, discarded=(S, TC), kitten_left="pile", kitten_position=0)
    assert given(state, event).state.draw_pile == (HP, K, CM)


def test_an_old_player_conceded_without_the_fact_folds_as_it_did() -> None:
    state = rigged([[A], [S, TC], [CM]], pile=(K, HP, K, CM))
    _, events = given(state).when(Concede(), 1)
    old = replace(events[0], kitten_left=None, kitten_position=None)
    assert given(state, old).state == given(state, events[0]).state


def test_1_8_leave_kitten__only_a_moderator_sees_where_the_leaving_kitten_was() -> None:
    state = rigged([[A], [S, TC], [CM]], pile=(K, HP, K, CM))
    _, events = given(state).when(Concede(), 1)
    for viewer in (Spectator(), Seat(0), Seat(1)):
        shown = DECIDER.redact(events[0], viewer)
        assert isinstance(shown, PlayerConceded) and shown.kitten_position is None
        assert shown.kitten_left == "pile"
    assert DECIDER.redact(events[0], MODERATOR) == events[0]
