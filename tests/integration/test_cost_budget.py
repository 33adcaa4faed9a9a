"""What a command costs stays within bench/budget.toml (issue 51).

The counts of bench/lib/costs.py over its fixed mix of bot games, the app in process: Python
function calls, the round trips a command waits for and all round trips, committed
transactions, WAL bytes and the bytes of the queries' arguments, each per command (the costs paid
per second, not per command, left out). None moves with the machine's load; what moves from run
to run (how the concurrent appends fall into batches, the projector's rounds, which games the
server's seeds deal) is what each limit's headroom is for (bench/budget.toml). Every figure is
printed next to its limit (``pytest -s``); bench/costs.py prints the same with the round trips
by query.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import uvloop

from bench.lib import costs


def test_every_figure_of_a_command_is_within_its_budget(database_url: str, tmp_path: Path) -> None:
    # On uvloop, as the service runs, in a thread of its own: the test's loop is not this one.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        measured = thread.submit(uvloop.run, costs.measure(database_url, tmp_path)).result()
    limits = costs.budget()
    costs.print_budget(measured, limits)
    assert measured.commands >= 600 and measured.errors == 0
    assert set(limits) == set(costs.FIGURES), "bench/budget.toml gives a limit to each figure, no other"
    assert not costs.over_budget(measured, limits), "over bench/budget.toml: see the table above"
