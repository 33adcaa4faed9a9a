"""A bot load over several instances, and the checks every fault test makes afterwards."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field

import asyncpg
import httpx

from service.tools.bot import GameReport, play_game
from service.tools.client import PlaylogClient, RoundRobin
from tests.command_groups import COMMAND_EVENTS

OPTIONS = {"players": 2, "reaction_window": 0}
MAX_RETRIES = 40  # pauses up to 3 s: rides out a restart of an instance or of the database


@dataclass
class Load:
    """Games played by bots, each request sent to the next instance in turn."""

    urls: list[str]
    games: int
    seed: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    reports: list[GameReport] = field(default_factory=list)
    retries: int = 0

    async def run(self, timeout: float = 200.0) -> None:
        async def count(response: httpx.Response) -> None:
            self.statuses[response.status_code] += 1

        transport = RoundRobin(self.urls)
        async with httpx.AsyncClient(
            base_url=self.urls[0], timeout=30, transport=transport, event_hooks={"response": [count]}
        ) as http:
            api = PlaylogClient(self.urls[0], http=http, max_retries=MAX_RETRIES)
            try:
                self.reports = list(
                    await asyncio.gather(
                        *(
                            play_game(
                                api,
                                "exploding_kittens",
                                OPTIONS,
                                rng=random.Random(self.seed + n),
                                timeout=timeout,
                            )
                            for n in range(self.games)
                        )
                    )
                )
            finally:
                self.retries = api.retries


async def events_in_log(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        count: int = await conn.fetchval("SELECT count(*) FROM events")
        return count
    finally:
        await conn.close()


async def wait_for_events(database_url: str, at_least: int, bound: float = 120.0) -> None:
    """Until the log holds ``at_least`` events: the load is well under way."""
    async with asyncio.timeout(bound):
        while await events_in_log(database_url) < at_least:
            await asyncio.sleep(0.2)


async def check_games(database_url: str, load: Load) -> None:
    """Every game finished and its chain verifies; every acknowledged command is in the log
    exactly once, as the events its acknowledgement reported."""
    assert len(load.reports) == load.games
    for report in load.reports:
        assert report.finished, report
        assert report.verified, report
        assert not report.errors, report.errors
    conn = await asyncpg.connect(database_url)
    try:
        acknowledged = 0
        for report in load.reports:
            for seat, key, version in report.acknowledged:
                command_id = f"seat:{seat}:{key}"
                row = await conn.fetchrow(
                    "SELECT first_seq, last_seq FROM commands WHERE game_id = $1 AND command_id = $2",
                    report.game_id,
                    command_id,
                )
                assert row is not None, f"acknowledged command lost: {command_id}"
                seqs = await conn.fetch(COMMAND_EVENTS, report.game_id, command_id)
                # Applied once: its events are exactly the run the command recorded, ending at the
                # version acknowledged (a second application would add events outside that run).
                assert [r["seq"] for r in seqs] == list(range(row["first_seq"], row["last_seq"] + 1))
                assert row["last_seq"] == version
                acknowledged += 1
        assert acknowledged == sum(r.commands for r in load.reports)
    finally:
        await conn.close()
