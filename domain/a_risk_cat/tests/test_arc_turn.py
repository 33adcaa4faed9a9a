"""RULES 2.3 (a turn) and 2.4 (end), base mode unless said."""

from __future__ import annotations

from domain.a_risk_cat.commands import (
    DrawToken,
    KeepMusicianCat,
    StealRuns,
    StopAndStack,
    SwapMusicianCat,
    TakeMusicianCats,
)
from domain.a_risk_cat.events import (
    ARiskCatGameEnded,
    ARiskCatTurnStarted,
    RunsStolen,
    StolenRun,
    TokenDrawn,
    TurnBusted,
    TurnStopped,
)
from domain.a_risk_cat.legal import legal_commands
from domain.a_risk_cat.state import (
    PendingDrawOrStop,
    PendingFirstDraw,
    PendingMusicianCat,
    PendingRunSteal,
)
from domain.a_risk_cat.tokens import BANKER, CHEATER
from domain.commitment import verify

from .builders import given, make_state, types


def test_2_3_draw__turn_must_start_with_a_draw() -> None:
    state = make_state(bag=["p5-1"])
    assert legal_commands(state, 0) == [DrawToken()]
    given(state).when(StopAndStack(order=[]), 0).then("must_draw_first")


def test_2_3_draw__draw_takes_the_bag_top_and_places_it_in_front_of_the_seat() -> None:
    state, events = given(make_state(bag=["p5-1", "p7-1"])).when(DrawToken())
    assert events == [
        TokenDrawn(seat=0, token="p5-1", awaiting=PendingDrawOrStop(seat=0, can_draw=True)),
    ]
    assert state.bag == ("p7-1",)
    assert state.turn_tokens == ("p5-1",) and state.drawn == ("p5-1",)


def test_2_3_draw__after_a_draw_the_seat_may_draw_again_or_stop() -> None:
    state, _ = given(make_state(bag=["p5-1", "p7-1"])).when(DrawToken())
    assert legal_commands(state, 0) == [DrawToken(), StopAndStack(order=["p5-1"])]
    state, _ = given(state).when(DrawToken())
    assert state.turn_tokens == ("p5-1", "p7-1")


def test_2_3_1_bust__duplicate_busts_and_returns_stolen_tokens_too() -> None:
    state = make_state(stacks=[["p4-1"], ["p3-1", "p4-2", "p4-3"], ["p9-9"]], bag=["p4-4", "p6-1", "p6-2"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(StealRuns(from_seats=[1]))
    assert state.turn_tokens == ("p4-4", "p4-3", "p4-2")
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn", "TurnBusted", "ARiskCatTurnStarted"]
    bust = events[1]
    assert isinstance(bust, TurnBusted)
    assert bust.token == "p6-2"
    assert sorted(bust.returned) == sorted(["p4-4", "p4-3", "p4-2", "p6-1", "p6-2"])
    assert sorted(state.bag) == sorted(bust.returned)
    assert state.turn_tokens == () and state.active_seat == 1
    # the robbed stack is not restored; the seat's own stack is untouched
    assert state.stacks == (("p4-1",), ("p3-1",), ("p9-9",))


def test_2_3_1_bust_effect__bust_reshuffles_the_bag_with_a_new_commitment() -> None:
    bag = ["p5-1", "p5-2"] + [f"p11-{k}" for k in range(1, 12)]
    state, _ = given(make_state(bag=bag)).when(DrawToken())
    state, events = given(state).when(DrawToken())
    bust = events[1]
    assert isinstance(bust, TurnBusted)
    assert sorted(bust.bag) == sorted([*bag[2:], "p5-1", "p5-2"])
    assert bust.bag_size == len(bust.bag) == 13
    assert verify(list(bust.bag), bust.salt, bust.commitment)
    assert bust.commitment != "c0" and state.commitment == bust.commitment
    assert state.bag == bust.bag


def test_2_3_1_no_bust_by_joining__stolen_token_never_causes_a_bust() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p7-2", "p6-2", "p7-3"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(StealRuns(from_seats=[1]))
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn"]
    assert state.turn_tokens == ("p7-2", "p7-1", "p6-2")


def test_2_3_1_bust__only_drawn_tokens_count_for_the_bust_check() -> None:
    # p7-1 joined by a steal (not drawn): drawing a 7 is not a duplicate
    state = make_state(bag=["p7-3", "p1-1"], turn_tokens=["p6-1", "p7-1"], drawn=["p6-1"])
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn"]
    assert state.turn_tokens == ("p6-1", "p7-1", "p7-3")


def test_2_3_1_no_bust_by_joining__swapped_away_cat_still_counts_as_drawn() -> None:
    state = make_state(stacks=[[], ["p5-1"], []], bag=["p11-1", "p11-2", "p7-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(SwapMusicianCat(with_seat=1))
    assert state.turn_tokens == ("p5-1",) and state.stacks[1] == ("p11-1",)
    state, events = given(state).when(DrawToken())
    assert isinstance(events[1], TurnBusted)
    assert events[1].returned == ("p5-1", "p11-2")
    assert state.stacks[1] == ("p11-1",)


def test_2_3_2_steal__steal_takes_the_whole_identical_run_below_the_top() -> None:
    state = make_state(stacks=[[], ["p5-1", "p7-1", "p7-2", "p7-3"], []], bag=["p7-4", "p1-1"])
    state, events = given(state).when(DrawToken())
    assert events[-1].awaiting == PendingRunSteal(seat=0, token="p7-4", from_seats=(1,))
    state, events = given(state).when(StealRuns(from_seats=[1]))
    assert events == [
        RunsStolen(
            seat=0,
            runs=(StolenRun(from_seat=1, tokens=("p7-3", "p7-2", "p7-1")),),
            awaiting=PendingDrawOrStop(seat=0, can_draw=True),
        )
    ]
    assert state.stacks[1] == ("p5-1",)
    assert state.turn_tokens == ("p7-4", "p7-3", "p7-2", "p7-1")


def test_2_3_2_steal__steal_is_per_stack_all_or_nothing() -> None:
    state = make_state(
        players=4, stacks=[[], ["p7-1", "p7-2"], ["p7-3"], ["p8-1", "p7-5"]], bag=["p7-4", "p1-1"]
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRunSteal(seat=0, token="p7-4", from_seats=(1, 2, 3))
    offered = legal_commands(state, 0)
    assert len(offered) == 8 and StealRuns(from_seats=[]) in offered
    assert StealRuns(from_seats=[1, 3]) in offered
    state, _ = given(state).when(StealRuns(from_seats=[3, 1]))
    assert state.stacks == ((), (), ("p7-3",), ("p8-1",))
    assert state.turn_tokens == ("p7-4", "p7-2", "p7-1", "p7-5")


def test_2_3_2_steal__steal_can_be_declined() -> None:
    state = make_state(stacks=[[], ["p7-1"], []], bag=["p7-4", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(StealRuns(from_seats=[]))
    assert events[0] == RunsStolen(seat=0, runs=(), awaiting=PendingDrawOrStop(seat=0, can_draw=True))
    assert state.stacks[1] == ("p7-1",)


def test_2_3_2_steal__only_matching_stacks_can_be_stolen_from() -> None:
    state = make_state(stacks=[["p7-9"], ["p7-1"], ["p6-1"]], bag=["p7-4", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRunSteal(seat=0, token="p7-4", from_seats=(1,))
    given(state).when(StealRuns(from_seats=[2]), 0).then("stack_not_stealable")
    given(state).when(StealRuns(from_seats=[0]), 0).then("stack_not_stealable")
    given(state).when(StealRuns(from_seats=[1, 1]), 0).then("duplicate_seat")


def test_2_3_2_steal__no_steal_decision_when_no_top_matches() -> None:
    state = make_state(stacks=[[], ["p7-1", "p6-1"], ["p11-1"]], bag=["p7-4", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_3_2_only_draws__only_draws_open_steals() -> None:
    # the stolen 7 exposes another 7 below a different painting: no new steal opens
    state = make_state(stacks=[[], ["p5-1", "p7-1"], ["p5-2"]], bag=["p7-4", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(StealRuns(from_seats=[1]))
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_1_identical__banker_and_cheater_are_identical() -> None:
    # for steals
    state = make_state(stacks=[[], [CHEATER], []], bag=[BANKER, "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingRunSteal(seat=0, token=BANKER, from_seats=(1,))
    # for duplicates
    state = make_state(bag=[BANKER, CHEATER, "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, events = given(state).when(DrawToken())
    assert isinstance(events[1], TurnBusted)


def test_2_3_2_cat__musician_cat_takes_every_cat_run() -> None:
    state = make_state(
        players=4,
        stacks=[[], ["p5-1", "p11-1", "p11-2"], ["p11-3"], ["p11-4", "p5-2"]],
        bag=["p11-5", "p1-1"],
    )
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingMusicianCat(seat=0, token="p11-5", take_from=(1, 2), swap_with=(1, 2, 3))
    assert legal_commands(state, 0) == [
        TakeMusicianCats(),
        SwapMusicianCat(with_seat=1),
        SwapMusicianCat(with_seat=2),
        SwapMusicianCat(with_seat=3),
        KeepMusicianCat(),
    ]
    state, _ = given(state).when(TakeMusicianCats())
    assert state.stacks == ((), ("p5-1",), (), ("p11-4", "p5-2"))
    assert state.turn_tokens == ("p11-5", "p11-2", "p11-1", "p11-3")


def test_2_3_2_cat__musician_cat_swaps_with_a_top_token() -> None:
    state = make_state(stacks=[["p2-2"], ["p5-1", "p9-1"], []], bag=["p11-5", "p1-1"])
    state, _ = given(state).when(DrawToken())
    assert state.pending == PendingMusicianCat(seat=0, token="p11-5", take_from=(), swap_with=(1,))
    given(state).when(TakeMusicianCats(), 0).then("no_cats_to_take")
    given(state).when(SwapMusicianCat(with_seat=0), 0).then("stack_not_swappable")
    given(state).when(SwapMusicianCat(with_seat=2), 0).then("stack_not_swappable")
    state, _ = given(state).when(SwapMusicianCat(with_seat=1))
    assert state.stacks == (("p2-2",), ("p5-1", "p11-5"), ())
    assert state.turn_tokens == ("p9-1",)
    assert state.drawn == ("p11-5",)


def test_2_3_2_cat__musician_cat_can_be_kept() -> None:
    state = make_state(stacks=[[], ["p11-1"], []], bag=["p11-5", "p1-1"])
    state, _ = given(state).when(DrawToken())
    state, _ = given(state).when(KeepMusicianCat())
    assert state.turn_tokens == ("p11-5",) and state.stacks[1] == ("p11-1",)
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_3_2_cat__musician_cat_with_nothing_to_do_is_kept_without_asking() -> None:
    state, _ = given(make_state(stacks=[["p5-1"], [], []], bag=["p11-5", "p1-1"])).when(DrawToken())
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_3_2_cat__non_cat_draw_does_not_steal_cat_tops() -> None:
    state, _ = given(make_state(stacks=[[], ["p11-1"], []], bag=["p5-5", "p1-1"])).when(DrawToken())
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=True)


def test_2_3_stop__stop_puts_tokens_in_chosen_order_on_top() -> None:
    state = make_state(stacks=[["p9-1", "p9-2"], [], []], bag=["p1-1"], turn_tokens=["p5-1", "p6-1", "p7-1"])
    assert legal_commands(state, 0) == [
        DrawToken(),
        StopAndStack(order=["p5-1", "p6-1", "p7-1"]),
        StopAndStack(order=["p7-1", "p6-1", "p5-1"]),
    ]
    state, events = given(state).when(StopAndStack(order=["p6-1", "p7-1", "p5-1"]))
    assert events[0] == TurnStopped(
        seat=0, count=3, new_top="p5-1", stack_size=5, order=("p6-1", "p7-1", "p5-1")
    )
    assert state.stacks[0] == ("p9-1", "p9-2", "p6-1", "p7-1", "p5-1")
    assert isinstance(events[1], ARiskCatTurnStarted) and state.active_seat == 1


def test_2_3_stop__stop_order_must_be_a_permutation_of_this_turns_tokens() -> None:
    state = make_state(bag=["p1-1"], turn_tokens=["p5-1", "p6-1"])
    for order in (["p5-1"], ["p5-1", "p5-1"], ["p5-1", "p6-1", "p7-1"], ["p5-1", "p7-1"]):
        given(state).when(StopAndStack(order=order), 0).then("invalid_order")


def test_2_3_4_empty_bag__empty_bag_leaves_only_stop() -> None:
    state, _ = given(make_state(bag=["p5-1"])).when(DrawToken())
    assert state.pending == PendingDrawOrStop(seat=0, can_draw=False)
    assert legal_commands(state, 0) == [StopAndStack(order=["p5-1"])]
    given(state).when(DrawToken(), 0).then("bag_empty")


def test_2_4_end__game_ends_when_a_turn_ends_with_the_bag_empty() -> None:
    state, _ = given(make_state(stacks=[["p6-1"], ["p7-1"], []], bag=["p5-1"])).when(DrawToken())
    state, events = given(state).when(StopAndStack(order=["p5-1"]))
    assert isinstance(events[-1], ARiskCatGameEnded)
    assert state.phase == "over" and state.pending is None
    given(state).when(DrawToken(), 0).then("game_over")
    given(state).when(DrawToken(), 1).then("game_over")


def test_2_4_end__bust_refills_the_bag_so_play_goes_on() -> None:
    state = make_state(bag=["p5-2"], turn_tokens=["p5-1"])
    state, events = given(state).when(DrawToken())
    assert types(events) == ["TokenDrawn", "TurnBusted", "ARiskCatTurnStarted"]
    assert state.phase == "playing" and sorted(state.bag) == ["p5-1", "p5-2"]
    assert state.pending == PendingFirstDraw(seat=1)


def test_2_2_first_seat__play_passes_clockwise() -> None:
    state = make_state(players=3, active=2, bag=["p1-1", "p5-1"], turn_tokens=["p7-1"])
    state, _ = given(state).when(StopAndStack(order=["p7-1"]))
    assert state.active_seat == 0 and state.turn_number == 2
    assert state.turn_tokens == () and state.drawn == ()
