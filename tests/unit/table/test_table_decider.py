"""The table's rules as data: given these past events, when this command, then these events or
this refusal. No database, no clock: the composed decider alone (domain/table)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from domain.decider import Context
from domain.errors import RuleViolation
from domain.registry import for_kind
from domain.table.commands import (
    MAX_SPECTATOR_DELAY,
    ActOnDeadline,
    CreateGame,
    EraseSeats,
    JoinSeat,
    LeaveSeat,
    Play,
    StartGame,
    TableCommand,
)
from domain.table.events import GameCreated, GameStarted, SeatJoined, SeatLeft, SeatsErased
from domain.table.refusals import TableRefusal
from domain.table.state import Table

KIND = "exploding_kittens"
RULES = for_kind(KIND)
CREATED = GameCreated(
    kind=KIND,
    options={"players": 2, "reaction_window": 0},
    public=True,
    spectator_delay=0.0,
    created_at=1.0,
    rules_version=1,
)
ALICE = SeatJoined(seat=0, name="alice", occupancy="a1")
BOB = SeatJoined(seat=1, name="bob", occupancy="b1")


def ctx(now: float = 5.0) -> Context:
    return Context(random.Random(7), now, None)


def given(*events: Any) -> Table | None:
    return RULES.fold(None, events)


def when(table: Table | None, command: TableCommand, now: float = 5.0) -> Sequence[Any]:
    return RULES.decide(table, command, ctx(now))


def refused(table: Table | None, command: TableCommand) -> TableRefusal:
    with pytest.raises(TableRefusal) as caught:
        when(table, command)
    return caught.value


def started() -> Table:
    table = given(CREATED, ALICE, BOB)
    assert table is not None
    return RULES.fold(table, when(table, StartGame())) or table


def test_given_nothing_when_created_then_the_game_is_created_with_the_defaults() -> None:
    events = when(None, CreateGame(kind=KIND, options={"players": 2}))
    assert len(events) == 1 and isinstance(events[0], GameCreated)
    assert (events[0].kind, events[0].public, events[0].spectator_delay, events[0].created_at) == (
        KIND,
        True,
        30.0,
        5.0,
    )


@pytest.mark.parametrize("delay", [-1.0, MAX_SPECTATOR_DELAY + 1])
def test_given_nothing_when_created_with_a_delay_out_of_bounds_then_invalid_spectator_delay(
    delay: float,
) -> None:
    refusal = refused(None, CreateGame(kind=KIND, options={"players": 2}, spectator_delay=delay))
    assert (refusal.code, refusal.kind) == ("invalid_spectator_delay", "invalid")


def test_given_nothing_when_created_with_bad_options_then_invalid_options() -> None:
    with pytest.raises(RuleViolation) as caught:
        when(None, CreateGame(kind=KIND, options={"players": 99}))
    assert caught.value.code == "invalid_options"


def test_given_a_created_game_when_a_player_joins_then_the_first_free_seat_is_taken_with_a_trimmed_name() -> (
    None
):
    table = given(CREATED, ALICE)
    assert when(table, JoinSeat(name="  bob ", occupancy="b2")) == [
        SeatJoined(seat=1, name="bob", occupancy="b2")
    ]


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "a\x00b", "a\nb", "\x1b[31mred", "a\x9bb"])
def test_given_a_created_game_when_joining_with_a_bad_name_then_invalid_name(name: str) -> None:
    refusal = refused(given(CREATED), JoinSeat(name=name, occupancy="o"))
    assert (refusal.code, refusal.kind) == ("invalid_name", "invalid")


def test_given_every_seat_taken_when_joining_then_game_full() -> None:
    refusal = refused(given(CREATED, ALICE, BOB), JoinSeat(name="carol", occupancy="c1"))
    assert (refusal.code, refusal.kind) == ("game_full", "conflict")


def test_given_a_started_game_when_joining_then_game_already_started() -> None:
    assert refused(started(), JoinSeat(name="carol", occupancy="c1")).code == "game_already_started"


def test_given_a_free_seat_when_started_then_seats_not_filled() -> None:
    refusal = refused(given(CREATED, ALICE), StartGame())
    assert (refusal.code, refusal.kind) == ("seats_not_filled", "conflict")


def test_given_every_seat_taken_when_started_then_the_game_starts_and_is_set_up() -> None:
    events = when(given(CREATED, ALICE, BOB), StartGame(), now=9.0)
    assert events[0] == GameStarted(started_at=9.0)
    assert len(events) > 1  # the game's own setup follows


def test_given_a_started_game_when_started_again_then_game_already_started() -> None:
    assert refused(started(), StartGame()).code == "game_already_started"


def test_given_an_open_game_when_the_holder_leaves_then_the_seat_is_free() -> None:
    assert when(given(CREATED, ALICE), LeaveSeat(seat=0, holder="a1")) == [SeatLeft(seat=0)]


def test_given_a_seat_taken_again_when_the_old_holder_leaves_then_seat_token_revoked() -> None:
    table = given(CREATED, ALICE, SeatLeft(seat=0), SeatJoined(seat=0, name="eve", occupancy="e1"))
    refusal = refused(table, LeaveSeat(seat=0, holder="a1"))
    assert (refusal.code, refusal.kind) == ("seat_token_revoked", "forbidden")


def test_given_a_running_game_when_a_seat_leaves_then_it_concedes_through_the_games_rules() -> None:
    table = started()
    events = when(table, LeaveSeat(seat=1, holder="b1"))
    after = RULES.fold(table, events)
    assert after is not None and 1 in after.conceded


def test_given_an_open_game_when_a_seat_plays_then_game_not_started() -> None:
    concede = RULES.game.concede
    assert concede is not None
    refusal = refused(given(CREATED, ALICE, BOB), Play(seat=0, command=concede(), holder="a1"))
    assert (refusal.code, refusal.kind) == ("game_not_started", "conflict")


def test_given_a_running_game_when_another_holder_plays_then_seat_token_revoked() -> None:
    concede = RULES.game.concede
    assert concede is not None
    assert refused(started(), Play(seat=0, command=concede(), holder="b1")).code == "seat_token_revoked"


def test_given_a_running_game_when_a_seat_plays_then_the_game_decides_for_that_seat() -> None:
    table = started()
    legal = RULES.game.legal_commands(table.state, 0) or RULES.game.legal_commands(table.state, 1)
    seat = 0 if RULES.game.legal_commands(table.state, 0) else 1
    events = when(table, Play(seat=seat, command=legal[0], holder=table.occupancies[seat]))
    assert events  # a game command decided by the game


def test_given_an_open_game_when_the_deadline_is_checked_then_nothing_happens() -> None:
    assert when(given(CREATED, ALICE), ActOnDeadline()) == []


def test_given_a_running_game_before_its_deadline_when_checked_then_nothing_happens() -> None:
    table = started()
    due = RULES.deadline(table)
    assert when(table, ActOnDeadline(), now=(due - 1.0) if due is not None else 5.0) == []


def test_given_a_game_when_created_again_then_refused() -> None:
    assert refused(given(CREATED), CreateGame(kind=KIND, options={"players": 2})).code == "game_exists"


def test_given_a_running_game_when_a_person_is_erased_then_a_tombstone_names_their_seats() -> None:
    table = given(CREATED, ALICE, BOB, GameStarted(started_at=2.0))
    erased = when(table, EraseSeats(seats=[0, 0], pseudonym="Player 7f3a"))
    assert erased == [SeatsErased(seats=[0], pseudonym="Player 7f3a")]
    after = RULES.fold(table, erased)
    assert after is not None and after.seats == ("Player 7f3a", "bob")


def test_given_a_game_when_erasing_a_seat_it_does_not_have_then_invalid_seat() -> None:
    erase = EraseSeats(seats=[5], pseudonym="Player 7f3a")
    assert refused(given(CREATED, ALICE), erase).code == "invalid_seat"


def test_given_a_game_when_erasing_under_a_pseudonym_that_is_no_name_then_invalid_name() -> None:
    assert refused(given(CREATED, ALICE), EraseSeats(seats=[0], pseudonym="")).code == "invalid_name"
