"""Resident memory of the service per cached game.

Run: ``.venv/bin/python bench/memory.py [--games 1000]``

Starts ``playlog serve`` (uvicorn, one process) on a fresh database of the embedded PostgreSQL,
warms it up with a few games (imports, pools, first requests), reads its resident set size
(VmRSS), then creates, fills and starts ``--games`` Exploding Kittens games through HTTP (2-5
players, both editions: a started game holds its dealt hands and draw pile) and asks one seat of
each for its view so that every game sits in the service's cache (``PLAYLOG_CACHE_GAMES``, 2,000 by
default). Reads VmRSS again: (after - before) / games is the cost of one cached game, including
everything the service keeps per game (cached table, locks) and the allocator's slack.
Target: under 100 KB a game.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common
from bench.lib.common import Connection

TARGET_KB = 100.0


async def make_games(port: int, count: int, concurrency: int, seed: int) -> int:
    rng = random.Random(seed)
    queue = list(range(count))
    made = 0

    async def worker() -> None:
        nonlocal made
        conn = Connection(port)
        try:
            while queue:
                queue.pop()
                players = rng.randint(2, 5)
                options = {"players": players, "reaction_window": 0,
                           "edition": rng.choice(["2022", "classic"])}  # fmt: skip
                created = await conn.call("POST", "/games", {"kind": "exploding_kittens", "options": options})
                game = created["game_id"]
                token = None
                for n in range(players):
                    seat = await conn.call("POST", f"/games/{game}/seats", {"name": f"bot-{n}"})
                    token = token or seat["token"]
                await conn.call("POST", f"/games/{game}/start", token=created["host_token"])
                await conn.call("GET", f"/games/{game}/seats/0/view", token=token)
                made += 1
        finally:
            await conn.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--warmup-games", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    common.install_uvloop()

    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "memory")
    try:
        with common.Service(url, data_dir=common.DEFAULT_DATA_DIR / "service") as service:
            asyncio.run(make_games(service.port, args.warmup_games, args.concurrency, args.seed + 1))
            time.sleep(1.0)
            before = service.rss_kb()
            started = time.perf_counter()
            made = asyncio.run(make_games(service.port, args.games, args.concurrency, args.seed))
            elapsed = time.perf_counter() - started
            time.sleep(1.0)
            after = service.rss_kb()
    finally:
        common.drop_database(admin, name)

    per_game = (after - before) / made
    print(f"playlog bench/memory.py  ({common.machine()})")
    common.print_table(
        "Resident memory of the service with cached games",
        ["figure", "value", "target"],
        [
            ["RSS after warm-up (MB)", before / 1024, ""],
            [f"RSS with {made} more cached games (MB)", after / 1024, ""],
            [
                "per cached game (KB)",
                per_game,
                f"< {TARGET_KB:g} {'MET' if per_game < TARGET_KB else 'MISSED'}",
            ],
            ["games set up per second (create, join, start, view)", made / elapsed, ""],
        ],
    )


if __name__ == "__main__":
    main()
