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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common
import asyncpg
import commands as closed_loop
import msgspec
from calls import Asgi

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


async def play(client: Asgi, rng: random.Random, budget: int, counts: dict[str, int]) -> None:
    """Bot games until ``budget`` commands are sent."""
    sent = 0
    while sent < budget:
        players = rng.randint(2, 5)
        created = await client.call(
            "POST",
            "/games",
            {"kind": "exploding_kittens", "options": {"players": players, "reaction_window": 0}},
        )
        game = created["game_id"]
        tokens = [
            (await client.call("POST", f"/games/{game}/seats", {"name": f"bot-{n}"}))["token"]
            for n in range(players)
        ]
        await client.call("POST", f"/games/{game}/start", token=created["host_token"])
        counts["games"] += 1
        view = await client.call("GET", f"/games/{game}/seats/0/view", token=tokens[0])
        while sent < budget and view["status"] != "finished":
            choice = None
            for seat in closed_loop.actors(view["view"]["public"], players):
                if view["seat"] != seat:
                    view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                legal = [c for c in view["view"]["legal_commands"] if c["type"] not in closed_loop.AVOIDED]
                if legal:
                    choice = (seat, rng.choice(legal))
                    break
            if choice is None:
                break
            seat, command = choice
            path = f"/games/{game}/seats/{seat}/commands?view=true"
            key = f"{rng.getrandbits(64):016x}"
            status, data = await client.request("POST", path, msgspec.json.encode(command), tokens[seat], key)
            sent += 1
            counts["commands"] += 1
            if status >= 400:
                counts["errors"] += 1
                view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                continue
            view = msgspec.json.decode(data)["view"]


async def run_app(url: str, games: int, budget: int) -> dict[str, int]:
    from service.app import create_app
    from service.config import Settings

    settings = Settings(
        database_url=url,
        data_dir=common.DEFAULT_DATA_DIR / "wal",
        jwt_secret="bench-secret-bench-secret-bench-secret",
        log_format="json",
        rate_limit_writes="off",
        rate_limit_commands="100000/second",
    )
    app = create_app(settings)
    lifespan_in: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan_out: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, lifespan_in.get, lifespan_out.put)
    )
    await lifespan_in.put({"type": "lifespan.startup"})
    await lifespan_out.get()
    client = Asgi(app)
    counts = {"commands": 0, "errors": 0, "games": 0}
    await asyncio.gather(*(play(client, random.Random(n), budget, counts) for n in range(games)))
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
    await lifespan_in.put({"type": "lifespan.shutdown"})
    await lifespan
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
    import logging

    from service import log as logs

    logs.configure("json", level=logging.WARNING)
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "wal")
    try:
        common.install_uvloop()
        asyncio.run(measure(url, args.games, args.commands))
    finally:
        common.drop_database(admin, name)


if __name__ == "__main__":
    main()
