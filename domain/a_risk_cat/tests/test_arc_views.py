"""RULES 2.6: what each viewer sees, and the redaction of streamed events."""

from __future__ import annotations

import msgspec

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.commands import ARiskCatCommand, DrawToken, StopAndStack
from domain.a_risk_cat.events import (
    ARiskCatEventUnion,
    ARiskCatGameSetUp,
    BankerReturned,
    RobinTellTriggered,
    TurnStopped,
)
from domain.a_risk_cat.state import PendingFirstDraw
from domain.a_risk_cat.tokens import BANKER, ROBIN_TELL
from domain.a_risk_cat.views import (
    ARiskCatModeratorView,
    ARiskCatSeatView,
    ARiskCatSpectatorView,
    ARiskCatStackView,
    redact,
    view,
)
from domain.viewers import MODERATOR, SPECTATOR, Seat

from .builders import given, make_state


def _table() -> object:
    return make_state(
        stacks=[["p9-1", "p9-2", "p5-1"], ["p8-8", "p7-1"], []],
        bag=["p6-6", "p4-4", "p11-2"],
        turn_tokens=["p3-1"],
    )


def test_2_6_public__seat_and_spectator_views_show_tops_and_sizes_never_contents() -> None:
    state = _table()
    for viewer in (Seat(0), Seat(1), SPECTATOR):
        seen = view(state, viewer)  # type: ignore[arg-type]
        assert seen.stacks == (
            ARiskCatStackView(seat=0, size=3, top="p5-1"),
            ARiskCatStackView(seat=1, size=2, top="p7-1"),
            ARiskCatStackView(seat=2, size=0, top=None),
        )
        assert seen.bag_size == 3 and seen.turn_tokens == ("p3-1",)
        encoded = msgspec.json.encode(seen).decode()
        for hidden in ("p9-1", "p9-2", "p8-8", "p6-6", "p4-4", "p11-2", '"s0"'):
            assert hidden not in encoded


def test_2_6_no_hints__seat_view_lists_legal_commands_only_for_the_waited_seat() -> None:
    state = _table()
    mine = view(state, Seat(0))  # type: ignore[arg-type]
    theirs = view(state, Seat(1))  # type: ignore[arg-type]
    assert isinstance(mine, ARiskCatSeatView) and isinstance(theirs, ARiskCatSeatView)
    assert mine.legal_commands == [DrawToken(), StopAndStack(order=["p3-1"])]
    assert theirs.legal_commands == []
    assert isinstance(view(state, SPECTATOR), ARiskCatSpectatorView)  # type: ignore[arg-type]


def test_2_6_hidden__moderator_sees_everything() -> None:
    seen = view(_table(), MODERATOR)  # type: ignore[arg-type]
    assert isinstance(seen, ARiskCatModeratorView)
    assert seen.full_stacks == (("p9-1", "p9-2", "p5-1"), ("p8-8", "p7-1"), ())
    assert seen.bag == ("p6-6", "p4-4", "p11-2") and seen.salt == "s0"


def test_views_are_msgspec_encodable_and_decodable() -> None:
    state = _table()
    for viewer in (Seat(0), SPECTATOR, MODERATOR):
        seen = view(state, viewer)  # type: ignore[arg-type]
        raw = msgspec.json.encode(seen)
        assert msgspec.json.decode(raw, type=DECIDER.types.view) == seen
    decoded = msgspec.json.decode(
        msgspec.json.encode([DrawToken(), StopAndStack(order=["p3-1"])]), type=list[ARiskCatCommand]
    )
    assert decoded == [DrawToken(), StopAndStack(order=["p3-1"])]


def test_2_6_hidden__setup_redacted_hides_bag_and_salt() -> None:
    state = DECIDER.initial_state(DECIDER.parse_options({"players": 4}))
    (setup,) = given(state).when_started(seed=3).events
    public = redact(setup, SPECTATOR)
    assert isinstance(public, ARiskCatGameSetUp)
    assert public.bag == () and public.salt == "" and public.commitment == setup.commitment
    assert public.bag_size == 56 and public.awaiting == PendingFirstDraw(seat=setup.first_seat)
    assert redact(setup, Seat(0)) == public
    assert redact(setup, MODERATOR) == setup


def test_2_6_stop_event__stop_redacted_shows_only_new_top_and_count() -> None:
    state = make_state(stacks=[["p9-1"], [], []], bag=["p1-1"], turn_tokens=["p5-1", "p6-1", "p7-1"])
    _, events = given(state).when(StopAndStack(order=["p6-1", "p5-1", "p7-1"]))
    stop = redact(events[0], Seat(0))
    assert isinstance(stop, TurnStopped)
    assert (stop.count, stop.new_top, stop.stack_size, stop.order) == (3, "p7-1", 4, ())


def test_2_5_banker__banker_redacted_shows_only_count_and_new_top() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2", "p8-1"], [], []], bag=[BANKER, "p1-1"])
    _, events = given(state).when(DrawToken())
    banker = redact(events[1], SPECTATOR)
    assert isinstance(banker, BankerReturned)
    assert (banker.count, banker.new_top, banker.stack_size) == (2, "p7-1", 1)
    assert banker.returned == () and banker.bag == () and banker.salt == ""


def test_2_6_hidden__robin_tell_redacted_hides_the_pile_below_its_top() -> None:
    state = make_state(mode="full", stacks=[[], ["p5-1", "p6-1"], []], bag=[ROBIN_TELL, "p1-1"])
    state, events = given(state).when(DrawToken())
    robin = redact(events[1], SPECTATOR)
    assert isinstance(robin, RobinTellTriggered)
    assert robin.pile == () and robin.pile_top == "p6-1" and robin.count == 2
    seen = view(state, Seat(1))
    assert seen.robin_tell_pile_top == "p6-1" and seen.robin_tell_pile_size == 2
    assert "p5-1" not in msgspec.json.encode(seen).decode()


def test_events_round_trip_through_json() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2"], [], []], bag=[BANKER, "p1-1"])
    _, events = given(state).when(DrawToken())
    raw = msgspec.json.encode(events)
    assert msgspec.json.decode(raw, type=list[ARiskCatEventUnion]) == events


def test_2_6_public__view_before_the_start_shows_empty_stacks_and_no_turn() -> None:
    state = DECIDER.initial_state(DECIDER.parse_options({"players": 3}))
    seen = view(state, Seat(0))
    assert isinstance(seen, ARiskCatSeatView)
    assert seen.phase == "not_started" and seen.active_seat is None and seen.legal_commands == []
    assert [s.size for s in seen.stacks] == [0, 0, 0]


def test_2_6_no_hints__views_show_drawn_paintings_not_drawn_token_ids() -> None:
    state = make_state(stacks=[[], ["p5-1"], []], bag=["p11-1", "p11-2", "p1-1"])
    from domain.a_risk_cat.commands import SwapMusicianCat

    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(SwapMusicianCat(with_seat=1))
    seen = view(state, SPECTATOR)
    assert seen.drawn_paintings == (11,) and seen.turn_tokens == ("p5-1",)
