"""What a command costs, counted (bench/lib/costs.py), next to each figure's limit in bench/budget.toml.

Run: ``.venv/bin/python bench/costs.py [--drivers 10] [--commands 60] [--seed 0]``

The same measurement as tests/integration/test_cost_budget.py (which runs this script and fails
when a figure is over its limit), on a fresh database of a PostgreSQL of its own
(``$PLAYLOG_BENCH_DIR``, default /tmp/playlog-bench-wal), with the round trips listed by query:
where a change's round trips and transactions come from. ``--database-url`` measures on a
migrated database instead (a superuser's: the WAL figure reads the window's records with
pg_walinspect, this database's alone, so other databases of the server may be written
meanwhile); ``--json`` prints the figures as one JSON object.

The measure runs in a process of its own, configured as a served process is (its log lines
below WARNING filtered out before they are built), so that nothing another program set up in
its process (a test session's log capture, its imports and caches) is counted in a command's
calls.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("PLAYLOG_BENCH_DIR", "/tmp/playlog-bench-wal")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common, costs
from bench.lib.inprocess import run


async def measure(url: str, data_dir: Path, args: argparse.Namespace) -> None:
    measured = await costs.measure(
        url, data_dir, drivers=args.drivers, commands=args.commands, seed=args.seed
    )
    if args.json:
        print(measured.to_json())
        return
    print(f"playlog bench/costs.py  ({common.machine()})")
    costs.print_budget(measured, costs.budget())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=10, help="concurrent bot drivers (default 10)")
    parser.add_argument("--commands", type=int, default=60, help="commands per driver (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--database-url", help="measure on this migrated database, not a fresh one")
    parser.add_argument("--data-dir", type=Path, help="the app's files (default: the benches' directory)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    data_dir = args.data_dir or common.DEFAULT_DATA_DIR / "costs"
    run("costs", lambda url: measure(url, data_dir, args), args.database_url)


if __name__ == "__main__":
    main()
