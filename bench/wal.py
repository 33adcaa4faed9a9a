"""What PostgreSQL writes per command: WAL bytes, rows, index entries, transactions; load-independent.

Run: ``.venv/bin/python bench/wal.py [--games 10] [--commands 60]``

CPU per command moves with the shared machine's load; what the database is asked to write does
not. The app runs in process (raw ASGI, its lifespan and projector included, as bench/calls.py)
on a fresh database of a PostgreSQL of its own (``$PLAYLOG_BENCH_DIR``, default
/tmp/playlog-bench-wal: WAL is counted for the whole server, so it must be this run's alone).
``--games`` drivers each play bot games (bench/commands.py's driver: an ``Idempotency-Key`` on
every command, ``?view=true``, a new game when one ends) until they have sent ``--commands``
commands. Counted from a ``CHECKPOINT`` before the first game (no autovacuum on the tables: it
comes when its timer says) to the end, after the projector has caught up and the app has shut
down (so every backend flushed its statistics): WAL bytes, records and full-page images
(pg_stat_wal), committed transactions, rows written and index entries added per table (an insert
or a non-HOT update adds one entry to each of the table's indexes), and the calls and time of the
PL/pgSQL functions (``track_functions = 'pl'``). Per command, with the lobby calls of the games
(create, join, start) in the share. The shared parts: bench/lib/costs.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("PLAYLOG_BENCH_DIR", "/tmp/playlog-bench-wal")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import asyncpg

from bench.lib import common, costs
from bench.lib.inprocess import new_counts, play, run, running_app


async def run_app(url: str, games: int, budget: int) -> dict[str, int]:
    counts = new_counts()
    async with running_app(url, "wal") as client:
        await asyncio.gather(
            *(play(client, random.Random(n), counts, lambda sent: sent < budget) for n in range(games))
        )
        conn = await asyncpg.connect(url)
        try:  # the projector (in this app) folds what was appended before the app stops
            await costs.settle(conn)
        finally:
            await conn.close()
    return counts


async def measure(url: str, games: int, budget: int) -> None:
    await costs.checkpoint(url)
    await asyncio.sleep(1.0)  # the connection's backend flushes its statistics as it exits
    before = await costs.snapshot_at(url)
    counts = await run_app(url, games, budget)
    await asyncio.sleep(1.0)  # the app's backends flush their statistics as they exit
    after = await costs.snapshot_at(url)
    n = max(1, counts["commands"])
    totals = {k: (after.totals[k] - before.totals[k]) / n for k in before.totals}
    rows: list[list[Any]] = [
        ["commands (errors), games", f"{counts['commands']} ({counts['errors']}), {counts['games']}"],
        ["WAL bytes", f"{totals['wal']:,.0f}"],
        ["WAL records", f"{totals['records']:.1f}"],
        ["WAL full-page images", f"{totals['fpi']:.2f}"],
        ["committed transactions", f"{totals['commits']:.2f}"],
    ]
    entries = 0.0
    for table, (ins, upd, hot, dele, indexes) in sorted(after.tables.items()):
        was = before.tables.get(table, [0.0] * 5)
        ins, upd, hot, dele = (x - y for x, y in zip((ins, upd, hot, dele), was, strict=False))
        if ins + upd + dele == 0:
            continue
        added = (ins + upd - hot) * indexes / n
        entries += added
        rows.append(
            [
                f"  {table}: ins / upd (HOT) / del",
                f"{ins / n:.2f} / {upd / n:.2f} ({hot / n:.2f}) / {dele / n:.2f}; {added:.2f} index entries",
            ]
        )
    rows.append(["index entries added (all tables)", f"{entries:.2f}"])
    for name, (calls, ms) in sorted(after.functions.items()):
        was_calls, was_ms = before.functions.get(name, [0.0, 0.0])
        if calls > was_calls:
            rows.append(
                [f"  {name}: calls, self ms", f"{(calls - was_calls) / n:.2f}, {(ms - was_ms) / n:.3f}"]
            )
    print(f"playlog bench/wal.py  ({common.machine()})")
    common.print_table(
        f"What PostgreSQL writes per command ({games} drivers x {budget} commands)",
        ["figure", "per command"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10, help="concurrent drivers (default 10)")
    parser.add_argument("--commands", type=int, default=60, help="commands per driver (default 60)")
    args = parser.parse_args()
    run("wal", lambda url: measure(url, args.games, args.commands))


if __name__ == "__main__":
    main()
