"""RULES 3 for A Risk Cat: decision timeouts and the server's neutral choices."""

from __future__ import annotations

from domain.a_risk_cat.commands import DealRobinTellToken, DrawToken
from domain.a_risk_cat.events import (
    LadiesDismissed,
    MusicianCatKept,
    RobinTellTargetChosen,
    RobinTellTokenDealt,
    RunsStolen,
    TokenDrawn,
    TurnStopped,
)
from domain.a_risk_cat.rules import deadline, on_deadline
from domain.a_risk_cat.state import PendingDrawOrStop, PendingRobinTellTarget
from domain.a_risk_cat.tokens import ROBIN_TELL
from domain.decider import ActOnTimeout

from .builders import given, make_state, types


def test_3_timeout_option__no_deadline_without_a_decision_timeout() -> None:
    state = make_state(bag=["p5-1"])
    assert deadline(state) is None
    state, events = given(state).when(DrawToken(), now=100.0)
    assert events[-1].deadline is None and deadline(state) is None
    given(state).when(ActOnTimeout(), None, now=1e9).then("no_deadline")


def test_3_timeout_option__every_pending_decision_gets_a_deadline() -> None:
    state = make_state(bag=["p5-1", "p6-1"], timeout=30)
    state, events = given(state).when(DrawToken(), now=100.0)
    assert events[-1].deadline == 130.0 and deadline(state) == 130.0
    state, events = given(state).when(DrawToken(), now=110.0)
    assert deadline(state) == 140.0


def test_timeout_command_is_only_for_the_server_after_the_deadline() -> None:
    state = make_state(bag=["p5-1"], timeout=30, deadline=130.0)
    assert on_deadline(state) == ActOnTimeout()
    given(state).when(ActOnTimeout(), 0, now=200.0).then("server_only")
    given(state).when(ActOnTimeout(), None, now=129.0).then("deadline_not_reached")


def test_3_timeout_arc__timeout_draws_at_the_start_of_a_turn() -> None:
    _state, events = given(make_state(bag=["p5-1", "p6-1"], timeout=30)).when_the_deadline_passes()
    assert events[0] == TokenDrawn(
        seat=0,
        token="p5-1",
        by_server=True,
        awaiting=PendingDrawOrStop(seat=0, can_draw=True),
        deadline=60.0,
    )


def test_3_timeout_arc__timeout_stops_with_tokens_in_the_order_obtained() -> None:
    state = make_state(bag=["p1-1"], turn_tokens=["p7-1", "p5-1", "p6-1"], timeout=30)
    state, events = given(state).when_the_deadline_passes()
    stop = events[0]
    assert isinstance(stop, TurnStopped) and stop.by_server
    assert stop.order == ("p7-1", "p5-1", "p6-1") and stop.new_top == "p6-1"
    assert state.stacks[0] == ("p7-1", "p5-1", "p6-1")


def test_3_timeout_arc__timeout_declines_a_steal() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p7-2", "p1-1"], timeout=30)
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when_the_deadline_passes()
    assert isinstance(events[0], RunsStolen) and events[0].runs == () and events[0].by_server
    assert state.stacks[1] == ("p7-1",)


def test_3_timeout_arc__timeout_keeps_a_cat() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p11-1", "p1-1"], timeout=30)
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when_the_deadline_passes()
    assert events[0] == MusicianCatKept(
        seat=0,
        token="p11-1",
        by_server=True,
        awaiting=PendingDrawOrStop(seat=0, can_draw=True),
        deadline=60.0,
    )
    assert state.stacks[1] == ("p7-1",)


def test_3_timeout_arc__timeout_robin_tell_deals_everything_back_to_the_robbed_seat() -> None:
    state = make_state(
        mode="full", stacks=[[], ["p5-1", "p6-1", "p9-1"], ["p8-1"]], bag=[ROBIN_TELL, "p11-1"], timeout=30
    )
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(DealRobinTellToken(to_seat=2))
    state, events = given(state).when_the_deadline_passes()
    assert types(events) == ["RobinTellTokenDealt", "RobinTellTokenDealt"]
    assert all(isinstance(e, RobinTellTokenDealt) and e.by_server and e.to_seat == 1 for e in events)
    # dealt one by one from the top: the robbed seat gets them back in reverse order
    assert state.stacks == ((), ("p6-1", "p5-1"), ("p8-1", "p9-1"))
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_3_timeout_robin_tie__timeout_robin_tell_target_is_the_first_candidate_from_the_active_seat() -> None:
    state = make_state(
        mode="full",
        players=4,
        active=1,
        stacks=[["p5-1"], [], ["p6-1"], ["p8-1"]],
        bag=[ROBIN_TELL, "p11-1"],
        timeout=30,
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRobinTellTarget(seat=1, candidates=(2, 3, 0))
    state, events = given(state).when_the_deadline_passes()
    assert isinstance(events[0], RobinTellTargetChosen)
    assert events[0].robbed_seat == 2 and events[0].by_server


def test_3_timeout_arc__timeout_ladies_take_nothing() -> None:
    state = make_state(
        mode="full",
        stacks=[[], ["p5-1"], ["p7-1"]],
        bag=["p9-1", "p1-1"],
        turn_tokens=["p4-1", "p6-1"],
        timeout=30,
    )
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when_the_deadline_passes()
    assert isinstance(events[0], LadiesDismissed) and events[0].by_server and events[0].taken == 0
    assert state.stacks == ((), ("p5-1",), ("p7-1",))
