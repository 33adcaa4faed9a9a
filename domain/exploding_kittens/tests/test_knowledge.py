"""RULES 1.9: a seat's view shows its knowledge of the pile as it stands now, never a stale one."""

from __future__ import annotations

from domain.decider import Concede
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import Defuse, DrawCard, PlayCard
from domain.viewers import Seat

from .builders import BC, CM, HP, RR, SF, SH, TC, A, D, K, given, rigged


def _known(state: object, seat: int) -> tuple[object, object]:
    view = DECIDER.view(state, Seat(seat))  # type: ignore[arg-type]
    return view.seen_future, view.placed_kitten  # type: ignore[union-attr]


def test_1_9_knowledge_now__each_draw_moves_every_known_card_one_place_up() -> None:
    state = rigged([[SF, A], [A]], pile=(TC, CM, HP, RR, BC))
    state, _ = given(state).when(PlayCard(card=SF), 0)
    assert _known(state, 0) == ((TC, CM, HP), None)
    state, _ = given(state).when(DrawCard(), 0)  # draws TC: it leaves the knowledge
    assert _known(state, 0) == ((CM, HP), None)
    state, _ = given(state).when(DrawCard(), 1)
    assert _known(state, 0) == ((HP,), None)


def test_1_9_knowledge_now__a_shuffle_voids_every_seats_knowledge() -> None:
    state = rigged([[SF, SH], [A]], pile=(TC, CM, HP, RR, BC))
    state, _ = given(state).when(PlayCard(card=SF), 0)
    state, _ = given(state).when(PlayCard(card=SH), 0)
    assert _known(state, 0) == ((), None)


def test_1_9_knowledge_now__another_seats_defuse_voids_the_knowledge() -> None:
    state = rigged([[SF, A], [D]], pile=(TC, K, HP, RR, BC))
    state, _ = given(state).when(PlayCard(card=SF), 0)
    state, _ = given(state).when(DrawCard(), 0)
    assert _known(state, 0) == ((K, HP), None)
    state, _ = given(state).when(DrawCard(), 1)  # seat 1 draws the Kitten and puts it back
    assert _known(state, 0) == ((HP,), None)
    state, _ = given(state).when(Defuse(position=3), 1)
    assert _known(state, 0) == ((), None)  # below the top, anything may have moved
    assert _known(state, 1) == ((), 3)


def test_1_9_knowledge_now__the_defusing_seat_keeps_an_exact_updated_picture() -> None:
    state = rigged([[SF, D, A], [A]], pile=(K, CM, HP, RR, BC))
    state, _ = given(state).when(PlayCard(card=SF), 0)
    state, _ = given(state).when(DrawCard(), 0)  # the Kitten it saw
    assert _known(state, 0) == ((CM, HP), None)
    state, _ = given(state).when(Defuse(position=1), 0)
    assert _known(state, 0) == ((CM, K, HP), 1)
    state, _ = given(state).when(DrawCard(), 1)
    assert _known(state, 0) == ((K, HP), 0)
    assert state.draw_pile[:2] == (K, HP)


def test_a_kitten_leaving_with_a_conceding_seat_closes_its_gap_in_the_knowledge() -> None:
    state = rigged([[SF, A], [A], [A]], pile=(TC, K, HP, RR))
    state, _ = given(state).when(PlayCard(card=SF), 0)
    state, _ = given(state).when(Concede(), 2)  # the bottom-most (only) Kitten leaves the pile
    assert state.draw_pile == (TC, HP, RR)
    assert _known(state, 0) == ((TC, HP), None)
