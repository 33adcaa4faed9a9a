"""GameService's one loop (execute) over the in-memory store: retry on a conflict, idempotency,
refusals confirmed against the log. No PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec
import pytest

from domain.errors import RuleViolation
from domain.table.events import SeatJoined
from service.app.errors import ServiceError
from service.app.games import GameService
from service.store.events import EventStore, NewEvent
from tests.memory_store import MemoryEventStore

KIND = "exploding_kittens"
OPTIONS = {"players": 2, "reaction_window": 0, "seed": 3}


def service(store: MemoryEventStore, retries: int = 5) -> GameService:
    fake: Any = store  # the same interface as EventStore, without PostgreSQL
    typed: EventStore = fake
    return GameService(typed, retries=retries, clock=lambda: 100.0)


async def ready(games: GameService) -> uuid.UUID:
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    await games.lobby.join(game_id, "alice")
    await games.lobby.join(game_id, "bob")
    await games.lobby.start(game_id)
    return game_id


def someone_joined(store: MemoryEventStore, game_id: uuid.UUID) -> None:
    event = SeatJoined(seat=1, name="eve", occupancy="e1")
    store.append_now(game_id, NewEvent(type="lobby.joined", data=msgspec.json.encode(event)))


async def test_given_another_writer_moved_the_game_when_executing_then_the_loop_decides_again() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    store.appends = 0
    store.before_append = lambda gid: (someone_joined(store, gid), setattr(store, "before_append", None))
    seat, joined = await games.lobby.join(game_id, "alice")
    table = joined.table
    # eve took seat 1 between alice's decide and append: alice's retry lands on seat 0 of the
    # fresh table, after eve's event.
    assert (seat, table.seats, table.version) == (0, ("alice", "eve"), 3)
    assert store.appends == 2


async def test_given_a_game_that_always_moves_when_executing_then_version_conflict_after_the_retries() -> (
    None
):
    store = MemoryEventStore()
    games = service(store, retries=3)
    game_id, _ = await games.lobby.create(
        KIND, {"players": 5, "reaction_window": 0}, public=True, spectator_delay=0
    )
    store.appends = 0
    store.before_append = lambda gid: someone_joined(store, gid)
    with pytest.raises(ServiceError) as caught:
        await games.lobby.join(game_id, "alice")
    assert caught.value.code == "version_conflict"
    assert store.appends == 3


async def test_given_a_command_applied_when_sent_again_with_its_key_then_its_events_and_nothing_new() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id = await ready(games)
    table = await games.load(game_id)
    seat = next(s for s in range(2) if table.decider.legal_commands(table.state, s))
    command = msgspec.json.encode(table.decider.legal_commands(table.state, seat)[0])
    first = await games.seats.command(game_id, seat, command, idempotency_key="k1")
    length = len(store.events[game_id])
    again = await games.seats.command(game_id, seat, command, idempotency_key="k1")
    assert [e.seq for e in again.events] == [e.seq for e in first.events]
    assert len(store.events[game_id]) == length


async def test_given_a_key_used_when_reused_for_another_request_then_idempotency_key_reused() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id = await ready(games)
    table = await games.load(game_id)
    seat = next(s for s in range(2) if table.decider.legal_commands(table.state, s))
    legal = table.decider.legal_commands(table.state, seat)
    await games.seats.command(game_id, seat, msgspec.json.encode(legal[0]), idempotency_key="k1")
    with pytest.raises(ServiceError) as caught:
        await games.seats.command(game_id, seat, b'{"type": "Concede"}', idempotency_key="k1")
    assert caught.value.code == "idempotency_key_reused"


async def test_given_a_refusal_on_a_stale_cache_when_the_log_moved_then_decided_again_on_the_log() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    await games.lobby.join(game_id, "alice")
    # bob joins through another instance: this one's cache still shows a free seat.
    someone_joined(store, game_id)
    table = await games.lobby.start(game_id)
    assert table.status == "running"


async def test_given_a_refusal_confirmed_by_the_log_then_it_stands() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    with pytest.raises(RuleViolation) as caught:
        await games.lobby.start(game_id)
    assert caught.value.code == "seats_not_filled"
    assert len(store.events[game_id]) == 1


async def test_given_a_cache_ahead_of_the_log_when_executing_then_the_game_stops_under_an_incident() -> None:
    store = MemoryEventStore()
    games = service(store)
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    await games.lobby.join(game_id, "alice")
    # The log lost alice's acknowledged join (restored from a backup, say) while this instance
    # cached it: deciding bob's join again over seq 2 would give that seq another event.
    del store.events[game_id][-1]
    with pytest.raises(ServiceError) as caught:
        await games.lobby.join(game_id, "bob")
    assert (caught.value.status, caught.value.code) == (409, "game_under_incident")
    assert store.incidents[game_id] == ("cache_ahead_of_log", 2, 1)
    assert len(store.events[game_id]) == 1
    with pytest.raises(ServiceError) as again:  # refused until a moderator clears it
        await games.lobby.join(game_id, "carol")
    assert again.value.code == "game_under_incident"
    assert len(store.events[game_id]) == 1
