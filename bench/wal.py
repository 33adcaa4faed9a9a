"""What PostgreSQL writes per command: WAL bytes, rows, index entries, transactions; load-independent.

Run: ``.venv/bin/python bench/wal.py [--games 10] [--commands 60]``

CPU per command moves with the shared machine's load; what the database is asked to write does
not. The app runs in process (raw ASGI, its lifespan and projector included, as bench/calls.py)
on a fresh database of a PostgreSQL of its own (``$PLAYLOG_BENCH_DIR``, default
/tmp/playlog-bench-wal: WAL is counted for the whole server, so it must be this run's alone).
``--games`` drivers each play bot games (bench/commands.py's driver: an ``Idempotency-Key`` on
every command, ``?view=true``, a new game when one ends) until they have sent ``--commands``
commands. Counted from a ``CHECKPOINT`` before the first game to the end, after the projector has
caught up and the app has shut down (so every backend flushed its statistics): WAL bytes, records
and full-page images (pg_stat_wal), committed transactions, rows written and index entries added
per table (an insert or a non-HOT update adds one entry to each of the table's indexes), and the
calls and time of the PL/pgSQL functions (``track_functions = 'pl'``). Per command, with the
lobby calls of the games (create, join, start) in the share.
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

from bench.lib import common
from bench.lib.inprocess import new_counts, play, run, running_app

_SNAPSHOT = """
SELECT (SELECT pg_current_wal_lsn() - '0/0')::float8 AS wal,
       (SELECT wal_records FROM pg_stat_wal)::float8 AS records,
       (SELECT wal_fpi FROM pg_stat_wal)::float8 AS fpi,
       (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8 AS commits
"""
_TABLES = """
SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,
       (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid AND i.indpred IS NULL) AS indexes
  FROM pg_stat_user_tables t
"""
_FUNCTIONS = "SELECT funcname, calls, self_time FROM pg_stat_user_functions"


async def run_app(url: str, games: int, budget: int) -> dict[str, int]:
    counts = new_counts()
    async with running_app(url, "wal") as client:
        await asyncio.gather(
            *(play(client, random.Random(n), counts, lambda sent: sent < budget) for n in range(games))
        )
        conn = await asyncpg.connect(url)
        try:  # the projector (in this app) folds what was appended before the app stops
            for _ in range(200):
                behind = await conn.fetchval(
                    "SELECT count(*) FROM streams s LEFT JOIN lobby_games g USING (game_id)"
                    " WHERE s.seq > coalesce(g.version, 0)"
                )
                if not behind:
                    break
                await asyncio.sleep(0.05)
        finally:
            await conn.close()
    return counts


async def snapshot(url: str) -> tuple[dict[str, float], dict[str, list[float]], dict[str, list[float]]]:
    conn = await asyncpg.connect(url)
    try:
        totals = dict(await conn.fetchrow(_SNAPSHOT))
        tables = {r[0]: [float(x) for x in r[1:]] for r in await conn.fetch(_TABLES)}
        functions = {r[0]: [float(r[1]), float(r[2])] for r in await conn.fetch(_FUNCTIONS)}
    finally:
        await conn.close()
    return totals, tables, functions


async def measure(url: str, games: int, budget: int) -> None:
    conn = await asyncpg.connect(url)
    try:
        database = await conn.fetchval("SELECT current_database()")
        await conn.execute(f"ALTER DATABASE \"{database}\" SET track_functions = 'pl'")
        await conn.execute("CHECKPOINT")
    finally:
        await conn.close()
    before = await snapshot(url)
    counts = await run_app(url, games, budget)
    await asyncio.sleep(1.0)  # the app's backends flush their statistics as they exit
    after = await snapshot(url)
    n = max(1, counts["commands"])
    totals = {k: (after[0][k] - before[0][k]) / n for k in before[0]}
    rows: list[list[Any]] = [
        ["commands (errors), games", f"{counts['commands']} ({counts['errors']}), {counts['games']}"],
        ["WAL bytes", f"{totals['wal']:,.0f}"],
        ["WAL records", f"{totals['records']:.1f}"],
        ["WAL full-page images", f"{totals['fpi']:.2f}"],
        ["committed transactions", f"{totals['commits']:.2f}"],
    ]
    entries = 0.0
    for table, (ins, upd, hot, dele, indexes) in sorted(after[1].items()):
        was = before[1].get(table, [0.0] * 5)
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
    for name, (calls, ms) in sorted(after[2].items()):
        was_calls, was_ms = before[2].get(name, [0.0, 0.0])
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
