"""The commands bench through HAProxy in front of 1, 2 and 3 instances, next to one instance
reached directly, on one database.

Run: ``.venv/bin/python bench/balancer.py [--games 30] [--seconds 10] [--instances 1,2,3]``
or ``.venv/bin/python bench/balancer.py --read-your-writes [--instances 3] [--rounds 3]``: round
robin in front of N instances, each seat's view asked without, then with, ``min_version`` (the
seat's last version seen: read your writes on every instance), commands/s side by side.

Each row gets a fresh database on the embedded PostgreSQL, N ``playlog serve`` processes (one
worker each) and Debian's HAProxy with docker/haproxy.cfg on loopback (tests/faults/balancer.py
rewrites only its bind and server lines); the first row is one instance without HAProxy, the
baseline. K concurrent bot games are driven as in bench/commands.py (the same driver: a seat is
asked for its view only when it may act; only ``POST .../commands`` count). CPU seconds are read
per party over the measured window: PostgreSQL, the instances together, HAProxy, the load
generator.

One machine cannot show scale-out: every instance, PostgreSQL, HAProxy and the driver share the
same cores, so more instances only add processes competing for them. What this shows is what the
balancer costs per command, that the work spreads evenly, and how much CPU a command takes from
each party: the figures docs/scaling.md divides into a real machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from commands import drive  # the commands bench's driver (bench/commands.py)

from bench.lib import common
from tests.faults.balancer import HAProxy, haproxy_binary


def run(
    admin: str, instances: int, balanced: bool, args: argparse.Namespace, read_your_writes: bool = False
) -> dict[str, Any]:
    url, name = common.fresh_database(admin, f"balancer{instances}")
    scratch = Path(tempfile.mkdtemp(prefix="playlog-bench-balancer-"))
    try:
        with ExitStack() as stack:
            services = [
                stack.enter_context(common.Service(url, data_dir=scratch / f"instance{n}", workers=1))
                for n in range(instances)
            ]
            port = services[0].port
            proxy = None
            if balanced:
                proxy = HAProxy(scratch, common.free_port(), [s.port for s in services])
                stack.callback(proxy.close)
                proxy.wait_all_up()
                port = int(proxy.url.rsplit(":", 1)[1])

            def cpu() -> dict[str, float]:
                used = {
                    "postgres": common.postgres_cpu_seconds(url),
                    "instances": sum(common.tree_cpu_seconds(s.pid) for s in services),
                    "load generator": common.own_cpu_seconds(),
                }
                if proxy is not None:
                    used["haproxy"] = common.tree_cpu_seconds(proxy.proc.pid)
                return used

            stats, elapsed = asyncio.run(
                drive(port, args.games, args.seconds, args.warmup, args.seed, cpu, read_your_writes)
            )
    finally:
        common.drop_database(admin, name)
        shutil.rmtree(scratch, ignore_errors=True)
    ms = [x * 1000 for x in stats.latencies]
    per_command = {party: 1000 * used / max(stats.commands, 1) for party, used in stats.cpu.items()}
    refused = sum(1 for e in stats.errors if not e.startswith(("(warm-up)", "driver:")))
    return {
        "rate": stats.commands / elapsed if elapsed else 0.0,
        "accepted": (stats.commands - refused) / elapsed if elapsed else 0.0,
        "p50": common.percentile(ms, 50),
        "p99": common.percentile(ms, 99),
        "errors": len(stats.errors),
        "first errors": stats.errors[:3],
        "cpu": per_command,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=30, help="K concurrent games (default 30)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--instances", default="1,2,3", help="instance counts behind HAProxy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="with --read-your-writes: runs of each")
    parser.add_argument(
        "--read-your-writes",
        action="store_true",
        help="instead: N instances (the largest of --instances) behind HAProxy, each seat's view"
        " asked without and with min_version, alternately, side by side",
    )
    args = parser.parse_args()
    if haproxy_binary() is None:
        sys.exit("haproxy is not installed: apt-get install haproxy")
    common.install_uvloop()
    admin = common.start_postgres()
    if args.read_your_writes:
        read_your_writes(admin, max(int(x) for x in args.instances.split(",")), args)
        return
    rows: list[tuple[str, dict[str, Any]]] = [("1 instance, direct (baseline)", run(admin, 1, False, args))]
    for n in (int(x) for x in args.instances.split(",")):
        rows.append((f"{n} instance{'s' if n > 1 else ''} behind HAProxy", run(admin, n, True, args)))
    base = rows[0][1]
    print(f"playlog bench/balancer.py  ({common.machine()})")
    print(f"K={args.games} games, {args.seconds:g} s measured per row; one machine: no scale-out to see")
    common.print_table(
        "Commands through HAProxy vs one instance reached directly",
        ["setup", "commands/s", "vs baseline", "p50 ms", "p99 ms", "errors"],
        [
            [label, r["rate"], f"{r['rate'] / base['rate']:.2f}x", r["p50"], r["p99"], r["errors"]]
            for label, r in rows
        ],
    )
    for label, r in rows:
        if r["errors"]:
            print(f"{label}: first errors: {r['first errors']}")
    parties = ["postgres", "instances", "haproxy", "load generator"]
    common.print_table(
        "CPU per command in the measured window (ms; views and lobby calls included)",
        ["setup", *parties, "all"],
        [
            [label, *(f"{r['cpu'].get(p, 0.0):.3f}" for p in parties), f"{sum(r['cpu'].values()):.3f}"]
            for label, r in rows
        ],
    )


def read_your_writes(admin: str, instances: int, args: argparse.Namespace) -> None:
    """Round robin without and with ``min_version`` on each seat's views, ``--rounds`` times
    each, alternately (a drift of the shared machine falls on both columns). Without it a view
    may come from an instance that has not seen the seat's own last command, and the driver then
    sends commands the service refuses (409): those count in commands/s, not in accepted/s."""
    runs: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    for _ in range(args.rounds):
        for with_min_version in (False, True):
            runs[with_min_version].append(
                run(admin, instances, True, args, read_your_writes=with_min_version)
            )

    def median(flag: bool, key: str) -> float:
        return statistics.median(r[key] for r in runs[flag])

    print(f"playlog bench/balancer.py --read-your-writes  ({common.machine()})")
    print(f"K={args.games} games, {instances} instances behind HAProxy, {args.seconds:g} s a run")
    common.print_table(
        f"Commands through HAProxy (round robin), median of {args.rounds} runs each",
        ["views asked", "commands/s", "accepted/s", "accepted/s of each run", "refused"],
        [
            [
                f"{'with' if flag else 'without'} min_version",
                median(flag, "rate"),
                median(flag, "accepted"),
                " ".join(f"{r['accepted']:.0f}" for r in runs[flag]),
                sum(r["errors"] for r in runs[flag]),
            ]
            for flag in (False, True)
        ],
    )
    print(f"accepted/s, with / without: {median(True, 'accepted') / median(False, 'accepted'):.3f}")


if __name__ == "__main__":
    main()
