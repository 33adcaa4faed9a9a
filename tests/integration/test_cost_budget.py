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
