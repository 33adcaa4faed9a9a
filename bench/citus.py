"""Appends through plain PostgreSQL vs through a Citus coordinator, on this one machine.

Run: ``.venv/bin/python bench/citus.py [--appends N] [--writers W] [--seconds S] [--shards K]``.

1. Builds Citus once if needed (tests/citus/cluster.py: the shared source, cached in
   ``~/.cache/playlog``), then starts, from the same binaries with the same settings, a plain
   PostgreSQL and a Citus cluster (a coordinator and two workers), all on loopback.
2. Migrates both; distributes the Citus one (``service.store.citus.distribute``: the append delegated
   to the node holding the game).
3. Measures ``EventStore.append`` (one event, the real ``playlog_append``):
   - one writer, one append at a time on one connection: the latency of an append, whose
     difference between the two is the coordinator's routing cost per append;
   - W writers on W connections, each on games of its own, for S seconds: appends per second.

One machine cannot show scale-out: the coordinator and both workers share its cores with the
client. What this shows is what routing costs per append, not what more machines would gain.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pwd
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import asyncpg

from bench.lib.common import machine, percentile, print_table
from service.store import database
from service.store.citus import distribute
from service.store.events import EventStore, NewEvent
from tests.citus.cluster import Node, ensure_built, running_cluster

EVENT = NewEvent("bench.appended", b'{"n": 1}')


async def one_writer(url: str, appends: int) -> list[float]:
    """Latencies (s) of ``appends`` appends made one after the other, ten per game."""
    conn = await asyncpg.connect(url)
    try:
        store = EventStore(conn)
        for _ in range(50):  # warm up: plans, connections from the coordinator to the workers
            await store.append(uuid.uuid4(), 0, [EVENT])
        latencies = []
        game, seq = uuid.uuid4(), 0
        for _ in range(appends):
            if seq == 10:
                game, seq = uuid.uuid4(), 0
            started = time.perf_counter()
            await store.append(game, seq, [EVENT])
            latencies.append(time.perf_counter() - started)
            seq += 1
        return latencies
    finally:
        await conn.close()


async def many_writers(url: str, writers: int, seconds: float) -> float:
    """Appends per second of ``writers`` connections appending to games of their own."""
    deadline = time.monotonic() + seconds
    counts = [0] * writers

    async def writer(n: int) -> None:
        conn = await asyncpg.connect(url)
        try:
            store = EventStore(conn)
            game, seq = uuid.uuid4(), 0
            while time.monotonic() < deadline:
                await store.append(game, seq, [EVENT])
                counts[n] += 1
                seq += 1
                if seq == 10:
                    game, seq = uuid.uuid4(), 0
        finally:
            await conn.close()

    started = time.monotonic()
    await asyncio.gather(*(writer(n) for n in range(writers)))
    return sum(counts) / (time.monotonic() - started)


async def measure(url: str, appends: int, writers: int, seconds: float) -> tuple[list[float], float]:
    latencies = await one_writer(url, appends)
    rate = await many_writers(url, writers, seconds)
    return latencies, rate


def plain_postgres(root: Path) -> Node:
    """A PostgreSQL from the same binaries and settings as the cluster's nodes, without Citus."""
    data = root / "plain"
    data.mkdir(mode=0o700)
    if os.geteuid() == 0:
        entry = pwd.getpwnam("nobody")
        os.chown(data, entry.pw_uid, entry.pw_gid)
    node = Node(ensure_built(), data)
    node.start({"shared_preload_libraries": "''"})
    return node


async def distribute_at(url: str, shards: int) -> None:
    conn = await asyncpg.connect(url)
    try:
        await distribute(conn, shard_count=shards)
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000, help="one writer's appends")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0, help="how long the writers append")
    parser.add_argument("--shards", type=int, default=8, help="shards per distributed table")
    args = parser.parse_args()

    results = {}
    root = Path(tempfile.mkdtemp(prefix="playlog-bench-citus-"))
    root.chmod(0o755)
    plain = plain_postgres(root)
    try:
        database.upgrade(plain.url)
        print("plain PostgreSQL ...", flush=True)
        measured = asyncio.run(measure(plain.url, args.appends, args.writers, args.seconds))
        results["plain PostgreSQL"] = measured
    finally:
        plain.stop()
        shutil.rmtree(root, ignore_errors=True)
    with running_cluster(workers=2) as cluster:
        database.upgrade(cluster.url)
        asyncio.run(distribute_at(cluster.url, args.shards))
        print("Citus coordinator + 2 workers ...", flush=True)
        results["Citus (coordinator + 2 workers)"] = asyncio.run(
            measure(cluster.url, args.appends, args.writers, args.seconds)
        )

    rows = []
    for name, (latencies, rate) in results.items():
        ms = [s * 1000 for s in latencies]
        rows.append((name, sum(ms) / len(ms), percentile(ms, 50), percentile(ms, 99), rate))
    print_table(
        f"appends of one event ({machine()}, load average {os.getloadavg()[0]:.1f}; one writer x "
        f"{args.appends}, {args.writers} writers x {args.seconds:.0f} s)",
        ["target", "mean ms", "p50 ms", "p99 ms", f"appends/s ({args.writers} writers)"],
        rows,
    )
    (_, plain_mean, plain_p50, *_), (_, citus_mean, citus_p50, *_) = rows
    print(
        f"routing cost per append: {citus_mean - plain_mean:.2f} ms mean, {citus_p50 - plain_p50:.2f} ms p50"
        " (one machine: the nodes share its cores; this is no scale-out figure)"
    )


if __name__ == "__main__":
    main()
