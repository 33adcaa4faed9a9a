"""What the connection pool costs per query: ``SELECT 1`` through the service's pool, through
asyncpg's own pool (the baseline it replaced), and on a connection of its own (no pool at all).

Run: ``.venv/bin/python bench/pool.py [--queries 5000] [--rounds 3]``

One task, one query at a time, on the embedded PostgreSQL's Unix socket; the three are interleaved
for ``--rounds`` rounds and each figure is the median of its rounds: the caller's CPU per query
(``time.process_time``) and the wall time per query. The difference to the connection of its own
is what the pool adds to every query the service makes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import asyncpg

from bench.lib import common


async def _keep_session(conn: asyncpg.Connection) -> None:
    """asyncpg's pool as the service had it: no reset query on release."""


async def measure(url: str, queries: int, rounds: int) -> None:
    from service.store.pool import create_pool

    ours = await create_pool(url, min_size=1, max_size=4)
    theirs = await asyncpg.create_pool(url, min_size=1, max_size=4, reset=_keep_session)
    own = await asyncpg.connect(url)
    candidates: dict[str, Callable[[], Awaitable[Any]]] = {
        "the service's pool (service/store/pool.py)": lambda: ours.fetch("SELECT 1"),
        "asyncpg's pool (baseline)": lambda: theirs.fetch("SELECT 1"),
        "a connection of its own (no pool)": lambda: own.fetch("SELECT 1"),
    }
    cpu: dict[str, list[float]] = {name: [] for name in candidates}
    wall: dict[str, list[float]] = {name: [] for name in candidates}
    try:
        for _ in range(rounds):
            for name, query in candidates.items():
                for _ in range(500):  # warm: statements prepared, caches filled
                    await query()
                started_cpu, started = time.process_time(), time.perf_counter()
                for _ in range(queries):
                    await query()
                cpu[name].append((time.process_time() - started_cpu) / queries)
                wall[name].append((time.perf_counter() - started) / queries)
    finally:
        await own.close()
        await theirs.close()
        await ours.close()
    print(f"playlog bench/pool.py  ({common.machine()})")
    common.print_table(
        f"SELECT 1, one task, {queries} queries x {rounds} interleaved rounds (medians)",
        ["how", "CPU us per query", "wall us per query"],
        [
            [name, f"{statistics.median(cpu[name]) * 1e6:.1f}", f"{statistics.median(wall[name]) * 1e6:.1f}"]
            for name in candidates
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "pool", migrate=False)
    try:
        common.install_uvloop()
        asyncio.run(measure(url, args.queries, args.rounds))
    finally:
        common.drop_database(admin, name)


if __name__ == "__main__":
    main()
