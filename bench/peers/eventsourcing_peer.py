"""Our event store next to a peer library (``eventsourcing`` with its PostgreSQL persistence),
same workload, same PostgreSQL server, same run.

Run: ``.venv/bin/python bench/peers/eventsourcing_peer.py [--games 320] [--writers 8]``
(needs the bench extra: ``.venv/bin/pip install 'eventsourcing[postgres]' 'psycopg[binary]'``).

Workload, identical on both sides move for move (and with no cache on either, so every load reads
the log):
- G Exploding Kittens games (2-5 players, reaction window 0), set up before the clock starts;
- W concurrent writers (8), each owning G/W games, loop until every one of its games is over:
  load a game from the database (read its events, decode them, fold them with the game's
  ``evolve``), pick a random legal move, ``decide`` it, append the resulting events (one move:
  usually 1-3 events) with optimistic concurrency.
- Each game draws its moves from its own seeded random generator and its own clock, so both sides
  play the very same games, to the end: the same moves, the same events, the same loads (a load
  costs more as a game grows, so a time-boxed run would hand the faster side longer games).
- ours: ``service.store.events.EventStore`` (asyncpg, ``playlog_append``: hash chain, idempotency row,
  per-game lock), W asyncio tasks, each on its own connection of a pool of W;
- peer: an ``eventsourcing`` ``Application`` whose aggregate holds the same game state; its
  events carry the same event JSON; ``repository.get`` + ``save``; W threads on a pool of W
  psycopg connections (the library is synchronous).

Then the replay rate: the same R complete games (generated once, written identically to both
sides, one append per move) rebuilt from the database one after the other, events folded per
second (ours: ``EventStore.read`` + decode + fold; peer: ``repository.get``). Ours counts the
extra options event each game starts with; the peer counts its Created event: same count.

Targets: ours >= 5x the peer on writes and >= 3x on replay.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.lib

import msgspec

from bench.lib import common
from domain.decider import Concede, Context
from domain.exploding_kittens import DECIDER

WRITE_TARGET = 5.0
REPLAY_TARGET = 3.0
OPTIONS_TYPE = "bench.options"

_event_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(DECIDER.types.event)
_events_decoder: msgspec.json.Decoder[list[Any]] = msgspec.json.Decoder(list[DECIDER.types.event])
_encoder = msgspec.json.Encoder()


REPLAY_ROUNDS = 5  # every game replayed this many times: a longer, steadier measurement


def new_options(rng: random.Random) -> dict[str, Any]:
    return {"players": rng.randint(2, 5), "reaction_window": 0, "edition": rng.choice(["2022", "classic"])}


def initial(options: dict[str, Any]) -> Any:
    return DECIDER.initial_state(DECIDER.parse_options(options))


def move(state: Any, rng: random.Random, now: float) -> list[Any] | None:
    """One random legal move's events, or None when the game is over."""
    if DECIDER.outcome(state) is not None:
        return None
    moves = [
        (seat, command)
        for seat in range(state.players)
        for command in DECIDER.legal_commands(state, seat)
        if not isinstance(command, Concede)
    ]
    if not moves:
        return None
    seat, command = rng.choice(moves)
    return list(DECIDER.decide(state, command, Context(rng, now, seat)))


class Game:
    """One game of the write phase: its setup and the seeded source of its moves, so that both
    sides play it identically."""

    def __init__(self, seed: int, index: int) -> None:
        self.rng = random.Random(f"{seed}:{index}")
        self.options = new_options(self.rng)
        self.setup = list(DECIDER.start(initial(self.options), Context(self.rng, 0.0, None)))
        self.clock = 0.0

    def next_move(self, state: Any) -> list[Any] | None:
        self.clock += 1.0
        return move(state, self.rng, self.clock)


def cpu_now(url: str) -> tuple[float, float]:
    return common.postgres_cpu_seconds(url), common.own_cpu_seconds()


def cpu_since(url: str, start: tuple[float, float], moves: int) -> dict[str, float]:
    """CPU milliseconds per move since ``start``: the database's and this process's."""
    pg, own = cpu_now(url)
    return {"pg ms/move": 1000 * (pg - start[0]) / moves, "bench ms/move": 1000 * (own - start[1]) / moves}


def tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


def full_games(count: int, seed: int) -> list[tuple[dict[str, Any], list[list[Any]]]]:
    """``count`` complete random games, as (options, the events of each move), generated once and
    written identically to both sides for the replay comparison."""
    out = []
    for index in range(count):
        game = Game(seed + 1, index)  # not one of the write phase's games
        state = DECIDER.fold(initial(game.options), game.setup)
        batches = [game.setup]
        while (batch := game.next_move(state)) is not None:
            state = DECIDER.fold(state, batch)
            batches.append(batch)
        out.append((game.options, batches))
    return out


# -- ours ----------------------------------------------------------------------------------------


async def ours(url: str, plan: list[Game], writers: int, replay_set: list[Any]) -> dict[str, float]:
    from service.store.events import EventStore, NewEvent
    from service.store.pool import create_pool

    pool = await create_pool(url, min_size=writers, max_size=writers)
    store = EventStore(pool)
    ids = {uuid.uuid4(): game for game in plan}

    async def setup(game_id: uuid.UUID, game: Game) -> None:
        batch = [NewEvent(OPTIONS_TYPE, _encoder.encode(game.options))]
        batch += [NewEvent(tag(e), _encoder.encode(e)) for e in game.setup]
        await store.append(game_id, 0, batch)

    items = list(ids.items())
    for chunk in range(0, len(items), writers):
        await asyncio.gather(*(setup(*item) for item in items[chunk : chunk + writers]))

    async def load(game_id: uuid.UUID, on: EventStore = store) -> tuple[Any, int]:
        bodies = await on.read_bodies(game_id)
        state = initial(msgspec.json.decode(bodies[0][2]))
        # The events as one JSON array: one decode call instead of one per event.
        events = _events_decoder.decode(f"[{','.join(data for _type, _version, data in bodies[1:])}]")
        return DECIDER.fold(state, events), len(bodies)

    moves = 0
    events = 0

    async def writer(mine: list[uuid.UUID], wrng: random.Random) -> None:
        nonlocal moves, events
        live = list(mine)
        # A writer keeps one of the W pooled connections for its whole loop (EventStore runs on a
        # pool or on one connection); the peer's library checks one out of its pool per call.
        async with pool.acquire() as conn:
            own = EventStore(conn)
            while live:
                game_id = wrng.choice(live)
                state, version = await load(game_id, own)
                batch = ids[game_id].next_move(state)
                if batch is None:
                    live.remove(game_id)
                    continue
                await own.append(game_id, version, [NewEvent(tag(e), _encoder.encode(e)) for e in batch])
                moves += 1
                events += len(batch)

    game_ids = list(ids)
    wrng = random.Random(0)
    cpu = cpu_now(url)
    started = time.perf_counter()
    await asyncio.gather(
        *(writer(game_ids[w::writers], random.Random(wrng.random())) for w in range(writers))
    )
    elapsed = time.perf_counter() - started
    cpu = cpu_since(url, cpu, moves)

    replay_ids = []
    for options, batches in replay_set:
        game_id = uuid.uuid4()
        version = 0
        for n, batch in enumerate(batches):
            new = [NewEvent(tag(e), _encoder.encode(e)) for e in batch]
            if n == 0:
                new.insert(0, NewEvent(OPTIONS_TYPE, _encoder.encode(options)))
            await store.append(game_id, version, new)
            version += len(new)
        replay_ids.append(game_id)
    replayed = 0
    replay_started = time.perf_counter()
    for _ in range(REPLAY_ROUNDS):
        for game_id in replay_ids:
            _, n = await load(game_id)
            replayed += n
    replay_elapsed = time.perf_counter() - replay_started
    await pool.close()
    return {
        "moves": moves,
        "moves/s": moves / elapsed,
        "events/s": events / elapsed,
        **cpu,
        "replay events/s": replayed / replay_elapsed,
        "replayed": replayed,
    }


# -- the peer: eventsourcing ----------------------------------------------------------------------


def peer(url: str, plan: list[Game], writers: int, replay_set: list[Any]) -> dict[str, float]:
    parts = urlsplit(url)
    os.environ.update(
        {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": parts.path.lstrip("/"),
            "POSTGRES_HOST": common.socket_dir(url),
            "POSTGRES_PORT": "5432",
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "",
            "POSTGRES_POOL_SIZE": str(writers),
            "POSTGRES_MAX_OVERFLOW": "0",
            "CREATE_TABLE": "y",
        }
    )
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate

    class PeerGame(Aggregate):
        class Created(Aggregate.Created):
            options: dict[str, Any]

        class Moved(Aggregate.Event):
            type: str
            data: str

            def apply(self, aggregate: Any) -> None:
                aggregate.state = DECIDER.evolve(aggregate.state, _event_decoder.decode(self.data))

        def __init__(self, options: dict[str, Any]) -> None:
            self.state = initial(options)

        def record(self, events: list[Any]) -> None:
            for e in events:
                self.trigger_event(self.Moved, type=tag(e), data=_encoder.encode(e).decode())

    class Games(Application):  # type: ignore[type-arg]
        pass

    app = Games()
    ids = {}
    for plan_game in plan:
        game = PeerGame(plan_game.options)
        game.record(plan_game.setup)
        app.save(game)
        ids[game.id] = plan_game

    counts = {"moves": 0, "events": 0}
    lock = threading.Lock()

    def writer(mine: list[Any], wrng: random.Random) -> None:
        live = list(mine)
        while live:
            game_id = wrng.choice(live)
            game = app.repository.get(game_id)
            batch = ids[game_id].next_move(game.state)
            if batch is None:
                live.remove(game_id)
                continue
            game.record(batch)
            app.save(game)
            with lock:
                counts["moves"] += 1
                counts["events"] += len(batch)

    game_ids = list(ids)
    wrng = random.Random(0)
    threads = [
        threading.Thread(target=writer, args=(game_ids[w::writers], random.Random(wrng.random())))
        for w in range(writers)
    ]
    cpu = cpu_now(url)
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    cpu = cpu_since(url, cpu, counts["moves"])

    replay_ids = []
    for options, batches in replay_set:
        game = PeerGame(options)
        for batch in batches:
            game.record(batch)
            app.save(game)
        replay_ids.append(game.id)
    replayed = 0
    replay_started = time.perf_counter()
    for _ in range(REPLAY_ROUNDS):
        for game_id in replay_ids:
            replayed += app.repository.get(game_id).version
    replay_elapsed = time.perf_counter() - replay_started
    app.close()
    return {
        "moves": counts["moves"],
        "moves/s": counts["moves"] / elapsed,
        "events/s": counts["events"] / elapsed,
        **cpu,
        "replay events/s": replayed / replay_elapsed,
        "replayed": replayed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=320, help="games each side plays to the end")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--replay-games", type=int, default=60,
                        help="complete games written identically to both sides, then replayed")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    common.install_uvloop()

    admin = common.start_postgres()
    ours_url, ours_db = common.fresh_database(admin, "ours")
    peer_url, peer_db = common.fresh_database(admin, "peer", migrate=False)
    replay_set = full_games(args.replay_games, args.seed)
    try:
        # A fresh plan for each side: a game's random source is consumed as it is played.
        plan = [Game(args.seed, index) for index in range(args.games)]
        mine = asyncio.run(ours(ours_url, plan, args.writers, replay_set))
        plan = [Game(args.seed, index) for index in range(args.games)]
        theirs = peer(peer_url, plan, args.writers, replay_set)
    finally:
        common.drop_database(admin, ours_db)
        common.drop_database(admin, peer_db)

    import importlib.metadata as md

    import eventsourcing

    write_ratio = mine["moves/s"] / theirs["moves/s"]
    replay_ratio = mine["replay events/s"] / theirs["replay events/s"]
    print(f"playlog bench/peers/eventsourcing_peer.py  ({common.machine()})")
    print(f"same embedded PostgreSQL; the same {args.games} games played to the end on each side by "
          f"{args.writers} concurrent writers; eventsourcing {md.version('eventsourcing')}, "
          f"psycopg {md.version('psycopg')}")  # fmt: skip
    del eventsourcing
    common.print_table(
        "Load + one move + append, no cache on either side; then replay of every game",
        ["figure", "ours (EventStore)", "peer (eventsourcing)", "ours / peer", "target"],
        [
            [
                "moves/s (load, decide, append)",
                mine["moves/s"],
                theirs["moves/s"],
                f"{write_ratio:.2f}x",
                f">= {WRITE_TARGET:g}x {'MET' if write_ratio >= WRITE_TARGET else 'MISSED'}",
            ],
            ["events appended/s", mine["events/s"], theirs["events/s"], "", ""],
            ["moves played", int(mine["moves"]), int(theirs["moves"]), "", ""],
            ["CPU ms per move: PostgreSQL", mine["pg ms/move"], theirs["pg ms/move"], "", ""],
            ["CPU ms per move: bench process", mine["bench ms/move"], theirs["bench ms/move"], "", ""],
            [
                "replay: events folded/s",
                mine["replay events/s"],
                theirs["replay events/s"],
                f"{replay_ratio:.2f}x",
                f">= {REPLAY_TARGET:g}x {'MET' if replay_ratio >= REPLAY_TARGET else 'MISSED'}",
            ],
            ["events replayed", int(mine["replayed"]), int(theirs["replayed"]), "", ""],
        ],
    )
    plot(common.PLOTS / "peer_eventsourcing.png", mine, theirs)
    print("plot: bench/plots/peer_eventsourcing.png")


def plot(path: Any, mine: dict[str, float], theirs: dict[str, float]) -> None:
    """playlog next to the peer: moves/s, replay events/s and CPU per move, side by side."""

    def draw(plt: Any) -> None:
        figure = plt.gcf()
        figure.set_size_inches(11, 4)
        axes = figure.subplots(1, 3)
        sides = ["playlog", "eventsourcing"]
        colors = ["tab:blue", "tab:orange"]
        panels = [
            ("moves/s (load, decide, append)", [mine["moves/s"], theirs["moves/s"]]),
            ("replay: events folded/s", [mine["replay events/s"], theirs["replay events/s"]]),
        ]
        for ax, (title, values) in zip(axes[:2], panels, strict=True):
            ax.bar(sides, values, color=colors)
            ax.set_title(title, fontsize=10)
            for x, v in enumerate(values):
                ax.annotate(f"{v:,.0f}", (x, v), ha="center", va="bottom", fontsize=9)
        ax = axes[2]
        postgres = [mine["pg ms/move"], theirs["pg ms/move"]]
        process = [mine["bench ms/move"], theirs["bench ms/move"]]
        ax.bar(sides, postgres, color="tab:gray", label="PostgreSQL")
        ax.bar(sides, process, bottom=postgres, color=colors, label="bench process")
        ax.set_title("CPU ms per move (lower is better)", fontsize=10)
        ax.legend(fontsize=8)
        figure.suptitle("playlog next to the eventsourcing library (same games, same PostgreSQL)")

    common.save_plot(path, draw)


if __name__ == "__main__":
    main()
