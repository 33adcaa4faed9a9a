"""playlog next to boardgame.io 0.50 (bgio-postgres storage) on the same PostgreSQL, at K games.

Run: ``npm ci --prefix bench/peers/bgio`` once, then
``.venv/bin/python bench/peers/boardgameio.py [--games 50] [--seconds 20] [--rounds 2]``

1. Starts (or reuses) the embedded PostgreSQL in ``$PLAYLOG_BENCH_DIR``; pgbench's one-row
   INSERT (``bench.lib.common.pgbench``), half before the runs and half after, on a database of its own.
2. Then ``--rounds`` times, interleaved (playlog, bgio, playlog, bgio, ...), each on a fresh
   database of that server:
   - playlog: ``playlog serve --workers 2`` driven by ``bench/commands.py``'s own driver (K games of
     mixed 2-5 player Exploding Kittens through HTTP, each seat seeing only its view);
   - bgio: ``bench/peers/bgio/server.js`` (boardgame.io's server: its Lobby API and socket.io, with
     ``bgio-postgres``) driven by ``bench/peers/bgio/driver.js``: K games of a simplified Exploding
     Kittens (2-5 seats, hidden hands through ``playerView``), each seat a boardgame.io client on
     its own socket.io connection, joined through the Lobby API before any seat connects.
   Both are closed loops (one move in flight per game) measured for ``--seconds`` from
   ``--warmup`` seconds after every game is set up; a finished game is replaced by a new one.
3. Per side: moves/s, latency percentiles (send to answer), the CPU per move of each party
   (PostgreSQL: the postmaster and every backend; the server: every process of it; the driver),
   WAL bytes per move (``pg_current_wal_lsn()`` before and after the window: this server runs
   nothing else meanwhile, so use a ``$PLAYLOG_BENCH_DIR`` of your own on a shared machine).

A playlog command is the unit of a move on its side (its views and lobby calls are in its CPU);
a bgio move is one ``client.moves.X()`` (its updates to every seat and its lobby calls are in
its CPU). Target: CPU per move of all parties >= 10x better than boardgame.io's (issue 51).

What each side writes per move: playlog appends the move's events (one row each, hash-chained)
with its idempotency row and moves the game's stream row, in one transaction committed before the
answer. boardgame.io's master, with bgio-postgres, reads the match row twice (metadata, state),
sends the new state to every seat, and only then writes: in one transaction it locks the row and
rewrites its whole ``state`` and its whole ``log`` (JSON, the log growing with every move), and
beside it upserts the row's metadata (``updatedAt`` changes on every move): two new versions of
one wide row per move. The send precedes the write (``Master.onUpdate``: ``transportAPI.sendAll``
before ``storageAPI.setState``), so a player can see a move that a crash then loses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench.lib

from bench import commands
from bench.lib import common

BGIO = Path(__file__).resolve().parent / "bgio"
PLOT = common.PLOTS / "peer_bgio.png"
TARGET = 10.0
PARTIES = ("postgres", "server", "driver")


@dataclass
class Run:
    """One side's measured window."""

    side: str
    moves: int
    elapsed: float
    latencies_ms: list[float]
    cpu: dict[str, float]  # CPU seconds per party in the window
    wal_bytes: float
    errors: list[str] = field(default_factory=list)
    other_requests: int = 0
    finished: int = 0
    floor_ms: float = float("nan")  # playlog: the server's CPU per GET /healthz (its HTTP floor)

    @property
    def rate(self) -> float:
        return self.moves / self.elapsed if self.elapsed else 0.0


def psql_value(url: str, sql: str) -> float:
    """One number from ``sql``, through psql (callable from inside a running event loop)."""
    dbname = url.split("?")[0].rsplit("/", 1)[1]
    out = subprocess.run(
        [common.pg_bin("psql"), "-h", common.socket_dir(url), "-U", "postgres", "-d", dbname, "-Atc", sql],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return float(out.strip() or "nan")


def wal_position(url: str) -> float:
    return psql_value(url, "SELECT pg_current_wal_lsn() - '0/0'")


# -- playlog: bench/commands.py's driver, at the same K ---------------------------------------------


def run_playlog(admin: str, args: argparse.Namespace, data_dir: Path) -> Run:
    url, name = common.fresh_database(admin, "peer_playlog")
    try:
        with common.Service(url, data_dir=data_dir / "service", workers=args.workers) as service:

            def cpu() -> dict[str, float]:
                return {
                    "postgres": common.postgres_cpu_seconds(url),
                    "server": common.tree_cpu_seconds(service.pid),
                    "driver": common.own_cpu_seconds(),
                    "wal": wal_position(url),
                }

            stats, elapsed = asyncio.run(
                commands.drive(service.port, args.games, args.seconds, args.warmup, args.seed, cpu)
            )
            _, floor = asyncio.run(commands.http_floor(service.port, args.games, args.floor_seconds, cpu))
    finally:
        common.drop_database(admin, name)
    used = dict(stats.cpu)
    wal = used.pop("wal")
    return Run(
        "playlog", stats.commands, elapsed, [x * 1000 for x in stats.latencies], used, wal,
        stats.errors, stats.views + stats.lobby, stats.games_finished, floor["server"],
    )  # fmt: skip


# -- boardgame.io: bench/peers/bgio/server.js and driver.js -----------------------------------------------


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise SystemExit("node (>= 20) is needed for the boardgame.io side")
    if not (BGIO / "node_modules" / "boardgame.io").is_dir():
        raise SystemExit("the boardgame.io side is not installed: npm ci --prefix bench/peers/bgio")
    return found


def run_bgio(admin: str, args: argparse.Namespace, data_dir: Path) -> tuple[Run, dict[str, float]]:
    url, name = common.fresh_database(admin, "peer_bgio", migrate=False)
    port = common.free_port()
    env = {
        **os.environ,
        "NODE_ENV": "production",  # boardgame.io logs every action otherwise
        "BGIO_PORT": str(port),
        "BGIO_PG_HOST": common.socket_dir(url),
        "BGIO_PG_DATABASE": name,
    }
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (data_dir / "bgio-server.log").open("w")
    server = subprocess.Popen(
        [node(), "server.js"], cwd=BGIO, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
        start_new_session=True,
    )  # fmt: skip
    driver: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        if not server.stdout.readline().startswith("ready"):
            raise RuntimeError(f"the bgio server did not start: see {data_dir / 'bgio-server.log'}")
        driver = subprocess.Popen(
            [node(), "driver.js", f"http://127.0.0.1:{port}", str(args.games), str(args.seconds),
             str(args.warmup), str(args.seed)],
            cwd=BGIO, env=env, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

        def cpu() -> dict[str, float]:
            return {
                "postgres": common.postgres_cpu_seconds(url),
                "server": common.tree_cpu_seconds(server.pid),
                "driver": common.tree_cpu_seconds(driver.pid),
                "wal": wal_position(url),
            }

        assert driver.stdout is not None
        start: dict[str, float] = {}
        used: dict[str, float] = {}
        result: dict[str, Any] = {}
        for line in driver.stdout:
            if line.startswith("START"):
                start = cpu()
            elif line.startswith("STOP"):
                used = {party: value - start[party] for party, value in cpu().items()}
            elif line.startswith("RESULT "):
                result = json.loads(line[len("RESULT ") :])
        if driver.wait() != 0 or not result:
            raise RuntimeError("the bgio driver failed")
        rows = _bgio_rows(url)
    finally:
        for process in (driver, server):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)
        log.close()
        common.drop_database(admin, name)
    wal = used.pop("wal")
    run = Run(
        "bgio", result["moves"], result["elapsed"], result["latencies_ms"], used, wal,
        result["errors"] + [f"... {result['error_count'] - len(result['errors'])} more"] * (
            result["error_count"] > len(result["errors"])
        ),
        result["lobby"], result["finished"],
    )  # fmt: skip
    return run, rows


def _bgio_rows(url: str) -> dict[str, float]:
    """The size of what bgio-postgres rewrites on every move: a match's state and log (JSON)."""
    return {
        "state bytes": psql_value(url, 'SELECT avg(octet_length(state::text)) FROM "Games"'),
        "log bytes": psql_value(url, 'SELECT avg(octet_length(log::text)) FROM "Games"'),
    }


# -- the report ------------------------------------------------------------------------------------


def summary(runs: list[Run]) -> dict[str, float]:
    """One side over its runs: moves/s per run averaged, CPU and WAL per move over all moves."""
    moves = sum(r.moves for r in runs)
    latencies = [x for r in runs for x in r.latencies_ms]
    out = {
        "moves/s": statistics.mean(r.rate for r in runs),
        "moves": float(moves),
        "p50": common.percentile(latencies, 50),
        "p95": common.percentile(latencies, 95),
        "p99": common.percentile(latencies, 99),
        "errors": float(sum(len(r.errors) for r in runs)),
        "wal": sum(r.wal_bytes for r in runs) / moves if moves else float("nan"),
        "other": sum(r.other_requests for r in runs) / moves if moves else float("nan"),
    }
    for party in PARTIES:
        out[party] = 1000 * sum(r.cpu[party] for r in runs) / moves if moves else float("nan")
    out["all"] = sum(out[party] for party in PARTIES)
    # What all parties would cost per move if the server did nothing but answer HTTP: each
    # request at the CPU of a GET /healthz, PostgreSQL and the driver as measured.
    floor = statistics.mean(r.floor_ms for r in runs)
    out["floor"] = out["postgres"] + out["driver"] + (1 + out["other"]) * floor
    return out


def plot(ours: dict[str, float], theirs: dict[str, float], runs: list[Run], tps: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cpu_ax, rate_ax, lat_ax) = plt.subplots(1, 3, figsize=(13, 4.2))
    sides = ["playlog", "boardgame.io"]
    bottom = [0.0, 0.0]
    for party, colour in zip(PARTIES, ("#4c72b0", "#dd8452", "#55a868"), strict=True):
        values = [ours[party], theirs[party]]
        cpu_ax.bar(sides, values, bottom=bottom, label=party, color=colour)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for n, total in enumerate(bottom):
        cpu_ax.text(n, total, f"{total:.2f} ms", ha="center", va="bottom")
    cpu_ax.set_title(f"CPU per move, all parties ({theirs['all'] / ours['all']:.1f}x)")
    cpu_ax.set_ylabel("CPU ms per move")
    cpu_ax.legend()

    for n, run in enumerate(runs):
        colour = "#4c72b0" if run.side == "playlog" else "#c44e52"
        rate_ax.bar(n, run.rate, color=colour)
        rate_ax.text(n, run.rate, f"{run.rate:,.0f}", ha="center", va="bottom", fontsize=8)
    rate_ax.set_xticks(range(len(runs)), [r.side for r in runs], rotation=30)
    rate_ax.set_title(f"moves/s per run, in order (pgbench {tps:,.0f} TPS)")

    for side, run_side, colour in (("playlog", "playlog", "#4c72b0"), ("boardgame.io", "bgio", "#c44e52")):
        values = sorted(x for r in runs if r.side == run_side for x in r.latencies_ms)
        if values:
            lat_ax.plot(values, [i / len(values) for i in range(len(values))], label=side, color=colour)
    lat_ax.set_xscale("log")
    lat_ax.set_xlabel("move latency (ms, log scale)")
    lat_ax.set_ylabel("fraction of moves")
    lat_ax.set_title("latency, send to answer (CDF)")
    lat_ax.legend()
    fig.suptitle(f"playlog vs boardgame.io 0.50 + bgio-postgres, same PostgreSQL ({common.machine()})")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50, help="K concurrent games on each side")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2, help="playlog then bgio, this many times")
    parser.add_argument("--workers", type=int, default=2, help="playlog serve --workers")
    parser.add_argument("--pgbench-seconds", type=float, default=20.0, help="split before/after")
    parser.add_argument("--floor-seconds", type=float, default=5.0,
                        help="seconds of GET /healthz after playlog's play (its HTTP floor)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", type=Path, default=PLOT, help="the PNG written (needs matplotlib)")
    args = parser.parse_args()
    common.install_uvloop()
    node()

    data_dir = common.DEFAULT_DATA_DIR
    admin = common.start_postgres(data_dir)
    settings = common.pg_settings(admin)
    pg_url, pg_name = common.fresh_database(admin, "peer_pgbench", migrate=False)
    runs: list[Run] = []
    rows: dict[str, float] = {}
    try:
        before = common.pgbench(pg_url, seconds=args.pgbench_seconds / 2)
        for _ in range(args.rounds):
            runs.append(run_playlog(admin, args, data_dir))
            run, rows = run_bgio(admin, args, data_dir)
            runs.append(run)
        after = common.pgbench(pg_url, seconds=args.pgbench_seconds / 2)
    finally:
        common.drop_database(admin, pg_name)

    tps = statistics.mean([before["tps"], after["tps"]])
    ours = summary([r for r in runs if r.side == "playlog"])
    theirs = summary([r for r in runs if r.side == "bgio"])
    versions = json.loads((BGIO / "package.json").read_text())["dependencies"]
    print(f"playlog bench/peers/boardgameio.py  ({common.machine()})")
    print(f"PostgreSQL {settings.get('server_version')} embedded, fsync={settings.get('fsync')}, "
          f"synchronous_commit={settings.get('synchronous_commit')}; K={args.games} games per side, "
          f"{args.seconds:g} s measured per run, {args.rounds} interleaved rounds (playlog, bgio, ...); "
          f"playlog serve --workers {args.workers}; boardgame.io {versions['boardgame.io']} + "
          f"bgio-postgres {versions['bgio-postgres']} on node {_node_version()}")  # fmt: skip
    print("runs in order: " + ", ".join(f"{r.side} {r.rate:,.0f} moves/s" for r in runs))
    ratio = theirs["all"] / ours["all"]

    def both(key: str, label: str, note: str = "") -> list[Any]:
        return [label, ours[key], theirs[key], f"{theirs[key] / ours[key]:.2f}x" if ours[key] else "", note]

    common.print_table(
        "playlog vs boardgame.io, same PostgreSQL, same K (moves answered in the measured windows)",
        ["figure", "playlog", "boardgame.io", "bgio / playlog", "baseline / target"],
        [
            [
                "moves/s",
                ours["moves/s"],
                theirs["moves/s"],
                f"{ours['moves/s'] / theirs['moves/s']:.2f}x faster" if theirs["moves/s"] else "",
                f"pgbench {tps:,.0f} TPS",
            ],
            ["moves/s / pgbench TPS", ours["moves/s"] / tps, theirs["moves/s"] / tps, "", ""],
            both("p50", "latency p50 (ms)", f"pgbench avg {before['latency_ms']:.2f}"),
            both("p95", "latency p95 (ms)"),
            both("p99", "latency p99 (ms)"),
            ["moves measured", int(ours["moves"]), int(theirs["moves"]), "", ""],
            ["errors", int(ours["errors"]), int(theirs["errors"]), "", "0"],
            both("postgres", "CPU ms per move: PostgreSQL", f"pgbench row {before['pg_cpu_ms']:.3f}"),
            both("server", "CPU ms per move: server"),
            both("driver", "CPU ms per move: driver"),
            [
                "CPU ms per move: all parties",
                ours["all"],
                theirs["all"],
                f"{ratio:.2f}x",
                f">= {TARGET:g}x {'MET' if ratio >= TARGET else 'MISSED'}",
            ],
            [
                "CPU ms per move: server + PostgreSQL",
                ours["server"] + ours["postgres"],
                theirs["server"] + theirs["postgres"],
                f"{(theirs['server'] + theirs['postgres']) / (ours['server'] + ours['postgres']):.2f}x",
                "without the drivers",
            ],
            [
                "all parties with playlog's server at its HTTP floor",
                ours["floor"],
                "",
                f"{theirs['all'] / ours['floor']:.2f}x",
                "the best this bench allows",
            ],
            both("wal", "WAL bytes per move"),
            ["other requests per move", ours["other"], theirs["other"], "", "views+lobby / lobby"],
            ["pgbench TPS before / after", f"{before['tps']:,.0f}", f"{after['tps']:,.0f}", "", ""],
        ],
    )
    if rows:
        print(f"\nbgio-postgres rewrites per move one row of its match: state {rows['state bytes']:,.0f} "
              f"bytes and log {rows['log bytes']:,.0f} bytes of JSON on average at the end of the "
              f"last run (the log grows with every move of the match)")  # fmt: skip
    for run in runs:
        for error in run.errors[:5]:
            print(f"error ({run.side}): {error}")
    try:
        plot(ours, theirs, runs, tps, args.plot)
        print(f"\nplot: {args.plot}")
    except ImportError:
        print("\n(no plot: pip install -e '.[bench]' for matplotlib)")


def _node_version() -> str:
    return subprocess.run([node(), "--version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
