"""RULES 3 for A Risk Cat: leaving a running game concedes."""

from __future__ import annotations

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.commands import (
    ChooseRobinTellTarget,
    DealRobinTellToken,
    DrawToken,
    StealRuns,
    StopAndStack,
)
from domain.a_risk_cat.events import (
    ARiskCatGameEnded,
    ARiskCatTurnStarted,
    RobinTellTargetChosen,
    RobinTellTokenDealt,
    RunsStolen,
    SeatConceded,
    TurnStopped,
)
from domain.a_risk_cat.scoring import score
from domain.a_risk_cat.state import (
    PendingFirstDraw,
    PendingRobinTellDeal,
    PendingRobinTellTarget,
    PendingRunSteal,
)
from domain.a_risk_cat.tokens import ROBIN_TELL
from domain.a_risk_cat.views import view
from domain.decider import Concede
from domain.viewers import SPECTATOR

from .builders import given, make_state, types


def test_3_concede_arc__active_seat_conceding_before_drawing_is_skipped_without_a_draw() -> None:
    state = make_state(bag=["p5-1", "p6-1"], timeout=30)
    state, events = given(state).when(Concede(), 0, now=10.0)
    assert types(events) == ["SeatConceded", "ARiskCatTurnStarted"]
    assert events[-1].awaiting == PendingFirstDraw(seat=1) and events[-1].deadline == 40.0
    assert state.bag == ("p5-1", "p6-1") and state.active_seat == 1 and state.conceded == (0,)


def test_3_concede_arc_decisions__active_seat_conceding_with_tokens_stops_in_the_order_obtained() -> None:
    state = make_state(stacks=[["p9-1"], [], []], bag=["p5-1"], turn_tokens=["p7-1", "p6-1"])
    state, events = given(state).when(Concede(), 0)
    assert types(events) == ["SeatConceded", "TurnStopped", "ARiskCatTurnStarted"]
    stop = events[1]
    assert isinstance(stop, TurnStopped) and stop.by_server and stop.order == ("p7-1", "p6-1")
    assert state.stacks[0] == ("p9-1", "p7-1", "p6-1")  # the stack stays, with this turn's tokens
    assert state.pending == PendingFirstDraw(seat=1)


def test_3_concede_arc_decisions__active_seat_conceding_on_a_steal_declines_it_by_the_server() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p7-2", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert isinstance(state.pending, PendingRunSteal)
    state, events = given(state).when(Concede(), 0)
    assert types(events) == ["SeatConceded", "RunsStolen", "TurnStopped", "ARiskCatTurnStarted"]
    assert isinstance(events[1], RunsStolen) and events[1].runs == () and events[1].by_server
    assert state.stacks == (("p7-2",), ("p7-1",), ())


def test_3_concede_arc_decisions__chooser_conceding_a_robin_tell_tie_robs_the_first_tied_after_it() -> None:
    state = make_state(
        mode="full", players=4, active=2, stacks=[["p5-1"], ["p6-1"], ["p8-1"], []], bag=[ROBIN_TELL, "p11-1"]
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRobinTellTarget(seat=2, candidates=(2, 0, 1))
    state, events = given(state).when(Concede(), 2)
    chosen = events[1]
    assert isinstance(chosen, RobinTellTargetChosen) and chosen.by_server and chosen.robbed_seat == 0
    dealt = events[2]
    assert isinstance(dealt, RobinTellTokenDealt) and dealt.by_server and dealt.to_seat == 0
    assert types(events)[-2:] == ["TurnStopped", "ARiskCatTurnStarted"]
    assert state.active_seat == 3


def test_3_concede_arc_stack__a_steal_target_conceding_leaves_the_decision_and_its_deadline() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p7-2", "p1-1"], timeout=30)
    state, _ = given(state).when(DrawToken(), now=5.0)
    pending, deadline = state.pending, state.deadline
    state, events = given(state).when(Concede(), 1, now=20.0)
    assert events == [SeatConceded(seat=1, awaiting=pending, deadline=deadline)]
    assert state.pending == pending and state.deadline == deadline == 35.0
    state, events = given(state).when(StealRuns(from_seats=[1]))  # its stack is still stealable
    assert state.stacks[1] == () and state.turn_tokens == ("p7-2", "p7-1")


def test_3_concede_arc__a_conceded_seats_turns_are_skipped() -> None:
    state = make_state(bag=["p5-1", "p6-1", "p9-1"])
    state, _ = given(state).when(Concede(), 1)
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(StopAndStack(order=["p5-1"]))
    assert events[-1] == ARiskCatTurnStarted(seat=2, turn_number=2, awaiting=PendingFirstDraw(seat=2))


def test_3_concede_arc__a_conceded_seat_can_neither_concede_again_nor_play() -> None:
    state, _ = given(make_state(bag=["p5-1", "p6-1"])).when(Concede(), 0)
    given(state).when(Concede(), 0).then("already_conceded")
    given(state).when(DrawToken(), 0).then("not_your_turn")
    assert DECIDER.legal_commands(state, 0) == []


def test_3_concede_arc_win__a_conceded_seat_is_scored_but_cannot_win() -> None:
    sheet = score([["p8-1", "p8-2", "p5-1"], ["p4-1"], ["p6-1"]], conceded=(0,))
    assert sheet.scores[0] > sheet.scores[1] and sheet.paintings_won[7] == 0
    assert sheet.winners == (2,)  # 1 + 6 beats 1 + 4; seat 0's higher score does not win


def test_3_concede_arc_end__fewer_than_two_seats_standing_end_the_game_at_once_scored() -> None:
    state = make_state(stacks=[["p8-1"], ["p5-1"], ["p4-1"]], bag=["p7-1", "p6-1"], turn_tokens=["p9-1"])
    state, _ = given(state).when(Concede(), 1)
    assert state.phase == "playing"
    state, events = given(state).when(Concede(), 2)
    assert types(events) == ["SeatConceded", "TurnStopped", "ARiskCatGameEnded"]
    ended = events[-1]
    assert isinstance(ended, ARiskCatGameEnded) and ended.winners == (0,)
    assert state.phase == "over" and state.bag == ("p7-1", "p6-1")  # nobody drew
    assert ended.scores == score(state.stacks).scores  # every stack scored, conceded ones too
    assert view(state, SPECTATOR).conceded == (1, 2)


def test_3_concede_arc_end__the_other_conceding_before_the_last_seat_draws_ends_the_game() -> None:
    state = make_state(bag=["p7-1"], active=1, stacks=[["p5-1"], [], ["p3-1"]])
    state, _ = given(state).when(Concede(), 0)
    state, events = given(state).when(Concede(), 2)
    assert types(events) == ["SeatConceded", "ARiskCatGameEnded"]
    assert state.phase == "over" and state.winners == (1,)


def test_3_timeout_robin_tie__on_timeout_the_first_tied_stack_in_seat_order_after_the_chooser() -> None:
    state = make_state(
        mode="full",
        players=4,
        active=1,
        stacks=[[], ["p5-1"], [], ["p6-1"]],
        bag=[ROBIN_TELL, "p11-1"],
        timeout=9,
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRobinTellTarget(seat=1, candidates=(1, 3))
    _, events = given(state).when_the_deadline_passes()
    chosen = events[0]
    assert isinstance(chosen, RobinTellTargetChosen) and chosen.by_server
    assert chosen.robbed_seat == 3  # after seat 1 come 2 (empty), 3; the chooser's own stack is last
    given(state).when(ChooseRobinTellTarget(seat=2), 1).then("invalid_target")


def test_3_concede_arc_stack__a_conceded_seats_stack_is_still_reachable_by_powers() -> None:
    state = make_state(mode="full", stacks=[[], ["p5-1", "p6-1"], ["p8-1"]], bag=[ROBIN_TELL, "p11-1"])
    state, _ = given(state).when(Concede(), 1)
    state, events = given(state).when(DrawToken())
    assert isinstance(events[-1].awaiting, PendingRobinTellDeal)
    assert state.robbed_seat == 1  # Robin Tell robs the conceded seat's stack, the richest
    state, _ = given(state).when(DealRobinTellToken(to_seat=1))  # and may deal onto it
    assert state.stacks[1] == ("p6-1",)
