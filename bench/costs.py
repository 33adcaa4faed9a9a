"""What a command costs, counted (bench/lib/costs.py), next to each figure's limit in bench/budget.toml.

Run: ``.venv/bin/python bench/costs.py [--drivers 10] [--commands 60] [--seed 0]``

The same measurement as tests/integration/test_cost_budget.py (which fails when a figure is over
its limit), on a fresh database of a PostgreSQL of its own (``$PLAYLOG_BENCH_DIR``, default
/tmp/playlog-bench-wal: WAL is counted for the whole server, so it must be this run's alone),
with the round trips listed by query: where a change's round trips and transactions come from.
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


async def measure(url: str, drivers: int, commands: int, seed: int) -> None:
    measured = await costs.measure(
        url, common.DEFAULT_DATA_DIR / "costs", drivers=drivers, commands=commands, seed=seed
    )
    print(f"playlog bench/costs.py  ({common.machine()})")
    costs.print_budget(measured, costs.budget())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--drivers", type=int, default=10, help="concurrent bot drivers (default 10)")
    parser.add_argument("--commands", type=int, default=60, help="commands per driver (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    run("costs", lambda url: measure(url, args.drivers, args.commands, args.seed))


if __name__ == "__main__":
    main()
