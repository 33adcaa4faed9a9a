"""RULES 3: refused commands, with stable codes, change nothing and reveal nothing."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.a_risk_cat.commands import (
    ChooseRobinTellTarget,
    DealRobinTellToken,
    DismissLadies,
    DrawToken,
    KeepMusicianCat,
    StealRuns,
    StopAndStack,
    SwapMusicianCat,
    TakeMusicianCats,
    TakeTokenForLadies,
)
from domain.a_risk_cat.tokens import ROBIN_TELL
from domain.decider import ActOnTimeout, Command

from .builders import given, make_state


class _ForeignCommand(Command, frozen=True, kw_only=True):
    """Another game's command."""


def test_3_not_waited__not_your_turn() -> None:
    state = make_state(bag=["p5-1"])
    given(state).when(DrawToken(), 1).then("not_your_turn")
    given(state).when(DrawToken(), 2).then("not_your_turn")


def test_not_a_player() -> None:
    state = make_state(bag=["p5-1"])
    for seat in (None, 3, -1, True, "0"):
        given(state).when(DrawToken(), seat).then("not_a_player")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "command",
    [
        StealRuns(from_seats=[]),
        TakeMusicianCats(),
        SwapMusicianCat(with_seat=1),
        KeepMusicianCat(),
        ChooseRobinTellTarget(seat=1),
        DealRobinTellToken(to_seat=1),
        TakeTokenForLadies(from_seat=1),
        DismissLadies(),
    ],
)
def test_no_pending_decision_for_an_answer_nobody_asked_for(command: Any) -> None:
    state = make_state(bag=["p5-1"], turn_tokens=["p6-1"])
    given(state).when(command, 0).then("no_pending_decision")


def test_draw_is_refused_while_a_steal_choice_is_pending() -> None:
    state, _ = given(make_state(stacks=[[], ["p5-1"], []], bag=["p5-2", "p1-1"])).when(DrawToken())
    given(state).when(DrawToken(), 0).then("no_pending_decision")
    given(state).when(StopAndStack(order=["p5-2"]), 0).then("no_pending_decision")


def test_invalid_order() -> None:
    state = make_state(bag=["p5-1"], turn_tokens=["p6-1"])
    given(state).when(StopAndStack(order=["p7-1"]), 0).then("invalid_order")


def test_bag_empty() -> None:
    given(make_state(bag=[], turn_tokens=["p6-1"])).when(DrawToken(), 0).then("bag_empty")


def test_must_draw_first() -> None:
    given(make_state(bag=["p5-1"])).when(StopAndStack(order=[]), 0).then("must_draw_first")


def test_stack_not_stealable_and_duplicate_seat() -> None:
    state, _ = given(make_state(stacks=[[], ["p5-1"], ["p6-1"]], bag=["p5-2", "p1-1"])).when(DrawToken())
    given(state).when(StealRuns(from_seats=[2]), 0).then("stack_not_stealable")
    given(state).when(StealRuns(from_seats=[7]), 0).then("stack_not_stealable")
    given(state).when(StealRuns(from_seats=[1, 1]), 0).then("duplicate_seat")


def test_cat_refusals() -> None:
    state, _ = given(make_state(mode="full", stacks=[["p5-1"], ["p3-1"], []], bag=["p11-1", "p1-1"])).when(
        DrawToken()
    )
    # no other stack can be swapped with (the Angel protects seat 1) and none is Cat-topped:
    # the Cat is kept without asking
    given(state).when(KeepMusicianCat(), 0).then("no_pending_decision")
    state, _ = given(
        make_state(mode="full", stacks=[["p5-1"], ["p3-1"], ["p6-1"]], bag=["p11-1", "p1-1"])
    ).when(DrawToken())
    given(state).when(TakeMusicianCats(), 0).then("no_cats_to_take")
    given(state).when(SwapMusicianCat(with_seat=1), 0).then("angel_protected")
    given(state).when(SwapMusicianCat(with_seat=0), 0).then("stack_not_swappable")
    given(state).when(SwapMusicianCat(with_seat=5), 0).then("invalid_target")


def test_robin_and_ladies_targets() -> None:
    state, _ = given(make_state(mode="full", stacks=[[], ["p5-1"], ["p6-1"]], bag=[ROBIN_TELL, "p1-1"])).when(
        DrawToken()
    )
    given(state).when(ChooseRobinTellTarget(seat=0), 0).then("invalid_target")
    given(state).when(ChooseRobinTellTarget(seat=9), 0).then("invalid_target")
    state, _ = given(state).when(ChooseRobinTellTarget(seat=1))
    given(state).when(DealRobinTellToken(to_seat=3), 0).then("invalid_target")
    given(state).when(DealRobinTellToken(to_seat=-1), 0).then("invalid_target")


def test_what_is_not_an_a_risk_cat_command_is_unknown_command_as_in_every_game() -> None:
    state = make_state(bag=["p5-1"], turn_tokens=["p6-1"])
    given(state).when("draw", 0).then("unknown_command")
    given(state).when(None, 0).then("unknown_command")
    given(state).when(_ForeignCommand(), 0).then("unknown_command")


def test_invalid_command() -> None:
    state = make_state(bag=["p5-1"], turn_tokens=["p6-1"])
    given(state).when(StealRuns(from_seats=["1"]), 0).then("invalid_command")  # type: ignore[list-item]
    given(state).when(SwapMusicianCat(with_seat="1"), 0).then("invalid_command")  # type: ignore[arg-type]
    given(state).when(StopAndStack(order="p6-1"), 0).then("invalid_command")  # type: ignore[arg-type]
    given(state).when(StopAndStack(order=[6]), 0).then("invalid_command")  # type: ignore[list-item]


def test_3_refused_nothing__refused_command_changes_nothing() -> None:
    state = make_state(bag=["p5-1"], turn_tokens=["p6-1"])
    before = msgspec.json.encode(state)
    given(state).when(StopAndStack(order=["p9-9"]), 0).then("invalid_order")
    given(state).when(DrawToken(), 2).then("not_your_turn")
    assert msgspec.json.encode(state) == before


def test_3_no_inference_errors__messages_do_not_reveal_the_bag_or_stacks() -> None:
    state, _ = given(make_state(stacks=[["p9-1", "p9-2"], ["p8-8", "p5-1"], []], bag=["p5-2", "p7-7"])).when(
        DrawToken()
    )
    for command, seat in [
        (StealRuns(from_seats=[0]), 0),
        (DrawToken(), 0),
        (DrawToken(), 1),
        (StealRuns(from_seats=[1, 1]), 0),
    ]:
        refused = given(state).when(command, seat)
        assert refused.code
        assert refused.refusal is not None
        assert not any(t in refused.refusal.message for t in ("p7-7", "p9-1", "p8-8"))


def test_invalid_clock_when_a_deadline_must_be_computed() -> None:
    state = make_state(bag=["p5-1", "p6-1"], timeout=30)
    given(state).when(DrawToken(), 0, now=float("nan")).then("invalid_clock")
    given(state).when(ActOnTimeout(), None, now=float("nan")).then("deadline_not_reached")


def test_view_of_a_seat_outside_the_game_is_refused() -> None:
    from domain.a_risk_cat.views import view
    from domain.errors import RuleViolation
    from domain.viewers import Seat

    with pytest.raises(RuleViolation) as err:
        view(make_state(bag=["p5-1"]), Seat(3))
    assert err.value.code == "not_a_player"


def test_invalid_context() -> None:
    from domain.a_risk_cat.rules import decide
    from domain.errors import RuleViolation

    with pytest.raises(RuleViolation) as err:
        decide(make_state(bag=["p5-1"]), DrawToken(), None)  # type: ignore[arg-type]
    assert err.value.code == "invalid_context"
