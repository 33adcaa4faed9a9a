"""Commands per second through HTTP, next to the database's own limit (pgbench), in one run.

Run: ``.venv/bin/python bench/commands.py [--games 50] [--seconds 20] [--url URL]``

1. Starts (or reuses) the embedded PostgreSQL in ``$PLAYLOG_BENCH_DIR`` (/tmp/playlog-bench) and
   creates a fresh database for this run.
2. pgbench, first half: a one-row INSERT of a comparable event row (the ``events`` table's shape:
   uuid, int, text, ~300-byte jsonb, metadata jsonb, timestamps, two 32-byte hashes, the same
   indexes) in its own transaction, 8 clients.
3. Starts ``playlog serve --workers 2`` (uvicorn; ``--workers``) on that database, unless ``--url`` is given,
   and plays K concurrent bot games (mixed 2-5 player Exploding Kittens, reaction window 0) for
   ``--seconds``; a finished game is replaced by a new one.
4. pgbench, second half (so a drift of the shared machine during the run shows up in both).

The driver is lean but sees only what a seat may see: it asks a seat for its view (with that
seat's token) only when the public part of the last view says that seat may act, picks one of its
legal commands at random and sends it. Only ``POST .../commands`` count in commands/s and in the
latency percentiles; the views and the lobby calls are reported on their own line.

Headline: commands/s / pgbench TPS, i.e. how close one command (HTTP in, rules, one append,
response out) comes to the bare cost of one committed row. Target >= 0.25 at K=50, zero errors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common
from bench.lib.bots import AVOIDED, actors
from bench.lib.common import Connection

TARGET_RATIO = 0.30  # issue 33: commands/s over pgbench TPS at K=50, 0 errors
TARGET_FLOOR = 2.5  # issue 33: the service's CPU per command over its HTTP floor's


@dataclass
class Stats:
    recording: bool = False
    latencies: list[float] = field(default_factory=list)  # seconds, POST commands only
    commands: int = 0
    views: int = 0
    lobby: int = 0
    games_finished: int = 0
    errors: list[str] = field(default_factory=list)
    started: int = 0  # drivers whose first game has been set up
    # Each seat's view asked with ``min_version``, the seat's last version seen (read your writes
    # on every instance, docs/api.md): bench/balancer.py --read-your-writes measures its cost.
    read_your_writes: bool = False
    stop_at: float = float("inf")
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per party, measured window


# What a command's answer does not need, as the settings that switch each part off (README,
# "Configuration"): ``--without`` measures what they cost (the CPU accounting in bench/README.md).
WITHOUT: dict[str, dict[str, str]] = {
    "projector": {"PLAYLOG_READ_MODELS": "off"},
    "limits": {"PLAYLOG_RATE_LIMIT_WRITES": "off", "PLAYLOG_RATE_LIMIT_COMMANDS": "off"},
    "log": {"PLAYLOG_COMMAND_LOG": "off"},
    "notify": {"PLAYLOG_NOTIFY_APPENDS": "off"},
}


async def play_games(port: int, stats: Stats, rng: random.Random) -> None:
    """One driver: plays games back to back on its own keep-alive connection until ``stop_at``."""
    conn = Connection(port)
    try:
        while time.monotonic() < stats.stop_at:
            await play_one(conn, stats, rng)
    finally:
        await conn.close()


async def play_one(conn: Connection, stats: Stats, rng: random.Random) -> None:
    players = rng.randint(2, 5)
    options = {"players": players, "reaction_window": 0, "edition": rng.choice(["2022", "classic"])}
    created = await conn.call(
        "POST", "/games", {"kind": "exploding_kittens", "options": options, "spectator_delay": 0}
    )
    game = created["game_id"]
    tokens = []
    for n in range(players):
        tokens.append((await conn.call("POST", f"/games/{game}/seats", {"name": f"bot-{n}"}))["token"])
    await conn.call("POST", f"/games/{game}/start", token=created["host_token"])
    stats.lobby += players + 2
    seen = [0] * players  # each seat's last version seen

    async def view_of(seat: int) -> Any:
        at_least = f"?min_version={seen[seat]}" if stats.read_your_writes and seen[seat] else ""
        answer = await conn.call("GET", f"/games/{game}/seats/{seat}/view{at_least}", token=tokens[seat])
        seen[seat] = max(seen[seat], answer["version"])
        return answer

    view = await view_of(0)
    stats.views += 1
    if not stats.recording:
        stats.started += 1
    failures = 0
    while time.monotonic() < stats.stop_at:
        if view["status"] == "finished":
            stats.games_finished += 1
            return
        # A seat the public part names may act: ask that seat (its own token) for its view.
        choice = None
        for seat in actors(view["view"]["public"], players):
            if view["seat"] != seat:
                view = await view_of(seat)
                stats.views += 1
            legal = [c for c in view["view"]["legal_commands"] if c["type"] not in AVOIDED]
            if legal:
                choice = (seat, rng.choice(legal))
                break
        if choice is None:  # nobody named may act (should not happen with window 0): ask everyone
            failures += 1
            if failures > 10:
                stats.errors.append(f"game {game}: no seat has a legal command")
                return
            anyone = rng.randrange(players)
            view = await view_of(anyone)
            continue
        seat, command = choice
        body = common.msgspec.json.encode(command)
        started = time.perf_counter()
        path = f"/games/{game}/seats/{seat}/commands?view=true"
        # Every command carries an Idempotency-Key, as a real client that retries sends it.
        key = f"Idempotency-Key: {rng.getrandbits(64):016x}\r\n"
        status, data = await conn.request("POST", path, body, tokens[seat], key)
        elapsed = time.perf_counter() - started
        if stats.recording:
            stats.commands += 1
            stats.latencies.append(elapsed)
            if status >= 400:
                stats.errors.append(f"{status} {data[:120]!r}")
        elif status >= 400:
            stats.errors.append(f"(warm-up) {status} {data[:120]!r}")
        # The acting seat's fresh view (in the response) tells who acts next.
        if status < 400:
            answer = common.msgspec.json.decode(data)
            seen[seat] = max(seen[seat], answer["version"])
            view = answer["view"]
        else:
            view = await view_of(seat)
            stats.views += 1


async def drive(
    port: int,
    games: int,
    seconds: float,
    warmup: float,
    seed: int,
    cpu: Callable[[], dict[str, float]] = dict,
    read_your_writes: bool = False,
) -> tuple[Stats, float]:
    """K drivers; the clock starts once every driver's first game is set up, plus ``warmup``.
    ``cpu()`` (CPU seconds used so far, per party) is read when the clock starts and stops."""
    stats = Stats(read_your_writes=read_your_writes)
    rng = random.Random(seed)
    tasks = [asyncio.create_task(play_games(port, stats, random.Random(rng.random()))) for _ in range(games)]
    setup_deadline = time.monotonic() + 120
    while stats.started < games and time.monotonic() < setup_deadline and not all(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    await asyncio.sleep(warmup)
    stats.stop_at = time.monotonic() + seconds
    stats.recording = True
    stats.views = stats.lobby = stats.games_finished = 0
    cpu_start = cpu()
    started = time.perf_counter()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - started
    stats.cpu = {party: used - cpu_start[party] for party, used in cpu().items()}
    for result in results:
        if isinstance(result, BaseException):
            stats.errors.append(f"driver: {result!r}")
    return stats, elapsed


async def http_floor(
    port: int, connections: int, seconds: float, cpu: Callable[[], dict[str, float]]
) -> tuple[float, dict[str, float]]:
    """``GET /healthz`` (no database, no rules, no token) on ``connections`` keep-alive
    connections: requests/s, and CPU ms per request by party. What HTTP alone costs here."""
    done = 0
    stop_at = time.monotonic() + seconds

    async def one() -> None:
        nonlocal done
        conn = Connection(port)
        try:
            while time.monotonic() < stop_at:
                await conn.request("GET", "/healthz")
                done += 1
        finally:
            await conn.close()

    cpu_start = cpu()
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(connections)))
    elapsed = time.perf_counter() - started
    per_request = {party: 1000 * (used - cpu_start[party]) / done for party, used in cpu().items()}
    return done / elapsed, per_request


def print_cpu(
    stats: Stats,
    floor_cpu: dict[str, float],
    pgbench_runs: list[dict[str, float]],
    tps: float,
    elapsed: float,
) -> None:
    """Where the shared cores go, per command (its views and lobby calls included), next to
    pgbench's cost per row; and the ratio this machine allows at best."""
    if not stats.commands:
        return
    ours = {party: 1000 * used / stats.commands for party, used in stats.cpu.items()}
    stolen = ours.pop("stolen")  # no party's: what this virtual machine waited for
    # Where the service's CPU goes: how much of it the kernel's, and the writes (sends) it makes.
    kernel, writes = ours.pop("service in the kernel", None), ours.pop("service write calls", None)
    floor_kernel = floor_cpu.pop("service in the kernel", None)
    floor_writes = floor_cpu.pop("service write calls", None)
    pg_parts = {k.removeprefix("postgres: "): ours.pop(k) for k in list(ours) if k.startswith("postgres: ")}
    pg_row = statistics.mean(run["pg_cpu_ms"] for run in pgbench_runs)
    client_row = statistics.mean(run["client_cpu_ms"] for run in pgbench_runs)
    per_command = (stats.commands + stats.views + stats.lobby) / stats.commands
    rows: list[list[Any]] = [[f"{party}, per command", f"{ms:.3f}", ""] for party, ms in ours.items()]
    # Which of PostgreSQL's processes: the backends' share is what the commands' queries cost.
    parts = sorted(pg_parts.items(), key=lambda kv: -kv[1])
    rows[1:1] = [[f"  {name}", f"{ms:.3f}", "postgres"] for name, ms in parts if ms >= 0.0005]
    rows += [
        ["all parties, per command", f"{sum(ours.values()):.3f}", ""],
        ["pgbench: postgres per row", f"{pg_row:.3f}", "baseline"],
        ["pgbench: its client per row", f"{client_row:.3f}", "baseline"],
        ["postgres per command / per pgbench row", f"{ours['postgres'] / pg_row:.2f}x", ""],
        ["stolen by the hypervisor, per command", f"{stolen:.3f}",
         f"{common.stolen_share(stats.cpu['stolen'], elapsed)} of the cores"],
    ]  # fmt: skip
    if kernel is not None and writes is not None and floor_kernel is not None and floor_writes is not None:
        rows += [
            ["service in the kernel, per command", f"{kernel:.3f}",
             f"{floor_kernel * per_command:.3f} at the floor"],
            ["service write calls, per command", f"{writes:.2f}",
             f"{floor_writes * per_command:.2f} at the floor"],
        ]  # fmt: skip
    if "service" in floor_cpu:
        # A service that did nothing but answer HTTP would still spend a healthz's CPU on each
        # request; with postgres and the load generator as measured, the cores allow at most:
        floor = per_command * floor_cpu["service"]
        best = os.cpu_count() or 1
        best_rate = 1000 * best / (ours["postgres"] + ours["load generator"] + floor)
        rows += [
            ["service at the HTTP floor, per command", f"{floor:.3f}", f"{per_command:.2f} requests"],
            [
                "service per command / the HTTP floor",
                f"{ours['service'] / floor:.2f}x",
                f"target <= {TARGET_FLOOR}x",
            ],
            ["best commands/s: cores / (postgres + load + floor)", f"{best_rate:,.0f}", f"{best} cores"],
            ["best ratio this machine allows", f"{best_rate / tps:.3f}", f"target {TARGET_RATIO}"],
        ]
    common.print_table("CPU per command in the measured window (ms)", ["figure", "CPU ms", ""], rows)


@dataclass
class Tree:
    """A tree to measure: its code, its interpreter and its own PostgreSQL (admin URL)."""

    label: str
    root: Path
    python: str
    admin: str
    cli: str = "service.tools.cli"  # its command-line module

    @classmethod
    def this(cls) -> Tree:
        return cls("this tree", common.CODE_ROOT, sys.executable, common.start_postgres())

    @classmethod
    def baseline(cls, directory: str) -> Tree:
        """A clone at another commit with its own venv (``DIR/.venv``), served on an embedded
        PostgreSQL of its own (its migrations are its own), from the same binaries."""
        root = Path(directory).resolve()
        python = root / ".venv" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"{python} is missing: make a venv in the baseline ({root}) first")
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        admin = common.start_postgres(common.DEFAULT_DATA_DIR / "baseline")
        cli = "service.tools.cli" if (root / "service" / "tools" / "cli").is_dir() else "service.cli"
        return cls(f"baseline {commit or root.name}", root, str(python), admin, cli)

    def fresh_database(self) -> tuple[str, str]:
        """A new database migrated by this tree's own code; (url, name)."""
        if self.root == common.CODE_ROOT:
            return common.fresh_database(self.admin, "commands")
        url, name = common.fresh_database(self.admin, "commands", migrate=False)
        subprocess.run(
            [self.python, "-m", self.cli, "db", "upgrade"],
            cwd=self.root,
            env={**os.environ, "PYTHONPATH": str(self.root), "PLAYLOG_DATABASE_URL": url},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return url, name


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50, help="K concurrent games (default 50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds of play")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--pgbench-seconds", type=float, default=None,
                        help="total pgbench seconds, split before/after (default: --seconds)")  # fmt: skip
    parser.add_argument("--clients", type=int, default=8, help="pgbench clients (default 8)")
    parser.add_argument("--workers", type=int, default=2,
                        help="service worker processes (default 2, one per core here)")  # fmt: skip
    parser.add_argument("--url", default=None, help="a running service to drive instead of starting one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--floor-seconds", type=float, default=5.0,
                        help="seconds of GET /healthz after the play (the HTTP floor)")  # fmt: skip
    parser.add_argument(
        "--profile",
        default=None,
        help="write a py-spy profile (collapsed stacks) of the service here (with --baseline, the "
        "baseline's to PROFILE.baseline; each tree's last run)",
    )
    parser.add_argument(
        "--perf",
        default=None,
        help="record the service's CPU with Linux perf here and print it library by library (with "
        "--baseline, the baseline's to PERF.baseline; each tree's last run)",
    )
    parser.add_argument(
        "--without",
        default="",
        help=f"parts switched off in the service, comma-separated, of {', '.join(WITHOUT)}: "
        "interleaved with runs without it, shows what each costs a command",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="DIR",
        help="a clone of the repository at another commit, with its own .venv: measured in the "
        "same run, interleaved with this tree (--rounds pairs), the figures side by side",
    )
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs with --baseline (default 2)")
    args = parser.parse_args()
    switched_off: dict[str, str] = {}
    for part in filter(None, args.without.split(",")):
        if part not in WITHOUT:
            parser.error(f"no part called {part}: {', '.join(WITHOUT)}")
        switched_off.update(WITHOUT[part])
    if args.perf and shutil.which("perf") is None:
        parser.error("--perf needs Linux perf (Debian: apt-get install linux-perf)")
    common.install_uvloop()
    if args.baseline is None:
        measure(args, Tree.this(), switched_off)
        sys.exit(0)
    trees = [Tree.this(), Tree.baseline(args.baseline)]
    runs: dict[str, list[dict[str, float]]] = {tree.label: [] for tree in trees}
    for n in range(args.rounds):
        for tree in trees if n % 2 == 0 else trees[::-1]:  # each goes first in every other pair
            print(f"\n=== {tree.label}, run {len(runs[tree.label]) + 1} ===")
            runs[tree.label].append(measure(args, tree, switched_off))
    print_side_by_side(runs)
    sys.exit(0)


def measure(args: argparse.Namespace, tree: Tree, switched_off: dict[str, str]) -> dict[str, float]:
    """One run of ``tree``: pgbench, the play, the HTTP floor, pgbench again; prints its tables
    and returns the headline figures."""
    url, name = tree.fresh_database()
    suffix = "" if tree.root == common.CODE_ROOT else ".baseline"  # each tree's own recordings
    profile = args.profile and args.profile + suffix
    perf = args.perf and args.perf + suffix
    settings = common.pg_settings(url)
    pg_seconds = args.pgbench_seconds if args.pgbench_seconds is not None else args.seconds
    try:
        before = common.pgbench(url, clients=args.clients, seconds=pg_seconds / 2)
        if args.url:
            port = int(args.url.rsplit(":", 1)[1].strip("/"))

            def cpu() -> dict[str, float]:
                return {
                    "postgres": common.postgres_cpu_seconds(url),
                    "load generator": common.own_cpu_seconds(),
                    "stolen": common.stolen_cpu_seconds(),
                }

            stats, elapsed = asyncio.run(drive(port, args.games, args.seconds, args.warmup, args.seed, cpu))
            floor, floor_cpu = asyncio.run(http_floor(port, args.games, args.floor_seconds, cpu))
        else:
            with common.Service(
                url,
                data_dir=common.DEFAULT_DATA_DIR / "service",
                workers=args.workers,
                env=switched_off,
                root=tree.root,
                python=tree.python,
                cli=tree.cli,
            ) as service:
                spy = common.profile(service.pid, profile, args.warmup, args.seconds) if profile else None
                recording = common.perf_record(service.pid, perf, args.warmup, args.seconds) if perf else None

                def cpu() -> dict[str, float]:
                    parts = common.postgres_cpu_breakdown(url)  # its sum is postgres_cpu_seconds
                    return {
                        "postgres": sum(parts.values()),
                        **{f"postgres: {k}": v for k, v in parts.items()},
                        "service": common.tree_cpu_seconds(service.pid),
                        "service in the kernel": common.tree_kernel_seconds(service.pid),
                        # A count among seconds: print_cpu scales every figure by 1000 (to ms).
                        "service write calls": common.tree_write_calls(service.pid) / 1000,
                        "load generator": common.own_cpu_seconds(),
                        "stolen": common.stolen_cpu_seconds(),
                    }

                stats, elapsed = asyncio.run(
                    drive(service.port, args.games, args.seconds, args.warmup, args.seed, cpu)
                )
                for recorder in (spy, recording):
                    if recorder is not None:
                        recorder.wait()
                floor, floor_cpu = asyncio.run(http_floor(service.port, args.games, args.floor_seconds, cpu))
        after = common.pgbench(url, clients=args.clients, seconds=pg_seconds / 2)
    finally:
        common.drop_database(tree.admin, name)

    tps = statistics.mean([before["tps"], after["tps"]])
    rate = stats.commands / elapsed if elapsed else 0.0
    ms = [x * 1000 for x in stats.latencies]
    ratio = rate / tps if tps else float("nan")
    errors = len(stats.errors)
    print(f"playlog bench/commands.py, {tree.label}  ({common.machine()})")
    served = f"service at {args.url}" if args.url else f"playlog serve --workers {args.workers}"
    print(f"PostgreSQL {settings.get('server_version')} embedded, fsync={settings.get('fsync')}, "
          f"synchronous_commit={settings.get('synchronous_commit')}; {served}; K={args.games} games, "
          f"{args.seconds:g} s measured, from {args.warmup:g} s after every game was set up")  # fmt: skip
    common.print_table(
        "Commands through HTTP vs one committed row (pgbench)",
        ["figure", "value", "baseline / target"],
        [
            ["commands/s (POST .../commands)", rate, f"pgbench {tps:,.0f} TPS"],
            [
                "command latency p50 (ms)",
                common.percentile(ms, 50),
                f"pgbench avg {before['latency_ms']:.2f}",
            ],
            ["command latency p95 (ms)", common.percentile(ms, 95), ""],
            ["command latency p99 (ms)", common.percentile(ms, 99), ""],
            ["errors", errors, "0"],
            [
                "pgbench TPS before / after",
                f"{before['tps']:,.0f} / {after['tps']:,.0f}",
                f"{args.clients} clients, 1-row INSERT",
            ],
            ["other requests/s (views, lobby)", (stats.views + stats.lobby) / elapsed, ""],
            ["games finished", stats.games_finished, ""],
            ["GET /healthz requests/s (HTTP floor)", floor, f"same server, {args.games} connections"],
            [
                "RATIO commands/s / pgbench TPS",
                f"{ratio:.3f}",
                f">= {TARGET_RATIO} {'MET' if ratio >= TARGET_RATIO and not errors else 'MISSED'}",
            ],
        ],
    )
    print_cpu(stats, floor_cpu, [before, after], tps, elapsed)
    if stats.commands:
        service_us = 1e6 * stats.cpu["service"] / stats.commands
        if profile:
            title = (
                f"Where the service's time per command goes (py-spy samples, {profile}: waits for a core too)"
            )
            print_shares(title, "room", common.profile_by_room(profile), service_us)
        if perf:
            title = f"The service's CPU per command by library (Linux perf, {perf})"
            print_shares(title, "library", common.perf_by_library(perf), service_us)
    for error in stats.errors[:10]:
        print("error:", error)
    per = max(1, stats.commands)
    pg_row = statistics.mean([before["pg_cpu_ms"], after["pg_cpu_ms"]])
    return {
        "commands/s": rate,
        "pgbench TPS": tps,
        "ratio commands/s / pgbench TPS": ratio,
        "command p50 ms": common.percentile(ms, 50),
        "command p99 ms": common.percentile(ms, 99),
        "errors": errors,
        "service CPU ms per command": 1000 * stats.cpu.get("service", float("nan")) / per,
        "postgres CPU ms per command": 1000 * stats.cpu["postgres"] / per,
        "postgres per command / per pgbench row": 1000 * stats.cpu["postgres"] / per / pg_row,
    }


def print_shares(title: str, what: str, shares: list[tuple[str, float]], service_us: float) -> None:
    """A recording's shares of the service's samples, each as microseconds of its CPU per command."""
    rows = [[name, f"{share:.1%}", f"{share * service_us:.0f}"] for name, share in shares]
    common.print_table(title, [what, "share", "us per command"], rows)


def print_side_by_side(runs: dict[str, list[dict[str, float]]]) -> None:
    """Each headline figure: every run of each tree, and the ratio of their medians."""
    (ours, our_runs), (theirs, their_runs) = runs.items()
    rows = []
    for figure in our_runs[0]:
        mine = [run[figure] for run in our_runs]
        base = [run[figure] for run in their_runs]
        over = statistics.median(base)
        rows.append(
            [
                figure,
                ", ".join(_short(x) for x in mine),
                ", ".join(_short(x) for x in base),
                f"{statistics.median(mine) / over:.2f}x" if over else "-",
            ]
        )
    common.print_table("Side by side, interleaved runs", ["figure", ours, theirs, "medians' ratio"], rows)


def _short(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3f}"


if __name__ == "__main__":
    main()
