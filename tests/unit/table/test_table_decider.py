"""The table's rules as data: given these past events, when this command, then these events or
this refusal (tests/given.py). No database, no clock: the composed decider alone (domain/table),
deciding with no seat (``ctx.seat`` None), a clock at 5.0 and ``random.Random(7)``."""

from __future__ import annotations

import pytest

from domain.decider import Concede
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
)
from domain.table.events import GameCreated, GameStarted, SeatJoined, SeatLeft, SeatsErased
from domain.table.state import Table
from tests.given import Rules, given_for

KIND = "exploding_kittens"
RULES = for_kind(KIND)
# given(None, *events): the table's empty log, then these events.
given = given_for(
    Rules(decide=lambda table, command, ctx: RULES.decide(table, command, ctx).events, fold=RULES.fold)
)
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


def started() -> Table:
    table: Table = given(None, CREATED, ALICE, BOB).when(StartGame(), now=5.0, seed=7).state
    return table


def test_given_nothing_when_created_then_the_game_is_created_with_the_defaults() -> None:
    events = given(None).when(CreateGame(kind=KIND, options={"players": 2}), now=5.0).events
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
    refused = given(None).when(CreateGame(kind=KIND, options={"players": 2}, spectator_delay=delay))
    assert (refused.code, refused.kind) == ("invalid_spectator_delay", "invalid")


def test_given_nothing_when_created_with_bad_options_then_invalid_options() -> None:
    given(None).when(CreateGame(kind=KIND, options={"players": 99})).then("invalid_options")


def test_given_a_created_game_when_a_player_joins_then_the_first_free_seat_is_taken_with_a_trimmed_name() -> (
    None
):
    given(None, CREATED, ALICE).when(JoinSeat(name="  bob ", occupancy="b2")).then(
        [SeatJoined(seat=1, name="bob", occupancy="b2")]
    )


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "a\x00b", "a\nb", "\x1b[31mred", "a\x9bb"])
def test_given_a_created_game_when_joining_with_a_bad_name_then_invalid_name(name: str) -> None:
    refused = given(None, CREATED).when(JoinSeat(name=name, occupancy="o"))
    assert (refused.code, refused.kind) == ("invalid_name", "invalid")


def test_given_every_seat_taken_when_joining_then_game_full() -> None:
    refused = given(None, CREATED, ALICE, BOB).when(JoinSeat(name="carol", occupancy="c1"))
    assert (refused.code, refused.kind) == ("game_full", "conflict")


def test_given_a_started_game_when_joining_then_game_already_started() -> None:
    given(started()).when(JoinSeat(name="carol", occupancy="c1")).then("game_already_started")


def test_given_a_free_seat_when_started_then_seats_not_filled() -> None:
    refused = given(None, CREATED, ALICE).when(StartGame())
    assert (refused.code, refused.kind) == ("seats_not_filled", "conflict")


def test_given_every_seat_taken_when_started_then_the_game_starts_and_is_set_up() -> None:
    events = given(None, CREATED, ALICE, BOB).when(StartGame(), now=9.0, seed=7).events
    assert events[0] == GameStarted(started_at=9.0)
    assert len(events) > 1  # the game's own setup follows


def test_given_a_started_game_when_started_again_then_game_already_started() -> None:
    given(started()).when(StartGame()).then("game_already_started")


def test_given_an_open_game_when_the_holder_leaves_then_the_seat_is_free() -> None:
    given(None, CREATED, ALICE).when(LeaveSeat(seat=0, holder="a1")).then([SeatLeft(seat=0)])


def test_given_a_seat_taken_again_when_the_old_holder_leaves_then_seat_token_revoked() -> None:
    table = given(None, CREATED, ALICE, SeatLeft(seat=0), SeatJoined(seat=0, name="eve", occupancy="e1"))
    refused = table.when(LeaveSeat(seat=0, holder="a1"))
    assert (refused.code, refused.kind) == ("seat_token_revoked", "forbidden")


def test_given_a_running_game_when_a_seat_leaves_then_it_concedes_through_the_games_rules() -> None:
    after, _ = given(started()).when(LeaveSeat(seat=1, holder="b1"), now=5.0, seed=7)
    assert after is not None and 1 in after.conceded


def test_given_an_open_game_when_a_seat_plays_then_game_not_started() -> None:
    refused = given(None, CREATED, ALICE, BOB).when(Play(seat=0, command=Concede(), holder="a1"))
    assert (refused.code, refused.kind) == ("game_not_started", "conflict")


def test_given_a_running_game_when_another_holder_plays_then_seat_token_revoked() -> None:
    given(started()).when(Play(seat=0, command=Concede(), holder="b1")).then("seat_token_revoked")


def test_given_a_running_game_when_a_seat_plays_then_the_game_decides_for_that_seat() -> None:
    table = started()
    legal = RULES.game.legal_commands(table.state, 0) or RULES.game.legal_commands(table.state, 1)
    seat = 0 if RULES.game.legal_commands(table.state, 0) else 1
    play = Play(seat=seat, command=legal[0], holder=table.occupancies[seat])
    assert given(table).when(play, now=5.0, seed=7).events  # a game command decided by the game


def test_given_an_open_game_when_the_deadline_is_checked_then_nothing_happens() -> None:
    given(None, CREATED, ALICE).when(ActOnDeadline(), now=5.0).then([])


def test_given_a_running_game_before_its_deadline_when_checked_then_nothing_happens() -> None:
    table = started()
    due = RULES.deadline(table)
    given(table).when(ActOnDeadline(), now=(due - 1.0) if due is not None else 5.0, seed=7).then([])


def test_given_a_game_when_created_again_then_refused() -> None:
    given(None, CREATED).when(CreateGame(kind=KIND, options={"players": 2})).then("game_exists")


def test_given_a_running_game_when_a_person_is_erased_then_a_tombstone_names_their_seats() -> None:
    table = given(None, CREATED, ALICE, BOB, GameStarted(started_at=2.0))
    erased = table.when(EraseSeats(seats=[0, 0], pseudonym="Player 7f3a"))
    assert erased.events == [SeatsErased(seats=[0], pseudonym="Player 7f3a")]
    after = erased.state
    assert after is not None and after.seats == ("Player 7f3a", "bob")


def test_given_a_game_when_erasing_a_seat_it_does_not_have_then_invalid_seat() -> None:
    erase = EraseSeats(seats=[5], pseudonym="Player 7f3a")
    given(None, CREATED, ALICE).when(erase).then("invalid_seat")


def test_given_a_game_when_erasing_under_a_pseudonym_that_is_no_name_then_invalid_name() -> None:
    given(None, CREATED, ALICE).when(EraseSeats(seats=[0], pseudonym="")).then("invalid_name")
