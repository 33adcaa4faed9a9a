"""Command latency at a fixed arrival rate (open loop), at 25%, 50% and 75% of the measured peak.

Run: ``.venv/bin/python bench/latency.py [--games 200] [--seconds 15] [--levels 25,50,75 | --rates 400,550]``

1. Starts the embedded PostgreSQL, a fresh database and ``playlog serve --workers 2``.
2. Peak: the closed-loop driver of bench/commands.py (K=50 games, each sending its next command
   as soon as the last is answered) for ``--peak-seconds``: commands/s.
3. For each level, commands *arrive* at a fixed rate (level x peak), one every 1/rate seconds on
   a schedule fixed in advance, whatever the service does. Each arrival takes the next idle game
   (``--games`` of them, on their own keep-alive connections) and sends that game's next legal
   command, with an ``Idempotency-Key``. Latency is measured from the arrival's *scheduled*
   time to the answer, so an arrival that had to wait (for an idle game, for the event loop, for
   the service) counts its wait: no coordinated omission. Reading the next actor's view (a seat
   learns it is its turn from its stream or the command's answer) happens after the answer,
   outside the measured time, before the game is idle again.

Prints p50/p99/p99.9 and the achieved rate per level, and writes bench/plots/latency.png
(latency percentiles against offered load). Target: p99 <= 10 ms at 50% of peak (issues 33 and 51).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import commands as closed_loop

from bench.lib import common
from bench.lib.common import Connection
from bench.lib.pgactivity import Activity, Overlap

TARGET_P99_MS = 10.0  # issues 33 and 51: p99 at 50% of the peak
AVOIDED = closed_loop.AVOIDED


@dataclass
class Game:
    """One game on its own connection, with the view of the seat that acts next."""

    conn: Connection
    rng: random.Random
    game_id: str = ""
    tokens: list[str] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)

    async def setup(self) -> None:
        players = self.rng.randint(2, 5)
        options = {"players": players, "reaction_window": 0, "edition": self.rng.choice(["2022", "classic"])}
        created = await self.conn.call(
            "POST", "/games", {"kind": "exploding_kittens", "options": options, "spectator_delay": 0}
        )
        self.game_id = created["game_id"]
        self.tokens = [
            (await self.conn.call("POST", f"/games/{self.game_id}/seats", {"name": f"bot-{n}"}))["token"]
            for n in range(players)
        ]
        await self.conn.call("POST", f"/games/{self.game_id}/start", token=created["host_token"])
        await self.look(0)

    async def look(self, seat: int) -> None:
        path = f"/games/{self.game_id}/seats/{seat}/view"
        self.view = await self.conn.call("GET", path, token=self.tokens[seat])

    async def next_command(self) -> tuple[int, bytes] | None:
        """The acting seat and its command (views read as needed); None when the game is over."""
        for _ in range(10):
            if self.view["status"] == "finished":
                return None
            for seat in closed_loop.actors(self.view["view"]["public"], len(self.tokens)):
                if self.view["seat"] != seat:
                    await self.look(seat)
                legal = [c for c in self.view["view"]["legal_commands"] if c["type"] not in AVOIDED]
                if legal:
                    return seat, common.msgspec.json.encode(self.rng.choice(legal))
            await self.look(self.rng.randrange(len(self.tokens)))
        return None

    async def ready(self) -> tuple[int, bytes]:
        """The next command, starting a new game on this connection when this one is over."""
        while True:
            if self.game_id:
                chosen = await self.next_command()
                if chosen is not None:
                    return chosen
            await self.setup()


@dataclass
class Level:
    rate: float
    latencies: list[float] = field(default_factory=list)  # seconds, from the scheduled time
    errors: list[str] = field(default_factory=list)
    late_starts: int = 0  # arrivals that found no idle game at their scheduled time
    elapsed: float = 0.0
    window: tuple[float, float] = (0.0, 0.0)  # the recorded arrivals' wall-clock span
    stolen: float = 0.0  # CPU seconds the hypervisor held back meanwhile (all cores)
    background: Overlap | None = None  # what PostgreSQL did meanwhile besides commands


async def open_loop(games: list[Game], rate: float, seconds: float, warmup: float) -> Level:
    """Arrivals every 1/rate s for warmup + seconds; only those after the warm-up are recorded."""
    idle: asyncio.Queue[tuple[Game, tuple[int, bytes]]] = asyncio.Queue()
    errors: list[str] = []

    async def prepare(game: Game) -> None:
        try:
            idle.put_nowait((game, await game.ready()))
        except Exception as exc:  # a broken game is left out; the error is reported
            errors.append(f"setup: {exc!r}")

    await asyncio.gather(*(prepare(g) for g in games))
    level = Level(rate)
    level.errors = errors
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.05
    recorded_from = time.time() + 0.05 + warmup
    total = int((warmup + seconds) * rate)
    first_recorded = int(warmup * rate)
    pending: set[asyncio.Task[None]] = set()

    async def arrival(n: int, scheduled: float) -> None:
        if idle.empty():
            level.late_starts += n >= first_recorded
        game, (seat, body) = await idle.get()
        key = f"Idempotency-Key: {game.rng.getrandbits(64):016x}\r\n"
        path = f"/games/{game.game_id}/seats/{seat}/commands?view=true"
        try:
            status, data = await game.conn.request("POST", path, body, game.tokens[seat], key)
        except Exception as exc:
            level.errors.append(f"{exc!r}")
            await game.conn.close()
            game.game_id = ""
            await prepare(game)
            return
        done = loop.time()
        if n >= first_recorded:
            level.latencies.append(done - scheduled)
            if status >= 400:
                level.errors.append(f"{status} {data[:120]!r}")
        if status < 400:
            game.view = common.msgspec.json.decode(data)["view"]
        else:
            await game.look(seat)
        await prepare(game)

    for n in range(total):
        scheduled = start + n / rate
        delay = scheduled - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if n == first_recorded:
            level.stolen = -common.stolen_cpu_seconds()
        task = asyncio.create_task(arrival(n, scheduled))
        pending.add(task)
        task.add_done_callback(pending.discard)
    await asyncio.gather(*pending)
    level.stolen += common.stolen_cpu_seconds()
    level.elapsed = seconds
    level.window = (recorded_from, time.time())
    return level


async def run_levels(
    port: int, fractions: list[float], peak: float, n_games: int, seconds: float, warmup: float, seed: int
) -> list[Level]:
    rng = random.Random(seed)
    games = [Game(Connection(port), random.Random(rng.random())) for _ in range(n_games)]
    try:
        return [await open_loop(games, f * peak, seconds, warmup) for f in fractions]
    finally:
        for game in games:
            await game.conn.close()


def plot(path: Path, fractions: list[float], peak: float, levels: list[Level]) -> None:
    def draw(plt: Any) -> None:
        offered = [lv.rate for lv in levels]
        for q, style in ((50, "o-"), (99, "s-"), (99.9, "^-")):
            ms = [common.percentile([x * 1000 for x in lv.latencies], q) for lv in levels]
            plt.plot(offered, ms, style, label=f"p{q:g}")
        target = f"target p99 at 50%: {TARGET_P99_MS:g} ms"
        plt.axhline(TARGET_P99_MS, color="grey", linestyle="--", label=target)
        plt.xlabel(f"offered load, commands/s (peak measured: {peak:,.0f}/s)")
        plt.ylabel("latency from the scheduled send, ms")
        plt.yscale("log")
        plt.title("playlog: command latency against offered load (open loop)")
        plt.legend()

    common.save_plot(path, draw)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200, help="games the arrivals are spread over")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=2.0, help="unrecorded seconds before each level")
    parser.add_argument("--peak-games", type=int, default=50, help="K for the closed-loop peak")
    parser.add_argument("--peak-seconds", type=float, default=10.0)
    parser.add_argument("--levels", default="25,50,75", help="percent of the peak")
    parser.add_argument(
        "--rates", default=None, help="commands/s instead of --levels (to compare two trees at the same load)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", default=str(common.PLOTS / "latency.png"))
    args = parser.parse_args()
    common.install_uvloop()
    fractions = [int(x) / 100 for x in args.levels.split(",")]

    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "latency")
    try:
        # A game may sit idle longer than the default keep-alive (5 s) at a low rate; a
        # connection closed under it would add a reconnect to its next command.
        env = {"PLAYLOG_KEEPALIVE_TIMEOUT": "300"}
        data_dir = common.DEFAULT_DATA_DIR / "service"
        activity = Activity(admin, data_dir / "pgactivity.jsonl")
        with common.Service(url, data_dir=data_dir, workers=args.workers, env=env) as service, activity:
            stats, elapsed = asyncio.run(
                closed_loop.drive(service.port, args.peak_games, args.peak_seconds, 3.0, args.seed)
            )
            peak = stats.commands / elapsed
            if args.rates:
                fractions = [int(rate) / peak for rate in args.rates.split(",")]
            levels = asyncio.run(
                run_levels(service.port, fractions, peak, args.games, args.seconds, args.warmup, args.seed)
            )
        for level in levels:
            level.background = activity.during(*level.window)
    finally:
        common.drop_database(admin, name)

    print(f"playlog bench/latency.py  ({common.machine()})")
    print(f"playlog serve --workers {args.workers}; peak: closed loop, K={args.peak_games}, "
          f"{args.peak_seconds:g} s; then open loop over {args.games} games, {args.seconds:g} s per level "
          f"after {args.warmup:g} s unrecorded")  # fmt: skip
    rows: list[list[Any]] = [
        ["peak (closed loop)", "100%", peak, "-", "-", "-", "-", len(stats.errors), "-", ""]
    ]
    for fraction, level in zip(fractions, levels, strict=True):
        ms = [x * 1000 for x in level.latencies]
        p99 = common.percentile(ms, 99)
        verdict = ""
        if fraction == 0.5:
            verdict = f"p99 <= {TARGET_P99_MS:g} {'MET' if p99 <= TARGET_P99_MS else 'MISSED'}"
        rows.append([
            "open loop", f"{fraction:.0%}", level.rate, len(ms) / level.elapsed,
            common.percentile(ms, 50), p99, common.percentile(ms, 99.9), len(level.errors),
            common.stolen_share(level.stolen, level.window[1] - level.window[0]), verdict,
        ])  # fmt: skip
    common.print_table(
        "Command latency (ms) from the scheduled send time",
        ["driver", "of peak", "offered/s", "answered/s", "p50", "p99", "p99.9", "errors", "stolen", "target"],
        rows,
    )
    # Bursts of slow commands on this machine line up with these (bench/lib/pgactivity.py).
    print("PostgreSQL besides commands, sampled every 50 ms by a process of its own:")
    for fraction, level in zip(fractions, levels, strict=True):
        assert level.background is not None
        print(f"  {fraction:.0%}: {level.background.describe()}")
    for level in levels:
        for error in level.errors[:5]:
            print("error:", error)
    plot(Path(args.plot), fractions, peak, levels)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
