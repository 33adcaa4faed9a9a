"""How cost grows with work, on the embedded PostgreSQL.

Run: ``.venv/bin/python bench/scaling.py [--seconds 5] [--lengths 10,100,1000,5000]
[--concurrency 1,10,50,200,500]``

1. Command latency against the number of events already in the game (should stay flat): for each
   length N a game's log is first padded to N events (lobby join/leave pairs, appended in batches
   through ``EventStore.append``), then its seats are filled, it starts, and random legal commands
   go through ``GameService.command`` in process (no HTTP: this isolates the log's cost from the
   web stack), with the service's cache as in production. Baseline: the same at N = 10.
2. Replay time against game length (should be linear): ``GameService.load(fresh=True)``, i.e.
   read every event of the game from the database, decode and fold it; the least-squares slope
   (ms per 1,000 events) and the intercept are printed. The padding events are lobby events,
   cheaper to fold than game events (see bench/peers/eventsourcing_peer.py for the rate on real games).
3. Throughput against concurrent games, through HTTP (``playlog serve``, the driver of
   bench/commands.py), K = 1 .. 500, ``--seconds`` each.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import msgspec

from bench.lib import common
from projections.table import GameCreated, SeatJoined, SeatLeft

PAD_BATCH = 500


async def latency_and_replay(
    url: str, lengths: list[int], commands: int, seed: int
) -> list[dict[str, float]]:
    from domain.decider import Concede
    from service.app.games import GameService
    from service.store.events import EventStore, NewEvent
    from service.store.pool import create_pool

    pool = await create_pool(url, min_size=2, max_size=4)
    games = GameService(EventStore(pool))
    rng = random.Random(seed)
    encoder = msgspec.json.Encoder()
    results = []
    for length in lengths:
        game_id = uuid.uuid4()
        created = GameCreated(
            kind="exploding_kittens",
            options={"players": 4, "reaction_window": 0},
            public=True,
            spectator_delay=0,
            created_at=time.time(),
        )
        pad: list[Any] = [created]
        while len(pad) < max(1, length - 5):  # 4 joins and the start follow
            pad += [SeatJoined(seat=0, name="pad"), SeatLeft(seat=0)]
        version = 0
        for start in range(0, len(pad), PAD_BATCH):
            batch = [
                NewEvent(type=str(type(e).__struct_config__.tag), data=encoder.encode(e))
                for e in pad[start : start + PAD_BATCH]
            ]
            await games.store.append(game_id, version, batch)
            version += len(batch)
        games.forget(game_id)
        for n in range(4):
            await games.lobby.join(game_id, f"p{n}")
        await games.lobby.start(game_id)
        table = await games.load(game_id)
        events_before = table.version

        latencies = []
        sent = 0
        while sent < commands and table.status == "running":
            moves = [
                (seat, c)
                for seat in range(4)
                for c in table.decider.legal_commands(table.state, seat)
                if not isinstance(c, Concede)
            ]
            seat, command = rng.choice(moves)
            started = time.perf_counter()
            await games.seats.command(game_id, seat, encoder.encode(command))
            latencies.append((time.perf_counter() - started) * 1000)
            sent += 1
            table = await games.load(game_id)

        replays = []
        for _ in range(3):
            started = time.perf_counter()
            replayed = await games.load(game_id, fresh=True)
            replays.append((time.perf_counter() - started) * 1000)
        results.append(
            {
                "events": float(events_before),
                "replayed": float(replayed.version),
                "commands": float(len(latencies)),
                "p50": common.percentile(latencies, 50),
                "p95": common.percentile(latencies, 95),
                "replay_ms": min(replays),
            }
        )
    await pool.close()
    return results


def slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mx, my = statistics.mean(xs), statistics.mean(ys)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return k, my - k * mx


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lengths", default="10,100,1000,5000")
    parser.add_argument("--commands", type=int, default=60, help="commands timed per length")
    parser.add_argument("--concurrency", default="1,10,50,200,500")
    parser.add_argument("--seconds", type=float, default=5.0, help="per concurrency level")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    common.install_uvloop()
    import logging

    import commands as http_bench

    from service.runtime import log as logs

    logs.configure("json", level=logging.WARNING)  # the in-process service: no line per command

    lengths = [int(x) for x in args.lengths.split(",")]
    levels = [int(x) for x in args.concurrency.split(",")]
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "scaling")
    try:
        by_length = asyncio.run(latency_and_replay(url, lengths, args.commands, args.seed))
        by_level = []
        with common.Service(url, data_dir=common.DEFAULT_DATA_DIR / "service") as service:
            for k in levels:
                stats, elapsed = asyncio.run(
                    http_bench.drive(service.port, k, args.seconds, min(2.0, args.seconds / 2), args.seed)
                )
                ms = [x * 1000 for x in stats.latencies]
                by_level.append((k, stats.commands / elapsed, common.percentile(ms, 50),
                                 common.percentile(ms, 99), len(stats.errors)))  # fmt: skip
    finally:
        common.drop_database(admin, name)

    print(f"playlog bench/scaling.py  ({common.machine()})")
    base = by_length[0]
    common.print_table(
        "1. Command latency (in process, cached) against events already in the game",
        ["events in game", "commands", "p50 ms", "p95 ms", "p50 / p50 at first length"],
        [
            [int(r["events"]), int(r["commands"]), r["p50"], r["p95"], f"{r['p50'] / base['p50']:.2f}x"]
            for r in by_length
        ],
    )
    k, c = slope([r["replayed"] for r in by_length], [r["replay_ms"] for r in by_length])
    common.print_table(
        "2. Replay (read + decode + fold from the database) against game length",
        ["events", "replay ms", "linear fit ms", "events/s"],
        [
            [int(r["replayed"]), r["replay_ms"], c + k * r["replayed"], r["replayed"] / r["replay_ms"] * 1000]
            for r in by_length
        ],
    )
    print(f"slope: {k * 1000:.2f} ms per 1,000 events, intercept {c:.2f} ms")
    base_rate = by_level[0][1]
    common.print_table(
        "3. Throughput through HTTP against concurrent games",
        ["concurrent games", "commands/s", "p50 ms", "p99 ms", "errors", "vs 1 game"],
        [[k, rate, p50, p99, errors, f"{rate / base_rate:.2f}x"] for k, rate, p50, p99, errors in by_level],
    )
    plot_replay(common.PLOTS / "replay.png", by_length, k, c)
    plot_throughput(common.PLOTS / "throughput.png", by_level)
    print("plots: bench/plots/replay.png, bench/plots/throughput.png")


def plot_replay(path: Path, by_length: list[dict[str, float]], k: float, c: float) -> None:
    def draw(plt: Any) -> None:
        xs = [r["replayed"] for r in by_length]
        plt.plot(xs, [r["replay_ms"] for r in by_length], "o", label="measured (best of 3)")
        plt.plot(xs, [c + k * x for x in xs], "-", label=f"linear fit: {k * 1000:.2f} ms per 1,000 events")
        plt.xlabel("events in the game")
        plt.ylabel("replay: read + decode + fold, ms")
        plt.title("playlog: replay time against game length")
        plt.legend()

    common.save_plot(path, draw)


def plot_throughput(path: Path, by_level: list[tuple[int, float, float, float, int]]) -> None:
    def draw(plt: Any) -> None:
        ks = [level[0] for level in by_level]
        axis = plt.gca()
        axis.plot(ks, [level[1] for level in by_level], "o-", color="tab:blue", label="commands/s")
        axis.set_xscale("log")
        axis.set_xlabel("concurrent games (closed loop, HTTP)")
        axis.set_ylabel("commands/s", color="tab:blue")
        latency = axis.twinx()
        latency.plot(ks, [level[3] for level in by_level], "s--", color="tab:red", label="p99 ms")
        latency.set_ylabel("p99 command latency, ms", color="tab:red")
        plt.title("playlog: throughput against concurrent games")

    common.save_plot(path, draw)


if __name__ == "__main__":
    main()
