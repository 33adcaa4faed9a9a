"""Python function calls per command and per ``GET /healthz``: a cost that does not move with load.

Run: ``.venv/bin/python bench/calls.py [--games 10] [--seconds 10] [--save profile.pstats]``

On a shared machine CPU seconds per request move by up to 2x between identical runs; the number
of Python function calls the service makes does not. The app is called in process through raw
ASGI (no server, no client sockets; its lifespan runs as under uvicorn), on a fresh database,
with the bot games of bench/commands.py: each command with an ``Idempotency-Key`` and
``?view=true``, a seat's view read when another seat acts, and a new game when one ends. cProfile
counts every call in the process during the measured window (the driver's own calls are a few
percent), then during 200 ``GET /healthz``. Before that, a window of the same length without the
profiler gives the process's CPU per command and per healthz (these do move with the load). Use
it before and after a change to the service (``PLAYLOG_BENCH_SERVICE_ROOT``, see
bench/README.md); ``--save`` keeps the commands' profile, to see where the calls go
(``python -m pstats``).
"""

from __future__ import annotations

import argparse
import cProfile
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common, costs
from bench.lib.inprocess import cpu_of_play, play_for, run, running_app


async def measure(url: str, games: int, seconds: float, save: str | None = None) -> None:
    async with running_app(url, "calls") as client:
        await play_for(client, games, 0, 2)  # warm-up
        # First without the profiler: the process's CPU per command (the driver's share in it)
        # and per healthz. CPU moves with the machine's load; the calls below do not.
        _, cpu_per_command, cpu_per_healthz = await cpu_of_play(client, games, seconds)
        profile = cProfile.Profile()
        profile.enable()
        counts = await play_for(client, games, 100, seconds)
        profile.disable()
        if save:  # for pstats / snakeviz: where the calls go, not only how many
            profile.dump_stats(save)
        healthz = cProfile.Profile()
        healthz.enable()
        for _ in range(200):
            await client.request("GET", "/healthz")
        healthz.disable()
    per_command = costs.calls(profile) / max(1, counts["commands"])
    per_healthz = costs.calls(healthz) / 200
    requests = (counts["commands"] + counts["other"]) / max(1, counts["commands"])
    print(f"playlog bench/calls.py  ({common.machine()})")
    common.print_table(
        f"Python function calls, app in process, {games} games, {seconds:g} s",
        ["figure", "value"],
        [
            ["commands (errors)", f"{counts['commands']} ({counts['errors']})"],
            ["requests per command (the command, views, lobby)", f"{requests:.2f}"],
            ["calls per command, its views and lobby share included", f"{per_command:,.0f}"],
            ["calls per GET /healthz (the floor)", f"{per_healthz:,.0f}"],
            [
                "per command / (floor x requests per command)",
                f"{per_command / (per_healthz * requests):.2f}x",
            ],
            ["CPU ms per command, no profiler (the driver's share in it)", f"{cpu_per_command * 1000:.3f}"],
            ["CPU ms per GET /healthz, no profiler", f"{cpu_per_healthz * 1000:.3f}"],
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--save", help="write the commands' profile here (pstats format)")
    args = parser.parse_args()
    run("calls", lambda url: measure(url, args.games, args.seconds, args.save))


if __name__ == "__main__":
    main()
