"""The one cache of folded tables (service/app/tables.py), over the in-memory store: commands, a
lagging reader (the projector) and another instance's appends share it. No PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

from service.app.audit import open_to_anyone
from service.app.games import GameService
from service.app.tables import Tables
from service.store.events import EventStore
from tests.memory_store import MemoryEventStore

KIND = "exploding_kittens"
OPTIONS = {"players": 2, "reaction_window": 0, "seed": 3}


class CountingStore(MemoryEventStore):
    """Counts the rows each fold reads."""

    def __init__(self) -> None:
        super().__init__()
        self.rows_read = 0

    async def read_bodies(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[tuple[str, int, str]]:
        rows = await super().read_bodies(game_id, after_seq, up_to_seq)
        self.rows_read += len(rows)
        return rows


async def started(store: CountingStore) -> tuple[GameService, uuid.UUID]:
    typed: Any = store
    event_store: EventStore = typed
    games = GameService(event_store, tables=Tables(store), clock=lambda: 100.0)
    game_id, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    await games.lobby.join(game_id, "alice")
    await games.lobby.join(game_id, "bob")
    await games.lobby.start(game_id)
    return games, game_id


async def test_commands_read_their_own_appends_from_the_cache() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    read = store.rows_read
    table = await games.load(game_id, cached_ok=True)
    assert table.version == len(await store.read(game_id))
    assert store.rows_read == read


async def test_a_lagging_reader_folds_on_from_its_own_table_not_from_the_start() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    tables = games.tables
    head = len(await store.read(game_id))
    behind = await tables.fold(game_id, head - 1)  # the projector, one event behind
    assert behind is not None and behind.version == head - 1
    store.rows_read = 0
    assert await tables.fold(game_id, head - 1) is behind  # kept next to the newest
    assert (await tables.fold(game_id, head)) is tables.latest(game_id)
    assert store.rows_read == 0


async def test_an_append_elsewhere_makes_the_newest_stale_but_still_a_base() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    head = len(await store.read(game_id))
    games.invalidate(game_id, head + 1)  # another instance appended
    assert games.tables.latest(game_id) is None  # views ask the log
    store.rows_read = 0
    table = await games.load(game_id)
    assert table.version == head
    assert store.rows_read == 0  # nothing new in this store: folded on from the stale table


async def test_the_cache_is_bounded_in_games() -> None:
    store = CountingStore()
    games, first = await started(store)
    games.tables.size = 1
    second, _ = await games.lobby.create(KIND, OPTIONS, public=True, spectator_delay=0)
    assert games.tables.latest(first) is None
    assert games.tables.latest(second) is not None


async def test_the_lagging_readers_table_is_forgotten_when_it_starts_over() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    head = len(await store.read(game_id))
    behind = await games.tables.fold(game_id, head - 1)
    assert games.tables.behind(game_id) is behind
    games.tables.forget_behind()
    assert games.tables.behind(game_id) is None
    assert games.tables.latest(game_id) is not None  # the commands' table stays


async def test_a_game_another_instance_finished_is_open_to_audit_before_its_notification() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    typed: Any = store
    elsewhere = GameService(typed, tables=Tables(store), clock=lambda: 100.0)
    assert (await elsewhere.load(game_id, cached_ok=True)).status == "running"  # cached there
    await games.lobby.leave(game_id, 1)  # the game ends through the first instance
    assert (await elsewhere.load(game_id, cached_ok=True)).status == "running"  # not told yet
    assert await open_to_anyone(elsewhere, game_id)


async def test_a_command_decided_on_its_guard_s_table_takes_the_newer_one_an_append_left() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    guards = await games.load(game_id, cached_ok=True)  # taken by a guard
    assert games.tables.past(game_id, guards) is None  # still the newest
    await games.lobby.leave(game_id, 1)  # another command of this instance appends meanwhile
    newer = games.tables.past(game_id, guards)
    assert newer is not None and newer is games.tables.latest(game_id)


async def test_a_reader_looking_back_keeps_nothing_in_the_cache() -> None:
    store = CountingStore()
    games, game_id = await started(store)
    head = len(await store.read(game_id))
    back = await games.tables.fold(game_id, 2, keep=False)
    assert back is not None and back.version == 2
    assert games.tables.behind(game_id) is None
    assert games.tables.latest(game_id) is not None and games.tables.latest(game_id).version == head
