"""RULES 2.5: the full game's powers (mode "full")."""

from __future__ import annotations

import pytest

from domain.a_risk_cat.commands import (
    ChooseRobinTellTarget,
    DealRobinTellToken,
    DismissLadies,
    DrawToken,
    StealRuns,
    SwapMusicianCat,
    TakeTokenForLadies,
)
from domain.a_risk_cat.events import (
    BankerReturned,
    CheaterArmed,
    LadiesAssembled,
    LadiesDismissed,
    RobinTellTriggered,
    TokenDrawn,
    TurnBusted,
)
from domain.a_risk_cat.legal import legal_commands
from domain.a_risk_cat.state import (
    PendingDrawOrStop,
    PendingLadiesTake,
    PendingMusicianCat,
    PendingRobinTellDeal,
    PendingRobinTellTarget,
    PendingRunSteal,
)
from domain.a_risk_cat.tokens import BANKER, CHEATER, ROBIN_TELL
from domain.commitment import verify

from .builders import given, make_state, types


def test_2_5_base__base_mode_tokens_have_no_powers() -> None:
    state = make_state(
        mode="base", stacks=[["p5-1", "p3-1"], ["p6-1"], []], bag=[BANKER, ROBIN_TELL, CHEATER, "p7-1"]
    )
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn"] and state.stacks[0] == ("p5-1", "p3-1")
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn"] and state.robin_pile == ()
    state, events = given(state).when(DrawToken())
    assert isinstance(events[1], TurnBusted)  # the Cheater spares nothing in base mode


@pytest.mark.parametrize(("size", "returned"), [(5, 3), (4, 2), (1, 1), (0, 0)])
def test_2_5_banker__banker_returns_top_half_rounded_up(size: int, returned: int) -> None:
    own = [f"p7-{k}" for k in range(1, size + 1)]
    state = make_state(mode="full", stacks=[own, [], []], bag=[BANKER, "p1-1"])
    state, events = given(state).when(DrawToken())
    banker = events[1]
    assert isinstance(banker, BankerReturned)
    assert banker.count == returned and not banker.blocked
    assert banker.returned == tuple(own[size - returned :])
    assert state.stacks[0] == tuple(own[: size - returned])
    assert banker.new_top == (own[size - returned - 1] if size - returned else None)
    assert sorted(state.bag) == sorted(["p1-1", *own[size - returned :]])
    assert state.turn_tokens == (BANKER,)
    if returned:
        assert verify(list(state.bag), state.salt, state.commitment) and state.commitment != "c0"


def test_2_5_banker__banker_ignores_this_turns_tokens() -> None:
    state = make_state(
        mode="full", stacks=[["p7-1", "p7-2"], [], []], bag=[BANKER, "p1-1"], turn_tokens=["p5-1", "p6-1"]
    )
    state, _ = given(state).when(DrawToken())
    assert state.turn_tokens == ("p5-1", "p6-1", BANKER)
    assert state.stacks[0] == ("p7-1",)


def test_2_5_angel__banker_is_blocked_by_an_angel_on_its_own_stack() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p3-1"], [], []], bag=[BANKER, "p1-1"])
    state, events = given(state).when(DrawToken())
    banker = events[1]
    assert isinstance(banker, BankerReturned) and banker.blocked and banker.count == 0
    assert state.stacks[0] == ("p7-1", "p3-1")


def test_2_4_end__banker_refilling_an_empty_bag_lets_play_go_on() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2"], [], []], bag=[BANKER])
    state, _ = given(state).when(DrawToken())
    assert state.bag == ("p7-2",)
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_5_trigger__stolen_banker_triggers_too() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2"], [BANKER], []], bag=[CHEATER, "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(StealRuns(from_seats=[1]))
    assert types(events) == ["RunsStolen", "CheaterArmed", "BankerReturned"]
    assert state.stacks[0] == ("p7-1",)


def test_2_5_cheater__cheater_forgives_exactly_one_duplicate() -> None:
    state = make_state(mode="full", bag=[CHEATER, "p5-1", "p5-2", "p5-3", "p1-1"])
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn", "CheaterArmed"] and state.cheater == "armed"
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert events[0] == TokenDrawn(
        seat=0, token="p5-2", spared=True, awaiting=PendingDrawOrStop(seat=0, can_draw=True)
    )
    assert state.turn_tokens == (CHEATER, "p5-1", "p5-2") and state.cheater == "spent"
    state, events = given(state).when(DrawToken())
    assert isinstance(events[1], TurnBusted)
    assert sorted(events[1].returned) == sorted([CHEATER, "p5-1", "p5-2", "p5-3"])


def test_2_5_cheater__stolen_cheater_also_forgives() -> None:
    state = make_state(mode="full", stacks=[[], [CHEATER], []], bag=[BANKER, "p5-1", "p5-2", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(StealRuns(from_seats=[1]))
    assert "CheaterArmed" in types(events)
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert isinstance(events[0], TokenDrawn) and events[0].spared
    assert "TurnBusted" not in types(events)


def test_2_1_identical__cheater_drawn_as_a_duplicate_of_the_banker_busts() -> None:
    state = make_state(mode="full", bag=[BANKER, CHEATER, "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn", "TurnBusted", "ARiskCatTurnStarted"]


def test_2_5_cheater__banker_spared_by_the_cheater_still_triggers() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2"], [], []], bag=[CHEATER, BANKER, "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn", "BankerReturned"]
    assert state.stacks[0] == ("p7-1",)


def test_2_5_robin_tell__robin_tell_robs_the_largest_stack_and_deals_it() -> None:
    state = make_state(
        mode="full", stacks=[["p7-1"], ["p5-1", "p6-1", "p9-1"], ["p8-1", "p8-2"]], bag=[ROBIN_TELL, "p11-1"]
    )
    state, events = given(state).when(DrawToken())
    robin = events[1]
    assert isinstance(robin, RobinTellTriggered)
    assert robin.candidates == (1,) and robin.robbed_seat == 1 and robin.count == 3
    assert robin.pile_top == "p9-1"
    assert state.stacks[1] == ()
    assert state.pending == PendingRobinTellDeal(seat=0, robbed_seat=1, remaining=3, next_token="p9-1")
    assert legal_commands(state, 0) == [DealRobinTellToken(to_seat=s) for s in range(3)]
    state, _ = given(state).when(DealRobinTellToken(to_seat=2))
    state, _ = given(state).when(DealRobinTellToken(to_seat=0))
    state, events = given(state).when(DealRobinTellToken(to_seat=1))
    assert state.stacks == (("p7-1", "p6-1"), ("p5-1",), ("p8-1", "p8-2", "p9-1"))
    assert state.robin_pile == () and state.robbed_seat is None
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)
    assert state.turn_tokens == (ROBIN_TELL,)


def test_2_5_angel__robin_tell_skips_angel_topped_and_empty_stacks() -> None:
    state = make_state(
        mode="full", stacks=[[], ["p5-1", "p6-1", "p3-1"], ["p8-1", "p8-2"]], bag=[ROBIN_TELL, "p11-1"]
    )
    state, events = given(state).when(DrawToken())
    robin = events[1]
    assert isinstance(robin, RobinTellTriggered) and robin.robbed_seat == 2


def test_2_5_robin_tell__robin_tell_can_rob_the_active_seats_own_stack() -> None:
    state = make_state(mode="full", stacks=[["p5-1", "p5-2"], ["p6-1"], []], bag=[ROBIN_TELL, "p11-1"])
    state, events = given(state).when(DrawToken())
    robin = events[1]
    assert isinstance(robin, RobinTellTriggered) and robin.robbed_seat == 0


def test_2_5_robin_tell__robin_tell_lets_the_seat_choose_among_equal_stacks() -> None:
    state = make_state(
        mode="full", stacks=[["p7-1"], ["p5-1", "p6-1"], ["p8-1", "p8-2"]], bag=[ROBIN_TELL, "p11-1"]
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRobinTellTarget(seat=0, candidates=(1, 2))
    given(state).when(ChooseRobinTellTarget(seat=0), 0).then("invalid_target")
    state, _events = given(state).when(ChooseRobinTellTarget(seat=2))
    assert state.stacks[2] == () and state.robin_pile == ("p8-1", "p8-2")
    assert state.pending == PendingRobinTellDeal(seat=0, robbed_seat=2, remaining=2, next_token="p8-2")


def test_2_5_robin_tell__robin_tell_target_refuses_an_angel_topped_stack() -> None:
    state = make_state(
        mode="full",
        players=4,
        stacks=[[], ["p5-1", "p3-1"], ["p8-1"], ["p8-2"]],
        bag=[ROBIN_TELL, "p11-1"],
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRobinTellTarget(seat=0, candidates=(2, 3))
    given(state).when(ChooseRobinTellTarget(seat=1), 0).then("angel_protected")


def test_2_5_robin_tell__robin_tell_without_a_target_has_no_effect() -> None:
    state = make_state(mode="full", stacks=[[], ["p3-1"], []], bag=[ROBIN_TELL, "p11-1"])
    state, events = given(state).when(DrawToken())
    assert events[1] == RobinTellTriggered(
        seat=0, token=ROBIN_TELL, candidates=(), awaiting=PendingDrawOrStop(seat=0, can_draw=True)
    )


def test_2_5_dealt_no_trigger__robin_tell_dealt_tokens_never_trigger() -> None:
    state = make_state(mode="full", stacks=[[], [BANKER, CHEATER], []], bag=[ROBIN_TELL, "p11-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DealRobinTellToken(to_seat=0))
    state, events = given(state).when(DealRobinTellToken(to_seat=0))
    assert types(events) == ["RobinTellTokenDealt"]
    assert state.stacks[0] == (CHEATER, BANKER) and state.cheater == "none"


def test_2_5_angel__robin_tell_deals_onto_an_angel_topped_stack() -> None:
    state = make_state(mode="full", stacks=[[], ["p3-1"], ["p5-1", "p6-1"]], bag=[ROBIN_TELL, "p11-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(DealRobinTellToken(to_seat=1))
    assert state.stacks[1] == ("p3-1", "p6-1")


def test_2_3_2_cat__angel_on_top_blocks_cat_swap() -> None:
    state = make_state(mode="full", stacks=[[], ["p5-1", "p3-1"], ["p6-1"]], bag=["p11-1", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingMusicianCat(seat=0, token="p11-1", take_from=(), swap_with=(2,))
    given(state).when(SwapMusicianCat(with_seat=1), 0).then("angel_protected")


def test_2_5_base__angel_protects_nothing_in_base_mode() -> None:
    state = make_state(mode="base", stacks=[[], ["p5-1", "p3-1"], []], bag=["p11-1", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(SwapMusicianCat(with_seat=1))
    assert state.turn_tokens == ("p3-1",)


def test_2_5_angel__angel_topped_stack_can_still_be_stolen_from() -> None:
    state = make_state(mode="full", stacks=[[], ["p5-1", "p3-1", "p3-2"], []], bag=["p3-3", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRunSteal(seat=0, token="p3-3", from_seats=(1,))
    state, _ = given(state).when(StealRuns(from_seats=[1]))
    assert state.stacks[1] == ("p5-1",)


def test_2_5_trigger__swapped_in_token_triggers_its_power() -> None:
    state = make_state(mode="full", stacks=[["p7-1", "p7-2"], [BANKER], []], bag=["p11-1", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(SwapMusicianCat(with_seat=1))
    assert types(events) == ["MusicianCatSwapped", "BankerReturned"]
    assert state.stacks == (("p7-1",), ("p11-1",), ())


def _ladies_state(**kw: object) -> object:
    defaults: dict[str, object] = {
        "mode": "full",
        "players": 4,
        "stacks": [[], ["p5-1", "p5-2", "p7-1"], ["p8-1", "p3-1"], ["p7-2", "p7-3", "p7-4"]],
        "bag": ["p9-1", "p1-1", "p11-1"],
        "turn_tokens": ["p4-1", "p6-1"],
    }
    defaults.update(kw)
    return make_state(**defaults)  # type: ignore[arg-type]


def test_2_5_ladies__three_ladies_take_up_to_four_tops() -> None:
    state, events = given(_ladies_state()).when(DrawToken())  # type: ignore[arg-type]
    assert isinstance(events[1], LadiesAssembled)
    assert state.pending == PendingLadiesTake(seat=0, taken=0, from_seats=(1, 3))
    state, _ = given(state).when(TakeTokenForLadies(from_seat=1))
    state, _ = given(state).when(TakeTokenForLadies(from_seat=1))
    state, _ = given(state).when(TakeTokenForLadies(from_seat=3))
    assert state.pending == PendingLadiesTake(seat=0, taken=3, from_seats=(1, 3))
    state, events = given(state).when(TakeTokenForLadies(from_seat=3))
    assert isinstance(events[-1], LadiesDismissed) and events[-1].taken == 4
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)
    assert state.turn_tokens == ("p4-1", "p6-1", "p9-1", "p7-1", "p5-2", "p7-4", "p7-3")
    assert state.stacks == ((), ("p5-1",), ("p8-1", "p3-1"), ("p7-2",))


def test_2_5_ladies__three_ladies_may_take_nothing() -> None:
    state, _ = given(_ladies_state()).when(DrawToken())  # type: ignore[arg-type]
    state, events = given(state).when(DismissLadies())
    assert events[0] == LadiesDismissed(seat=0, taken=0, awaiting=PendingDrawOrStop(seat=0, can_draw=True))


def test_2_5_angel__ladies_skip_angel_topped_and_own_stacks() -> None:
    state, _ = given(_ladies_state()).when(DrawToken())  # type: ignore[arg-type]
    given(state).when(TakeTokenForLadies(from_seat=2), 0).then("angel_protected")
    given(state).when(TakeTokenForLadies(from_seat=0), 0).then("invalid_target")


def test_ladies_stop_asking_when_no_stack_can_give() -> None:
    state = _ladies_state(stacks=[["p7-9"], ["p3-1"], [], ["p5-5"]])
    state, _ = given(state).when(DrawToken())  # type: ignore[arg-type]
    state, events = given(state).when(TakeTokenForLadies(from_seat=3))
    assert isinstance(events[-1], LadiesDismissed) and events[-1].taken == 1


def test_2_5_ladies__ladies_trigger_once_per_turn() -> None:
    # the three ladies already fired this turn (p9-2 completed them): a new 9 fires nothing
    state = _ladies_state(turn_tokens=["p4-1", "p6-1", "p9-2"], drawn=["p4-1", "p6-1"])
    state, events = given(state).when(DrawToken())  # type: ignore[arg-type]
    assert types(events) == ["TokenDrawn"]


def test_2_5_ladies__ladies_fire_for_a_swapped_in_third_lady() -> None:
    state = make_state(
        mode="full",
        stacks=[[], ["p9-2", "p9-3"], ["p5-1"]],
        bag=["p11-1", "p1-1"],
        turn_tokens=["p4-1", "p6-1"],
    )
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(SwapMusicianCat(with_seat=1))
    assert types(events) == ["MusicianCatSwapped", "LadiesAssembled"]
    assert events[0].triggers == ("p9-3",)  # type: ignore[attr-defined]
    assert state.pending == PendingLadiesTake(seat=0, taken=0, from_seats=(1, 2))


def test_ladies_fire_once_when_the_third_joins_then_stolen_ladies_add_nothing() -> None:
    state = _ladies_state(
        stacks=[[], ["p9-2", "p9-3"], ["p5-1"], []], bag=["p9-1", "p1-1"], turn_tokens=["p4-1", "p6-1"]
    )
    state, _ = given(state).when(DrawToken())  # type: ignore[arg-type]
    state, events = given(state).when(StealRuns(from_seats=[1]))
    # drawing p9-1 completed the ladies first; the stolen 9s join after and trigger nothing more
    assert types(events) == ["RunsStolen", "LadiesAssembled"]
    assert state.pending == PendingLadiesTake(seat=0, taken=0, from_seats=(2,))


def test_2_3_1_no_bust_by_joining__ladies_taken_tokens_trigger_powers_and_return_on_bust() -> None:
    state = _ladies_state(
        stacks=[["p7-5", "p7-6"], [BANKER], [], []],
        bag=["p9-1", "p9-2", "p1-1"],
        turn_tokens=["p4-1", "p6-1"],
    )
    state, _ = given(state).when(DrawToken())  # type: ignore[arg-type]
    state, events = given(state).when(TakeTokenForLadies(from_seat=1))
    assert types(events) == ["LadyTookToken", "LadiesDismissed", "BankerReturned"]
    assert state.stacks[0] == ("p7-5",)
    state, events = given(state).when(DrawToken())
    bust = events[1]
    assert isinstance(bust, TurnBusted)
    assert BANKER in bust.returned
    # the Banker's effect is not undone by the bust
    assert state.stacks == (("p7-5",), (), (), ())


def test_2_3_3_powers__powers_resolve_after_the_steal_choice() -> None:
    state = make_state(mode="full", stacks=[[], [CHEATER], []], bag=[BANKER, "p1-1"])
    state, events = given(state).when(DrawToken())
    assert isinstance(events[0], TokenDrawn) and events[0].triggers == (BANKER,)
    assert types(events) == ["TokenDrawn"]
    assert isinstance(state.pending, PendingRunSteal)
    state, events = given(state).when(StealRuns(from_seats=[]))
    assert types(events) == ["RunsStolen", "BankerReturned"]
    banker = events[1]
    assert isinstance(banker, BankerReturned) and banker.count == 0
    assert not isinstance(events[0], CheaterArmed)


@pytest.mark.parametrize(
    ("drawn", "stolen", "order"),
    [
        (CHEATER, BANKER, ["CheaterArmed", "BankerReturned"]),
        (BANKER, CHEATER, ["BankerReturned", "CheaterArmed"]),
    ],
)
def test_2_3_3_powers__powers_resolve_in_the_order_their_tokens_joined(
    drawn: str, stolen: str, order: list[str]
) -> None:
    state = make_state(mode="full", stacks=[["p5-1"], [stolen], []], bag=[drawn, "p7-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(StealRuns(from_seats=[1]))
    assert types(events) == ["RunsStolen", *order]


def test_2_5_no_undo__a_power_is_not_undone_by_a_later_bust() -> None:
    state = make_state(mode="full", stacks=[[], ["p5-1"], []], bag=["p7-1", ROBIN_TELL, "p7-2", "p9-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(DrawToken())  # Robin Tell robs seat 1's stack
    state, _ = given(state).when(DealRobinTellToken(to_seat=2))
    state, events = given(state).when(DrawToken())  # a second Mason: bust
    assert isinstance(events[1], TurnBusted)
    assert state.stacks == ((), (), ("p5-1",))  # the deal stands, the robbed stack is not restored
    assert sorted(events[1].returned) == sorted(["p7-1", ROBIN_TELL, "p7-2"])


@pytest.mark.parametrize("token", ["p5-1", "p7-1", "p10-1"])
def test_2_5_no_power__astronaut_mason_and_firefighter_have_no_power(token: str) -> None:
    state = make_state(mode="full", players=5, stacks=[[], ["p6-1", "p6-2"], [], [], []], bag=[token, "p9-1"])
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn"] and events[0].triggers == ()
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)
