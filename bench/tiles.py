"""The transparency log's read path: tiles and checkpoints served by the real app, next to the
cheapest request the same server answers.

Run: ``.venv/bin/python bench/tiles.py [--games 600] [--connections 16] [--seconds 5] [--rounds 3]``

Starts ``playlog serve`` (one process) on a fresh database of the embedded PostgreSQL, creates
``--games`` games through HTTP (each game's head becomes a leaf: a log of that many leaves, two
full tiles of level 0 and a partial one of level 1 for 600), waits until a checkpoint covers them,
then, over ``--connections`` keep-alive connections from this process, for ``--seconds`` each and
interleaved over ``--rounds`` (medians): ``GET /healthz`` (the baseline: the server's floor),
``GET /log/checkpoint``, a full tile (``/log/tile/0/000``, immutable), a partial tile
(``/log/tile/1/000.p/W``), a consistency proof. Prints requests/s, the ratio to the baseline,
latency p50/p99, and the service's CPU per request. The load generator shares the machine (its
CPU is printed): the ratio to the baseline is the figure to read. Target (issue 36): thousands of
requests per second on the tile read path; caches and CDNs take the rest (full tiles are
immutable).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common
from bench.lib.common import Connection


async def make_games(port: int, count: int, concurrency: int) -> None:
    left = list(range(count))

    async def worker() -> None:
        conn = Connection(port)
        try:
            while left:
                left.pop()
                await conn.call("POST", "/games", {"kind": "exploding_kittens", "options": {"players": 2}})
        finally:
            await conn.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def log_size(port: int) -> int:
    conn = Connection(port)
    try:
        status, body = await conn.request("GET", "/log/checkpoint")
        return int(body.split(b"\n")[1]) if status == 200 else 0
    finally:
        await conn.close()


async def hammer(port: int, path: str, connections: int, seconds: float) -> tuple[int, list[float]]:
    """Requests of ``path`` answered 200 in ``seconds`` over ``connections``, and their latencies."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        conn = Connection(port)
        try:
            while (started := time.perf_counter()) < deadline:
                status, _ = await conn.request("GET", path)
                if status != 200:
                    raise common.HttpError(status, b"")
                latencies.append(time.perf_counter() - started)
        finally:
            await conn.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return len(latencies), latencies


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.games < 256:
        parser.error("--games must be at least 256: a full tile of level 0")
    common.install_uvloop()

    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "tiles")
    results: dict[str, list[tuple[float, list[float], float]]] = {}
    try:
        env = {"PLAYLOG_LOG_INTERVAL": "0.5"}
        with common.Service(url, data_dir=common.DEFAULT_DATA_DIR / "service", env=env) as service:
            asyncio.run(make_games(service.port, args.games, 16))
            deadline = time.monotonic() + 60
            while (size := asyncio.run(log_size(service.port))) < args.games:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the log holds {size} leaves, not {args.games}")
                time.sleep(0.5)
            width = min(size // 256, 255)  # the level-1 hashes a checkpoint covers: a partial tile
            paths = {
                "GET /healthz (baseline)": "/healthz",
                "GET /log/checkpoint": "/log/checkpoint",
                "GET /log/tile/0/000 (full)": "/log/tile/0/000",
                f"GET /log/tile/1/000.p/{width} (partial)": f"/log/tile/1/000.p/{width}",
                f"GET /log/consistency?from=1&to={size}": f"/log/consistency?from=1&to={size}",
            }
            for _ in range(args.rounds):
                for label, path in paths.items():
                    cpu = common.tree_cpu_seconds(service.pid)
                    done, latencies = asyncio.run(hammer(service.port, path, args.connections, args.seconds))
                    cpu = common.tree_cpu_seconds(service.pid) - cpu
                    results.setdefault(label, []).append((done / args.seconds, latencies, cpu / max(done, 1)))
    finally:
        common.drop_database(admin, name)

    baseline = statistics.median(r[0] for r in results["GET /healthz (baseline)"])
    rows = []
    for label, runs in results.items():
        rate = statistics.median(r[0] for r in runs)
        latencies = [x for r in runs for x in r[1]]
        rows.append(
            [
                label,
                rate,
                rate / baseline,
                common.percentile(latencies, 50) * 1000,
                common.percentile(latencies, 99) * 1000,
                statistics.median(r[2] for r in runs) * 1e6,
            ]
        )
    print(f"playlog bench/tiles.py  ({common.machine()})")
    common.print_table(
        f"The log's read path, {size} leaves, {args.connections} connections,"
        f" medians of {args.rounds} rounds",
        ["request", "requests/s", "x baseline", "p50 ms", "p99 ms", "service CPU us/request"],
        rows,
    )
    print(f"load generator CPU: {common.own_cpu_seconds():.1f} s (this process, on the same machine)")


if __name__ == "__main__":
    main()
