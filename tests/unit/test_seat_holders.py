"""Who holds each seat, folded from the log: occupancy ids, players, concessions, statistics,
each player's games."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime

import msgspec

from domain.decider import Context, Outcome
from domain.exploding_kittens.events import PlayerConceded
from projections import read_models
from projections.table import GameCreated, GameStarted, SeatJoined, SeatLeft, Table, decode, evolve, fold

CREATED = GameCreated(
    kind="exploding_kittens",
    options={"players": 2, "reaction_window": 0},
    public=True,
    spectator_delay=0,
    created_at=0.0,
)


def seated(*joins: SeatJoined) -> Table:
    table = fold([CREATED, *joins])
    assert table is not None
    return table


def test_given_a_log_from_before_occupancies_when_decoded_then_the_join_has_none() -> None:
    old = b'{"type":"lobby.joined","seat":0,"name":"alice"}'
    joined = decode("exploding_kittens", "lobby.joined", old, 1)
    assert joined == SeatJoined(seat=0, name="alice", occupancy="", player=None)
    assert seated(joined).occupancies == ("", None)


def test_given_a_seat_left_and_taken_again_then_the_new_occupancy_holds_it() -> None:
    table = seated(
        SeatJoined(seat=0, name="alice", occupancy="a1", player="p-alice"),
        SeatLeft(seat=0),
    )
    assert (table.seats, table.occupancies, table.players) == ((None, None), (None, None), (None, None))
    table = evolve(table, SeatJoined(seat=0, name="bob", occupancy="b1"))
    assert (table.seats, table.occupancies, table.players) == (("bob", None), ("b1", None), (None, None))


def test_given_a_running_game_when_a_seat_concedes_then_the_table_remembers_it() -> None:
    table = seated(
        SeatJoined(seat=0, name="a", occupancy="a1"),
        SeatJoined(seat=1, name="b", occupancy="b1"),
    )
    table = evolve(table, GameStarted(started_at=10.0))
    for event in table.decider.start(table.state, Context(random.Random(1), 10.0, None)):
        table = evolve(table, event)
    assert (table.started_at, table.conceded, table.finished_version) == (10.0, frozenset(), None)
    conceded = msgspec.structs.replace(PlayerConceded(seat=1, discarded=()), discarded=table.state.hands[1])
    table = evolve(table, conceded)
    assert table.conceded == frozenset({1})


def test_two_players_with_one_display_name_keep_separate_games_and_guests_get_none() -> None:
    before = seated(
        SeatJoined(seat=0, name="sam", occupancy="x", player="p1"),
        SeatJoined(seat=1, name="sam", occupancy="y", player="p2"),
    )
    after = msgspec.structs.replace(before, status="finished", outcome=None)
    at = datetime.now(UTC)
    games = read_models.changes(uuid.uuid4(), before, after, at).player_games
    assert games is not None and games.finished_at == at
    assert [(row.player, row.seats, row.ended) for row in games.rows] == [
        ("p1", (0,), "lost"),
        ("p2", (1,), "lost"),
    ]
    guests = seated(SeatJoined(seat=0, name="sam"), SeatJoined(seat=1, name="sam"))
    assert read_models.player_games(msgspec.structs.replace(guests, status="finished")) == ()


def test_a_players_games_keep_a_conceded_seat_and_drop_a_seat_left_before_the_start() -> None:
    game_id, at = uuid.uuid4(), datetime.now(UTC)
    table = seated(SeatJoined(seat=0, name="a", occupancy="a1", player="p1"))
    joined = read_models.player_games_change(game_id, None, table, at)
    assert joined is not None and joined.rows == (read_models.PlayerGame("p1", (0,), None),)
    left = evolve(table, SeatLeft(seat=0))
    gone = read_models.player_games_change(game_id, table, left, at)
    assert gone == msgspec.structs.replace(joined, rows=())

    table = seated(
        SeatJoined(seat=0, name="a", occupancy="a1", player="p1"),
        SeatJoined(seat=1, name="b", occupancy="b1", player="p2"),
    )
    running = msgspec.structs.replace(table, status="running")
    conceded = msgspec.structs.replace(running, conceded=frozenset({1}), version=running.version + 1)
    assert read_models.player_games_change(game_id, running, conceded, at) is None  # nothing changed
    finished = msgspec.structs.replace(conceded, status="finished", outcome=Outcome(winners=(0,)))
    change = read_models.player_games_change(game_id, conceded, finished, at)
    assert change is not None and (change.status, change.finished_at) == ("finished", at)
    assert change.rows == (
        read_models.PlayerGame("p1", (0,), "won", "won"),
        read_models.PlayerGame("p2", (1,), "lost", "lost"),
    )


def test_a_player_in_two_seats_has_one_row_and_guests_have_none() -> None:
    table = seated(
        SeatJoined(seat=0, name="a", occupancy="a1", player="p1"),
        SeatJoined(seat=1, name="a", occupancy="a2", player="p1"),
    )
    finished = msgspec.structs.replace(table, status="finished", outcome=Outcome(winners=(1,)))
    assert read_models.player_games(finished) == (read_models.PlayerGame("p1", (0, 1), "won", "won"),)
    guests = seated(SeatJoined(seat=0, name="sam"), SeatJoined(seat=1, name="sam"))
    assert read_models.player_games(guests) == ()
