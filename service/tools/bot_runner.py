"""``playlog bots``: N bot games against a running server, a progress bar and a summary."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from service.tools.bot import GameReport, play_game
from service.tools.client import ApiError, PlaylogClient, RoundRobin

# A request is sent again after a transport error or a 5xx, up to this many times (pauses of
# 0.2 s doubling to 3 s, about 20 s in all): long enough to ride out an instance's restart or
# the database's. Commands keep their Idempotency-Key, so none is ever applied twice.
MAX_RETRIES = 10


async def run_bots(
    url: str | Sequence[str],
    kind: str,
    options: dict[str, Any],
    count: int,
    concurrency: int,
    seed: int | None = None,
    *,
    retries: int = MAX_RETRIES,
    first_pause: float = 0.2,
    max_pause: float = 3.0,
) -> bool:
    """``retries``, ``first_pause`` and ``max_pause``: the backoff of a request sent again (tests
    shorten it: the pauses are the client's, PlaylogClient)."""
    console = Console(stderr=True)
    rng = random.Random(seed)
    reports: list[GameReport] = []
    failures: list[str] = []
    gate = asyncio.Semaphore(max(1, concurrency))
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=max(10, concurrency * 8))
    urls = [url] if isinstance(url, str) else list(url)
    transport = RoundRobin(urls, limits=limits)  # several instances: each request to the next
    async with httpx.AsyncClient(base_url=urls[0], timeout=60, transport=transport) as http:
        api = PlaylogClient(
            urls[0], http=http, max_retries=retries, first_pause=first_pause, max_pause=max_pause
        )
        with Progress(
            TextColumn("[bold]bot games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[commands]} commands"),
            console=console,
        ) as progress:
            task = progress.add_task("games", total=count, commands=0)

            async def one(n: int) -> None:
                async with gate:
                    try:
                        report = await play_game(api, kind, options, rng=random.Random(rng.random() + n))
                        reports.append(report)
                    except (ApiError, httpx.HTTPError) as exc:
                        failures.append(f"{type(exc).__name__}: {exc}")
                    progress.update(task, advance=1, commands=sum(r.commands for r in reports))

            await asyncio.gather(*(one(n) for n in range(count)))
    elapsed = time.perf_counter() - started
    commands = sum(r.commands for r in reports)
    unfinished = [r for r in reports if not r.finished]
    unverified = [r for r in reports if r.finished and not r.verified]
    errors = sum(len(r.errors) for r in reports) + len(failures)
    summary = Table(title=f"{kind}, {options.get('players')} players")
    columns = ("games", "finished", "commands", "errors", "retries", "chains verified", "commands/s")
    for column in columns:
        summary.add_column(column, justify="right")
    summary.add_row(
        str(count),
        str(count - len(unfinished) - len(failures)),
        str(commands),
        str(errors),
        str(api.retries),
        str(len(reports) - len(unverified) - len(unfinished)),
        f"{commands / elapsed:.1f}" if elapsed else "-",
    )
    Console().print(summary)
    for report in unfinished + unverified:
        console.print(f"[red]game {report.game_id}: finished={report.finished} verified={report.verified}")
        for error in report.errors[:5]:
            console.print(f"  {error}")
    for failure in failures[:5]:
        console.print(f"[red]{failure}")
    return not unfinished and not unverified and not failures
