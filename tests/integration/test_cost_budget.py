"""What a command costs stays within bench/budget.toml (issue 51).

The counts of bench/lib/costs.py over its fixed mix of bot games, the app in process: Python
function calls, the round trips a command waits for and all round trips, committed
transactions, WAL bytes and the bytes of the queries' arguments, each per command (the costs paid
per second, not per command, left out). None moves with the machine's load, and the mix deals
the same games in every run; what moves from run to run (how the concurrent appends fall into
batches, the projector's rounds) is what each limit's headroom is for (bench/budget.toml). Every
figure is printed next to its limit (``pytest -s``); bench/costs.py prints the same with the
round trips by query.

The measure runs bench/costs.py in a process of its own, on this test's database, so that it
counts what a served process does: in the test session's process, the session's log capture
(every line built, then dropped) and whatever earlier tests left behind were counted too (1,066
calls a command within the whole suite, against 956-978 alone).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import asyncpg

from bench.lib import costs

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "costs.py"


def test_every_figure_of_a_command_is_within_its_budget(database_url: str, tmp_path: Path) -> None:
    argv = [sys.executable, str(SCRIPT), "--database-url", database_url, "--data-dir", str(tmp_path)]
    done = subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    measured = costs.Costs.from_json(done.stdout.splitlines()[-1])
    limits = costs.budget()
    costs.print_budget(measured, limits)
    assert measured.commands >= 600 and measured.errors == 0
    assert set(limits) == set(costs.FIGURES), "bench/budget.toml gives a limit to each figure, no other"
    assert not costs.over_budget(measured, limits), "over bench/budget.toml: see the table above"


async def _window(url: str, neighbour: str, table: str) -> tuple[float, float]:
    """This database's WAL and the whole server's over a window in which this database inserts
    100 rows into a new table of its own and, when ``neighbour`` is given, another database
    writes, deletes and vacuums 5,000 rows meanwhile (what another test or its autovacuum does)."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, note text)")
    finally:
        await conn.close()
    await costs.checkpoint(url)
    before = await costs.snapshot_at(url)
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"INSERT INTO {table} SELECT n, repeat('x', 100) FROM generate_series(1, 100) n")
        if neighbour:
            other = await asyncpg.connect(neighbour)
            try:
                rows = "SELECT n, repeat('y', 100) AS note FROM generate_series(1, 5000) n"
                await other.execute(f"CREATE TABLE {table} AS {rows}")
                await other.execute(f"DELETE FROM {table}")
                await other.execute(f"VACUUM {table}")
            finally:
                await other.close()
        after = await costs.snapshot(conn)
        return await costs.database_wal(conn, before, after), after.totals["wal"] - before.totals["wal"]
    finally:
        await conn.close()


async def test_the_wal_figure_counts_this_database_alone(database_url: str, empty_database_url: str) -> None:
    """The test databases share one server, so the budget's WAL is this database's records, not
    the server's write position: another database writing meanwhile adds nothing to it."""
    alone, _ = await _window(database_url, "", "wal_alone")
    beside, server = await _window(database_url, empty_database_url, "wal_beside")
    assert 20_000 < alone < 40_000, alone
    assert abs(beside - alone) <= 64, (alone, beside)
    assert server > beside + 500_000, (beside, server)
