"""The table's clock as data (domain/table/clock.py, issue 52): a public game's default clock,
a timeout's forced move, a seat removed after its timeouts in a row, a lobby closed unstarted,
and a seat that never acted after the start blocking nobody. Given these past events, when the
server acts on the deadline (or a seat plays), then these events (tests/given.py)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.decider import Concede, Context
from domain.registry import for_kind
from domain.table.clock import with_defaults
from domain.table.commands import ActOnDeadline, CreateGame, JoinSeat, Play, StartGame
from domain.table.events import GameCreated, LobbyClosed, SeatBack, SeatJoined, SeatTimedOut, SeedDisclosed
from domain.table.state import Table
from tests.given import Given, Rules, given_for

KINDS = ["exploding_kittens", "a_risk_cat"]
EK = for_kind("exploding_kittens")
given = given_for(
    Rules(decide=lambda table, command, ctx: EK.decide(table, command, ctx).events, fold=EK.fold)
)


def given_kind(kind: str, *past: Any) -> Given:
    rules = for_kind(kind)
    return given_for(
        Rules(decide=lambda table, command, ctx: rules.decide(table, command, ctx).events, fold=rules.fold)
    )(*past)


def created(
    kind: str, players: int = 3, *, lobby_timeout: float | None = 3600.0, removal: int | None = 3
) -> Any:
    options = {"players": players, "decision_timeout": 60.0}
    if kind == "exploding_kittens":
        options["reaction_window"] = 0.0  # no window to wait through: only seats' deadlines
    return GameCreated(
        kind=kind,
        options=options,
        public=True,
        spectator_delay=0.0,
        created_at=1.0,
        timeouts_to_remove=removal,
        lobby_timeout=lobby_timeout,
    )


def seated(players: int) -> list[SeatJoined]:
    return [SeatJoined(seat=i, name=f"p{i}", occupancy=f"o{i}") for i in range(players)]


def started(kind: str, players: int = 3, *, removal: int | None = 3) -> Table:
    past = given_kind(kind, None, created(kind, players, removal=removal), *seated(players))
    table: Table = past.when(StartGame(), now=5.0, seed=7).state
    return table


def waiting_for(table: Table) -> int | None:
    return table.decider.clock.waiting_for(table.state)


def deadline_passes(table: Table) -> tuple[Table, list[Any]]:
    due = for_kind(table.kind).deadline(table)
    assert due is not None, "nothing is due"
    after, events = given_kind(table.kind, table).when(ActOnDeadline(), None, now=due, seed=3)
    return after, events


def plays(table: Table, seat: int) -> tuple[Table, list[Any]]:
    """``seat`` answers for itself: its first legal command that is not conceding."""
    legal = [c for c in table.decider.legal_commands(table.state, seat) if not isinstance(c, Concede)]
    due = for_kind(table.kind).deadline(table)
    now = 10.0 if due is None else due - 1.0
    after, events = given_kind(table.kind, table).when(
        Play(seat=seat, command=legal[0]), seat, now=now, seed=5
    )
    return after, events


# --- a public game's clock, by default ----------------------------------------------------------


def hosts(create: CreateGame) -> Any:
    """The ``lobby.created`` a host's request makes (the defaults taken, then decided)."""
    (event,) = (
        given_kind(create.kind, None).when(with_defaults(for_kind(create.kind).game, create), now=5.0).events
    )
    return event


@pytest.mark.parametrize("kind", KINDS)
def test_given_nothing_when_a_public_game_is_created_then_it_has_a_clock(kind: str) -> None:
    event = hosts(CreateGame(kind=kind, options={"players": 3}))
    assert event.options["decision_timeout"] == 60.0
    assert (event.timeouts_to_remove, event.lobby_timeout) == (3, 3600.0)


@pytest.mark.parametrize("kind", KINDS)
def test_given_nothing_when_a_private_game_is_created_then_it_has_no_clock_unless_its_host_sets_one(
    kind: str,
) -> None:
    event = hosts(CreateGame(kind=kind, options={"players": 3}, public=False))
    assert (event.options["decision_timeout"], event.lobby_timeout) == (None, None)
    chosen = CreateGame(
        kind=kind, options={"players": 3, "decision_timeout": 30}, public=False, lobby_timeout=60
    )
    event = hosts(chosen)
    assert (event.options["decision_timeout"], event.lobby_timeout) == (30.0, 60.0)


def test_given_nothing_when_a_public_games_host_turns_the_clock_off_then_it_has_none() -> None:
    create = CreateGame(
        kind="exploding_kittens",
        options={"players": 2, "decision_timeout": None},
        timeouts_to_remove=0,
        lobby_timeout=0,
    )
    event = hosts(create)
    assert (event.options["decision_timeout"], event.timeouts_to_remove, event.lobby_timeout) == (
        None,
        None,
        None,
    )


def test_given_a_create_recorded_before_the_clock_when_decided_again_then_it_has_no_clock() -> None:
    (event,) = given(None).when(CreateGame(kind="exploding_kittens", options={"players": 2}), now=5.0).events
    assert (event.options["decision_timeout"], event.timeouts_to_remove, event.lobby_timeout) == (
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    "clock",
    [{"timeouts_to_remove": -1}, {"timeouts_to_remove": 21}, {"lobby_timeout": -1.0}, {"lobby_timeout": 1e9}],
)
def test_given_nothing_when_created_with_a_clock_out_of_bounds_then_invalid_clock(
    clock: dict[str, Any],
) -> None:
    refused = given(None).when(CreateGame(kind="exploding_kittens", options={"players": 2}, **clock))
    assert (refused.code, refused.kind) == ("invalid_clock", "invalid")


# --- a lobby not started in time closes ---------------------------------------------------------


def test_given_an_open_lobby_when_its_timeout_passes_then_it_closes() -> None:
    lobby = given(None, created("exploding_kittens", lobby_timeout=100.0), *seated(2))
    assert EK.deadline(lobby.state) == 101.0
    lobby.when(ActOnDeadline(), None, now=100.5).then([])
    closed = lobby.when(ActOnDeadline(), None, now=101.0).then([LobbyClosed()]).state
    assert (closed.status, closed.closed, closed.outcome, EK.deadline(closed)) == (
        "finished",
        True,
        None,
        None,
    )
    given(closed).when(JoinSeat(name="carol", occupancy="c1")).then("lobby_closed")
    given(closed).when(StartGame()).then("lobby_closed")


def test_given_an_open_lobby_with_a_committed_seed_when_it_closes_then_the_seed_is_disclosed() -> None:
    seed = "ab" * 32
    committed = msgspec.structs.replace(
        created("exploding_kittens", lobby_timeout=100.0), seed_commitment="cd" * 32
    )
    lobby = given(None, committed, *seated(1)).state
    context = Context(random.Random(0), 101.0, None, seed_commitment="cd" * 32, server_seed=seed)
    assert list(EK.decide(lobby, ActOnDeadline(), context).events) == [
        LobbyClosed(),
        SeedDisclosed(seed=seed),
    ]


def test_given_a_lobby_without_a_timeout_when_checked_then_it_waits_for_its_host() -> None:
    lobby = given(None, created("exploding_kittens", lobby_timeout=None), *seated(1))
    assert EK.deadline(lobby.state) is None
    lobby.when(ActOnDeadline(), None, now=1e9).then([])


def test_given_a_lobby_that_started_in_time_when_its_timeout_would_pass_then_nothing_closes() -> None:
    table = started("exploding_kittens", 3)
    due = EK.deadline(table)
    assert due is not None and due < 3601.0  # the game's own deadline, not the lobby's


# --- a timeout: the rules' forced move, recorded -----------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_given_a_seat_to_answer_when_its_time_runs_out_then_the_game_makes_its_forced_move(kind: str) -> None:
    table = started(kind)
    seat = waiting_for(table)
    assert seat is not None
    after, events = deadline_passes(table)
    assert events[0] == SeatTimedOut(seat=seat, in_a_row=1, removed=False)
    assert len(events) > 1 and all(getattr(e, "by_server", True) for e in events[1:2])
    assert after.timeouts[seat] == 1 and seat not in after.conceded


def test_given_a_game_created_before_the_clock_when_a_deadline_passes_then_only_the_game_acts() -> None:
    table = started("exploding_kittens", 3, removal=None)
    _after, events = deadline_passes(table)
    assert events and not any(isinstance(e, SeatTimedOut) for e in events)


# --- timeouts in a row remove the seat; a seat that acts again starts over ---------------------


def play_until_removed(table: Table, absent: int) -> tuple[Table, list[SeatTimedOut], list[Any]]:
    """Everybody but ``absent`` answers in time; the clock answers for ``absent`` until it is
    removed. The timeouts recorded, and the events of the last one."""
    timed_out: list[SeatTimedOut] = []
    for _ in range(200):
        seat = waiting_for(table)
        if seat is None or seat == absent:
            table, events = deadline_passes(table)
            timed_out += [e for e in events if isinstance(e, SeatTimedOut)]
            if timed_out and timed_out[-1].removed:
                return table, timed_out, events
        else:
            table, _ = plays(table, seat)
    raise AssertionError("the absent seat was never removed")


@pytest.mark.parametrize("kind", KINDS)
def test_given_a_seat_that_never_acts_after_the_start_when_it_times_out_three_times_then_it_is_removed(
    kind: str,
) -> None:
    table = started(kind, 3)
    first = waiting_for(table)
    assert first is not None
    absent = (first + 1) % 3  # not the first to play: the others play before and after it
    after, timed_out, events = play_until_removed(table, absent)
    assert [(t.seat, t.in_a_row, t.removed) for t in timed_out] == [
        (absent, 1, False),
        (absent, 2, False),
        (absent, 3, True),
    ]
    assert events[0] == timed_out[-1]
    assert after.decider.seats.conceded(events[1]) == absent  # the game's own concession follows
    assert absent in after.conceded
    assert after.status == "running" and waiting_for(after) != absent  # the others play on


def test_given_two_seats_when_one_is_removed_by_the_clock_then_the_other_wins() -> None:
    table = started("exploding_kittens", 2)
    absent = waiting_for(table)
    assert absent is not None
    after, _, _ = play_until_removed(table, absent)
    assert after.status == "finished" and after.outcome is not None and after.outcome.winners == (1 - absent,)


def test_given_a_seat_the_clock_answered_for_when_it_acts_itself_then_its_count_starts_over() -> None:
    table = started("exploding_kittens", 3)
    seat = waiting_for(table)
    assert seat is not None
    table, _ = deadline_passes(table)  # its first turn: the clock draws for it
    for _ in range(50):  # the others answer in time until it is this seat's turn to answer again
        if (other := waiting_for(table)) == seat:
            break
        table, _ = deadline_passes(table) if other is None else plays(table, other)
    assert table.timeouts[seat] == 1
    after, events = plays(table, seat)
    assert events[-1] == SeatBack(seat=seat) and after.timeouts[seat] == 0
    _, events = given(after).when(Play(seat=seat, command=Concede()), seat, now=10.0)
    assert not any(isinstance(e, SeatBack) for e in events)  # back once: nothing more to record
